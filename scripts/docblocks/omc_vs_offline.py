#!/usr/bin/env python3
"""Prints the tables of docs/online-completion-experiments.md §3 from the runs of
experiments/online_completion/vs_offline.json (the fixed 200 000 entries), of its endless-stream
variant and of its validation run vs_offline_validation.json.

usage: omc_vs_offline.py table RESULTS_DIR [RESULTS_DIR ...]
           per estimator label, observations and estimator seconds to relative error 1e-3 (first
           recorded point below; medians over the repetitions that reached it), the seconds spent
           before the first iteration (the start: warm start or spectral initialisation), the final
           error and the observations used in all (medians), and the trials' end states; a tuned
           baseline's label also names how its setting differs from the default's
       omc_vs_offline.py validation VALIDATION_DIR RESULTS_DIR
           per offline baseline its grid on the validation problems (another seed): epochs to 1e-3
           and final error, means over the repetitions, and the choice (RULE below); exit 2 when the
           test run does not hold the choice (tuning.check_test)

RULE, fixed before the validation run: per baseline the setting with the fewest epochs (ALS:
sweeps) until relative_error_M is first below 1e-3, mean over the repetitions; a setting that fails,
diverges or misses 1e-3 in a repetition is not a candidate; ties go to the lower mean final error,
then to the first in grid order (the default first). Epochs, not seconds: the page compares the
time to 1e-3, an epoch's cost does not depend on the tuned parameter, and epochs reproduce exactly.
"""
import statistics
import sys
from collections import Counter

from results import count, fail, machine_of, median, sig, stored_experiment, trials
from tuning import check_test, choose, configurations, difference, settings

TARGET = 1e-3
METRIC = "relative_error_M"
# default label -> the label of the same baseline at the setting validation chose
TUNED = {"sgd_mf_random": "sgd_mf_random_tuned", "sgd_mf_spectral": "sgd_mf_spectral_tuned", "als": "als_tuned"}


def strip(estimator):
    return {k: v for k, v in estimator.items() if k != "label"}


def row_label(estimators, label):
    """`label`; for a tuned baseline also what differs from its default."""
    default = next((d for d, t in TUNED.items() if t == label), None)
    if default is None:
        return f"`{label}`"
    by_label = {e["label"]: strip(e) for e in estimators}
    return f"`{label}` ({difference(by_label[default], by_label[label])})"


def table(folders):
    print("| label | observations to 1e-3 | seconds to 1e-3 | of which the start | final error | observations in all | end states |")
    print("|---|---|---|---|---|---|---|")
    for folder in folders:
        ts = trials(folder)
        estimators = stored_experiment(folder)["estimators"]
        for label in (e["label"] for e in estimators):
            mine = [t for t in ts if t["label"] == label]
            if not mine:
                fail(f"{folder}: no trials of {label}")
            reached = [r for r in (t.first_below(METRIC, TARGET) for t in mine) if r]
            if reached:
                to = f"{count(median([r[0] for r in reached]))} ({len(reached)} of {len(mine)})"
                seconds = f"{median([r[1] for r in reached]):.2f} s"
            else:
                to, seconds = f"not reached (0 of {len(mine)})", "—"
            start = f"{median([t.points[METRIC][0][2] for t in mine]):.2f} s"
            final = sig(median([t.final(METRIC) for t in mine]))
            used = count(median([t.points[METRIC][-1][1] for t in mine]))
            states = ", ".join(f"{n} × {s}" for s, n in Counter(t["status"] for t in mine).most_common())
            print(f"| {row_label(estimators, label)} | {to} | {seconds} | {start} | {final} | {used} | {states} |")
    print()
    print(f"(Times: estimator seconds, measured on {machine_of(*folders)}.)")


def epochs_to_target(trial):
    """The first iteration whose error is below TARGET, or None."""
    return next((it for it, _, _, v in trial.points.get(METRIC, []) if v < TARGET), None)


def mean_final(setting):
    return statistics.mean(t.final(METRIC) for t in setting.trials)


def score(setting):
    """RULE: (mean epochs to 1e-3, mean final error); None when a repetition missed 1e-3."""
    epochs = [epochs_to_target(t) for t in setting.trials]
    if any(e is None for e in epochs):
        return None
    return statistics.mean(epochs), mean_final(setting)


def validation(validation_dir, test_dir):
    v_ts, t_ts = trials(validation_dir), trials(test_dir)
    v_configs, t_configs = configurations(validation_dir), configurations(test_dir)
    labels = [e["label"] for e in stored_experiment(validation_dir)["estimators"]]
    grids = settings(v_ts, v_configs, labels)
    repetitions = len({t["repetition"] for t in v_ts})
    print(f"| baseline | setting | epochs to 1e-3 (mean of {repetitions}) | final error (mean of {repetitions}) | |")
    print("|---|---|---|---|---|")
    for label in labels:
        if label not in TUNED:
            fail(f"{validation_dir}: {label} is not a tuned baseline of the page")
        grid = grids.get(label) or fail(f"{validation_dir}: no trials of {label}")
        chosen = choose(grid, score)
        if chosen is None:
            fail(f"{validation_dir}: no setting of {label} reached {TARGET:g} in every repetition")
        check_test((v_ts, v_configs), (t_ts, t_configs), label, TUNED[label], chosen)
        default = next(t_configs[t["trial"]]["estimator"] for t in t_ts if t["label"] == label)
        varied = sorted(k for k in grid[0].estimator if len({repr(s.estimator[k]) for s in grid}) > 1)
        for s in grid:
            setting = ", ".join(f"{k} {s.estimator[k]:g}" for k in varied)
            value = score(s) if s.usable() else None
            epochs = f"{value[0]:g}" if value else "not reached" if s.usable() else "failed or diverged"
            marks = (["default"] if s.estimator == default else []) + (["**chosen**"] if s is chosen else [])
            if s is chosen:
                epochs = f"**{epochs}**"
            final = sig(mean_final(s)) if s.usable() else "—"
            print(f"| `{label}` | {setting} | {epochs} | {final} | {', '.join(marks)} |")


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "table":
        table(sys.argv[2:])
    elif len(sys.argv) == 4 and sys.argv[1] == "validation":
        validation(sys.argv[2], sys.argv[3])
    else:
        fail("usage: omc_vs_offline.py table RESULTS_DIR [RESULTS_DIR ...] | "
             "omc_vs_offline.py validation VALIDATION_DIR RESULTS_DIR")


if __name__ == "__main__":
    main()
