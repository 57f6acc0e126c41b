# A fit from Python and `rankone fit` on the same records: the same predictions, bit for bit.
import subprocess

import numpy as np
import pytest

import rankone
import rankone.sklearn as rs


def write_libsvm(path, X, y):
    with open(path, "w") as f:
        for row, target in zip(X, y):
            f.write(f"{target:.17g} " + " ".join(f"{j}:{v:.17g}" for j, v in enumerate(row)) + "\n")


@pytest.mark.parametrize("name, settings", [
    ("gfm_one_pass", {"rank": 2}),
    ("fm", {"rank": 2, "solver": "als", "max_iterations": 5}),
    ("factored_gd", {"rank": 2, "max_iterations": 20}),
])
def test_python_fit_equals_rankone_fit_bit_for_bit(name, settings, regression_data, cli, scratch):
    X, y = regression_data
    write_libsvm(scratch / "train.svm", X[:240], y[:240])
    write_libsvm(scratch / "test.svm", X[240:], y[240:])
    seed = 5
    command = [cli, "fit", name, str(scratch / "train.svm"), "--test", str(scratch / "test.svm"), f"seed={seed}",
               "--out", str(scratch / "fit"), "--quiet"] + [f"{k}={v}" for k, v in settings.items()]
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    by_cli = np.loadtxt(scratch / "fit" / "predictions.txt")
    estimator = rs.make(name, random_state=seed, **settings).fit(X[:240], y[:240])
    by_python = estimator.predict(X[240:])
    assert by_python.shape == by_cli.shape
    assert np.array_equal(by_python, by_cli), f"largest gap {np.max(np.abs(by_python - by_cli))}"
    # The saved models hold the same arrays.
    cli_model = rankone.load_model(scratch / "fit" / "model")
    for array in ("left", "right", "w"):
        if array in cli_model.arrays:
            assert np.array_equal(cli_model.arrays[array], estimator.model_.arrays[array])
