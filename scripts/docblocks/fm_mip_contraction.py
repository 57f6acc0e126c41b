#!/usr/bin/env python3
"""Prints the convergence of fm_moment_elimination on the generalized-FM truth of the τ-MIP
experiment (experiments/fm_subgaussian/mip.json), for docs/plugins/fm_moment_elimination.md: per
feature law on which it runs, the contraction of the combined error per iteration (geometric mean
of the ratios from iteration 2 to the first iteration below 1e-11, or the last) and the iterations
to reach 1e-10, as ranges over the repetitions.

usage: fm_mip_contraction.py RESULTS_DIR
"""
import sys

from results import MISSING, axis, contraction, design, fail, select, trials

EXPERIMENT = "experiments/fm_subgaussian/mip.json"
ESTIMATOR, TRUTH, TARGET = "fm_moment_elimination", "symmetric", 1e-10


def span(values, form):
    low, high = form(min(values)), form(max(values))
    return low if low == high else f"{low} – {high}"


def main():
    if len(sys.argv) != 2:
        fail("usage: fm_mip_contraction.py RESULTS_DIR")
    ts = select(trials(sys.argv[1]), data__truth=TRUTH)
    print(f"| law | contraction per iteration | iterations to {TARGET:g} |")
    print("|---|---|---|")
    for law in axis(design(EXPERIMENT), "data.sampler"):
        mine = [t for t in select(ts, data__sampler=law) if t["estimator"] == ESTIMATOR]
        if not mine:
            print(f"| {law} | {MISSING} | {MISSING} |")
            continue
        if any(t["status"] == "failed" for t in mine):  # τ = 0: refused before the first iteration
            continue
        rates = [contraction(t.points["combined_error"]) for t in mine]
        reached = [next((it for it, _, _, v in t.points["combined_error"] if v < TARGET), None) for t in mine]
        hits = [r for r in reached if r is not None]
        print(f"| {law} | {span(rates, lambda x: f'{x:.2f}')} | "
              + (span(hits, str) if len(hits) == len(mine) else f"{len(hits)} of {len(mine)} reached") + " |")


if __name__ == "__main__":
    main()
