#!/usr/bin/env python3
"""Prints a table of docs/gfm-vs-fm.md from a run of experiments/gfm/vs_fm.json.

usage: gfm_vs_fm.py table RESULTS_DIR
           final test RMSE (median over the repetitions) per estimator and training-set size;
           for gfm_one_pass also the iterations it ran (median), in brackets
       gfm_vs_fm.py rows ROWS RESULTS_DIR
           at ROWS training rows: per estimator the median, mean and sd of the final test RMSE and
           how far the median is above the noise floor (the noise sd: the test rows are noisy)
       gfm_vs_fm.py validation VALIDATION_DIR RESULTS_DIR
           the fm grid of experiments/gfm/vs_fm_validation.json (another seed) with its mean final
           test RMSE, and the choice: the lowest mean (tuning.choose); exit 2 when the test run
           does not hold the choice under TUNED (tuning.check_test)

The tuned fm's row names how its setting differs from the default fm's.
"""
import statistics
import sys

from results import MISSING, axis, design, fail, median, select, trials
from tuning import check_test, choose, configurations, difference, settings

EXPERIMENT = "experiments/gfm/vs_fm.json"
DEFAULT = "fm (conventional, ALS)"  # the baseline at its defaults (vs_fm.json's budget of 30 epochs)
TUNED = "fm tuned on validation"  # the same baseline at the setting validation chose
GRID = "fm"  # the label of the fm grid in the validation run


def row_label(resolved, e):
    """The estimator's label; for the tuned fm also what differs from the default fm."""
    if e["label"] != TUNED:
        return e["label"]
    default = next(x for x in resolved["estimators"] if x["label"] == DEFAULT)
    strip = lambda x: {k: v for k, v in x.items() if k != "label"}  # noqa: E731
    return f"{TUNED} ({difference(strip(default), strip(e))})"


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


def validation(validation_dir, test_dir):
    """The grid (the parameters that vary in it), per repetition and mean; the default and the choice."""
    v_ts, t_ts = trials(validation_dir), trials(test_dir)
    v_configs, t_configs = configurations(validation_dir), configurations(test_dir)
    grid = settings(v_ts, v_configs, [GRID]).get(GRID) or fail(f"{validation_dir}: no trials of {GRID}")
    chosen = choose(grid, mean_final_rmse)
    if chosen is None:
        fail("no usable setting of fm in the validation run")
    check_test((v_ts, v_configs), (t_ts, t_configs), DEFAULT, TUNED, chosen)
    default = next(t_configs[t["trial"]]["estimator"] for t in t_ts if t["label"] == DEFAULT)
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
    elif len(sys.argv) == 4 and sys.argv[1] == "validation":
        validation(sys.argv[2], sys.argv[3])
    else:
        fail("usage: gfm_vs_fm.py table RESULTS_DIR | gfm_vs_fm.py rows ROWS RESULTS_DIR | "
             "gfm_vs_fm.py validation VALIDATION_DIR RESULTS_DIR")


if __name__ == "__main__":
    main()
