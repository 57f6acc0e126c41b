#!/usr/bin/python3
"""Whole `rankone run`s of the part-1 baselines against their numpy references (tests/references),
each as a whole process, in CPU seconds (user + system of the process and its children), medians
of several repetitions: issue 32's target "a whole run uses at least 5x less CPU than its numpy
reference at d = 200".

Problems (d = 200, k = 5, n = 20 000, both sides on one thread, OPENBLAS_NUM_THREADS=1, each side
on data of its own of the same kind and size):
- factored_gd (ScaledGD), svp (SVP's fixed step), nuclear_norm (accelerated, its lambda path):
  asymmetric rank-one sensing of a 200 x 200 rank-5 matrix, 30 iterations each, from each side's
  own start (spectral; 0 for SVP's reference, whose first step is the spectral start's);
- altmin_sensing: the same problem, 10 iterations (two least-squares solves each), its reference in
  the rank-one form (tests/references/altmin.py, rank_one_run: n x d k rows, normal equations; the
  general form's n x d^2 design would need 32 GB at d = 200);
- fm_mcmc (Gibbs sweeps) and polynomial_network (coordinate-descent epochs): y = x'M*x + w*'x
  with Gaussian x in R^200, rank-5 M*, 10 iterations each;
- the phase-retrieval flows (tests/references/phase_retrieval.py, phase_starts.py): y = (a_i'x)^2 with
  Gaussian a_i in R^200 and m = 1200 (m/n = 6, the regime the flows are run in), wirtinger_flow (wf),
  amplitude_flow (taf, raf) from their papers' starts, 2000 iterations each, and gerchberg_saxton, 100
  projections.

Usage: benchmarks/numpy_baselines.py RANKONE [--repetitions N] [--json FILE] [--only NAME ...]
Prints one `target: … ratio … PASS/FAIL` line per baseline (numpy CPU / rankone CPU, want >= 5);
--json writes the measurements for benchmarks/targets.py (benchmarks/run does).
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

D, K, N = 200, 5, 20000
SENSING_ITERATIONS, ALTMIN_ITERATIONS, FM_ITERATIONS = 30, 10, 10
TARGET = 5.0
REFERENCES = pathlib.Path(__file__).resolve().parent.parent / "tests" / "references"

SENSING_DATA = {"name": "synthetic", "operator": "asymmetric_rank_one", "d": D, "rank": K, "truth": "general",
                "condition_number": 2.0, "spacing": "linear", "size": N}
FM_DATA = {"name": "synthetic", "operator": {"name": "symmetric_rank_one", "first_order": True}, "d": D, "rank": K,
           "truth": "symmetric", "w_norm": 1.0, "noise_std": 0.1, "size": N}

# Each numpy side: its problem drawn from default_rng(7), then the reference's own run.
SENSING_SETUP = r'''
import sys; sys.path.insert(0, %r); sys.dont_write_bytecode = True
import numpy as np, sensing
d, k, n = %d, %d, %d
rng = np.random.default_rng(7)
U = np.linalg.qr(rng.standard_normal((d, k)))[0]; V = np.linalg.qr(rng.standard_normal((d, k)))[0]
M_star = (U * np.linspace(1.0, 0.5, k)) @ V.T
op = sensing.draw_asymmetric_rank_one(rng, n, d, d)
y = op.forward(M_star)
''' % (str(REFERENCES), D, K, N)
# The same problem with the measurement vectors at hand (drawn as sensing.draw_asymmetric_rank_one does).
ALTMIN_SETUP = r'''
import sys; sys.path.insert(0, %r); sys.dont_write_bytecode = True
import numpy as np, altmin
d, k, n = %d, %d, %d
rng = np.random.default_rng(7)
U = np.linalg.qr(rng.standard_normal((d, k)))[0]; V = np.linalg.qr(rng.standard_normal((d, k)))[0]
M_star = (U * np.linspace(1.0, 0.5, k)) @ V.T
A_left, A_right = rng.standard_normal((n, d)), rng.standard_normal((n, d))
y = np.einsum("ij,ij->i", A_left @ M_star, A_right)
''' % (str(REFERENCES), D, K, N)
FM_SETUP = r'''
import sys; sys.path.insert(0, %r); sys.dont_write_bytecode = True
import numpy as np
d, k, n = %d, %d, %d
rng = np.random.default_rng(7)
Q = np.linalg.qr(rng.standard_normal((d, k)))[0]
M_star = (Q * np.array([1.0, -0.8, 0.6, -0.45, 0.3])) @ Q.T
w_star = rng.standard_normal(d); w_star /= np.linalg.norm(w_star)
X = rng.standard_normal((d, n))
y = np.einsum("in,ij,jn->n", X, M_star, X, optimize=True) + w_star @ X + 0.1 * rng.standard_normal(n)
''' % (str(REFERENCES), D, K, N)

PHASE_M, PHASE_ITERATIONS, GS_ITERATIONS = 1200, 2000, 100
PHASE_DATA = {"name": "synthetic", "operator": "symmetric_rank_one", "d": D, "rank": 1, "truth": "psd", "size": PHASE_M}
# Phase retrieval, y = (A x)^2 with A of m x d standard normal rows and a planted unit x.
PHASE_SETUP = r'''
import sys; sys.path.insert(0, %r); sys.dont_write_bytecode = True
import numpy as np, phase_retrieval as pr, phase_starts as ps
d, m = %d, %d
rng = np.random.default_rng(7)
x = rng.standard_normal(d); x /= np.linalg.norm(x)
A = rng.standard_normal((m, d))
y = (A @ x) ** 2
''' % (str(REFERENCES), D, PHASE_M)


def phase_case(estimator, numpy_run, what):
    return {"data": PHASE_DATA, "estimator": estimator, "numpy": PHASE_SETUP + numpy_run,
            "what": what + " (phase retrieval, m = %d)" % PHASE_M}


CASES = {
    "factored_gd": {
        "data": SENSING_DATA, "estimator": {"name": "factored_gd", "rank": K, "max_iterations": SENSING_ITERATIONS,
                                            "tolerance": 0},
        "numpy": SENSING_SETUP + "import factored_gd\nfactored_gd.run(op, {'y': y}, k, 'scaled', iters=%d)\n"
                 % SENSING_ITERATIONS,
        "what": "factored_gd (ScaledGD), asymmetric rank-one sensing, %d iterations" % SENSING_ITERATIONS},
    "svp": {
        "data": SENSING_DATA, "estimator": {"name": "svp", "rank": K, "max_iterations": SENSING_ITERATIONS,
                                            "tolerance": 0},
        "numpy": SENSING_SETUP + "import svp\nsvp.run(op, {'y': y}, k, 'fixed', iters=%d)\n" % SENSING_ITERATIONS,
        "what": "svp (fixed step), asymmetric rank-one sensing, %d iterations" % SENSING_ITERATIONS},
    "nuclear_norm": {
        "data": SENSING_DATA, "estimator": {"name": "nuclear_norm", "method": "accelerated",
                                            "max_iterations": SENSING_ITERATIONS},
        "numpy": SENSING_SETUP + "import nuclear_norm\nnuclear_norm.run(op, y, (d, d), 'accelerated', iters=%d)\n"
                 % SENSING_ITERATIONS,
        "what": "nuclear_norm (accelerated, lambda path), asymmetric rank-one sensing, %d steps" % SENSING_ITERATIONS},
    "altmin_sensing": {
        "data": SENSING_DATA, "estimator": {"name": "altmin_sensing", "rank": K, "max_iterations": ALTMIN_ITERATIONS,
                                            "tolerance": 0},
        "numpy": ALTMIN_SETUP + "altmin.rank_one_run(A_left, A_right, y, k, %d)\n" % ALTMIN_ITERATIONS,
        "what": "altmin_sensing, asymmetric rank-one sensing, %d iterations" % ALTMIN_ITERATIONS},
    "fm_mcmc": {
        "data": FM_DATA, "estimator": {"name": "fm_mcmc", "rank": K, "max_iterations": FM_ITERATIONS},
        "numpy": FM_SETUP + "import fm_mcmc\nfm_mcmc.run(X, y, 0.1 * rng.standard_normal((d, k)), %d, 0, rng)\n"
                 % FM_ITERATIONS,
        "what": "fm_mcmc, x'Mx + w'x, %d sweeps" % FM_ITERATIONS},
    "polynomial_network": {
        "data": FM_DATA, "estimator": {"name": "polynomial_network", "rank": K, "max_iterations": FM_ITERATIONS,
                                       "tolerance": 0},
        "numpy": FM_SETUP + "import polynomial_network as pn\npn.run(X, y, 0.1 * rng.standard_normal((d + 1, k)), "
                 "0.1 * rng.standard_normal((d + 1, k)), 0.0, True, %d)\n" % FM_ITERATIONS,
        "what": "polynomial_network, x'Mx + w'x, %d epochs" % FM_ITERATIONS},
    "wirtinger_flow": phase_case(
        {"name": "wirtinger_flow", "max_iterations": PHASE_ITERATIONS, "tolerance": 0},
        "pr.run('wf', A, y, pr.spectral_start(A, y), %d)\n" % PHASE_ITERATIONS,
        "wirtinger_flow (wf), %d iterations" % PHASE_ITERATIONS),
    "amplitude_flow_taf": phase_case(
        {"name": "amplitude_flow", "variant": "taf", "init": "orthogonality_init", "max_iterations": PHASE_ITERATIONS,
         "tolerance": 0},
        "pr.run('taf', A, y, ps.orthogonality_promoting(A, y), %d)\n" % PHASE_ITERATIONS,
        "amplitude_flow (taf, orthogonality-promoting start), %d iterations" % PHASE_ITERATIONS),
    "amplitude_flow_raf": phase_case(
        {"name": "amplitude_flow", "variant": "raf", "init": "weighted_correlation_init",
         "max_iterations": PHASE_ITERATIONS, "tolerance": 0},
        "pr.run('raf', A, y, ps.weighted_correlation(A, y), %d)\n" % PHASE_ITERATIONS,
        "amplitude_flow (raf, weighted start), %d iterations" % PHASE_ITERATIONS),
    "gerchberg_saxton": phase_case(
        {"name": "gerchberg_saxton", "max_iterations": GS_ITERATIONS, "tolerance": 0},
        "pr.run('gs', A, y, pr.spectral_start(A, y), %d)\n" % GS_ITERATIONS,
        "gerchberg_saxton, %d projections" % GS_ITERATIONS),
}


def cpu_of(command, env):
    """CPU seconds (user + system) of a command and its children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, check=True, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("rankone")
    parser.add_argument("--repetitions", type=int, default=3)
    parser.add_argument("--json", help="write the CPU seconds of every repetition here")
    parser.add_argument("--only", nargs="*", choices=sorted(CASES), help="only these baselines")
    args = parser.parse_args()
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    measured, failed = {}, False
    with tempfile.TemporaryDirectory() as tmp:
        for name, case in CASES.items():
            if args.only and name not in args.only:
                continue
            experiment = {"name": f"numpy-{name}", "seed": 7, "repetitions": 1, "data": case["data"],
                          "estimators": [case["estimator"]], "metrics": ["relative_error_M"]}
            path = pathlib.Path(tmp) / f"{name}.json"
            path.write_text(json.dumps(experiment))
            ours, theirs = [], []
            for r in range(args.repetitions):
                out = pathlib.Path(tmp) / f"{name}-{r}"
                ours.append(cpu_of([args.rankone, "run", str(path), "--out", str(out), "--jobs", "1"], env))
                theirs.append(cpu_of(["/usr/bin/python3", "-c", case["numpy"]], env))
            measured[name] = {"rankone_cpu_seconds": ours, "numpy_cpu_seconds": theirs}
            ratio = statistics.median(theirs) / statistics.median(ours)
            failed |= ratio < TARGET
            problem = f"d = {D}" if case["data"] is PHASE_DATA else f"d = {D}, k = {K}, n = {N}"
            print(f"target: whole rankone run vs numpy reference, {case['what']} ({problem}): "
                  f"numpy CPU / rankone CPU ratio {ratio:.3f} (want ≥ {TARGET:g}) {'PASS' if ratio >= TARGET else 'FAIL'}"
                  f"   [{statistics.median(ours):.3f} s vs {statistics.median(theirs):.3f} s CPU, median of "
                  f"{args.repetitions}]", flush=True)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(measured))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
