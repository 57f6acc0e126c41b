#!/usr/bin/python3
"""Success-rate heat maps of experiments/gfm/phase_transition.json: x = n/(k d), y = k, one panel per d.

usage: RANKONE_BIN=build/bin/rankone experiments/gfm/plot_phase_transition.py RESULTS_DIR OUT.png
(scripts/plot-results --heatmap needs the ratio as a sweep coordinate; here it is batch_size / (k d).)
"""
import csv, io, os, subprocess, sys
from collections import defaultdict

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt

folder, out = sys.argv[1], sys.argv[2]
exe = os.environ.get("RANKONE_BIN", "build/bin/rankone")
text = subprocess.run([exe, "export", folder, "--format", "csv"], check=True, capture_output=True, text=True).stdout
last = {}
for r in csv.DictReader(io.StringIO(text)):
    if r["metric"] == "combined_error" and (r["trial"] not in last or int(r["iteration"]) > int(last[r["trial"]]["iteration"])):
        last[r["trial"]] = r
cells = defaultdict(list)
for r in last.values():
    d, k, n = int(r["data.d"]), int(r["data.rank"]), int(r["estimators.0.batch_size"])
    ok = r["status"] not in ("failed", "diverged") and float(r["value"]) < 1e-3
    cells[(d, k, n / (k * d))].append(ok)
ds = sorted({c[0] for c in cells})
fig, axes = plt.subplots(1, len(ds), figsize=(5.5 * len(ds), 3.8), squeeze=False)
for ax, d in zip(axes[0], ds):
    ks = sorted({c[1] for c in cells if c[0] == d})
    cs = sorted({c[2] for c in cells if c[0] == d})
    grid = [[sum(cells[(d, k, c)]) / len(cells[(d, k, c)]) for c in cs] for k in ks]
    im = ax.imshow(grid, origin="lower", cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks(range(len(cs)), [f"{c:g}" for c in cs])
    ax.set_yticks(range(len(ks)), [str(k) for k in ks])
    ax.set_xlabel("n / (k d)  (batch size per iteration)")
    ax.set_ylabel("k")
    ax.set_title(f"d = {d}")
    for i, k in enumerate(ks):
        for j, c in enumerate(cs):
            ax.text(j, i, f"{grid[i][j]:.1f}", ha="center", va="center", color="w" if grid[i][j] < 0.5 else "k", fontsize=8)
fig.colorbar(im, ax=axes[0].tolist(), label="success rate (combined error < 1e-3 after 30 iterations)")
fig.suptitle("one-pass gFM: empirical sample complexity (10 repetitions per cell)")
fig.savefig(out, dpi=110, bbox_inches="tight")
for d in ds:
    for k in sorted({c[1] for c in cells if c[0] == d}):
        row = [(c, sum(cells[(d, k, c)]) / len(cells[(d, k, c)])) for c in sorted({c[2] for c in cells if c[0] == d})]
        print(f"d={d} k={k}: " + " ".join(f"{c:g}:{s:.1f}" for c, s in row))
print(out)
