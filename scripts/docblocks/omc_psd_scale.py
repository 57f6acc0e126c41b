#!/usr/bin/env python3
"""Prints the scale-invariance table of docs/plugins/omc_psd.md: the same experiment (the same
seeds) with the truth scaled by different factors, observations to relative error 1e-6 (warm
start included, first recorded point below) and the final error.

usage: omc_psd_scale.py RESULTS_DIR [RESULTS_DIR ...]     (one run per scale, data.scale overridden)
"""
import sys

from results import MISSING, count, fail, sig, stored_experiment, trials

TARGET = 1e-6


def main():
    if len(sys.argv) < 2:
        fail("usage: omc_psd_scale.py RESULTS_DIR [RESULTS_DIR ...]")
    print("| truth scale | observations to 1e-6 | final relative error |")
    print("|---|---|---|")
    for folder in sys.argv[1:]:
        # The scale is an override, not a coordinate: read it from the resolved experiment.
        scale = stored_experiment(folder)["data"]["scale"]
        ts = trials(folder)
        if len(ts) != 1:
            fail(f"{folder}: expected one trial, found {len(ts)}")
        reached = ts[0].first_below("relative_error_M", TARGET)
        print(f"| {scale:g} | {count(reached[0]) if reached else 'not reached'} | "
              f"{sig(ts[0].final('relative_error_M')) if ts else MISSING} |")


if __name__ == "__main__":
    main()
