# The package under test is the build's (PYTHONPATH=build/python, set by CTest); RANKONE_BIN its CLI.
import os
import pathlib

import numpy as np
import pytest


@pytest.fixture
def regression_data():
    """An FM with a linear part: y = x'w + x'Vx'... on 300 Gaussian rows of 8 features."""
    rng = np.random.default_rng(3)
    X = rng.standard_normal((300, 8))
    V = rng.standard_normal((8, 2))
    w = rng.standard_normal(8)
    y = X @ w + np.einsum("ij,jk,ik->i", X, V @ V.T, X)
    return X, y


@pytest.fixture
def cli():
    return os.environ["RANKONE_BIN"]


@pytest.fixture
def scratch(tmp_path):
    return pathlib.Path(tmp_path)
