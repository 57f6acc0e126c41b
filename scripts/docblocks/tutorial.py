#!/usr/bin/env python3
"""Prints the generated blocks of docs/studies.md's tutorial from a run of
experiments/tutorial/gfm_vs_spectral.json (one-pass gFM against the spectral estimate over d and
the gFM batch size).

usage: tutorial.py rows RESULTS_DIR      the lines of the page's `.rows` file: the export without
                                         the `seconds` metric, header included
       tutorial.py summary RESULTS_DIR   what `rankone summarize` says of the final combined error:
                                         its mean per d and batch size (the spectral estimate does
                                         not depend on the batch size: one column), gFM's mean
                                         samples to the success threshold, and the success rates
"""
import json
import subprocess

from results import axis, count, design, export, fail, MISSING, rankone, run_subcommand, sig

EXPERIMENT = "experiments/tutorial/gfm_vs_spectral.json"
DIMENSION, BATCH = "data.d", "estimators.0.batch_size"


def rows(folder):
    points = [r for r in export(folder) if r["metric"] != "seconds"]
    print(f"Each `.rows` file has {count(len(points) + 1)} lines: the header and one per point of every "
          "metric but `seconds`.")


def spread(values, form):
    """One value, or the range when the values differ."""
    low, high = form(min(values)), form(max(values))
    return low if low == high else f"{low}–{high}"


def summary(folder):
    resolved = design(EXPERIMENT)
    gfm, spectral = (e["label"] for e in resolved["estimators"][:2])
    dims, batches = axis(resolved, DIMENSION), axis(resolved, BATCH)
    success = resolved["success"]
    out = subprocess.run([rankone(), "summarize", folder, "--only", success["metric"], "--format", "json"],
                         check=True, capture_output=True, text=True).stdout
    by_key = {(r["estimator"], r["coordinates"][DIMENSION], r["coordinates"][BATCH]): r for r in json.loads(out)}

    def cell(label, d, n, field, form):
        r = by_key.get((label, d, n))
        return MISSING if r is None or r.get(field) is None else form(r[field])

    spectral_batch = count(resolved["estimators"][1]["batch_size"])
    print(f"| final {success['metric']} (mean of {resolved['repetitions']}) | "
          + " | ".join(f"{gfm}, n = {n}" for n in batches) + f" | {spectral}, {spectral_batch} samples |")
    print("|---" * (len(batches) + 2) + "|")
    for d in dims:
        spectral_means = [by_key[(spectral, d, n)]["mean"] for n in batches if (spectral, d, n) in by_key]
        print(f"| d = {d} | " + " | ".join(cell(gfm, d, n, "mean", sig) for n in batches) + " | "
              + (spread(spectral_means, lambda x: sig(x, 3)) if spectral_means else MISSING) + " |")
    print()
    print(f"| {gfm}: samples to {sig(success['below'], 1)} (mean) | " + " | ".join(f"n = {n}" for n in batches) + " |")
    print("|---" * (len(batches) + 1) + "|")
    for d in dims:
        print(f"| d = {d} | " + " | ".join(cell(gfm, d, n, "samples_to_target", count) for n in batches) + " |")
    print()
    rates = {label: [r["success_rate"] for (l, _, _), r in by_key.items() if l == label] for label in (gfm, spectral)}
    if not all(rates.values()):
        fail(f"no {success['metric']} rows in {folder}")
    print(f"Success rate ({success['metric']} below {sig(success['below'], 1)}) per cell: "
          + ", ".join(f"{label} {spread(v, lambda x: f'{x:g}')}" for label, v in rates.items()) + ".")


def main():
    run_subcommand({"rows": rows, "summary": summary}, ("RESULTS_DIR",))


if __name__ == "__main__":
    main()
