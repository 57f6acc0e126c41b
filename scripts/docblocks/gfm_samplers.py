#!/usr/bin/env python3
"""Prints the table of docs/gfm-samplers.md from a run of experiments/gfm/samplers.json: per
design distribution its third and fourth moments (properties of the law, not measured), the
final combined error (median and range over the repetitions) and the trials' end states.

usage: gfm_samplers.py RESULTS_DIR
"""
import sys
from collections import Counter

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/gfm/samplers.json"
MOMENTS = {"gaussian": "0, 3", "uniform": "0, 1.8", "bernoulli": "0, 1", "exponential": "2, 9"}
NAMES = {"bernoulli": "bernoulli (Rademacher)"}


def states(mine):
    """'5 × max_iterations', or the statuses, with the iterations a diverged or failed trial completed."""
    counts = Counter(t["status"] for t in mine)
    parts = []
    for status, n in sorted(counts.items(), key=lambda kv: -kv[1]):
        ends = sorted(t.iterations() for t in mine if t["status"] == status)
        where = f" (after {', '.join(map(str, ends))} iterations)" if status in ("diverged", "failed") else ""
        parts.append(f"{n} × {status}{where}")
    return ", ".join(parts)


def main():
    if len(sys.argv) != 2:
        fail("usage: gfm_samplers.py RESULTS_DIR")
    ts = trials(sys.argv[1])
    print("| sampler | E x³, E x⁴ | final error, median (min – max) | end states |")
    print("|---|---|---|---|")
    for sampler in axis(design(EXPERIMENT), "data.sampler"):
        mine = select(ts, data__sampler=sampler)
        if not mine:
            print(f"| {NAMES.get(sampler, sampler)} | {MOMENTS.get(sampler, '?')} | {MISSING} | {MISSING} |")
            continue
        finals = sorted(t.final("combined_error") for t in mine)
        print(f"| {NAMES.get(sampler, sampler)} | {MOMENTS.get(sampler, '?')} | {sig(median(finals))} "
              f"({sig(finals[0])} – {sig(finals[-1])}) | {states(mine)} |")


if __name__ == "__main__":
    main()
