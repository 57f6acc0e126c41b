#!/usr/bin/env python3
"""Prints the solver table of docs/plugins/fm.md from a run of experiments/fm_subgaussian/fm_solvers.json:
per estimator label, the end state, the epochs it ran and its final test RMSE against noisy test
labels (the floor is the noise std) and against clean ones (the excess over the truth), as ranges
over the repetitions.

usage: fm_solvers.py RESULTS_DIR
"""
import sys
from collections import Counter

from fit_floor import span
from results import fail, stored_experiment, trials

NOISY, CLEAN = "true", "false"  # data.test_noise as the export writes it


def main():
    if len(sys.argv) != 2:
        fail("usage: fm_solvers.py RESULTS_DIR")
    folder = sys.argv[1]
    ts = trials(folder)
    experiment = stored_experiment(folder)
    noise = experiment["data"]["noise_std"]
    print(f"| solver | end state | epochs | test RMSE, noisy labels (σ = {noise:g}) | test RMSE, clean labels |")
    print("|---|---|---|---|---|")
    for estimator in experiment["estimators"]:
        mine = [t for t in ts if t["label"] == estimator["label"]]
        if not mine:
            fail(f"{folder}: no trials of {estimator['label']}")
        states = Counter(t["status"] for t in mine)
        end = "; ".join(s if n == len(mine) else f"{s} ×{n}" for s, n in states.items())
        epochs = sorted(t.iterations() for t in mine)
        rmse = {which: [t.final("test_rmse") for t in mine if t["data.test_noise"] == which] for which in (NOISY, CLEAN)}
        print(f"| {estimator['label']} | {end} | {epochs[0]}" + (f" – {epochs[-1]}" if epochs[-1] != epochs[0] else "")
              + f" | {span(rmse[NOISY], 3)} | {span(rmse[CLEAN])} |")


if __name__ == "__main__":
    main()
