#!/usr/bin/env python3
"""Prints the table of docs/gfm-conditioning.md from a run of experiments/gfm/conditioning.json:
per condition number σ1/σk and batch size, the median contraction per iteration (geometric mean
of the error ratios from iteration 2 to 1e-11, scripts/docblocks/results.py) and the median
final combined error.

usage: gfm_conditioning.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, contraction, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/gfm/conditioning.json"


def main():
    if len(sys.argv) != 2:
        fail("usage: gfm_conditioning.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    labels = [e["label"] for e in resolved["estimators"]]
    ts = trials(sys.argv[1])
    conds = axis(resolved, "data.condition_number")
    for title, value in (("median contraction per iteration", lambda t: contraction(t.points["combined_error"])),
                         ("final combined error (median)", lambda t: t.final("combined_error"))):
        if title.startswith("final"):
            print()
        print(f"| σ1/σk: {title} | " + " | ".join(labels) + " |")
        print("|---" * (len(labels) + 1) + "|")
        for cond in conds:
            cell = select(ts, data__condition_number=cond)
            values = [median([value(t) for t in cell if t["label"] == l]) for l in labels]
            shown = [MISSING if v is None else f"{v:.3f}" if title.startswith("median") else sig(v) for v in values]
            print(f"| {cond:g} | " + " | ".join(shown) + " |")

if __name__ == "__main__":
    main()
