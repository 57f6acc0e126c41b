#!/usr/bin/python3
"""Figure of the real-data experiments (docs/fm_subgaussian_real_data.md): 5-fold CV test RMSE
against the rank for fm, ifm and fm_moment_elimination (their other hyper-parameters chosen on
the validation folds at each rank, by `rankone select` with the rank left out of --tune), and
ridge (its penalty chosen on validation) as a horizontal band. Needs gnuplot; standard library only.

  experiments/fm_subgaussian/real_figure.py RESULTS concrete --out docs/figures/fm_real_concrete.png

RESULTS holds the folders real_<dataset>_<estimator> written by
  rankone run experiments/fm_subgaussian/real_<dataset>_<estimator>.json --out RESULTS/real_<dataset>_<estimator>
The rankone binary is build/bin/rankone, or $RANKONE_BIN.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXE = os.environ.get("RANKONE_BIN", os.path.join(ROOT, "build", "bin", "rankone"))
SELECT = ["--metric", "test_rmse", "--validation", "data.evaluate_on=validation", "--average", "data.validation_fold",
          "--outer", "data.test_fold", "--format", "json"]
ESTIMATORS = [("fm", "fm (SGD)"), ("ifm", "ifm"), ("fme", "fm\\_moment\\_elimination")]


def rankone(*args):
    return subprocess.run([EXE, *args], check=True, capture_output=True, text=True).stdout


def tuned_paths(folder):
    """Every swept estimator coordinate of a results folder."""
    rows = json.loads(rankone("summarize", folder, "--format", "json"))
    return sorted(k for k in rows[0]["coordinates"] if k.startswith("estimators."))


def per_rank(folder):
    """rank -> (mean, sd, folds tested) of the test RMSE, the other hyper-parameters selected per rank."""
    tune = [p for p in tuned_paths(folder) if p != "estimators.0.rank"]
    doc = json.loads(rankone("select", folder, "--tune", ",".join(tune), *SELECT))
    out = {}
    for a in doc["aggregate"]:
        if a["tested"]:
            out[a["group"]["estimators.0.rank"]] = (a["test_mean"], a["test_sd"], a["tested"])
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("results")
    ap.add_argument("dataset")
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    folder = lambda e: os.path.join(args.results, f"real_{args.dataset}_{e}")

    ridge = json.loads(rankone("select", folder("ridge"), "--tune", "estimators.0.l2", *SELECT))["aggregate"][0]
    curves = {e: per_rank(folder(e)) for e, _ in ESTIMATORS}
    ranks = sorted({r for c in curves.values() for r in c})
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "curves.dat")
        with open(data, "w") as f:
            for e, _ in ESTIMATORS:
                f.write(f"# {e}: rank mean sd folds\n")
                for r in ranks:
                    if r in curves[e]:
                        f.write("%d %.6g %.6g %d\n" % (r, *curves[e][r]))
                f.write("\n\n")
        lo, hi = ridge["test_mean"] - ridge["test_sd"], ridge["test_mean"] + ridge["test_sd"]
        values = [m - sd for c in curves.values() for m, sd, _ in c.values()] + [lo]
        tops = [m + sd for c in curves.values() for m, sd, _ in c.values()] + [hi]
        margin = 0.05 * (max(tops) - min(values))
        notes = []
        plots = [f"{lo:.6g} with filledcurves y1={hi:.6g} lc rgb '#dddddd' title 'ridge ± sd'",
                 f"{ridge['test_mean']:.6g} with lines lc rgb '#555555' dt 2 title 'ridge'"]
        for i, (e, title) in enumerate(ESTIMATORS):
            if curves[e]:
                plots.append(f"'{data}' index {i} using 1:2:3 with yerrorlines pt 7 title '{title}'")
                # Points averaged over fewer than 5 outer folds (the others failed) say so.
                plots.append(f"'{data}' index {i} using 1:2:($4 < 5 ? sprintf('%d/5 folds', $4) : '') "
                             "with labels offset 0,-1 font ',9' notitle")
            else:
                print(f"{e}: no rank has a test score (every candidate failed)", file=sys.stderr)
                notes.append(f"set label {len(notes) + 1} '{title}: no test score (every trial failed)' "
                             f"at graph 0.02, graph {0.05 + 0.06 * len(notes)} font ',10'")
        script = f"""
set terminal pngcairo size 720,440 font ',11'
set output '{os.path.abspath(args.out)}'
set title '{args.dataset}: 5-fold CV test RMSE (hyper-parameters chosen on validation folds at each rank)'
set xlabel 'rank k'
set ylabel 'test RMSE'
set logscale x 2
set xrange [0.8:{max(ranks) * 1.25 if ranks else 10}]
set yrange [{min(values) - margin:.6g}:{max(tops) + 4 * margin:.6g}]
set key top left horizontal maxcols 2 font ',10'
set grid
{chr(10).join(notes)}
plot {', '.join(plots)}
"""
        subprocess.run(["gnuplot"], input=script, text=True, check=True)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
