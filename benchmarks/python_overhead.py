#!/usr/bin/python3
"""What the Python package adds to a fit: `GfmOnePass(...).fit(X, y)` timed from Python, against
the same fit's trial in the core (run_trial, as `rankone run --in-process` runs it), measured inside
the same call — so both sides are the same fit in the same run. About 0.1 s of fitting.

Usage: PYTHONPATH=build/python benchmarks/python_overhead.py OUT_JSON [--pairs N]
(benchmarks/run calls it). benchmarks/targets.py reads the median of (Python wall − core wall) /
core wall against its 2 % budget.
"""
import json
import os
import pathlib
import sys
import time

import numpy as np


def main():
    args = sys.argv[1:]
    pairs = 15
    if "--pairs" in args:
        i = args.index("--pairs")
        pairs = int(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    import rankone.sklearn as rs
    rng = np.random.default_rng(0)
    d, n, batch = 100, 110000, 10000  # the start's batch and 10 iterations' fresh batches
    X = rng.standard_normal((n, d))
    y = X @ rng.standard_normal(d) + np.einsum("ij,ij->i", X @ rng.standard_normal((d, 3)), X @ rng.standard_normal((d, 3)))
    estimator = rs.GfmOnePass(rank=3, batch_size=batch, tolerance=0.0, random_state=1)
    runs = []
    for i in range(pairs + 1):  # the first warms caches and is not counted
        start = time.perf_counter()
        estimator.fit(X, y)
        wall = time.perf_counter() - start
        if i > 0:
            runs.append({"python_seconds": wall, "core_seconds": estimator.model_.core_seconds})
    out = pathlib.Path(args[0])
    out.write_text(json.dumps({"fit": "gfm_one_pass rank 3, d = 100, 11 batches of 10000 rows (the start and 10 iterations)", "runs": runs,
                               "load": os.getloadavg()}, indent=1))
    overheads = sorted((r["python_seconds"] - r["core_seconds"]) / r["core_seconds"] for r in runs)
    core = sorted(r["core_seconds"] for r in runs)
    print(f"python_overhead: core fit {core[len(core) // 2]:.3f} s, median overhead {100 * overheads[len(overheads) // 2]:.2f} % "
          f"({pairs} fits) -> {out}")


if __name__ == "__main__":
    main()
