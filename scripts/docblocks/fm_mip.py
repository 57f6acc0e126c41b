#!/usr/bin/env python3
"""Prints the table of docs/fm_subgaussian_mip.md from a run of experiments/fm_subgaussian/mip.json:
per truth and feature law, each estimator's final combined error, median (max) over the
repetitions, or its end state when no repetition finished (e.g. failed: τ = 0).

usage: fm_mip.py RESULTS_DIR
"""
import sys
from collections import Counter

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/fm_subgaussian/mip.json"
# The laws' τ-MIP constants (properties of the distributions, as the paper defines them).
LAWS = {"gaussian": "Gaussian (2)", "uniform": "uniform (0.8)", "exponential": "exponential (4)", "bernoulli": "Rademacher (0)"}
TRUTHS = {"symmetric": "symmetric", "fm": "fm (zero diag.)"}


def cell(mine):
    if not mine:
        return MISSING
    done = [t for t in mine if t["status"] not in ("failed", "diverged")]
    other = Counter(t["status"] for t in mine if t not in done)
    text = f"{sig(median([t.final('combined_error') for t in done]))} ({sig(max(t.final('combined_error') for t in done))})" if done else ""
    if other:
        text += ("; " if text else "") + ", ".join(f"**{s}** ×{n}" for s, n in other.items())
    return text


def main():
    if len(sys.argv) != 2:
        fail("usage: fm_mip.py RESULTS_DIR")
    resolved = design(EXPERIMENT)
    labels = [e.get("label") or e["name"] for e in resolved["estimators"]]
    ts = trials(sys.argv[1])
    print("| truth | law (τ) | " + " | ".join(labels) + " |")
    print("|---" * (len(labels) + 2) + "|")
    for truth in axis(resolved, "data.truth"):
        for law in axis(resolved, "data.sampler"):
            mine = select(ts, data__truth=truth, data__sampler=law)
            print(f"| {TRUTHS.get(truth, truth)} | {LAWS.get(law, law)} | "
                  + " | ".join(cell([t for t in mine if t["label"] == l]) for l in labels) + " |")


if __name__ == "__main__":
    main()
