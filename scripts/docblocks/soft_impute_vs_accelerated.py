#!/usr/bin/env python3
"""Prints the tables of docs/plugins/nuclear_norm.md ("Published settings") from a run of
experiments/baselines/soft_impute_vs_accelerated.json: per method and fraction observed |Ω|/mn, the
median over the repetitions of the steps over the whole λ path and of the final relative Frobenius
error (`steps`), or of the trial's estimator time (`time`: machine-specific, never compared).

usage: soft_impute_vs_accelerated.py steps|time RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, fail, machine_of, median, select, sig, trials

EXPERIMENT = "experiments/baselines/soft_impute_vs_accelerated.json"


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("steps", "time"):
        fail("usage: soft_impute_vs_accelerated.py steps|time RESULTS_DIR")
    what, folder = sys.argv[1], sys.argv[2]
    resolved = design(EXPERIMENT)
    ts = trials(folder)
    cells_of = resolved["data"]["d"] ** 2
    sizes = axis(resolved, "data.size")
    labels = [e["label"] for e in resolved["estimators"]]
    head = "steps over the path, final relative error" if what == "steps" else "estimator time over the path"
    print(f"| {head} (median of {resolved['repetitions']}), \\|Ω\\|/mn = | " +
          " | ".join(f"{n / cells_of:g}" for n in sizes) + " |")
    print("|---" * (len(sizes) + 1) + "|")
    for label in labels:
        cells = []
        for n in sizes:
            mine = [t for t in select(ts, data__size=n) if t["label"] == label]
            if not mine or any(t["status"] == "failed" for t in mine):
                cells.append(MISSING)
            elif what == "steps":
                cells.append(f"{median([t.iterations() for t in mine]):g} steps, "
                             f"{sig(median([t.final('relative_error_M') for t in mine]))}")
            else:
                cells.append(f"{1e3 * median([t.seconds for t in mine]):.0f} ms")
        print(f"| {label} | " + " | ".join(cells) + " |")
    if what == "time":
        print()
        print(f"Measured on {machine_of(folder)}.")


if __name__ == "__main__":
    main()
