#!/usr/bin/env python3
"""Prints the table of docs/gfm-conditioning.md from a run of experiments/gfm/conditioning.json:
per condition number σ1/σk and batch size, the median contraction per iteration (geometric mean
of the error ratios from iteration 2 to 1e-11, scripts/docblocks/results.py) and the median
final combined error.

usage: gfm_conditioning.py RESULTS_DIR           the two tables
       gfm_conditioning.py summary RESULTS_DIR   one sentence: how much the median contraction
                                                 changes from the smallest to the largest σ1/σk per
                                                 batch size, and the largest median final error
"""
import sys

from results import MISSING, axis, contraction, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/gfm/conditioning.json"


def medians(ts, cond, labels, value):
    """Per estimator label, the median of `value` over the trials of condition number `cond`."""
    cell = select(ts, data__condition_number=cond)
    return [median([value(t) for t in cell if t["label"] == l]) for l in labels]


def rate(t):
    return contraction(t.points["combined_error"])


def final(t):
    return t.final("combined_error")


def tables(resolved, labels, ts):
    conds = axis(resolved, "data.condition_number")
    for title, value in (("median contraction per iteration", rate), ("final combined error (median)", final)):
        if value is final:
            print()
        print(f"| σ1/σk: {title} | " + " | ".join(labels) + " |")
        print("|---" * (len(labels) + 1) + "|")
        for cond in conds:
            shown = [MISSING if v is None else f"{v:.3f}" if value is rate else sig(v) for v in medians(ts, cond, labels, value)]
            print(f"| {cond:g} | " + " | ".join(shown) + " |")


def summary(resolved, labels, ts):
    conds = axis(resolved, "data.condition_number")
    best, worst = min(conds), max(conds)
    changes = [(100 * (w / b - 1), l) for b, w, l in zip(medians(ts, best, labels, rate), medians(ts, worst, labels, rate), labels)
               if b is not None and w is not None]
    finals = [(v, cond, l) for cond in conds for v, l in zip(medians(ts, cond, labels, final), labels) if v is not None]
    if not changes or not finals:
        fail(f"no trials at σ1/σk = {best:g} and {worst:g} to compare")
    low, high = min(changes), max(changes)
    largest = max(finals)
    print(f"From σ1/σk = {best:g} to {worst:g} the median contraction per iteration changes by {low[0]:+.1f} % ({low[1]}) "
          f"to {high[0]:+.1f} % ({high[1]}) across the batch sizes; the largest median final error of any cell is "
          f"{sig(largest[0])} (σ1/σk = {largest[1]:g}, {largest[2]}).")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if len(args) == 2 and args[0] == "summary" else "tables"
    if len(args) != 1:
        fail("usage: gfm_conditioning.py [summary] RESULTS_DIR")
    resolved = design(EXPERIMENT)
    labels = [e["label"] for e in resolved["estimators"]]
    {"tables": tables, "summary": summary}[mode](resolved, labels, trials(args[0]))


if __name__ == "__main__":
    main()
