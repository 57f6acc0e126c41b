#!/usr/bin/env python3
"""Prints a table of docs/gfm-vs-fm.md from a run of experiments/gfm/vs_fm.json.

usage: gfm_vs_fm.py table RESULTS_DIR
           final test RMSE (median over the repetitions) per estimator and training-set size;
           for gfm_one_pass also the iterations it ran (median), in brackets
       gfm_vs_fm.py rows ROWS RESULTS_DIR
           at ROWS training rows: per estimator the median, mean and sd of the final test RMSE and
           how far the median is above the noise floor (the noise sd: the test rows are noisy)
       gfm_vs_fm.py validation BASELINE VALIDATION_DIR RESULTS_DIR
           the grid of BASELINE (fm, fm_mcmc or polynomial_network) in its validation run
           (experiments/gfm/vs_fm_validation*.json, another seed) with its mean final test RMSE,
           and the choice: the lowest mean (tuning.choose); exit 2 when the test run does not hold
           the choice under the baseline's tuned label (tuning.check_test)

A tuned row names how its setting differs from the same baseline's default row.
"""
import statistics
import sys

from results import MISSING, axis, design, fail, median, select, trials
from tuning import check_test, choose, configurations, difference, flattened, settings

EXPERIMENT = "experiments/gfm/vs_fm.json"
# Each tuned baseline: the label of its grid in its validation run, of its row at the defaults in
# vs_fm.json and of its row at the setting validation chose.
BASELINES = {
    "fm": {"grid": "fm", "default": "fm (conventional, ALS)", "tuned": "fm tuned on validation"},
    "fm_mcmc": {"grid": "fm_mcmc", "default": "fm_mcmc (Bayesian FM, libFM MCMC)",
                "tuned": "fm_mcmc tuned on validation"},
    "polynomial_network": {"grid": "polynomial_network", "default": "polynomial network (CD)",
                           "tuned": "polynomial network tuned on validation"},
}


def row_label(resolved, e):
    """The estimator's label; for a tuned row also what differs from its baseline's default row."""
    baseline = next((b for b in BASELINES.values() if b["tuned"] == e["label"]), None)
    if baseline is None:
        return e["label"]
    default = next(x for x in resolved["estimators"] if x["label"] == baseline["default"])
    strip = lambda x: flattened({k: v for k, v in x.items() if k != "label"})  # noqa: E731
    return f"{e['label']} ({difference(strip(default), strip(e))})"


def table(resolved, ts):
    sizes = axis(resolved, "data.size")
    print("| estimator (iterations) | " + " | ".join(f"{s:,} rows".replace(",", "\u202f") for s in sizes) + " |")
    print("|---" * (len(sizes) + 1) + "|")
    for e in resolved["estimators"]:
        cells = []
        for size in sizes:
            mine = [t for t in select(ts, data__size=size) if t["label"] == e["label"]]
            if not mine:
                cells.append(MISSING)
                continue
            cell = f"{median([t.final('test_rmse') for t in mine]):.3f}"
            if e["name"] == "gfm_one_pass":
                cell += f" ({median([t.iterations() for t in mine]):g})"
            cells.append(cell)
        print(f"| {row_label(resolved, e)} | " + " | ".join(cells) + " |")


def rows(resolved, ts, size):
    floor = resolved["data"]["noise_std"]
    print(f"| {size:,} rows: estimator | median | mean | sd | median above the floor {floor:g} |".replace(",", "\u202f"))
    print("|---|---|---|---|---|")
    for e in resolved["estimators"]:
        finals = [t.final("test_rmse") for t in select(ts, data__size=size) if t["label"] == e["label"]]
        if not finals:
            print(f"| {row_label(resolved, e)} | {MISSING} | {MISSING} | {MISSING} | {MISSING} |")
            continue
        m = median(finals)
        sd = statistics.stdev(finals) if len(finals) > 1 else 0.0
        print(f"| {row_label(resolved, e)} | {m:.4f} | {statistics.mean(finals):.4f} | {sd:.4f} | {100 * (m / floor - 1):.1f} % |")


def mean_final_rmse(setting):
    return statistics.mean(t.final("test_rmse") for t in setting.trials)


def validation(name, validation_dir, test_dir):
    """The grid (the parameters that vary in it), per repetition and mean; the default and the choice."""
    baseline = BASELINES.get(name) or fail(f"unknown baseline {name!r} (expected one of {', '.join(BASELINES)})")
    v_ts, t_ts = trials(validation_dir), trials(test_dir)
    v_configs, t_configs = configurations(validation_dir), configurations(test_dir)
    grid_label = baseline["grid"]
    grid = settings(v_ts, v_configs, [grid_label]).get(grid_label) or fail(f"{validation_dir}: no trials of {grid_label}")
    chosen = choose(grid, mean_final_rmse)
    if chosen is None:
        fail(f"no usable setting of {name} in the validation run")
    check_test((v_ts, v_configs), (t_ts, t_configs), baseline["default"], baseline["tuned"], chosen)
    default = next(t_configs[t["trial"]]["estimator"] for t in t_ts if t["label"] == baseline["default"])
    varied = sorted(k for k in grid[0].estimator if len({repr(s.estimator[k]) for s in grid}) > 1)
    repetitions = sorted({int(t["repetition"]) for s in grid for t in s.trials})
    sizes = sorted({int(t["data.size"]) for s in grid for t in s.trials})
    print("| " + " | ".join(varied) + " | " + " | ".join(f"repetition {r}" for r in repetitions)
          + " | mean | |")
    print("|---" * (len(varied) + len(repetitions) + 2) + "|")
    for s in grid:
        finals = {int(t["repetition"]): t.final("test_rmse") for t in s.trials}
        cells = [f"{s.estimator[k]:g}" for k in varied] + [f"{finals[r]:.4f}" if r in finals else MISSING for r in repetitions]
        mean = f"{mean_final_rmse(s):.4f}" if s.usable() else "not a candidate"
        marks = (["default"] if s.estimator == default else []) + (["**chosen**"] if s is chosen else [])
        print("| " + " | ".join(cells) + f" | {'**' + mean + '**' if s is chosen else mean} | {', '.join(marks)} |")
    print()
    what = difference(default, chosen.estimator) or "the default setting"
    print(f"Validation problem: {', '.join(f'{n:,}'.replace(',', chr(0x202f)) for n in sizes)} training rows, "
          f"final test RMSE on its own test rows, {len(repetitions)} repetitions. Chosen: {what}.")


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "table":
        resolved = design(EXPERIMENT)
        table(resolved, trials(sys.argv[2]))
    elif len(sys.argv) == 4 and sys.argv[1] == "rows":
        resolved = design(EXPERIMENT)
        rows(resolved, trials(sys.argv[3]), int(sys.argv[2]))
    elif len(sys.argv) == 5 and sys.argv[1] == "validation":
        validation(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        fail("usage: gfm_vs_fm.py table RESULTS_DIR | gfm_vs_fm.py rows ROWS RESULTS_DIR | "
             "gfm_vs_fm.py validation BASELINE VALIDATION_DIR RESULTS_DIR")


if __name__ == "__main__":
    main()
