#!/usr/bin/env python3
"""Prints what runs of the offline completion estimators show on docs/plugins/als_completion.md
and sgd_mf.md.

usage: offline_completion.py regularization RESULTS_DIR   (experiments/online_completion/als_regularization.json)
           per regularization: the relative error after the spectral start, its contraction per
           sweep until it nears its floor, and the error after the last sweep (ranges over the repetitions)
       offline_completion.py test-fit RESULTS_DIR         (experiments/online_completion/too_few_entries.json)
           per estimator: the end state, the fit on the held-out test set and the hint
"""
from collections import Counter

from fit_floor import span
from results import contraction, diagnostics, fail, run_subcommand, stored_experiment, trials

METRIC = "relative_error_M"
REGULARIZATION = "estimators.0.regularization"
# The contraction is measured down to this multiple of the final error, where the floor bends the line.
NEAR_FLOOR = 10


def end_states(ts):
    states = Counter(t["status"] for t in ts)
    return "; ".join(s if n == len(ts) else f"{s} ×{n}" for s, n in states.items())


def regularization(folder):
    ts = trials(folder)
    sweeps = stored_experiment(folder)["estimators"][0]["max_iterations"]
    print(f"| `regularization` | error after the start | error ÷ per sweep | error after {sweeps} sweeps |")
    print("|---|---|---|---|")
    for value in sorted({t[REGULARIZATION] for t in ts}, key=float):
        mine = [t for t in ts if t[REGULARIZATION] == value]
        points = [t.points[METRIC] for t in mine]
        factors = [1 / contraction(p, floor=NEAR_FLOOR * p[-1][3]) for p in points]
        print(f"| {value} | {span([p[0][3] for p in points])} | {span(factors)} | {span([p[-1][3] for p in points])} |")


def test_fit(folder):
    ts, fits = trials(folder), diagnostics(folder)
    print("| estimator | end state | test fit | hint |")
    print("|---|---|---|---|")
    for estimator in stored_experiment(folder)["estimators"]:
        mine = [t for t in ts if t["label"] == estimator["label"]]
        if not mine:
            fail(f"{folder}: no trials of {estimator['label']}")
        hints = list(dict.fromkeys(t["message"].partition("Hint: ")[2].partition(" (")[0] for t in mine))
        print(f"| {estimator['label']} | {end_states(mine)} | {span([fits[t['trial']]['fit'] for t in mine])} | "
              + "; ".join(h for h in hints if h) + " |")


def main():
    run_subcommand({"regularization": regularization, "test-fit": test_fit}, ("RESULTS_DIR",))


if __name__ == "__main__":
    main()
