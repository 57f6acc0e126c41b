#!/usr/bin/env python3
"""Prints the intercept table of docs/plugins/gfm_one_pass.md from a run of
experiments/gfm/intercept.json: per planted intercept b* and estimator label, the end states and the
medians over the repetitions of the final combined error, |b − b*| and the test RMSE.

usage: gfm_intercept.py RESULTS_DIR
"""
import sys
from collections import Counter

from results import fail, median, select, sig, trials


def main(folder):
    ts = trials(folder)
    if not ts:
        fail(f"{folder}: no trials")
    biases = sorted({float(t["data.bias"]) for t in ts})
    labels = sorted({t["label"] for t in ts})
    print("| b* | estimator | end state | combined error | \\|b − b*\\| | test RMSE |")
    print("|---|---|---|---|---|---|")
    for b in biases:
        for label in labels:
            cell = select(ts, data__bias=b, label=label)
            states = ", ".join(f"{n}× {s}" for s, n in sorted(Counter(t["status"] for t in cell).items()))
            finals = [median([t.final(m) for t in cell]) for m in ("combined_error", "intercept_error", "test_rmse")]
            print(f"| {b:g} | {label} | {states} | " + " | ".join(sig(v, 2) for v in finals) + " |")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail(__doc__.strip().splitlines()[-1])
    main(sys.argv[1])
