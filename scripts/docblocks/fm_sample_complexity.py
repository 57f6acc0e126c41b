#!/usr/bin/env python3
"""Prints the table of docs/fm_subgaussian_sample_complexity.md from the runs of
experiments/fm_subgaussian/sample_complexity.json and sample_complexity_ifm.json: per estimator
and rank k, the successful repetitions (final combined error below the experiment's success
threshold) at each batch size n, and the smallest n from which every larger n succeeds in every
repetition, also in units of kd.

usage: fm_sample_complexity.py RESULTS_DIR [RESULTS_DIR ...]
"""
import sys

from results import MISSING, axis, design, experiment_file, fail, trials


def main():
    if len(sys.argv) < 2:
        fail("usage: fm_sample_complexity.py RESULTS_DIR [RESULTS_DIR ...]")
    header = False
    for folder in sys.argv[1:]:
        resolved = design(experiment_file(folder))  # the file's whole grid, also for a reduced run
        below, d = resolved["success"]["below"], resolved["data"]["d"]
        sizes, ranks = axis(resolved, "estimators.0.batch_size"), axis(resolved, "data.rank")
        if not header:
            print("| estimator, k | " + " | ".join(f"n = {n}" for n in sizes) + " | all succeed from n (n/kd) |")
            print("|---" * (len(sizes) + 2) + "|")
            header = True
        ts = trials(folder)
        name = resolved["estimators"][0]["name"]
        for k in ranks:
            cells, full = [], []
            for n in sizes:
                mine = [t for t in ts if int(t["data.rank"]) == k and int(t["estimators.0.batch_size"]) == n]
                wins = sum(t["status"] not in ("failed", "diverged") and t.final("combined_error") < below for t in mine)
                cells.append(f"{wins}/{len(mine)}" if mine else MISSING)
                full.append(bool(mine) and wins == len(mine))
            first = next((i for i in range(len(sizes)) if all(full[i:])), None)
            threshold = f"{sizes[first]} ({sizes[first] / (k * d):g})" if first is not None else "—"
            if MISSING in cells:
                threshold = MISSING
            print(f"| {name}, {k} | " + " | ".join(cells) + f" | {threshold} |")


if __name__ == "__main__":
    main()
