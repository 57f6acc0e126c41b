#!/usr/bin/env python3
"""Prints the finite-data table of docs/plugins/gfm_one_pass.md from a run of
experiments/gfm/finite_early_stopping.json: per estimator label, the end states, the medians over
the repetitions of the iterations run, the samples read and the final test RMSE, then the notes and
messages that say how the batch was chosen and which iterate early stopping kept (repetition 0).

usage: gfm_finite.py RESULTS_DIR
"""
import json
import sys
from collections import Counter

from results import fail, median, sig, store_rows, trials


def main(folder):
    ts = trials(folder)
    if not ts:
        fail(f"{folder}: no trials")
    (experiment,), = store_rows(folder, "SELECT experiment FROM runs ORDER BY id LIMIT 1")
    labels = [e["label"] for e in json.loads(experiment)["estimators"]]  # the experiment's order
    print("| estimator | end state | iterations | samples read | test RMSE |")
    print("|---|---|---|---|---|")
    for label in labels:
        cell = [t for t in ts if t["label"] == label]
        states = ", ".join(f"{n}× {s}" for s, n in sorted(Counter(t["status"] for t in cell).items()))
        iterations = median([t.iteration_count for t in cell])
        samples = median([t.final("samples") for t in cell])
        rmse = median([t.final("test_rmse") for t in cell])
        print(f"| {label} | {states} | {iterations:g} | {samples:,.0f} | {sig(rmse, 3)} |")
    print()
    print("What the trials of repetition 0 say (notes, then the message):")
    print()
    print("```")
    said = {label: (message, diagnostics) for label, message, diagnostics in
            store_rows(folder, "SELECT label, message, diagnostics FROM trials WHERE repetition = 0")}
    for label in labels:
        message, diagnostics = said[label]
        for text in [*json.loads(diagnostics or "{}").get("notes", []), message]:
            print(f"{label}: {text}")
    print("```")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        fail(__doc__.strip().splitlines()[-1])
    main(sys.argv[1])
