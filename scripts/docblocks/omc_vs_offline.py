#!/usr/bin/env python3
"""Prints the table of docs/online-completion-experiments.md §3 from the runs of
experiments/online_completion/vs_offline.json (the fixed 200 000 entries) and of its endless-
stream variant: per estimator label, observations and estimator seconds to relative error 1e-3
(first recorded point below; medians over the repetitions that reached it), the seconds spent
before the first iteration (the start: warm start or spectral initialisation), the final error
and the observations used in all (medians), and the trials' end states.

usage: omc_vs_offline.py RESULTS_DIR [RESULTS_DIR ...]
"""
import sys
from collections import Counter

from results import count, fail, machine_of, median, sig, stored_experiment, trials

TARGET = 1e-3
METRIC = "relative_error_M"


def main():
    if len(sys.argv) < 2:
        fail("usage: omc_vs_offline.py RESULTS_DIR [RESULTS_DIR ...]")
    print("| label | observations to 1e-3 | seconds to 1e-3 | of which the start | final error | observations in all | end states |")
    print("|---|---|---|---|---|---|---|")
    for folder in sys.argv[1:]:
        ts = trials(folder)
        for label in (e["label"] for e in stored_experiment(folder)["estimators"]):
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
            print(f"| `{label}` | {to} | {seconds} | {start} | {final} | {used} | {states} |")
    print()
    print(f"(Times: estimator seconds, measured on {machine_of(*sys.argv[1:])}.)")


if __name__ == "__main__":
    main()
