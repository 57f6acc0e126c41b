"""scikit-learn estimators, one per RankOne estimator plugin (built-in or from RANKONE_PLUGIN_PATH).

Each class is named after its plugin in CamelCase (``gfm_one_pass`` → ``GfmOnePass``); its
constructor parameters are the plugin's declared schema (`rankone describe NAME`), with the same
defaults and documentation, plus ``random_state`` (the trial seed: the same fit as
``rankone fit NAME … seed=S``) and ``isolated``. A parameter left ``None`` takes the schema's
default; a bad value raises ValueError with the schema's message when ``fit`` is called.

Three kinds, by the operator that serves the plugin's model:

- regressors (feature rows → a number; ``fit(X, y)``, dense numpy or scipy.sparse CSR; the
  one-pass ones also ``partial_fit``: successive calls are one stream of rows),
- completion estimators (``fit(X, y)`` with X an (n, 2) array of (row, column) pairs),
- one-bit multi-label estimators (``fit(X, Y)`` with Y an (n, n_labels) 0/1 or ±1 indicator).

A fit runs in this process (the GIL is released) and is not isolated: a plugin that crashes takes
the interpreter with it. ``isolated=True`` runs the fit as ``rankone fit`` runs its trial, in a
supervised process of its own, on the data written to a temporary file (the same numbers, read
back exactly).
"""
import inspect
import json
import keyword
import pathlib
import subprocess
import tempfile
import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from . import _rankone
from .models import Model, feature_arrays, load_model
from .study import cli

_EXTRA = ("random_state", "isolated")


def _jsonable(value):
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


class _RankOneEstimator(BaseEstimator):
    """What every generated class shares: its plugin, its parameters and how a fit runs."""

    _plugin = {}
    _parameters = {}  # Python name → schema name

    def _reference(self):
        """The estimator as an experiment names it, validated by the plugin's schema."""
        reference = {"name": self._plugin["name"]}
        for python_name, name in self._parameters.items():
            value = getattr(self, python_name)
            if value is not None:
                reference[name] = _jsonable(value)
        _rankone.validate("estimator", json.dumps(reference))  # ValueError with the schema's message
        return reference

    def _seed(self):
        seed = self.random_state
        if seed is None:
            return 1  # the CLI's default experiment seed
        if isinstance(seed, np.random.RandomState):
            return int(seed.randint(np.iinfo(np.int32).max))
        if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
            return int(seed)
        raise ValueError(f"random_state: expected None, a non-negative integer (the trial seed) or a "
                         f"numpy RandomState, found {seed!r}")

    def _fit(self, in_process, write_data, data_settings):
        """The model of one fit: `in_process(reference_json, seed)` here, or with isolated=True the
        CLI's supervised trial on the file `write_data(path)` writes, read with `data_settings`."""
        reference = self._reference()
        seed = self._seed()
        if not self.isolated:
            return Model(in_process(json.dumps(reference), seed))
        with tempfile.TemporaryDirectory(prefix="rankone-fit-") as folder:
            train = pathlib.Path(folder) / "train.data"
            write_data(train)
            settings = [f"{k}={json.dumps(_jsonable(v))}" for k, v in reference.items() if k != "name"]
            settings += [f"data.{k}={json.dumps(v)}" for k, v in data_settings.items()] + [f"seed={seed}"]
            # The file is its own test file: every record trains (test_fraction is then 0), as here.
            command = [cli(), "fit", reference["name"], str(train), "--test", str(train), "--out",
                       str(pathlib.Path(folder) / "fit"), "--quiet"] + settings
            done = subprocess.run(command, capture_output=True, text=True)
            if done.returncode == 2:
                raise ValueError(done.stderr.strip())
            if done.returncode != 0:
                raise RuntimeError(f"the isolated fit ended with code {done.returncode}: {done.stderr.strip()}")
            return load_model(pathlib.Path(folder) / "fit" / "model")

    def _more_tags(self):
        # A sensing method is not a universal regressor: scikit-learn's score-threshold checks on
        # arbitrary small data do not apply (docs/python.md lists the checks and why).
        return {"poor_score": True}


def _write_libsvm(path, X, targets):
    """Feature rows in libsvm text, 0-based, values exact (17 significant digits)."""
    import scipy.sparse as sp
    X = sp.csr_matrix(X)
    with open(path, "w") as f:
        for i in range(X.shape[0]):
            row = X.indptr[i], X.indptr[i + 1]
            features = " ".join(f"{j}:{v:.17g}" for j, v in zip(X.indices[row[0]:row[1]], X.data[row[0]:row[1]]))
            f.write(f"{targets(i)} {features}\n")


