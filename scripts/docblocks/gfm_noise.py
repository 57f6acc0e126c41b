#!/usr/bin/env python3
"""Prints a generated block of docs/gfm-noise.md from a run of experiments/gfm/noise.json.

usage: gfm_noise.py table RESULTS_DIR    final combined error (median), noise σ × tail τ
       gfm_noise.py floors RESULTS_DIR   the floors in units of σ (no tail) and of τ (no noise),
                                         and how the tail's floor splits between M and w
       gfm_noise.py approach RESULTS_DIR one sentence: the iterations each noisy cell takes to come
                                         near its floor, against those the noise-free runs take to
                                         fall below the same level
(‖w*‖ = ‖M*‖₂ = 1 here, so the relative errors are the absolute ones.)
"""
import statistics
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/gfm/noise.json"
NEAR = 1.25  # "near the floor": within this factor of it
LAST = 10  # a run's floor is the median of its last LAST errors (the final one fluctuates)


def final(ts, metric, sigma, tau):
    cell = select(ts, data__noise_std=sigma, data__tail=tau)
    return median([t.final(metric) for t in cell]) if cell else None


def ratio(x, unit):
    return MISSING if x is None else f"{x / unit:.3f}"


def header(first, values):
    return [f"| {first} | " + " | ".join(values) + " |", "|---" * (len(values) + 1) + "|"]


def table(ts, sigmas, taus):
    lines = header("σ \\ τ", ["none" if t is None else f"{t[0]:g}" for t in taus])
    for s in sigmas:
        lines.append(f"| {s:g} | " + " | ".join(sig(final(ts, "combined_error", s, t), 3) for t in taus) + " |")
    return lines


def floors(ts, sigmas, taus):
    noisy = [s for s in sigmas if s > 0]
    lines = header("τ = none, σ =", [f"{s:g}" for s in noisy])
    lines.append("| combined error / σ | " + " | ".join(ratio(final(ts, "combined_error", s, None), s) for s in noisy) + " |")
    lines.append("")
    tails = [t for t in taus if t is not None]
    lines += header("σ = 0, τ =", [f"{t[0]:g}" for t in tails])
    for metric, name in (("combined_error", "combined error / τ"), ("relative_error_M", "‖M − M*‖₂ / τ"),
                         ("relative_error_w", "‖w − w*‖ / τ")):
        lines.append(f"| {name} | " + " | ".join(ratio(final(ts, metric, 0, t), t[0]) for t in tails) + " |")
    return lines


def errors(t):
    return [v for _, _, _, v in t.points["combined_error"]]


def first_below(values, level):
    return next((i for i, v in enumerate(values) if v <= level), None)


def approach(ts, sigmas, taus):
    clean = [errors(t) for t in select(ts, data__noise_std=0, data__tail=None)]
    noisy, sooner = [], []
    for s in sigmas:
        for tau in taus:
            runs = [errors(t) for t in select(ts, data__noise_std=s, data__tail=tau)]
            if (s == 0 and tau is None) or not runs:
                continue
            floor = median([statistics.median(r[-LAST:]) for r in runs])
            mine = median([first_below(r, NEAR * statistics.median(r[-LAST:])) for r in runs])
            reference = [first_below(r, NEAR * floor) for r in clean]
            if None in reference:
                fail(f"a noise-free run never fell below {NEAR * floor:g}")
            noisy.append(mine)
            sooner.append(mine - median(reference))
    if not noisy or not clean:
        fail("needs the noise-free cell and at least one noisy one")
    return [f"Iterations until the error is within {NEAR:g}× its floor (the median of its last {LAST} errors; median "
            f"of {len(clean)} per cell): {min(noisy):g}–{max(noisy):g} over the {len(noisy)} noisy cells; the noise-free "
            f"runs fall below the same levels between {min(sooner):g} and {max(sooner):g} iterations sooner."]


def main():
    commands = {"table": table, "floors": floors, "approach": approach}
    if len(sys.argv) != 3 or sys.argv[1] not in commands:
        fail("usage: gfm_noise.py table|floors|approach RESULTS_DIR")
    resolved = design(EXPERIMENT)
    sigmas, taus = axis(resolved, "data.noise_std"), axis(resolved, "data.tail")
    ts = trials(sys.argv[2])
    if not ts:
        fail(f"no trials in {sys.argv[2]}")
    print("\n".join(commands[sys.argv[1]](ts, sigmas, taus)))


if __name__ == "__main__":
    main()
