#!/usr/bin/env python3
"""Prints the standardisation table of docs/plugins/fm_moment_elimination.md from runs of
experiments/fm_subgaussian/standardisation.json (feature std) and standardisation_mean.json
(feature mean): per feature law, the final combined error (range over the repetitions) or the end
state of fm_moment_elimination on the truth `symmetric` and ifm on the truth `fm`, unchecked
(require_standardized: false) and checked (the default).

usage: fm_standardisation.py STD_RESULTS_DIR MEAN_RESULTS_DIR
"""
import sys

from results import MISSING, axis, design, diagnostics, fail, select, sig, trials

# Each estimator on the truth of its model class (as the experiments' descriptions say).
PAIRS = [("fm_moment_elimination", "symmetric"), ("ifm", "fm")]


def refused(t):
    return t["status"] == "failed" and "features not standardised" in t["message"]


def outcome(ts, fits):
    """A cell: the final combined errors' range, or the end states with their fits."""
    if not ts:
        return MISSING
    parts = []
    done = sorted(t.final("combined_error") for t in ts if t["status"] in ("converged", "max_iterations"))
    if done:
        parts.append(sig(done[0]) if sig(done[0]) == sig(done[-1]) else f"{sig(done[0])} – {sig(done[-1])}")
    stalled = [t for t in ts if t["status"] == "stalled"]
    if stalled:
        parts.append("stalled (fit " + ", ".join(sig(fits[t["trial"]]["fit"]) for t in stalled) + ")")
    if any(t["status"] == "diverged" for t in ts):
        parts.append("diverged")
    if any(refused(t) for t in ts):
        parts.append("refused")
    if any(t["status"] == "failed" and "near-singular" in t["message"] for t in ts):
        parts.append("refused by the `det B_j` test")
    if len(parts) == 0:
        fail(f"unexpected end states: {sorted({t['status'] for t in ts})}")
    return ", or ".join(parts) if len(parts) > 1 else parts[0]


def checked(unchecked, checked_trials):
    """The checked column (both estimators): refused, or run with the unchecked runs' results."""
    if not checked_trials:
        return MISSING
    n = sum(refused(t) for t in checked_trials)
    if n == len(checked_trials):
        return "refused"
    if n:
        return f"refused {n} of {len(checked_trials)}"
    key = lambda t: (t["label"].split(" ")[0], t["repetition"])
    before = {key(t): t.final("combined_error") if t.points else t["status"] for t in unchecked}
    same = all(before.get(key(t)) == (t.final("combined_error") if t.points else t["status"]) for t in checked_trials)
    return "run, unchanged" if same else "run, changed"


def row(law, moment, ts, fits):
    mine = {(name, checked_): [t for t in ts if t["estimator"] == name and select([t], data__truth=truth)
                               and ("unchecked" in t["label"]) != checked_]
            for name, truth in PAIRS for checked_ in (False, True)}
    unchecked = mine[PAIRS[0][0], False] + mine[PAIRS[1][0], False]
    both = mine[PAIRS[0][0], True] + mine[PAIRS[1][0], True]
    print(f"| {law} | {moment} | {outcome(mine[PAIRS[0][0], False], fits)} | {outcome(mine[PAIRS[1][0], False], fits)} "
          f"| {checked(unchecked, both)} |")


def main():
    if len(sys.argv) != 3:
        fail("usage: fm_standardisation.py STD_RESULTS_DIR MEAN_RESULTS_DIR")
    std_dir, mean_dir = sys.argv[1:]
    print("| raw Gaussian features | second moment | fm_moment_elimination, unchecked | ifm, unchecked | checked (both) |")
    print("|---|---|---|---|---|")
    ts, fits = trials(std_dir), diagnostics(std_dir)
    for std in axis(design("experiments/fm_subgaussian/standardisation.json"), "data.sampler.std"):
        row(f"std {std:g}", f"{sig(std * std, 3)}", select(ts, data__sampler__std=std), fits)
    resolved = design("experiments/fm_subgaussian/standardisation_mean.json")
    ts, fits = trials(mean_dir), diagnostics(mean_dir)
    for d in axis(resolved, "data.d"):
        for mean in axis(resolved, "data.sampler.mean"):
            row(f"mean {mean:g}, d = {d}", f"`1 + \\|E x\\|²` = {sig(1 + d * mean * mean, 3)}",
                select(ts, data__d=d, data__sampler__mean=mean), fits)


if __name__ == "__main__":
    main()
