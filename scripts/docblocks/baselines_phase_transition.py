#!/usr/bin/python3
"""Prints the tables of docs/baselines-phase-transition.md from a run of
experiments/baselines/phase_transition.json: per operator, per estimator and measurement ratio
n / (k (d1 + d2)), the success rate at rank 2 (final relative spectral error below the experiment's
threshold; a failed or diverged trial is no success), and per rank the transition.

usage: baselines_phase_transition.py RESULTS_DIR               the rank-2 tables
       baselines_phase_transition.py transition RESULTS_DIR    per operator, estimator and rank, the
           smallest ratio from which every larger one succeeds in at least half the trials
       baselines_phase_transition.py figure RESULTS_DIR OUT.png    the maps: per operator (rows) and
           estimator (columns), the success rate against the ratio and the rank (needs matplotlib)
"""
import sys

from results import MISSING, axis, design, fail, select, trials

EXPERIMENT = "experiments/baselines/phase_transition.json"


def threshold_of(resolved):
    return resolved["success"]["below"]


def ok(t, threshold):
    return t.info.get("status") not in ("failed", "diverged") and "relative_error_M" in t.points and \
        t.final("relative_error_M") < threshold


def grid(resolved, ts):
    """{(operator, label, rank, ratio): success rate or None}, the labels, and the ratios per rank."""
    d = resolved["data"]["d"]
    threshold = threshold_of(resolved)
    labels = [e["label"] for e in resolved["estimators"]]
    pairs = list(zip(axis(resolved, "data.rank"), axis(resolved, "data.size")))  # zipped: n follows k
    ratios = {}
    for k, n in pairs:
        ratios.setdefault(k, []).append((n / (k * 2 * d), n))
    rates = {}
    for op in axis(resolved, "data.operator"):
        for l in labels:
            for k, n in pairs:
                mine = [t for t in select(ts, data__operator=op, data__rank=k, data__size=n) if t["label"] == l]
                rates[(op, l, k, n / (k * 2 * d))] = sum(ok(t, threshold) for t in mine) / len(mine) if mine else None
    return labels, ratios, rates


def tables(resolved, ts, rank=2):
    labels, ratios, rates = grid(resolved, ts)
    columns = [r for r, _ in ratios[rank]]
    for i, op in enumerate(axis(resolved, "data.operator")):
        if i:
            print()
        print(f"| {op}, k = {rank}: success rate, n/(k(d1 + d2)) = | " + " | ".join(f"{r:g}" for r in columns) + " |")
        print("|---" * (len(columns) + 1) + "|")
        for l in labels:
            cells = [rates[(op, l, rank, r)] for r in columns]
            print(f"| {l} | " + " | ".join(MISSING if c is None else f"{c:g}" for c in cells) + " |")


def first_ratio(cells, columns):
    """The smallest ratio from which every larger one succeeds in at least half the trials."""
    first = next((i for i in range(len(columns)) if all(c >= 0.5 for c in cells[i:])), None)
    return f"beyond {columns[-1]:g}" if first is None else f"{columns[first]:g}"


def transition(resolved, ts):
    labels, ratios, rates = grid(resolved, ts)
    ranks = sorted(ratios)
    for i, op in enumerate(axis(resolved, "data.operator")):
        if i:
            print()
        print(f"| {op}: transition n/(k(d1 + d2)) | " + " | ".join(f"k = {k}" for k in ranks) + " |")
        print("|---" * (len(ranks) + 1) + "|")
        for l in labels:
            parts = []
            for k in ranks:
                columns = [r for r, _ in ratios[k]]
                cells = [rates[(op, l, k, r)] for r in columns]
                if any(c is None for c in cells):
                    fail(f"{op}, {l}, k = {k}: not every cell has trials (a reduced run?)")
                parts.append(first_ratio(cells, columns))
            print(f"| {l} | " + " | ".join(parts) + " |")


def figure(resolved, ts, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    labels, ratios, rates = grid(resolved, ts)
    ranks = sorted(ratios)
    columns = [r for r, _ in ratios[ranks[0]]]
    if any([r for r, _ in ratios[k]] != columns for k in ranks):
        fail("the ratios differ between ranks: the maps need one ratio axis")
    operators = axis(resolved, "data.operator")
    fig, axes = plt.subplots(len(operators), len(labels), figsize=(2.1 * len(labels), 1.9 * len(operators)),
                             squeeze=False, sharex=True, sharey=True)
    for i, op in enumerate(operators):
        for j, l in enumerate(labels):
            ax = axes[i][j]
            cells = [[rates[(op, l, k, r)] for r in columns] for k in ranks]
            if any(c is None for row in cells for c in row):
                fail(f"{op}, {l}: not every cell has trials (a reduced run?)")
            im = ax.imshow(cells, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
            ax.set_xticks(range(len(columns)), [f"{r:g}" for r in columns], fontsize=7)
            ax.set_yticks(range(len(ranks)), [str(k) for k in ranks], fontsize=7)
            if i == 0:
                ax.set_title(l, fontsize=9)
            if j == 0:
                ax.set_ylabel(f"{op}\nk", fontsize=8)
            if i == len(operators) - 1:
                ax.set_xlabel("n / (k(d1 + d2))", fontsize=8)
    threshold = threshold_of(resolved)
    fig.colorbar(im, ax=axes.ravel().tolist(), label=f"success rate (relative spectral error < {threshold:g})")
    fig.suptitle(f"{resolved['data']['d']} × {resolved['data']['d']}, rank k: success against measurements per "
                 f"unknown ({resolved.get('repetitions', 1)} repetitions per cell)")
    fig.savefig(out, dpi=100, bbox_inches="tight")


def main():
    args = sys.argv[1:]
    if len(args) == 3 and args[0] == "figure":
        figure(design(EXPERIMENT), trials(args[1]), args[2])
        return
    mode = args.pop(0) if len(args) == 2 and args[0] == "transition" else "tables"
    if len(args) != 1:
        fail("usage: baselines_phase_transition.py [transition] RESULTS_DIR | figure RESULTS_DIR OUT.png")
    resolved = design(EXPERIMENT)
    {"tables": tables, "transition": transition}[mode](resolved, trials(args[0]))


if __name__ == "__main__":
    main()
