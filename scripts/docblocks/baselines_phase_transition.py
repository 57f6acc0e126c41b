#!/usr/bin/env python3
"""Prints the tables of docs/baselines-phase-transition.md from a run of
experiments/baselines/phase_transition.json: per operator, per estimator and measurement ratio
n / (k (d1 + d2)), the success rate (final relative spectral error below the experiment's
threshold; a failed or diverged trial is no success).

usage: baselines_phase_transition.py RESULTS_DIR               the tables
       baselines_phase_transition.py transition RESULTS_DIR    per operator and estimator, the
           smallest ratio from which every larger one succeeds in at least half the trials
"""
import sys

from results import MISSING, axis, design, fail, select, trials

EXPERIMENT = "experiments/baselines/phase_transition.json"


def setting(resolved):
    d, k = resolved["data"]["d"], resolved["data"]["rank"]
    return k * 2 * d, resolved["success"]["below"]


def ok(t, threshold):
    return t.info.get("status") not in ("failed", "diverged") and "relative_error_M" in t.points and \
        t.final("relative_error_M") < threshold


def grid(resolved, ts):
    unit, threshold = setting(resolved)
    labels = [e["label"] for e in resolved["estimators"]]
    sizes = axis(resolved, "data.size")
    rates = {}
    for op in axis(resolved, "data.operator"):
        for l in labels:
            for n in sizes:
                mine = [t for t in select(ts, data__operator=op, data__size=n) if t["label"] == l]
                rates[(op, l, n)] = sum(ok(t, threshold) for t in mine) / len(mine) if mine else None
    return unit, labels, sizes, rates


def tables(resolved, ts):
    unit, labels, sizes, rates = grid(resolved, ts)
    for i, op in enumerate(axis(resolved, "data.operator")):
        if i:
            print()
        print(f"| {op}: success rate, n/(k(d1 + d2)) = | " + " | ".join(f"{n / unit:g}" for n in sizes) + " |")
        print("|---" * (len(sizes) + 1) + "|")
        for l in labels:
            cells = [rates[(op, l, n)] for n in sizes]
            print(f"| {l} | " + " | ".join(MISSING if c is None else f"{c:g}" for c in cells) + " |")


def transition(resolved, ts):
    unit, labels, sizes, rates = grid(resolved, ts)
    for op in axis(resolved, "data.operator"):
        parts = []
        for l in labels:
            cells = [rates[(op, l, n)] for n in sizes]
            if any(c is None for c in cells):
                fail(f"{op}, {l}: not every cell has trials (a reduced run?)")
            first = next((i for i in range(len(sizes)) if all(c >= 0.5 for c in cells[i:])), None)
            parts.append(f"{l} {'beyond ' + format(sizes[-1] / unit, 'g') if first is None else format(sizes[first] / unit, 'g')}")
        print(f"- {op}: " + ", ".join(parts) + ".")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if len(args) == 2 and args[0] == "transition" else "tables"
    if len(args) != 1:
        fail("usage: baselines_phase_transition.py [transition] RESULTS_DIR")
    resolved = design(EXPERIMENT)
    {"tables": tables, "transition": transition}[mode](resolved, trials(args[0]))


if __name__ == "__main__":
    main()