class RankOneRegressor(RegressorMixin, _RankOneEstimator):
    """Fits feature rows to numbers: ``fit(X, y)``, ``predict(X)``."""

    def fit(self, X, y):
        self.__dict__.pop("_stream", None)  # a fit starts over, whatever partial_fit was given
        for flag in ("_stream_lost", "_stream_ended"):
            self.__dict__.pop(flag, None)
        # Non-finite values are found by the core as it copies each batch (ValueError): no pass of their own.
        X, y = self._validate_data(X, y, accept_sparse="csr", dtype=np.float64, order="C", y_numeric=True,
                                   force_all_finite=False)
        values, indices, indptr, n, d = feature_arrays(X)
        y = np.ascontiguousarray(y, dtype=np.float64)
        self.model_ = self._fit(
            lambda reference, seed: _rankone.fit_features(reference, seed, values, indices, indptr, n, d, y),
            lambda path: _write_libsvm(path, X, lambda i: f"{y[i]:.17g}"),
            {"indexing": "zero", "dimension": d, "design": "dense" if indices is None else "sparse"})
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        X = self._validate_data(X, accept_sparse="csr", dtype=np.float64, order="C", reset=False)
        return self.model_.predict(X)


class _PartialFit:
    """partial_fit, for the regressors whose algorithm is one-pass (their registration says so).

    The rows of successive calls are one stream: the estimator runs on a thread of its own and draws
    its batches from the rows given so far, so the batches — and the model — are those of the rows'
    concatenation whatever the calls' sizes. A call returns once the estimator waits for rows it
    has not been given; ``model_`` is its current model (none until its start has had its first
    batch: ``batch_size`` rows, 10 000 by default). The estimator's own rules end the fit
    (``max_iterations``, ``tolerance``): rows given after that are not used, with a warning.
    ``fit`` starts over.
    """

    def partial_fit(self, X, y):
        stream = getattr(self, "_stream", None)
        if getattr(self, "_stream_lost", False):
            raise ValueError("this estimator was copied (pickled) in the middle of its partial_fit stream, which "
                             "cannot be copied: fit it, or start a fresh one")
        X, y = self._validate_data(X, y, reset=stream is None, accept_sparse="csr", dtype=np.float64, order="C",
                                   y_numeric=True, force_all_finite=False)
        values, indices, indptr, n, d = feature_arrays(X)
        if stream is None:
            if self.isolated:
                raise ValueError("partial_fit runs in this process: isolated=True applies to fit only")
            stream = self._stream = _rankone.Stream(json.dumps(self._reference()), self._seed(), d, indices is not None)
            self._stream_sparse = indices is not None
        elif (indices is not None) != self._stream_sparse:
            raise ValueError("partial_fit: give X sparse in every call or dense in every call, as in the first")
        fitted, status, message, iterations, waiting = stream.give(values, indices, indptr, n, d,
                                                                   np.ascontiguousarray(y, dtype=np.float64))
        if fitted is not None:
            self.model_ = Model(fitted)
        if status != "running":
            if getattr(self, "_stream_ended", False):
                warnings.warn(f"{type(self).__name__}: the fit has ended ({status}: {message}); the rows given "
                              f"since are not used", RuntimeWarning, stacklevel=2)
            self._stream_ended = True
        elif fitted is None:
            warnings.warn(f"{type(self).__name__}: no model yet: its start waits for {waiting} more rows "
                          f"(batch_size)", RuntimeWarning, stacklevel=2)
        return self

    def __getstate__(self):
        state = super().__getstate__()
        if state.pop("_stream", None) is not None:
            state["_stream_lost"] = True
        return state


class RankOneCompletion(RegressorMixin, _RankOneEstimator):
    """Completes a matrix: ``fit(X, y)`` with X an (n, 2) integer array of (row, column) entries
    and y their values; ``predict(X)`` the values at other entries. ``shape``: the matrix's
    (rows, columns), default one past the largest row and column seen."""

    def fit(self, X, y):
        X, y = self._validate_data(X, y, dtype=None, y_numeric=True)
        rows, cols = _entries(X)
        shape = self.shape if self.shape is not None else (int(rows.max()) + 1, int(cols.max()) + 1)
        y = np.ascontiguousarray(y, dtype=np.float64)
        self.model_ = self._fit(
            lambda reference, seed: _rankone.fit_entries(reference, seed, rows, cols, shape[0], shape[1], y),
            lambda path: np.savetxt(path, np.column_stack([rows, cols, y]), fmt=["%d", "%d", "%.17g"]),
            {"ids": "zero_based", "users": int(shape[0]), "items": int(shape[1])})
        return self

    def predict(self, X):
        check_is_fitted(self, "model_")
        X = self._validate_data(X, dtype=None, reset=False)
        rows, cols = _entries(X)
        return self.model_.predict_entries(rows, cols)


