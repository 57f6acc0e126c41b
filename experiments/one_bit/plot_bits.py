#!/usr/bin/python3
"""A metric against the number of labels (bits) seen, for the one-bit real-data experiments.

Streaming estimators (one_bit_mll: `samples` grows with the iterations) are drawn as curves (median
over repetitions per iteration); estimators trained once on a fixed set (leml, ova_svm: `samples`
constant) as one marker at their final value, so curves and fixed-budget baselines share the x axis.

    experiments/one_bit/plot_bits.py --metric auc --out docs/figures/onebit_fmnist_auc.png \
        results/one_bit_fashion_mnist results/one_bit_fashion_mnist_full

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
    args = parser.parse_args()

    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # label -> iteration -> list of (bits, value) over repetitions
    points = defaultdict(lambda: defaultdict(list))
    for folder in args.folders:
        for row in export_rows(folder):
            if row["metric"] != args.metric or row["label"] in args.exclude:
                continue
            points[row["label"]][int(row["iteration"])].append((float(row["samples"]), float(row["value"])))

    fig, ax = plt.subplots(figsize=(9, 4.5))
    markers = iter("osD^v<>ph*")
    for label in sorted(points):
        by_iteration = points[label]
        iterations = sorted(by_iteration)
        bits = [statistics.median(b for b, _ in by_iteration[i]) for i in iterations]
        values = [statistics.median(v for _, v in by_iteration[i]) for i in iterations]
        if len(set(bits)) > 1:
            ax.plot(bits, values, "-", label=label)
        else:
            ax.plot(bits[-1:], values[-1:], next(markers, "o"), markersize=8, label=label + " (final)")
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
