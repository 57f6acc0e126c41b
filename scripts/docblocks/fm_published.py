#!/usr/bin/env python3
"""Prints the published-settings tables of docs/plugins/fm_mcmc.md and polynomial_network.md.

usage: fm_published.py libfm RESULTS_DIR       experiments/baselines/fm_mcmc_libfm_defaults.json: median
           final test RMSE per libFM init_stdev (random_init's std × √2) and number of sweeps
       fm_published.py polylearn RESULTS_DIR   experiments/baselines/polynomial_network_polylearn_defaults.json:
           per estimator, the median final test RMSE and relative error of M, and the median iterations
"""
import math
import statistics

from results import axis, design, median, run_subcommand, select, sig, trials


def libfm(folder):
    resolved = design("experiments/baselines/fm_mcmc_libfm_defaults.json")
    ts = trials(folder)
    stds = axis(resolved, "estimators.0.init.std")
    sweeps = axis(resolved, "estimators.0.max_iterations")
    print("| median test RMSE (floor 0.1) | " + " | ".join(f"init_stdev {s * math.sqrt(2):.2g}" for s in stds) + " |")
    print("|---" * (len(stds) + 1) + "|")
    for n in sweeps:
        cells = []
        for s in stds:
            mine = select(ts, estimators__0__init__std=s, estimators__0__max_iterations=n)
            cells.append(sig(median([t.final("test_rmse") for t in mine]), 3))
        print(f"| {n} sweeps | " + " | ".join(cells) + " |")


def polylearn(folder):
    resolved = design("experiments/baselines/polynomial_network_polylearn_defaults.json")
    ts = trials(folder)
    print("| estimator | median test RMSE (floor 0.1) | median ‖M − M*‖_F/‖M*‖_F | median iterations | status |")
    print("|---|---|---|---|---|")
    for e in resolved["estimators"]:
        mine = [t for t in ts if t["label"] == e["label"]]
        statuses = sorted({t["status"] for t in mine})
        print(f"| {e['label']} | {sig(median([t.final('test_rmse') for t in mine]), 3)} | "
              f"{sig(median([t.final('relative_error_M') for t in mine]))} | "
              f"{statistics.median(t.iterations() for t in mine):g} | {', '.join(statuses)} |")


if __name__ == "__main__":
    run_subcommand({"libfm": libfm, "polylearn": polylearn})
