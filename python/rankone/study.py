"""Studies from Python: run an experiment as `rankone run` does (every trial supervised in its own
process), and read a results folder back as pandas DataFrames through the store's own reader."""
import json
import os
import pathlib
import subprocess
import warnings

from . import _rankone


def cli():
    """The rankone executable this package was built with (RANKONE_BIN overrides it)."""
    from . import _paths
    return os.environ.get("RANKONE_BIN", _paths.CLI)


def _value(v):
    return v if isinstance(v, str) else json.dumps(v)


def run(experiment, out=None, overrides=None, jobs=None, quiet=True):
    """Runs `experiment` (a file, or a dict written to OUT/experiment.json) into the folder `out`
    (default: results/NAME, as the CLI) and returns that folder. `overrides` maps key paths to
    values (``{"repetitions": 3, "data.d": 50}``), as `rankone run FILE key.path=value`. Completed
    trials already in the folder are kept. A study with failed trials still returns its folder,
    with a warning (the failures are stored); bad input raises ValueError with the CLI's message."""
    if isinstance(experiment, dict):
        if out is None:
            raise ValueError("rankone.run: an experiment given as a dict needs out= (its file is written there)")
        pathlib.Path(out).mkdir(parents=True, exist_ok=True)
        path = pathlib.Path(out) / "experiment.json"
        path.write_text(json.dumps(experiment, indent=2) + "\n")
        experiment = path
    command = [cli(), "run", str(experiment)]
    command += [f"{key}={_value(v)}" for key, v in (overrides or {}).items()]
    if out is not None:
        command += ["--out", str(out)]
    if jobs is not None:
        command += ["--jobs", str(jobs)]
    if quiet:
        command.append("--quiet")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode == 2:
        raise ValueError(done.stderr.strip())
    if done.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} ended with code {done.returncode}: {done.stderr.strip()}")
    if done.returncode == 1:
        warnings.warn(f"rankone.run: {done.stderr.strip()}", RuntimeWarning, stacklevel=2)
    if out is None:
        resolved = json.loads(subprocess.run([cli(), "validate", str(experiment)], capture_output=True, text=True,
                                             check=True).stdout)
        out = pathlib.Path("results") / resolved.get("name", pathlib.Path(experiment).stem)
    return pathlib.Path(out)


class Study:
    """A results folder as DataFrames: ``trials`` (one row per trial: key, coordinates, repetition,
    estimator, label, status, message, iterations, samples, seconds, seeds, code identity),
    ``points`` (the export's long format: trial, iteration, samples, seconds, metric, value, with the
    trial's label, status and coordinates joined) and ``runs`` (provenance: command, commit, host)."""

    def __init__(self, folder):
        import pandas as pd
        stored = _rankone.read_store(str(folder))
        self.folder = pathlib.Path(folder)
        self.damage = list(stored["damage"])
        trials = json.loads(stored["trials"])
        rows = []
        for t in trials:
            row = {k: t[k] for k in ("key", "cell", "repetition", "estimator", "label", "status", "message", "iterations",
                                     "samples", "seconds", "data_seed", "estimator_seed")}
            row.update(t["coordinates"])
            row["code"] = t["code"]
            row["config"] = t["config"]
            rows.append(row)
        self.trials = pd.DataFrame(rows)
        points = pd.DataFrame(dict(stored["points"]))
        if len(self.trials):
            coordinates = sorted({c for t in trials for c in t["coordinates"]})
            joined = self.trials[["key", "estimator", "label", "repetition", "status"] + coordinates].rename(
                columns={"key": "trial"})
            points = points.merge(joined, on="trial", how="left")
        self.points = points
        self.runs = pd.DataFrame(json.loads(stored["runs"]))


def load(folder):
    """The results folder as a Study (pandas DataFrames ``trials``, ``points``, ``runs``)."""
    return Study(folder)
