#!/usr/bin/python3
"""Prints the table of docs/phase-retrieval.md from a run of experiments/phase_retrieval/equal_time.json: per
solver, the median over the repetitions of the sign-invariant error reached within each time budget (the last
point recorded at or before it, the start's error before the first iteration; "(start)" while the start itself
is still computing in more than half the repetitions), and the median estimator time to reach 1e-10.

usage: phase_retrieval_equal_time.py RESULTS_DIR
"""
import sys

from results import MISSING, design, fail, median, sig, trials

EXPERIMENT = "experiments/phase_retrieval/equal_time.json"
METRIC = "sign_invariant_error"
BUDGETS = [0.1, 0.2, 0.3, 0.5, 1.0]
TARGET = 1e-10


def within(t, budget):
    points = [p for p in t.points.get(METRIC, []) if p[2] <= budget]
    return points[-1][3] if points else None


def main():
    if len(sys.argv) != 2:
        fail("usage: phase_retrieval_equal_time.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    ts = trials(sys.argv[1])
    print("| solver | " + " | ".join(f"error within {b:g} s" for b in BUDGETS) + f" | seconds to {TARGET:g} |")
    print("|---" * (len(BUDGETS) + 2) + "|")
    for e in resolved["estimators"]:
        group = [t for t in ts if t["label"] == e["label"]]
        if not group:
            print(f"| {e['label']} | " + " | ".join([MISSING] * (len(BUDGETS) + 1)) + " |")
            continue
        cells = []
        for b in BUDGETS:
            values = [v for v in (within(t, b) for t in group) if v is not None]
            cells.append(sig(median(values)) if 2 * len(values) > len(group) else "(start)")
        reached = [t.first_below(METRIC, TARGET) for t in group]
        times = [r[1] for r in reached if r is not None]
        to_target = sig(median(times)) if len(times) == len(group) else f"not in {len(group) - len(times)} of {len(group)}"
        print(f"| {e['label']} | " + " | ".join(cells) + f" | {to_target} |")


if __name__ == "__main__":
    main()
