#!/usr/bin/env python3
"""Prints what reproducing a page costs: its trials and their estimator time, from stored results.

usage: cost.py RESULTS_DIR [RESULTS_DIR ...]

The time is the sum of the trials' estimator seconds (the store's `seconds` of each trial, which
pauses while metrics run), i.e. the CPU a `--jobs 1` run spends in the estimators, on the machine recorded
beside the results.
"""
import sys

from results import fail, machine_of, trials


def main():
    if len(sys.argv) < 2:
        fail("usage: cost.py RESULTS_DIR [RESULTS_DIR ...]")
    n, seconds = 0, 0.0
    for folder in sys.argv[1:]:
        ts = trials(folder)
        n += len(ts)
        seconds += sum(t.seconds for t in ts)
    shown = f"{seconds:.0f} s" if seconds < 600 else f"{seconds / 60:.0f} min"
    print(f"{n} trials, {shown} of estimator time in all (measured on {machine_of(*sys.argv[1:])}).")


if __name__ == "__main__":
    main()
