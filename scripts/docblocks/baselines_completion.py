#!/usr/bin/env python3
"""Prints the tables of docs/baselines-completion.md from a run of experiments/baselines/completion.json:
per condition number κ, per estimator and oversampling ratio n / (k (d1 + d2 - k)), the median final
relative Frobenius error over the repetitions (a failed trial, or one with no evaluation, counts as
infinite: the median then says so).

usage: baselines_completion.py RESULTS_DIR
"""
import math
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/baselines/completion.json"


def final_error(t):
    if t.info.get("status") == "failed" or "relative_error_M" not in t.points:
        return math.inf
    return t.final("relative_error_M")


def main():
    if len(sys.argv) != 2:
        fail("usage: baselines_completion.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    ts = trials(sys.argv[1])
    d, k = resolved["data"]["d"], resolved["data"]["rank"]
    unknowns = k * (2 * d - k)
    labels = [e["label"] for e in resolved["estimators"]]
    sizes = axis(resolved, "data.size")
    for i, kappa in enumerate(axis(resolved, "data.condition_number")):
        if i:
            print()
        print(f"| κ = {kappa:g}: median relative error, n/(k(d1 + d2 − k)) = | " +
              " | ".join(f"{n / unknowns:.2g}" for n in sizes) + " |")
        print("|---" * (len(sizes) + 1) + "|")
        for l in labels:
            cells = []
            for n in sizes:
                mine = [t for t in select(ts, data__condition_number=kappa, data__size=n) if t["label"] == l]
                m = median([final_error(t) for t in mine])
                cells.append(MISSING if m is None else sig(m))
            print(f"| {l} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
