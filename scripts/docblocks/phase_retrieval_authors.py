#!/usr/bin/python3
"""Prints the table of docs/phase-retrieval.md from a run of experiments/phase_retrieval/authors_settings.json: per
solver, how many repetitions reached a sign-invariant error below 1e-10, the median iteration at which they did,
the median final error, and the median correlation of the start with the truth.

usage: phase_retrieval_authors.py RESULTS_DIR
"""
import sys

from results import design, fail, median, sig, trials

EXPERIMENT = "experiments/phase_retrieval/authors_settings.json"
TARGET = 1e-10


def first_iteration_below(t, metric, target):
    return next((it for it, _, _, v in t.points.get(metric, []) if v < target), None)


def main():
    if len(sys.argv) != 2:
        fail("usage: phase_retrieval_authors.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    ts = trials(sys.argv[1])
    n, m = resolved["data"]["d"], resolved["data"]["size"]
    print(f"| n = {n}, m = {m} | iteration budget | below {TARGET:g} | iterations to {TARGET:g} (median) | "
          "final error (median) | start's correlation (median) |")
    print("|---|---|---|---|---|---|")
    for e in resolved["estimators"]:
        group = [t for t in ts if t["label"] == e["label"]]
        if not group:
            fail(f"{e['label']}: no trials")
        reached = [i for i in (first_iteration_below(t, "sign_invariant_error", TARGET) for t in group) if i is not None]
        final = [t.final("sign_invariant_error") for t in group if "sign_invariant_error" in t.points]
        start = [t.points["truth_correlation"][0][3] for t in group if "truth_correlation" in t.points]
        init = e["init"]["name"] if isinstance(e["init"], dict) else e["init"]
        print(f"| {e['label']} from `{init}` | {e['max_iterations']} | {len(reached)} of {len(group)} | "
              f"{sig(median(reached)) if reached else 'none'} | {sig(median(final))} | {sig(median(start))} |")


if __name__ == "__main__":
    main()
