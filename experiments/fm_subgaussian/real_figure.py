#!/usr/bin/python3
"""Figure of the real-data experiments (docs/fm_subgaussian_real_data.md): 5-fold CV test RMSE
against the rank for fm, ifm and fm_moment_elimination (their other hyper-parameters chosen on
the validation folds at each rank, by `rankone select` with the rank left out of --tune), and
ridge (its penalty chosen on validation) as a horizontal band. Needs python3-matplotlib
(scripts/setup --plots).

  experiments/fm_subgaussian/real_figure.py RIDGE FM IFM FME --title concrete --out docs/figures/fm_real_concrete.png

RIDGE … FME are the results folders of experiments/fm_subgaussian/real_<dataset>_{ridge,fm,ifm,fme}.json.
The rankone binary is build/bin/rankone, or $RANKONE_BIN.
"""
import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("RANKONE_BIN", os.path.join(ROOT, "build", "bin", "rankone"))
SELECT = ["--metric", "test_rmse", "--validation", "data.evaluate_on=validation", "--average", "data.validation_fold",
          "--outer", "data.test_fold", "--format", "json"]
CURVES = [("fm", "fm (SGD)"), ("ifm", "ifm"), ("fme", "fm_moment_elimination")]


def rankone(*args):
    return subprocess.run([EXE, *args], check=True, capture_output=True, text=True).stdout


def per_rank(folder):
    """rank -> (mean, sd, folds tested) of the test RMSE, the other hyper-parameters selected per rank;
    empty when no trial recorded a point (every one failed before its first iteration)."""
    rows = json.loads(rankone("summarize", folder, "--format", "json"))
    if not rows:
        return {}
    tune = sorted(k for k in rows[0]["coordinates"] if k.startswith("estimators.") and k != "estimators.0.rank")
    doc = json.loads(rankone("select", folder, "--tune", ",".join(tune), *SELECT))
    return {a["group"]["estimators.0.rank"]: (a["test_mean"], a["test_sd"] or 0.0, a["tested"])
            for a in doc["aggregate"] if a["tested"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("ridge")
    ap.add_argument("fm")
    ap.add_argument("ifm")
    ap.add_argument("fme")
    ap.add_argument("--title", required=True, help="the data set's name")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ridge = json.loads(rankone("select", args.ridge, "--tune", "estimators.0.l2", *SELECT))["aggregate"][0]
    fig, ax = plt.subplots(figsize=(7.2, 4.4))
    mean, sd = ridge["test_mean"], ridge["test_sd"] or 0.0
    ax.axhspan(mean - sd, mean + sd, color="#dddddd", label="ridge ± sd")
    ax.axhline(mean, color="#555555", linestyle="--", label="ridge")
    notes, spans = [], [(mean - sd, mean + sd)]  # (bottom, top) of every bar
    for key, title in CURVES:
        curve = per_rank(getattr(args, key))
        if not curve:  # every candidate failed: said in the figure, not left out silently
            notes.append(f"{title}: no test score (every trial failed)")
            continue
        ranks = sorted(curve)
        spans += [(curve[r][0] - curve[r][1], curve[r][0] + curve[r][1]) for r in ranks]
        line = ax.errorbar(ranks, [curve[r][0] for r in ranks], yerr=[curve[r][1] for r in ranks],
                           marker="o", capsize=3, label=title)
        for r in ranks:  # a point averaged over fewer than 5 outer folds says so
            if curve[r][2] < 5:
                ax.annotate(f"{curve[r][2]}/5 folds", (r, curve[r][0]), textcoords="offset points", xytext=(0, -14),
                            ha="center", fontsize=8, color=line[0].get_color())
    for i, note in enumerate(notes):
        ax.text(0.02, 0.05 + 0.07 * i, note, transform=ax.transAxes, fontsize=9)
    # A bar far from ridge (one stalled fold) would squash the rest: the axis stays within [0, 2 × ridge's RMSE].
    low, high = max(min(lo for lo, _ in spans), 0.0), min(max(hi for _, hi in spans), 2 * mean)
    ax.set_ylim(low - 0.05 * (high - low), high + 0.25 * (high - low))
    ax.set_xscale("log", base=2)
    ax.set_xlabel("rank k")
    ax.set_ylabel("test RMSE")
    ax.set_title(f"{args.title}: 5-fold CV test RMSE (hyper-parameters chosen on validation folds at each rank)",
                 fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(loc="upper left", ncol=2, fontsize=9)
    fig.tight_layout()
    fig.savefig(args.out, dpi=100)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