def _entries(X):
    if X.shape[1] != 2 or not np.all(np.equal(np.mod(X, 1), 0)) or np.any(X < 0):
        raise ValueError("expected X of shape (n_samples, 2): the (row, column) of each entry, non-negative integers")
    X = X.astype(np.int32)
    return np.ascontiguousarray(X[:, 0]), np.ascontiguousarray(X[:, 1])


class RankOneMultiLabel(ClassifierMixin, _RankOneEstimator):
    """One-bit multi-label learning: ``fit(X, Y)`` with Y an (n, n_labels) indicator (0/1 or ±1),
    every label observed; ``decision_function(X)`` the scores, ``predict(X)`` their signs as 0/1."""

    def fit(self, X, Y):
        X, Y = self._validate_data(X, Y, accept_sparse="csr", dtype=np.float64, order="C", multi_output=True)
        if Y.ndim != 2:
            raise ValueError("expected Y of shape (n_samples, n_labels): a label indicator matrix")
        labels = np.ascontiguousarray(np.where(Y > 0, 1.0, -1.0))
        values, indices, indptr, n, d = feature_arrays(X)
        self.n_labels_ = labels.shape[1]
        self.model_ = self._fit(
            lambda reference, seed: _rankone.fit_labels(reference, seed, values, indices, indptr, n, d, labels),
            lambda path: _write_libsvm(path, X, lambda i: ",".join(str(j) for j in np.flatnonzero(labels[i] > 0))),
            {"indexing": "zero", "dimension": d, "design": "dense" if indices is None else "sparse",
             "classes": self.n_labels_, "label_view": "full"})
        return self

    def decision_function(self, X):
        check_is_fitted(self, "model_")
        X = self._validate_data(X, accept_sparse="csr", dtype=np.float64, order="C", reset=False)
        return self.model_.predict(X)

    def predict(self, X):
        return (self.decision_function(X) > 0).astype(int)

    def _more_tags(self):
        return {"multilabel": True, "poor_score": True}


_KINDS = {"entry": RankOneCompletion, "single_label": RankOneMultiLabel}


def _camel(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))


def _python_name(name):
    """A schema name as a keyword argument (`lambda` → `lambda_`)."""
    return name + "_" if keyword.iskeyword(name) or name in _EXTRA or name == "shape" else name


def _make_class(plugin):
    base = _KINDS.get(plugin["operator"]["name"], RankOneRegressor)
    bases = (_PartialFit, base) if base is RankOneRegressor and plugin["one_pass"] else (base,)
    parameters, defaults, docs = {}, {}, []
    for p in plugin["parameters"]:
        python_name = _python_name(p["name"])
        default = p.get("default")
        # A default that is a list or an object stays the schema's (None here): scikit-learn's
        # parameters are scalars, and None leaves the key out of the estimator's reference.
        if not isinstance(default, (bool, int, float, str)):
            default = None
        parameters[python_name] = p["name"]
        defaults[python_name] = default
        docs.append(f"{python_name} : {p['type']}, default={default!r}\n    {p.get('doc', '')}")
    defaults["random_state"] = None
    defaults["isolated"] = False
    docs.append("random_state : int, RandomState or None, default=None\n    the trial seed (None: 1, the CLI's default)")
    docs.append("isolated : bool, default=False\n    fit in a supervised process of its own (rankone fit), not in this one")
    if base is RankOneCompletion:
        defaults["shape"] = None
        docs.append("shape : (int, int) or None, default=None\n    the matrix's rows and columns")

    def __init__(self, **given):
        unknown = sorted(set(given) - set(defaults))
        if unknown:
            raise TypeError(f"{type(self).__name__}() got unexpected keyword arguments {unknown}; "
                            f"its parameters: {sorted(defaults)}")
        for name, default in defaults.items():
            setattr(self, name, given.get(name, default))

    __init__.__signature__ = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)] +
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d) for n, d in defaults.items()])
    doc = (f"{plugin['summary']}\n\nRankOne estimator plugin ``{plugin['name']}`` ({plugin['citation'] or 'no paper'}); "
           f"documentation: {plugin['doc_page']}.\n\nParameters\n----------\n" + "\n".join(docs))
    return type(_camel(plugin["name"]), bases, {"__init__": __init__, "__doc__": doc, "__module__": __name__,
                                                   "_plugin": plugin, "_parameters": parameters})


_CLASSES = {}
for _plugin in json.loads(_rankone.plugins()):
    if _plugin["kind"] == "estimator":
        _CLASSES[_plugin["name"]] = globals()[_camel(_plugin["name"])] = _make_class(_plugin)

__all__ = sorted(_camel(name) for name in _CLASSES) + ["make"]


def make(name, **params):
    """The estimator of plugin `name` with `params`: ``make("gfm_one_pass", rank=3)``."""
    if name not in _CLASSES:
        raise ValueError(f"unknown estimator plugin '{name}'; known: {', '.join(sorted(_CLASSES))}")
    return _CLASSES[name](**params)
