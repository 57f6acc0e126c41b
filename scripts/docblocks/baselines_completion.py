#!/usr/bin/python3
"""Prints the tables of docs/baselines-completion.md from a run of experiments/baselines/completion.json:
per condition number κ, per estimator and oversampling ratio n / (k (d1 + d2 - k)), the median final
relative Frobenius error over the repetitions (a failed trial, or one with no evaluation, counts as
infinite: the median then says so).

usage: baselines_completion.py RESULTS_DIR                 the tables
       baselines_completion.py figure RESULTS_DIR OUT.png  the same medians against the ratio, one
           panel per κ (needs matplotlib)
"""
import math
import sys

from results import MISSING, axis, design, fail, median, select, sig, trials

EXPERIMENT = "experiments/baselines/completion.json"


def final_error(t):
    if t.info.get("status") == "failed" or "relative_error_M" not in t.points:
        return math.inf
    return t.final("relative_error_M")


def medians(resolved, ts):
    """The ratios, and {(κ, label): [median final error per ratio, None for a cell without trials]}."""
    d, k = resolved["data"]["d"], resolved["data"]["rank"]
    unknowns = k * (2 * d - k)
    sizes = axis(resolved, "data.size")
    out = {}
    for kappa in axis(resolved, "data.condition_number"):
        for e in resolved["estimators"]:
            l = e["label"]
            out[(kappa, l)] = [median([final_error(t) for t in select(ts, data__condition_number=kappa, data__size=n)
                                       if t["label"] == l]) for n in sizes]
    return [n / unknowns for n in sizes], out


def tables(resolved, ts):
    ratios, cells = medians(resolved, ts)
    labels = [e["label"] for e in resolved["estimators"]]
    for i, kappa in enumerate(axis(resolved, "data.condition_number")):
        if i:
            print()
        print(f"| κ = {kappa:g}: median relative error, n/(k(d1 + d2 − k)) = | " +
              " | ".join(f"{r:.2g}" for r in ratios) + " |")
        print("|---" * (len(ratios) + 1) + "|")
        for l in labels:
            print(f"| {l} | " + " | ".join(MISSING if m is None else sig(m) for m in cells[(kappa, l)]) + " |")


def figure(resolved, ts, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    ratios, cells = medians(resolved, ts)
    labels = [e["label"] for e in resolved["estimators"]]
    kappas = axis(resolved, "data.condition_number")
    fig, axes = plt.subplots(1, len(kappas), figsize=(5.2 * len(kappas), 3.8), squeeze=False, sharey=True)
    # An infinite median (a failed trial) is drawn at the top edge, marked ×: the table gives it as inf.
    finite = [m for ms in cells.values() for m in ms if m is not None and math.isfinite(m) and m > 0]
    top = 10 * max(finite) if finite else 1.0
    for ax, kappa in zip(axes[0], kappas):
        for l in labels:
            ms = cells[(kappa, l)]
            if any(m is None for m in ms):
                fail(f"κ = {kappa:g}, {l}: not every cell has trials (a reduced run?)")
            ys = [m if math.isfinite(m) else top for m in ms]
            line, = ax.plot(ratios, [max(y, 1e-16) for y in ys], marker="o", markersize=3, label=l)
            xs_inf = [r for r, m in zip(ratios, ms) if not math.isfinite(m)]
            if xs_inf:
                ax.plot(xs_inf, [top] * len(xs_inf), "x", color=line.get_color(), markersize=7)
        ax.set_yscale("log")
        ax.set_xlabel("n / (k(d1 + d2 − k))")
        ax.set_title(f"κ = {kappa:g}")
        ax.grid(True, which="major", alpha=0.3)
    axes[0][0].set_ylabel("median relative error ‖M − M*‖_F / ‖M*‖_F")
    axes[0][-1].legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0))
    d, k = resolved["data"]["d"], resolved["data"]["rank"]
    fig.suptitle(f"completion, {d} × {d}, rank {k}: error against oversampling "
                 f"({resolved.get('repetitions', 1)} repetitions; × = a failed median)", y=1.03)
    fig.savefig(out, dpi=100, bbox_inches="tight")


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "figure":
        figure(design(EXPERIMENT), trials(args[1]), args[2])
    elif len(args) == 1:
        tables(design(EXPERIMENT), trials(args[0]))
    else:
        fail("usage: baselines_completion.py RESULTS_DIR | figure RESULTS_DIR OUT.png")


if __name__ == "__main__":
    main()
