#!/usr/bin/env python3
"""Prints the generated block of docs/gfm-convergence.md from a run of experiments/gfm/convergence.json.

usage: gfm_convergence.py RESULTS_DIR

Per estimator of the experiment, batch size n = c·kd (c parsed from its label "n=ckd"): the contraction per iteration (geometric
mean of the error ratios from iteration 2 to the first iteration below 1e-11, or the last),
median and range over the repetitions; the rate × √c; the log-error slope per kd samples,
ln(rate)/c; the iterations run and the final combined error (median).
"""
import math
import re
import sys

from results import MISSING, contraction, design, fail, median, sig, trials

EXPERIMENT = "experiments/gfm/convergence.json"


def main():
    if len(sys.argv) != 2:
        fail("usage: gfm_convergence.py RESULTS_DIR")
    ts = trials(sys.argv[1])
    labels = [e["label"] for e in design(EXPERIMENT)["estimators"]]
    rows = {name: [] for name in ("rate per iteration", "rate × √(n/kd)", "log-error slope per kd samples",
                                  "iterations", "final error (median)")}
    for label in labels:
        c = float(re.match(r"n=([\d.]+)kd", label).group(1))
        mine = [t for t in ts if t["label"] == label]
        if not mine:  # not in a reduced run
            for cells in rows.values():
                cells.append(MISSING)
            continue
        rates = sorted(contraction(t.points["combined_error"]) for t in mine)
        r = median(rates)
        rows["rate per iteration"].append(f"{r:.3f} ({rates[0]:.3f}–{rates[-1]:.3f})")
        rows["rate × √(n/kd)"].append(f"{r * math.sqrt(c):.2f}")
        rows["log-error slope per kd samples"].append(f"{math.log(r) / c:.3f}".replace("-", "−"))
        rows["iterations"].append(str(mine[0].iterations()))
        rows["final error (median)"].append(sig(median([t.final("combined_error") for t in mine])))
    print("| n | " + " | ".join(l.removeprefix("n=") for l in labels) + " |")
    print("|---" * (len(labels) + 1) + "|")
    for name, cells in rows.items():
        print(f"| {name} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
