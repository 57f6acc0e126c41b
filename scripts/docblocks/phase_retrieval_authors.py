#!/usr/bin/python3
"""Prints the table of docs/phase-retrieval.md from runs of the experiments/phase_retrieval/authors_settings*.json
files: per solver, its n and m, how many repetitions reached a sign-invariant error below 1e-10, the median
iteration at which they did, the median final error, and the median correlation of the start with the truth.

usage: phase_retrieval_authors.py RESULTS_DIR...
"""
import sys

from results import fail, median, sig, stored_experiment, trials

TARGET = 1e-10


def first_iteration_below(t, metric, target):
    return next((it for it, _, _, v in t.points.get(metric, []) if v < target), None)


def rows(folder):
    resolved = stored_experiment(folder)
    ts = trials(folder)
    n, m = resolved["data"]["d"], resolved["data"]["size"]
    for e in resolved["estimators"]:
        group = [t for t in ts if t["label"] == e["label"]]
        if not group:
            fail(f"{folder}: {e['label']}: no trials")
        reached = [i for i in (first_iteration_below(t, "sign_invariant_error", TARGET) for t in group) if i is not None]
        final = [t.final("sign_invariant_error") for t in group if "sign_invariant_error" in t.points]
        start = [t.points["truth_correlation"][0][3] for t in group if "truth_correlation" in t.points]
        init = e["init"]["name"] if isinstance(e["init"], dict) else e["init"]
        yield (f"| {e['label']} from `{init}` | {n} | {m} | {e['max_iterations']} | {len(reached)} of {len(group)} | "
               f"{sig(median(reached)) if reached else 'none'} | {sig(median(final))} | {sig(median(start))} |")


def main():
    if len(sys.argv) < 2:
        fail("usage: phase_retrieval_authors.py RESULTS_DIR...")
    print(f"| solver | n | m | iteration budget | below {TARGET:g} | iterations to {TARGET:g} (median) | "
          "final error (median) | start's correlation (median) |")
    print("|---|---|---|---|---|---|---|---|")
    for folder in sys.argv[1:]:
        for row in rows(folder):
            print(row)


if __name__ == "__main__":
    main()
