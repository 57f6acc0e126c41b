#!/usr/bin/env python3
"""Prints a table of docs/gfm-vs-fm.md from a run of experiments/gfm/vs_fm.json.

usage: gfm_vs_fm.py table RESULTS_DIR
           final test RMSE (median over the repetitions) per estimator and training-set size;
           for gfm_one_pass also the iterations it ran (median), in brackets
       gfm_vs_fm.py rows ROWS RESULTS_DIR
           at ROWS training rows: per estimator the median, mean and sd of the final test RMSE and
           how far the median is above the noise floor (the noise sd: the test rows are noisy)
"""
import statistics
import sys

from results import MISSING, axis, design, fail, median, select, trials

EXPERIMENT = "experiments/gfm/vs_fm.json"


def table(resolved, ts):
    sizes = axis(resolved, "data.size")
    print("| estimator (iterations) | " + " | ".join(f"{s:,} rows".replace(",", "\u202f") for s in sizes) + " |")
    print("|---" * (len(sizes) + 1) + "|")
    for e in resolved["estimators"]:
        cells = []
        for size in sizes:
            mine = [t for t in select(ts, data__size=size) if t["label"] == e["label"]]
            if not mine:
                cells.append(MISSING)
                continue
            cell = f"{median([t.final('test_rmse') for t in mine]):.3f}"
            if e["name"] == "gfm_one_pass":
                cell += f" ({median([t.iterations() for t in mine]):g})"
            cells.append(cell)
        print(f"| {e['label']} | " + " | ".join(cells) + " |")


def rows(resolved, ts, size):
    floor = resolved["data"]["noise_std"]
    print(f"| {size:,} rows: estimator | median | mean | sd | median above the floor {floor:g} |".replace(",", "\u202f"))
    print("|---|---|---|---|---|")
    for e in resolved["estimators"]:
        finals = [t.final("test_rmse") for t in select(ts, data__size=size) if t["label"] == e["label"]]
        if not finals:
            print(f"| {e['label']} | {MISSING} | {MISSING} | {MISSING} | {MISSING} |")
            continue
        m = median(finals)
        sd = statistics.stdev(finals) if len(finals) > 1 else 0.0
        print(f"| {e['label']} | {m:.4f} | {statistics.mean(finals):.4f} | {sd:.4f} | {100 * (m / floor - 1):.1f} % |")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        resolved = design(EXPERIMENT)
        table(resolved, trials(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "rows":
        resolved = design(EXPERIMENT)
        rows(resolved, trials(sys.argv[3]), int(sys.argv[2]))
    else:
        fail("usage: gfm_vs_fm.py table RESULTS_DIR | gfm_vs_fm.py rows ROWS RESULTS_DIR")


if __name__ == "__main__":
    main()
