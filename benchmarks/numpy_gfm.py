#!/usr/bin/python3
"""The whole `rankone run` of One-Pass gFM against a plain numpy implementation of the same
algorithm (Lin & Ye 2016, Algorithm 1 with the first-order term), each as a whole process, in CPU
seconds (user + system of the process and its children), several repetitions, medians.

Problem: y = x'w* + x'M*x, standard Gaussian x, d = 100, rank-3 M* with eigenvalues 1, −0.7, 0.5,
‖w*‖ = 1; batches of n = 20·k·d = 6000 fresh instances; the spectral start on one batch, then 15
iterations. numpy runs on one thread (OPENBLAS_NUM_THREADS=1, as RankOne's trial); both print
their final relative errors, to show they computed the same thing.

Usage: benchmarks/numpy_gfm.py RANKONE [--repetitions N] [--json FILE]
Prints `target: … ratio … PASS/FAIL` (numpy CPU / rankone CPU, want ≥ 10); --json writes the
measurements for benchmarks/targets.py (benchmarks/run does).
"""
import argparse
import json
import os
import pathlib
import resource
import statistics
import subprocess
import sys
import tempfile

D, K, T = 100, 3, 15
N = 20 * K * D
EIGENVALUES = [1.0, -0.7, 0.5]

NUMPY_RUN = r'''
import numpy as np, sys
d, k, n, T = %d, %d, %d, %d
rng = np.random.default_rng(7)
Q, _ = np.linalg.qr(rng.standard_normal((d, k)))
M_star = Q @ np.diag(%r) @ Q.T
w_star = rng.standard_normal(d); w_star /= np.linalg.norm(w_star)

def batch():
    X = rng.standard_normal((d, n))
    y = np.einsum("in,ij,jn->n", X, M_star, X, optimize=True) + w_star @ X
    return X, y

# Spectral start: top-k |eigenvalues| of M̂ = ½(X diag(y) X'/n − mean(y) I).
X, y = batch()
M_hat = 0.5 * ((X * y) @ X.T / n - y.mean() * np.eye(d))
values, vectors = np.linalg.eigh(M_hat)
U = vectors[:, np.argsort(-np.abs(values))[:k]]
V = np.zeros((d, k)); w = np.zeros(d)
model_times = lambda Z: 0.5 * (U @ (V.T @ Z) + V @ (U.T @ Z))
for t in range(T):
    X, y = batch()
    P = X.T @ np.hstack([U, V, w[:, None]])
    r = y - (P[:, :k] * P[:, k:2 * k]).sum(axis=1) - P[:, 2 * k]
    G = lambda XW, Z: 0.5 * (XW / n - r.mean() * Z) + model_times(Z)
    A = X @ np.hstack([r[:, None] * P[:, :k], r[:, None]])
    U_next, _ = np.linalg.qr(G(A[:, :k], U))
    w = w + A[:, k] / n
    V = G(X @ (r[:, None] * (X.T @ U_next)), U_next)
    U = U_next
M = 0.5 * (U @ V.T + V @ U.T)
print(json.dumps({"relative_error_M": float(np.linalg.norm(M - M_star) / np.linalg.norm(M_star)),
                  "relative_error_w": float(np.linalg.norm(w - w_star))}))
''' % (D, K, N, T, EIGENVALUES)


def cpu_of(command, env=None):
    """CPU seconds (user + system) of a command and its children, and its stdout."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(command, check=True, capture_output=True, text=True, env=env).stdout
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rankone")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--json", help="write the CPU seconds of every repetition here")
    args = parser.parse_args()
    experiment = {
        "name": "numpy-reference", "seed": 7, "repetitions": 1,
        "data": {"name": "synthetic", "d": D, "rank": K, "eigenvalues": EIGENVALUES, "w_norm": 1.0,
                 "operator": {"name": "symmetric_rank_one", "first_order": True}, "sampler": "gaussian"},
        "estimators": [{"name": "gfm_one_pass", "rank": K, "batch_size": N, "max_iterations": T, "tolerance": 0}],
        "metrics": ["relative_error_M", "relative_error_w"],
    }
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    ours, numpy_cpu = [], []
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "gfm.json"
        path.write_text(json.dumps(experiment))
        for r in range(args.repetitions):
            out = pathlib.Path(tmp) / f"out{r}"
            seconds, _ = cpu_of([args.rankone, "run", str(path), "--out", str(out), "--jobs", "1"], env)
            ours.append(seconds)
            seconds, printed = cpu_of([sys.executable, "-c", "import json\n" + NUMPY_RUN], env)
            numpy_cpu.append(seconds)
        summary = subprocess.run([args.rankone, "export", str(pathlib.Path(tmp) / "out0"), "--format", "csv"],
                                 check=True, capture_output=True, text=True).stdout.strip().splitlines()
    finals = {}
    header = summary[0].split(",")
    for line in summary[1:]:
        row = dict(zip(header, line.split(",")))
        finals[row["metric"]] = row["value"]
    print(f"rankone: {statistics.median(ours):.3f} s CPU (runs {', '.join(f'{s:.3f}' for s in ours)}); final "
          + ", ".join(f"{m} {float(v):.2e}" for m, v in sorted(finals.items())))
    print(f"numpy:   {statistics.median(numpy_cpu):.3f} s CPU (runs {', '.join(f'{s:.3f}' for s in numpy_cpu)}); final "
          + ", ".join(f"{m} {v:.2e}" for m, v in sorted(json.loads(printed).items())))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"rankone_cpu_seconds": ours, "numpy_cpu_seconds": numpy_cpu}))
    ratio = statistics.median(numpy_cpu) / statistics.median(ours)
    print(f"target: whole rankone run of One-Pass gFM (d=100, k=3, n=20kd, 15 iterations), numpy CPU / rankone CPU: "
          f"ratio {ratio:.3f} (want ≥ 10) {'PASS' if ratio >= 10 else 'FAIL'}   "
          f"[{statistics.median(ours):.3f} s vs {statistics.median(numpy_cpu):.3f} s CPU, median of {args.repetitions}]")
    return 0 if ratio >= 10 else 1


if __name__ == "__main__":
    sys.exit(main())
