#!/usr/bin/env python3
"""Prints the table of docs/gfm-phase-transition.md from a run of
experiments/gfm/phase_transition.json: per (d, k) and batch size n/(kd), the success rate (final
combined error below the experiment's success threshold, and neither failed nor diverged); then
per cell how many trials ended `diverged`.

usage: gfm_phase_transition.py RESULTS_DIR              the two tables
       gfm_phase_transition.py transition RESULTS_DIR   one sentence: per rank k, the grid points
           between which the transition lies (from the last n/(kd) at which some d succeeds in
           fewer than half its trials to the first from which every d succeeds in at least half),
           in units of d and of kd
"""
import sys

from results import MISSING, axis, design, fail, trials

EXPERIMENT = "experiments/gfm/phase_transition.json"


def tables(resolved, cells, by_cell, ok):
    ratios = sorted({n // (k * d) for d, k, n in cells})
    rows = sorted({(d, k) for d, k, _ in cells})
    for title, value in (("success rate", lambda mine: f"{sum(map(ok, mine)) / len(mine):g}"),
                         (f"trials diverged (of {resolved['repetitions']})", lambda mine: str(sum(t["status"] == "diverged" for t in mine)))):
        if title != "success rate":
            print()
        print(f"| {title}, n/(kd) = | " + " | ".join(str(r) for r in ratios) + " |")
        print("|---" * (len(ratios) + 1) + "|")
        for d, k in rows:
            cells_ = [by_cell.get((d, k, r * k * d), []) for r in ratios]
            print(f"| d = {d}, k = {k} | " + " | ".join(value(m) if m else MISSING for m in cells_) + " |")


def transition(resolved, cells, by_cell, ok):
    parts = []
    for k in sorted({k for _, k, _ in cells}):
        ratios = sorted({n // (k * d) for d, kk, n in cells if kk == k})
        dims = sorted({d for d, kk, _ in cells if kk == k})
        if any(not by_cell.get((d, k, r * k * d)) for d in dims for r in ratios):
            fail(f"k = {k}: not every cell has trials (a reduced run?)")
        mostly = [all(2 * sum(map(ok, by_cell[(d, k, r * k * d)])) >= len(by_cell[(d, k, r * k * d)]) for d in dims) for r in ratios]
        # the first grid point from which every larger one succeeds too
        first = next((i for i in range(len(ratios)) if all(mostly[i:])), None)
        if first is None:
            parts.append(f"beyond {ratios[-1] * k}d for k = {k}")
        elif first == 0:
            parts.append(f"at or below {ratios[0] * k}d for k = {k}")
        else:
            parts.append(f"between {ratios[first - 1] * k}d and {ratios[first] * k}d for k = {k} "
                         f"({ratios[first - 1]}–{ratios[first]} kd)")
    print("The transition (from a success rate below ½ at some d to one of at least ½ at every d and every "
          "larger batch) lies " + ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1] + ".")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if len(args) == 2 and args[0] == "transition" else "tables"
    if len(args) != 1:
        fail("usage: gfm_phase_transition.py [transition] RESULTS_DIR")
    resolved = design(EXPERIMENT)
    below = resolved["success"]["below"]
    cells = list(zip(axis(resolved, "data.d"), axis(resolved, "data.rank"), axis(resolved, "estimators.0.batch_size")))
    by_cell = {}
    for t in trials(args[0]):
        key = (int(t["data.d"]), int(t["data.rank"]), int(t["estimators.0.batch_size"]))
        by_cell.setdefault(key, []).append(t)

    def ok(t):
        return t["status"] not in ("failed", "diverged") and t.final("combined_error") < below

    {"tables": tables, "transition": transition}[mode](resolved, cells, by_cell, ok)


if __name__ == "__main__":
    main()
