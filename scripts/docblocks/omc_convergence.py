#!/usr/bin/env python3
"""Prints a table of docs/online-completion-experiments.md from a run of
experiments/online_completion/convergence.json (convergence) or warm_start.json (warm-start).

usage: omc_convergence.py convergence RESULTS_DIR
           observations to relative error 1e-6 (warm start included, first recorded point below,
           median over the repetitions) in units of d k log d, condition number κ × rank k; then
           the trials' end states
       omc_convergence.py warm-start RESULTS_DIR
           per warm-start size (units of d k log d): the error right after the warm start, the
           observations to 1e-6 (warm start included) and the final error (medians); then the
           trials' end states
"""
import math
import sys
from collections import Counter

from results import MISSING, axis, design, fail, median, select, sig, trials

METRIC = "relative_error_M"


def convergence(folder):
    resolved = design("experiments/online_completion/convergence.json")
    d = resolved["data"]["d"]
    ranks, kappas = axis(resolved, "data.rank"), axis(resolved, "data.condition_number")
    ts = trials(folder)
    print("| κ \\ k | " + " | ".join(map(str, ranks)) + " |")
    print("|---" * (len(ranks) + 1) + "|")
    for kappa in kappas:
        cells = []
        for k in ranks:
            mine = select(ts, data__condition_number=kappa, data__rank=k)
            reached = [r[0] for r in (t.first_below(METRIC, 1e-6) for t in mine) if r]
            if not mine:
                cells.append(MISSING)
            elif len(reached) < len(mine):
                cells.append(f"{len(reached)} of {len(mine)} reached")
            else:
                cells.append(f"{median(reached) / (d * k * math.log(d)):.1f}")
        print(f"| {kappa:g} | " + " | ".join(cells) + " |")
    print()
    states = Counter(t["status"] for t in ts).most_common()
    parts = [f"{n} × {status}" for status, n in states[:1]]
    for status, n in states[1:]:  # the exceptions, with their cells
        cells = sorted({(float(t["data.condition_number"]), int(t["data.rank"])) for t in ts if t["status"] == status})
        parts.append(f"{n} × {status} (" + "; ".join(f"κ = {c:g}, k = {k}" for c, k in cells) + ")")
    print("End states: " + ", ".join(parts) + ".")


def warm_start(folder):
    resolved = design("experiments/online_completion/warm_start.json")
    factors = axis(resolved, "estimators.0.init_batch_factor")
    unit = resolved["data"]["d"] * resolved["data"]["rank"] * math.log(resolved["data"]["d"])
    ts = trials(folder)
    print("| warm start (d k log d) | " + " | ".join(f"{f:g}" for f in factors) + " |")
    print("|---" * (len(factors) + 1) + "|")
    by_factor = [select(ts, estimators__0__init_batch_factor=f) for f in factors]
    started = [median([t.points[METRIC][0][3] for t in mine]) for mine in by_factor]  # iteration 0: the warm start's estimate
    print("| error after the warm start (median) | " + " | ".join(sig(v) for v in started) + " |")
    reached = []
    for mine in by_factor:
        hits = [r[0] for r in (t.first_below(METRIC, 1e-6) for t in mine) if r]
        reached.append(f"{median(hits) / unit:.1f}" if hits and len(hits) == len(mine)
                       else f"{len(hits)} of {len(mine)} reached" if mine else MISSING)
    print("| observations to 1e-6, d k log d (median) | " + " | ".join(reached) + " |")
    finals = [median([t.final(METRIC) for t in mine]) for mine in by_factor]
    print("| final error (median) | " + " | ".join(sig(v) for v in finals) + " |")
    states = Counter(t["status"] for t in ts)
    print()
    print("End states: " + ", ".join(f"{n} × {s}" for s, n in states.most_common()) + ".")


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("convergence", "warm-start"):
        fail("usage: omc_convergence.py convergence|warm-start RESULTS_DIR")
    {"convergence": convergence, "warm-start": warm_start}[sys.argv[1]](sys.argv[2])


if __name__ == "__main__":
    main()
