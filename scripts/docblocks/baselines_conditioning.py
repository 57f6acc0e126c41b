#!/usr/bin/env python3
"""Prints the table of docs/baselines-conditioning.md from a run of
experiments/baselines/conditioning.json (or of another experiment of the same design, such as
experiments/gfm/conditioning_baselines.json, or experiments/baselines/conditioning_published.json):
per estimator and condition number κ, the median number of iterations to the target of the
experiment's `stop` rule on relative_error_M (it ends a trial there; a trial that did not reach it
counts as "> budget").

usage: baselines_conditioning.py [--experiment FILE] RESULTS_DIR           the table
       baselines_conditioning.py summary [--experiment FILE] RESULTS_DIR   one sentence: each estimator's
                                                       growth in iterations from the smallest to the largest κ
"""
import re
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/baselines/conditioning.json"


def target(resolved):
    stop = resolved.get("stop") or {}
    if stop.get("metric") != "relative_error_M" or "target" not in stop:
        fail("the experiment has no stop target on relative_error_M")
    return stop["target"]


def sci(x):
    """1e-8, not Python's 1e-08."""
    return re.sub(r"e([+-])0*(\d)", lambda m: "e" + ("-" if m.group(1) == "-" else "") + m.group(2), f"{x:g}")


def reached(t, goal):
    return t.info.get("status") == "converged" and t.final("relative_error_M") <= goal


def iterations(ts, goal):
    """The median iterations to the target over the trials, None when one of them did not reach it."""
    if not ts or not all(reached(t, goal) for t in ts):
        return None
    return median([t.iteration_count for t in ts])


def cells(resolved, ts):
    labels = [e["label"] for e in resolved["estimators"]]
    kappas = axis(resolved, "data.condition_number")
    budget = resolved["estimators"][0]["max_iterations"]
    return labels, kappas, budget, {(l, k): [t for t in select(ts, data__condition_number=k) if t["label"] == l]
                                    for l in labels for k in kappas}


def table(resolved, ts):
    labels, kappas, budget, by = cells(resolved, ts)
    goal = target(resolved)
    reps = resolved["repetitions"]
    print(f"| iterations to {sci(goal)} ({'one trial' if reps == 1 else f'median of {reps}'}) | " +
          " | ".join(f"κ = {k:g}" for k in kappas) + " |")
    print("|---" * (len(kappas) + 1) + "|")
    for l in labels:
        row = []
        for k in kappas:
            mine = by[(l, k)]
            n = iterations(mine, goal)
            row.append(MISSING if not mine else f"> {budget}" if n is None else f"{n:g}")
        print(f"| {l} | " + " | ".join(row) + " |")


def summary(resolved, ts):
    labels, kappas, budget, by = cells(resolved, ts)
    goal = target(resolved)
    low, high = min(kappas), max(kappas)
    parts = []
    for l in labels:
        a, b = iterations(by[(l, low)], goal), iterations(by[(l, high)], goal)
        if a is None or b is None:
            parts.append(f"{l} does not reach {sci(goal)} within {budget} iterations at κ = {low if a is None else high:g}")
        else:
            parts.append(f"{l} {a:g} → {b:g} ({b / a:.2g}×)")
    print(f"Iterations to {sci(goal)} from κ = {low:g} to κ = {high:g}: " + "; ".join(parts) + ".")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if args and args[0] == "summary" else "table"
    experiment = EXPERIMENT
    if len(args) == 3 and args[0] == "--experiment":
        experiment = args[1]
        args = args[2:]
    if len(args) != 1:
        fail("usage: baselines_conditioning.py [summary] [--experiment FILE] RESULTS_DIR")
    resolved = design(experiment)
    {"table": table, "summary": summary}[mode](resolved, trials(args[0]))


if __name__ == "__main__":
    main()
