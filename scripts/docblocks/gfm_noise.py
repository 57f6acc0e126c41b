#!/usr/bin/env python3
"""Prints a generated block of docs/gfm-noise.md from a run of experiments/gfm/noise.json.

usage: gfm_noise.py table RESULTS_DIR    final combined error (median), noise σ × tail τ
       gfm_noise.py floors RESULTS_DIR   the floors in units of σ (no tail) and of τ (no noise),
                                         and how the tail's floor splits between M and w
(‖w*‖ = ‖M*‖₂ = 1 here, so the relative errors are the absolute ones.)
"""
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/gfm/noise.json"


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


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("table", "floors"):
        fail("usage: gfm_noise.py table|floors RESULTS_DIR")
    resolved = design(EXPERIMENT)
    sigmas, taus = axis(resolved, "data.noise_std"), axis(resolved, "data.tail")
    ts = trials(sys.argv[2])
    if not ts:
        fail(f"no trials in {sys.argv[2]}")
    print("\n".join({"table": table, "floors": floors}[sys.argv[1]](ts, sigmas, taus)))


if __name__ == "__main__":
    main()
