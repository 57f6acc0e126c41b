#!/usr/bin/env python3
"""Prints the generated block of docs/fm_subgaussian_figure1.md from a run of
experiments/fm_subgaussian/figure1.json: per panel and estimator, the final test RMSE (median and
range over the repetitions), and the test RMSE at iteration 0 (every estimator's start, median
over estimators and repetitions).

usage: fm_figure1.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/fm_subgaussian/figure1.json"
PANELS = {("fm", 1): "(a) conventional FM labels", ("fm", -1): "(b) sign-flipped labels",
          ("zero_diagonal", 1): "(c) eigenvalues of both signs"}


def cell(values):
    if not values:
        return MISSING
    values = sorted(values)
    return f"{sig(median(values))} ({sig(values[0])} – {sig(values[-1])})"


def main():
    if len(sys.argv) != 2:
        fail("usage: fm_figure1.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    labels = [e["label"] for e in resolved["estimators"]]
    panels = list(zip(axis(resolved, "data.truth"), axis(resolved, "data.truth_sign")))
    ts = trials(sys.argv[1])
    if not ts:
        fail(f"no trials in {sys.argv[1]}")
    print("| panel | " + " | ".join(labels) + " | iteration 0 (all, median) |")
    print("|---" * (len(labels) + 2) + "|")
    for truth, sign in panels:
        mine = select(ts, data__truth=truth, data__truth_sign=sign)
        finals = [cell([t.final("test_rmse") for t in mine if t["label"] == label]) for label in labels]
        start = [t.points["test_rmse"][0][3] for t in mine]
        complete = {t["label"] for t in mine} == set(labels)  # a reduced run may leave estimators out
        print(f"| {PANELS.get((truth, sign), f'{truth}, sign {sign}')} | " + " | ".join(finals)
              + f" | {sig(median(start), 3) if complete else MISSING} |")


if __name__ == "__main__":
    main()
