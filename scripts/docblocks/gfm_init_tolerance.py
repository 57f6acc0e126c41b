#!/usr/bin/env python3
"""Prints the start-tolerance table (spectral_init's tolerance) of docs/PERFORMANCE.md from a run of experiments/gfm/init_tolerance.json.

usage: gfm_init_tolerance.py RESULTS_DIR
           per tolerance: the estimator seconds of the spectral start (the first recorded
           point, its batch drawn included; machine-specific) and ‖M − M*‖_F/‖M*‖_F after the
           last iteration
"""
import json
import sys

from results import fail, machine_of, sig, trials


def main():
    if len(sys.argv) != 2:
        fail("usage: gfm_init_tolerance.py RESULTS_DIR")
    ts = sorted(trials(sys.argv[1]), key=lambda t: json.loads(t["estimators.0.init.tolerance"]))  # tightest first
    print("| spectral_init `tolerance` | " + " | ".join(sig(json.loads(t["estimators.0.init.tolerance"]), 1) for t in ts) + " |")
    print("|---" * (len(ts) + 1) + "|")
    def cell(t, text):  # a trial without points says how it ended, and after how long
        return text(t) if "relative_error_M" in t.points else f"{t['status']} ({t.info.get('message')}; {t.seconds:.1f} s)"
    iterations = max(len(t.points.get("relative_error_M", [])) for t in ts) - 1
    print("| start, estimator seconds | " + " | ".join(cell(t, lambda t: f"{t.points['relative_error_M'][0][2]:.1f}")
                                                     for t in ts) + " |")
    print(f"| error after {iterations} iterations | " + " | ".join(cell(t, lambda t: f"{t.final('relative_error_M'):.3f}")
                                                                for t in ts) + " |")
    print()
    print(f"Seconds measured on {machine_of(sys.argv[1])}.")


if __name__ == "__main__":
    main()
