#!/usr/bin/python3
"""Prints the tables of docs/phase-retrieval.md from a run of experiments/phase_retrieval/success_rate.json:
per signal length n, the success rate of every solver against m/n (final sign-invariant error below the
experiment's threshold; a failed or diverged trial is no success), and per solver the transition and its cost.

usage: phase_retrieval_success.py RESULTS_DIR              the success-rate tables
       phase_retrieval_success.py transition RESULTS_DIR   per n and solver: the smallest m/n from which every
           larger one succeeds in at least half the trials, and the median iterations and CPU seconds per trial
           at the largest m/n
"""
import sys

from results import MISSING, axis, design, fail, median, sig, trials

EXPERIMENT = "experiments/phase_retrieval/success_rate.json"
METRIC = "sign_invariant_error"


def ok(t, threshold):
    return t.info.get("status") not in ("failed", "diverged") and METRIC in t.points and t.final(METRIC) < threshold


def cells(resolved, ts):
    """{(n, label, m): [trials]} and the (n, m) pairs in sweep order."""
    pairs = list(zip(axis(resolved, "data.d"), axis(resolved, "data.size")))
    out = {}
    for t in ts:
        out.setdefault((int(t["data.d"]), t["label"], int(t["data.size"])), []).append(t)
    return pairs, out


def rate(group, threshold):
    return None if not group else sum(ok(t, threshold) for t in group) / len(group)


def tables(resolved, ts):
    threshold = resolved["success"]["below"]
    labels = [e["label"] for e in resolved["estimators"]]
    pairs, by_cell = cells(resolved, ts)
    for i, n in enumerate(sorted({d for d, _ in pairs})):
        sizes = [m for d, m in pairs if d == n]
        if i:
            print()
        print(f"| n = {n}: success rate, m/n = | " + " | ".join(f"{m / n:g}" for m in sizes) + " |")
        print("|---" * (len(sizes) + 1) + "|")
        for l in labels:
            row = [rate(by_cell.get((n, l, m), []), threshold) for m in sizes]
            print(f"| {l} | " + " | ".join(MISSING if r is None else f"{r:g}" for r in row) + " |")


def transition(resolved, ts):
    threshold = resolved["success"]["below"]
    labels = [e["label"] for e in resolved["estimators"]]
    pairs, by_cell = cells(resolved, ts)
    print("| n | solver | succeeds from m/n | iterations (median, largest m/n) | CPU s per trial (median, largest m/n) |")
    print("|---|---|---|---|---|")
    for n in sorted({d for d, _ in pairs}):
        sizes = [m for d, m in pairs if d == n]
        for l in labels:
            rates = [rate(by_cell.get((n, l, m), []), threshold) for m in sizes]
            if any(r is None for r in rates):
                fail(f"n = {n}, {l}: not every cell has trials (a reduced run?)")
            first = next((i for i in range(len(sizes)) if all(r >= 0.5 for r in rates[i:])), None)
            start = f"beyond {sizes[-1] / n:g}" if first is None else f"{sizes[first] / n:g}"
            last = by_cell[(n, l, sizes[-1])]
            print(f"| {n} | {l} | {start} | {sig(median([t.iterations() for t in last]))} | "
                  f"{sig(median([t.seconds for t in last]))} |")


def main():
    args = sys.argv[1:]
    mode = args.pop(0) if len(args) == 2 and args[0] == "transition" else "tables"
    if len(args) != 1:
        fail("usage: phase_retrieval_success.py [transition] RESULTS_DIR")
    resolved = design(EXPERIMENT)
    {"tables": tables, "transition": transition}[mode](resolved, trials(args[0]))


if __name__ == "__main__":
    main()
