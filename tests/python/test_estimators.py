# rankone.sklearn: one class per estimator plugin, its parameters the plugin's schema, fits on arrays.
import json
import pickle
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

import rankone
import rankone.sklearn as rs


def plugins(cli):
    return json.loads(subprocess.run([cli, "plugins", "--json"], capture_output=True, text=True, check=True).stdout)


def test_one_class_per_estimator_plugin_named_in_camel_case(cli):
    estimators = [p["name"] for p in plugins(cli) if p["kind"] == "estimator"]
    assert len(estimators) >= 20
    for name in estimators:
        cls = getattr(rs, "".join(part.capitalize() for part in name.split("_")))
        assert cls._plugin["name"] == name
        assert isinstance(rs.make(name), cls)
    assert rs.GfmOnePass.__name__ == "GfmOnePass"


def test_parameters_are_the_schema(cli):
    described = json.loads(subprocess.run([cli, "describe", "gfm_one_pass", "--json"], capture_output=True, text=True,
                                          check=True).stdout)
    params = rs.GfmOnePass().get_params()
    for p in described["parameters"]:
        assert p["name"] in params
        if isinstance(p.get("default"), (bool, int, float, str)):
            assert params[p["name"]] == p["default"]
    assert "random_state" in params and "isolated" in params
    assert p["doc"] in rs.GfmOnePass.__doc__
    # A keyword of Python gets a trailing underscore; the reference sent to the core keeps the name.
    assert "lambda_" in rs.OneBitMll().get_params()


def test_get_set_params_and_clone():
    est = rs.GfmOnePass(rank=3)
    est.set_params(rank=4, random_state=7)
    assert est.get_params()["rank"] == 4
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est


def test_a_bad_value_is_the_schemas_value_error(regression_data):
    X, y = regression_data
    with pytest.raises(ValueError, match=r"/rank.*expected an integer ≥ 1, found 0"):
        rs.GfmOnePass(rank=0).fit(X, y)
    with pytest.raises(ValueError, match=r"random_state"):
        rs.GfmOnePass(random_state=-1).fit(X, y)
    with pytest.raises(TypeError, match="unexpected keyword"):
        rs.GfmOnePass(rnak=2)


def test_fit_predict_dense_and_sparse(regression_data):
    X, y = regression_data
    est = rs.GfmOnePass(rank=2, random_state=1).fit(X[:240], y[:240])
    dense = est.predict(X[240:])
    assert dense.shape == (60,) and np.all(np.isfinite(dense))
    # gFM with w fits the planted generalized FM: its test error is far below y's spread.
    assert np.sqrt(np.mean((dense - y[240:]) ** 2)) < 0.01 * np.std(y)
    sparse = rs.GfmOnePass(rank=2, random_state=1).fit(sp.csr_matrix(X[:240]), y[:240]).predict(
        sp.csr_matrix(X[240:]))
    np.testing.assert_allclose(sparse, dense, rtol=1e-9, atol=1e-9)
    assert est.n_features_in_ == 8
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :5])


def test_the_model_is_the_saved_model(regression_data, scratch):
    X, y = regression_data
    est = rs.GfmOnePass(rank=2, random_state=4).fit(X, y)
    est.model_.save(scratch / "model")
    loaded = rankone.load_model(scratch / "model")
    assert loaded.header["format"] == "rankone-model" and loaded.header["estimator"] == "gfm_one_pass"
    np.testing.assert_array_equal(loaded.predict(X), est.predict(X))
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(est)).predict(X), est.predict(X))
    assert set(loaded.arrays) >= {"left", "w"}


def test_a_fit_is_deterministic_in_its_seed(regression_data):
    X, y = regression_data
    first = rs.GfmOnePass(random_state=11).fit(X, y).predict(X)
    np.testing.assert_array_equal(rs.GfmOnePass(random_state=11).fit(X, y).predict(X), first)


def test_completion_on_entries():
    rng = np.random.default_rng(2)
    U, V = rng.standard_normal((30, 2)), rng.standard_normal((20, 2))
    rows, cols = rng.integers(0, 30, 2000), rng.integers(0, 20, 2000)
    X = np.column_stack([rows, cols])
    y = np.sum(U[rows] * V[cols], axis=1)
    est = rs.AlsCompletion(rank=2, random_state=1, shape=(30, 20)).fit(X, y)
    assert np.sqrt(np.mean((est.predict(X) - y) ** 2)) < 0.05 * np.std(y)
    with pytest.raises(ValueError, match=r"\(row, column\)"):
        est.fit(rng.standard_normal((10, 2)), np.ones(10))


