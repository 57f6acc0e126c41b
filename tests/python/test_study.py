# rankone.run and rankone.load: a study run as the CLI runs it, read back as DataFrames.
import numpy as np
import pytest

import rankone

EXPERIMENT = {
    "name": "python_study",
    "seed": 2,
    "repetitions": 2,
    "data": {"name": "synthetic", "d": 10, "rank": 2, "w_norm": 1.0, "test_size": 200},
    "estimators": [{"name": "gfm_one_pass", "rank": 2, "batch_size": 1000, "max_iterations": 5},
                   {"name": "spectral", "rank": 2, "batch_size": 1000}],
    "metrics": ["test_rmse"],
    "sweep": {"grid": {"data.d": [8, 10]}},
}


def test_run_and_load(scratch):
    folder = rankone.run(EXPERIMENT, out=scratch / "study")
    assert (folder / "results.sqlite").exists()
    study = rankone.load(folder)
    assert len(study.trials) == 8  # 2 cells × 2 repetitions × 2 estimators
    assert set(study.trials.status) <= {"converged", "max_iterations"}
    for column in ("key", "label", "repetition", "status", "message", "data.d", "code", "data_seed"):
        assert column in study.trials.columns
    assert set(study.points.columns) >= {"trial", "iteration", "samples", "seconds", "metric", "value", "label", "data.d"}
    assert np.all(np.isfinite(study.points.value))
    assert len(study.runs) == 1 and "command" in study.runs.columns
    # Resumed: the trials are done, nothing runs again.
    again = rankone.load(rankone.run(EXPERIMENT, out=scratch / "study"))
    assert list(again.trials.key) == list(study.trials.key)


def test_overrides_and_bad_input(scratch):
    folder = rankone.run(EXPERIMENT, out=scratch / "small", overrides={"repetitions": 1, "data.test_size": 100})
    assert len(rankone.load(folder).trials) == 4
    with pytest.raises(ValueError, match="rank"):
        rankone.run(EXPERIMENT, out=scratch / "bad", overrides={"estimators.0.rank": 0})
