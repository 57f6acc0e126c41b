#!/usr/bin/python3
"""Hyper-parameter choice on validation data for the one-bit real-data experiments.

Estimators are labelled FAMILY@VALUE (e.g. ours@l20, leml@0.01). For each family and repetition
this picks the VALUE whose final validation score (the last recorded iteration in VALIDATION_DIR,
a run with `evaluate_on: "validation"`) is best, then reports the final test scores of the run with
that label and repetition in TEST_DIR (the same experiment, seed and split, scored on the test part).
Runs that failed or diverged are not candidates; ties keep the first label in sorted order. A
validation run of a single repetition chooses once, for every repetition of the test run. A run with
several cells (a sweep, e.g. Table 1's columns) scores each label by its mean over the cells.

    experiments/one_bit/select_on_validation.py results/one_bit_yeast_validation results/one_bit_yeast

`rankone select` does the same for sweeps but minimises; AUC is maximised, hence this script.
The rankone binary is build/bin/rankone, or $RANKONE_BIN.
"""
import argparse
import os
import statistics
import sys
from collections import defaultdict

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot_bits import export_rows  # noqa: E402

NOT_CANDIDATES = {"failed", "diverged"}


FIXED_COLUMNS = {"trial", "estimator", "label", "repetition", "status", "iteration", "samples", "seconds", "metric", "value"}


def final_values(folder):
    """(label, repetition) -> {"status", "samples", "values": {metric: value}} at the last recorded
    iteration. A run with several cells (sweep points) gives each metric's mean over the cells, and
    the status "failed" when any cell failed, diverged or is missing (a mean over fewer cells would
    not compare)."""
    last = {}
    for row in export_rows(folder):
        cell = tuple(sorted((k, v) for k, v in row.items() if k not in FIXED_COLUMNS))
        key = (row["label"], int(row["repetition"]), cell)
        iteration = int(row["iteration"])
        entry = last.setdefault(key, {"iteration": -1, "values": {}})
        if iteration > entry["iteration"]:
            entry.update(iteration=iteration, values={}, status=row["status"], samples=float(row["samples"]))
        if iteration == entry["iteration"]:
            entry["values"][row["metric"]] = float(row["value"])
    cells = defaultdict(list)
    for (label, rep, _), entry in last.items():
        cells[(label, rep)].append(entry)
    all_cells = len({cell for _, _, cell in last})
    out = {}
    for key, entries in cells.items():
        if all_cells == 1:
            out[key] = entries[0]
            continue
        metrics = set.intersection(*(set(e["values"]) for e in entries))
        bad = [e["status"] for e in entries if e["status"] in NOT_CANDIDATES] + ["failed"] * (len(entries) < all_cells)
        out[key] = {"iteration": max(e["iteration"] for e in entries), "status": bad[0] if bad else entries[0]["status"],
                    "samples": statistics.mean(e["samples"] for e in entries),
                    "values": {m: statistics.mean(e["values"][m] for e in entries) for m in metrics}}
    return out


def choose(validation, metric="auc", lower=False):
    """{(family, repetition): (label, validation score)}: the best candidate of each family."""
    candidates = defaultdict(list)
    for (label, rep), entry in validation.items():
        if "@" not in label or entry["status"] in NOT_CANDIDATES or metric not in entry["values"]:
            continue
        candidates[(label.split("@")[0], rep)].append((label, entry["values"][metric]))
    sign = -1.0 if lower else 1.0
    chosen = {}
    for key, runs in candidates.items():
        best = None
        for label, value in sorted(runs):  # a tie keeps the first label
            if best is None or sign * value > sign * best[1]:
                best = (label, value)
        chosen[key] = best
    return chosen


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("validation", help="results folder of the validation run")
    parser.add_argument("test", help="results folder of the test run")
    parser.add_argument("--metric", default="auc", help="selection metric (default auc)")
    parser.add_argument("--lower", action="store_true", help="lower is better (e.g. hamming_loss)")
    parser.add_argument("--report", default="auc,precision_at_k,hamming_loss", help="test metrics to report")
    args = parser.parse_args()
    report = args.report.split(",")

    validation, test = final_values(args.validation), final_values(args.test)
    chosen = choose(validation, args.metric, args.lower)
    print("family\trepetition\tchosen\tvalidation_%s\ttest_samples\t%s" % (args.metric, "\t".join("test_" + m for m in report)))
    summary = []
    for family in sorted({f for f, _ in chosen}):
        chosen_scores = defaultdict(list)
        choices = []
        validated = sorted(r for f, r in chosen if f == family)
        # A validation run of one repetition chooses once, for every test repetition.
        once = len(validated) == 1
        reps = sorted({r for (l, r) in test if l.split("@")[0] == family}) if once else validated
        for rep in reps:
            label, score = chosen[(family, validated[0] if once else rep)]
            choices.append(label)
            run = test.get((label, rep))
            if run is None or run["status"] in NOT_CANDIDATES:
                print("%s\t%d\t%s\t%.4f\t-\t%s" % (family, rep, label, score, "no test run" if run is None else run["status"]))
                continue
            values = [run["values"].get(m, float("nan")) for m in report]
            for m, v in zip(report, values):
                chosen_scores[m].append(v)
            print("%s\t%d\t%s\t%.4f\t%d\t%s" % (family, rep, label, score, run["samples"],
                                                 "\t".join("%.4f" % v for v in values)))
        summary.append((family, choices, chosen_scores))

    print("\nfamily\tn\tchosen (per repetition)\t%s" % "\t".join(report))
    for family, choices, scores in summary:
        cells = []
        for m in report:
            v = scores[m]
            if not v:
                cells.append("-")
            elif len(v) == 1:
                cells.append("%.4f" % v[0])
            else:
                cells.append("%.4f ± %.4f" % (statistics.mean(v), statistics.stdev(v)))
        print("%s\t%d\t%s\t%s" % (family, len(scores[report[0]]), ",".join(c.split("@")[1] for c in choices),
                                  "\t".join(cells)))


if __name__ == "__main__":
    main()