def test_one_bit_multilabel_on_an_indicator_matrix():
    rng = np.random.default_rng(5)
    X = rng.standard_normal((400, 10))
    W = rng.standard_normal((10, 4))
    Y = (X @ W > 0).astype(int)
    est = rs.OneBitMll(rank=2, random_state=3).fit(X, Y)
    assert est.decision_function(X).shape == (400, 4)
    assert np.mean(est.predict(X) == Y) > 0.8


def test_isolated_fit_equals_the_in_process_fit(regression_data):
    X, y = regression_data
    here = rs.GfmOnePass(rank=2, random_state=9).fit(X, y).predict(X)
    apart = rs.GfmOnePass(rank=2, random_state=9, isolated=True).fit(X, y).predict(X)
    np.testing.assert_array_equal(apart, here)


def test_non_finite_input_is_a_value_error_naming_the_row(regression_data):
    X, y = regression_data
    X = X.copy()
    X[17, 3] = np.nan
    with pytest.raises(ValueError, match=r"Input X contains NaN or infinity \(row 17\)"):
        rs.GfmOnePass(rank=2).fit(X, y)
    y = y.copy()
    y[5] = np.inf
    with pytest.raises(ValueError, match="Input y contains"):  # scikit-learn checks y itself
        rs.GfmOnePass(rank=2).fit(regression_data[0], y)


def planted_gfm(n, seed=7, d=10):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    U = rng.standard_normal((d, 2))
    y = X @ rng.standard_normal(d) + np.einsum("ij,jk,ik->i", X, U @ np.diag([1.0, -0.7]) @ U.T, X)
    return X, y


def test_partial_fit_is_the_fit_of_the_rows_concatenation():
    X, y = planted_gfm(6000)
    settings = dict(rank=2, batch_size=1000, random_state=3)
    whole = rs.GfmOnePass(**settings).partial_fit(X, y)
    assert whole.model_.status == "running" and whole.model_.iterations == 5  # the start, then 5 of the 6 batches
    chunks = rs.GfmOnePass(**settings)
    for first in range(0, 6000, 1700):  # calls that cut across the batches
        chunks.partial_fit(X[first:first + 1700], y[first:first + 1700])
    np.testing.assert_array_equal(chunks.predict(X[:50]), whole.predict(X[:50]))
    # The stream goes on: 4000 more rows are 4 more iterations, and the model improves.
    X2, y2 = planted_gfm(4000, seed=8)
    before = np.mean((whole.predict(X2) - y2) ** 2)
    whole.partial_fit(X2, y2)
    assert whole.model_.iterations == 9
    assert np.mean((whole.predict(X2) - y2) ** 2) < before
    # Only one-pass regressors have it; a fit starts over.
    assert hasattr(rs.GfmOnePass, "partial_fit") and not hasattr(rs.Fm, "partial_fit")
    refit = rs.GfmOnePass(**settings).fit(X, y)
    assert not hasattr(refit, "_stream")


def test_partial_fit_says_what_it_waits_for_and_when_it_has_ended():
    X, y = planted_gfm(3000)
    est = rs.GfmOnePass(rank=2, batch_size=1000, max_iterations=1, random_state=1)
    with pytest.warns(RuntimeWarning, match="waits for 500 more rows"):
        est.partial_fit(X[:500], y[:500])
    assert not hasattr(est, "model_")
    est.partial_fit(X[500:2000], y[500:2000])  # the start and its one iteration: the fit ends
    assert est.model_.status == "max_iterations"
    with pytest.warns(RuntimeWarning, match="the fit has ended"):
        est.partial_fit(X[2000:], y[2000:])
    with pytest.raises(ValueError, match="features"):
        est.partial_fit(X[:, :5], y)
    copy = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(copy.predict(X[:5]), est.predict(X[:5]))
    with pytest.raises(ValueError, match="pickled"):
        copy.partial_fit(X, y)
