#!/usr/bin/env python3
"""Prints the table of docs/gfm-phase-transition.md from a run of
experiments/gfm/phase_transition.json: per (d, k) and batch size n/(kd), the success rate (final
combined error below the experiment's success threshold, and neither failed nor diverged); then
per cell how many trials ended `diverged`.

usage: gfm_phase_transition.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, fail, trials

EXPERIMENT = "experiments/gfm/phase_transition.json"


def main():
    if len(sys.argv) != 2:
        fail("usage: gfm_phase_transition.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    below = resolved["success"]["below"]
    cells = list(zip(axis(resolved, "data.d"), axis(resolved, "data.rank"), axis(resolved, "estimators.0.batch_size")))
    ratios = sorted({n // (k * d) for d, k, n in cells})
    rows = sorted({(d, k) for d, k, _ in cells})
    ts = trials(sys.argv[1])
    by_cell = {}
    for t in ts:
        key = (int(t["data.d"]), int(t["data.rank"]), int(t["estimators.0.batch_size"]))
        by_cell.setdefault(key, []).append(t)

    def ok(t):
        return t["status"] not in ("failed", "diverged") and t.final("combined_error") < below

    for title, value in (("success rate", lambda mine: f"{sum(map(ok, mine)) / len(mine):g}"),
                         (f"trials diverged (of {resolved['repetitions']})", lambda mine: str(sum(t["status"] == "diverged" for t in mine)))):
        if title != "success rate":
            print()
        print(f"| {title}, n/(kd) = | " + " | ".join(str(r) for r in ratios) + " |")
        print("|---" * (len(ratios) + 1) + "|")
        for d, k in rows:
            cells_ = [by_cell.get((d, k, r * k * d), []) for r in ratios]
            print(f"| d = {d}, k = {k} | " + " | ".join(value(m) if m else MISSING for m in cells_) + " |")

if __name__ == "__main__":
    main()
