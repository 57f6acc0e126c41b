"""A fitted model: the saved model `rankone model` writes (docs/models.md), scoring arrays."""
import json

import numpy as np

from . import _rankone


class Model:
    """A fitted or loaded RankOne model.

    ``header`` is model.json's content (estimator, operator, data configuration, shape), ``arrays``
    its arrays (``left``, ``right``, ``w`` and the data preparation), ``status``, ``message`` and
    ``iterations`` how the fit ended (``"loaded"`` for a model read from a folder).
    """

    def __init__(self, fitted):
        self._fitted = fitted

    status = property(lambda self: self._fitted.status)
    message = property(lambda self: self._fitted.message)
    iterations = property(lambda self: self._fitted.iterations)
    #: Wall seconds of the fit's trial in the core (0 for a loaded model): what the Python layer adds is the rest.
    core_seconds = property(lambda self: self._fitted.core_seconds)

    @property
    def header(self):
        return json.loads(self._fitted.header)

    @property
    def arrays(self):
        return self._fitted.arrays()

    @property
    def diagnostics(self):
        return json.loads(self._fitted.diagnostics)

    def predict(self, X):
        """Scores of feature rows: a float64 array (n_samples,) — or (n_samples, n_labels) for a
        one-bit multi-label model. X: a C-contiguous float64 array or a scipy.sparse CSR matrix
        with sorted indices, as rankone.sklearn's estimators pass it."""
        return self._fitted.predict_features(*feature_arrays(X))

    def predict_entries(self, rows, cols):
        """Scores of matrix entries (rows[i], cols[i]) of a completion model."""
        return self._fitted.predict_entries(np.ascontiguousarray(rows, dtype=np.int32),
                                            np.ascontiguousarray(cols, dtype=np.int32))

    def save(self, folder):
        """Writes the model folder (model.json and one .npy per array), as `rankone model` does."""
        self._fitted.save(str(folder))

    def __getstate__(self):
        return {"model": self._fitted.to_json()}

    def __setstate__(self, state):
        self._fitted = _rankone.from_json(state["model"])


def load_model(folder):
    """The model in a folder `rankone model`, `rankone fit` or Model.save wrote (checksums checked)."""
    return Model(_rankone.load_model(str(folder)))


def feature_arrays(X):
    """The arguments the core takes for feature rows: (values, indices, indptr, n, d); no copy of a
    C-contiguous float64 array or of a CSR matrix with sorted int32/int64 indices."""
    import scipy.sparse as sp
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_sorted_indices:
            X = X.sorted_indices()
        data = np.ascontiguousarray(X.data, dtype=np.float64)
        indices, indptr = X.indices, X.indptr
        if indices.dtype != indptr.dtype:  # one index width for both (scipy may mix them)
            indices, indptr = indices.astype(np.int64), indptr.astype(np.int64)
        return data, indices, indptr, X.shape[0], X.shape[1]
    X = np.ascontiguousarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"expected a 2-d array of feature rows, found {X.ndim} dimensions")
    return X, None, None, X.shape[0], X.shape[1]
