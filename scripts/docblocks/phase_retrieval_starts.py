#!/usr/bin/python3
"""Prints the table of docs/phase-retrieval.md from a run of experiments/phase_retrieval/starts.json: per start
and m/n, the mean correlation |z0'x|/(||z0|| ||x||) of the start with the planted signal, over the repetitions
(a start that failed counts as correlation 0 and is counted in a column of its own).

usage: phase_retrieval_starts.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, fail, select, trials

EXPERIMENT = "experiments/phase_retrieval/starts.json"


def main():
    if len(sys.argv) != 2:
        fail("usage: phase_retrieval_starts.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    ts = trials(sys.argv[1])
    n = resolved["data"]["d"]
    sizes = axis(resolved, "data.size")
    print(f"| start: mean correlation with x, n = {n}, m/n = | " + " | ".join(f"{m / n:g}" for m in sizes) +
          " | failed starts |")
    print("|---" * (len(sizes) + 2) + "|")
    for init in axis(resolved, "estimators.0.init"):
        cells, failed = [], 0
        for m in sizes:
            group = select(ts, data__size=m, estimators__0__init=init)
            values = [t.final("truth_correlation") if "truth_correlation" in t.points else 0.0 for t in group]
            failed += sum("truth_correlation" not in t.points for t in group)
            cells.append(MISSING if not group else f"{sum(values) / len(values):.3f}")
        print(f"| `{init}` | " + " | ".join(cells) + f" | {failed} |")


if __name__ == "__main__":
    main()
