#!/usr/bin/python3
"""A metric against the number of labels (bits) seen, for the one-bit real-data experiments.

Streaming estimators (one_bit_mll: `samples` grows with the iterations) are drawn as curves (median
over repetitions per iteration); estimators trained once on a fixed set (leml, ova_svm: `samples`
constant) as one marker at their final value, so curves and fixed-budget baselines share the x axis.

    experiments/one_bit/plot_bits.py --metric auc --out docs/figures/onebit_fmnist_auc.png \
        results/one_bit_fashion_mnist results/one_bit_fashion_mnist_full

With --validation DIR, estimators labelled FAMILY@VALUE (a hyper-parameter grid) are reduced to the
value chosen on the validation run, per repetition (select_on_validation.py).

The x axis is the store's `samples`: measurements drawn, i.e. one bit per instance in the one-bit
view and d2 bits per instance with full observation. Curves are keyed by estimator label, so labels
must differ between the folders given.
The rankone binary is build/bin/rankone, or $RANKONE_BIN; needs python3-matplotlib (scripts/setup --plots).
"""
import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
from collections import defaultdict


def export_rows(folder):
    binary = os.environ.get("RANKONE_BIN", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "rankone"))
    text = subprocess.run([binary, "export", folder, "--format", "csv"], check=True, capture_output=True,
                          text=True).stdout
    return list(csv.DictReader(io.StringIO(text)))


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folders", nargs="+", help="results folders")
    parser.add_argument("--metric", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--title", default="")
    parser.add_argument("--logx", action="store_true")
    parser.add_argument("--exclude", action="append", default=[], help="estimator label to leave out")
    parser.add_argument("--validation", help="results folder of the matching validation run: of each FAMILY@VALUE "
                        "family only the value chosen on it (select_on_validation.py, best final --select-metric) is "
                        "drawn, per repetition, as one curve 'FAMILY@chosen'")
    parser.add_argument("--select-metric", default="auc")
    args = parser.parse_args()
    chosen = None
    if args.validation:
        sys.dont_write_bytecode = True  # no __pycache__ in the source tree
        from select_on_validation import choose, final_values
        chosen = {key: label for key, (label, _) in choose(final_values(args.validation), args.select_metric).items()}

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # label -> repetition -> iteration -> (bits, value)
    points = defaultdict(lambda: defaultdict(dict))
    for folder in args.folders:
        for row in export_rows(folder):
            if row["metric"] != args.metric or row["label"] in args.exclude:
                continue
            label = row["label"]
            if chosen is not None and "@" in label:
                family = label.split("@")[0]
                validated = [r for f, r in chosen if f == family]
                # A validation run of one repetition chooses once, for every repetition.
                rep = validated[0] if len(validated) == 1 else int(row["repetition"])
                if chosen.get((family, rep)) != label:
                    continue
                values = sorted({l.split("@")[1] for (f, _), l in chosen.items() if f == family})
                label = family + "@" + "/".join(values) + " (chosen on validation)"
            points[label][(folder, int(row["repetition"]))][int(row["iteration"])] = (float(row["samples"]),
                                                                                    float(row["value"]))

    fig, ax = plt.subplots(figsize=(9, 4.5))
    markers = iter("osD^v<>ph*")
    for label in sorted(points):
        runs = points[label].values()
        if any(len({b for b, _ in run.values()}) > 1 for run in runs):
            # A streaming estimator: the median over repetitions at each recorded iteration.
            iterations = sorted({i for run in runs for i in run})
            bits = [statistics.median(run[i][0] for run in runs if i in run) for i in iterations]
            values = [statistics.median(run[i][1] for run in runs if i in run) for i in iterations]
            ax.plot(bits, values, "-", label=label)
        else:
            # Trained once on a fixed set: the median of each repetition's final value (repetitions
            # may stop after different numbers of iterations).
            finals = [run[max(run)] for run in runs]
            ax.plot([statistics.median(b for b, _ in finals)], [statistics.median(v for _, v in finals)],
                    next(markers, "o"), markersize=8, label=label + " (final)")
    ax.set_xlabel("labels (bits) seen")
    ax.set_ylabel(args.metric)
    if args.logx:
        ax.set_xscale("log")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))  # outside: markers sit at the edges
    if args.title:
        ax.set_title(args.title)
    fig.tight_layout()
    fig.savefig(args.out, dpi=110)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
