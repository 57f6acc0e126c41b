#!/usr/bin/env python3
"""Prints the generated blocks of docs/gfm-convergence.md from a run of experiments/gfm/convergence.json.

usage: gfm_convergence.py RESULTS_DIR           the table
       gfm_convergence.py summary RESULTS_DIR   one sentence: the batch size whose error falls
                                                fastest per kd samples consumed

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


def batch_multiple(label):
    """c of the label "n=ckd"."""
    return float(re.match(r"n=([\d.]+)kd", label).group(1))


def slopes(ts, labels):
    """Per label with trials, the log-error slope per kd samples: ln(median rate)/c."""
    out = {}
    for label in labels:
        mine = [t for t in ts if t["label"] == label]
        if mine:
            out[label] = math.log(median([contraction(t.points["combined_error"]) for t in mine])) / batch_multiple(label)
    return out


def table(ts, labels):
    rows = {name: [] for name in ("rate per iteration", "rate × √(n/kd)", "log-error slope per kd samples",
                                  "iterations", "final error (median)")}
    for label in labels:
        c = batch_multiple(label)
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


def summary(ts, labels):
    by_label = slopes(ts, labels)
    if not by_label:
        fail("no trials")
    order = sorted(by_label, key=batch_multiple)
    steepest = min(by_label, key=by_label.get)
    why = []  # what the batches on either side of the steepest lose
    if steepest != order[-1]:
        why.append("the larger batches contract more per iteration, but not by enough to pay for their samples")
    if steepest != order[0]:
        why.append("the smaller ones use fewer samples per iteration but contract too little in each")
    print(f"The steepest log-error slope per kd samples, i.e. the fewest samples to a given error, is that of "
          f"n = {steepest.removeprefix('n=')}" + (": " + "; ".join(why) if why else "") + ".")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if len(args) == 2 and args[0] == "summary" else "table"
    if len(args) != 1:
        fail("usage: gfm_convergence.py [summary] RESULTS_DIR")
    labels = [e["label"] for e in design(EXPERIMENT)["estimators"]]
    {"table": table, "summary": summary}[mode](trials(args[0]), labels)


if __name__ == "__main__":
    main()
