#!/usr/bin/env python3
"""Prints the README's quick-start summary from a run of experiments/quickstart.json: per
estimator of the experiment, in its order, the median final combined error, rows used and
estimator seconds over the repetitions (`rankone summarize DIR --only combined_error,samples,seconds`).

usage: quickstart.py RESULTS_DIR
"""
import json
import subprocess
import sys

from results import MISSING, design, fail, machine_of, rankone, sig


def main():
    if len(sys.argv) != 2:
        fail("usage: quickstart.py RESULTS_DIR")
    out = subprocess.run([rankone(), "summarize", sys.argv[1], "--only", "combined_error,samples,seconds", "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    table = {}
    for r in json.loads(out):
        table.setdefault(r["estimator"], {})[r["metric"]] = r
    order = [e["label"] for e in design("experiments/quickstart.json")["estimators"]]
    print("| estimator | final combined error (median) | rows used | estimator time (median) |")
    print("|---|---|---|---|")
    for label in order:
        if label not in table:  # not in a reduced run
            print(f"| {label} | {MISSING} | {MISSING} | {MISSING} |")
            continue
        r = table[label]
        print(f"| {label} | {sig(r['combined_error']['median'])} | {r['samples']['median']:,.0f} | {r['seconds']['median']:.2f} s |")
    print()
    print(f"(Times: measured on {machine_of(sys.argv[1])}.)")


if __name__ == "__main__":
    main()
