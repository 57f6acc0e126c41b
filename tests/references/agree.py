"""Step-by-step agreement of a C++ estimator with its numpy reference, on the C++ run's own data.

    python3 agree.py DIR

DIR holds what a C++ test wrote (tests/factored_gd): case.json, the training designs and responses
as .npy files, and the C++ iterates. This script rebuilds the operator from the designs
(sensing.py), steps the reference from the C++ start with the C++ settings, and compares every
iterate. It prints one line per iterate and exits 1 when any relative gap exceeds case["tolerance"].

case.json: {"method": "factored_gd", "operator": "symmetric_rank_one" | "asymmetric_rank_one" |
"entry" | "gaussian_ensemble", "symmetric": bool (gaussian_ensemble), "d1", "d2", "n",
"scale": the C++ loss scale c, "iterations", "tolerance"; factored_gd: "preconditioner",
"factorization", "eta"; svp: "rank", "step", "delta"; nuclear_norm: "variant" (its method), "lambda" (or null),
"lambda_ratio", "path_length", "stage_tolerance", "stage_iterations", "loss", "initial_step", "step_growth";
wirtinger_flow, amplitude_flow, gerchberg_saxton: "variant" (gerchberg_saxton: "gs"), phasemax: "params" (its settings), "params" (phase_retrieval.DEFAULTS overrides, or absent), "start"
(the initializer's JSON, when it is a phase-retrieval start to compare as well)}.
Files: y.npy; the designs (X.npy: d x n for symmetric rank-one; U.npy, V.npy; rows.npy, cols.npy;
A.npy: d1 x n*d2 with A_i in columns i*d2 .. (i+1)*d2); L_t.npy and R_t.npy for t = 0..T (the
estimate's factors: M_t = L_t R_t').
"""

import json
import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import altmin  # noqa: E402
import factored_gd  # noqa: E402
import nuclear_norm  # noqa: E402
import phase_retrieval  # noqa: E402
import phase_starts  # noqa: E402
import sensing  # noqa: E402
import svp  # noqa: E402


def load(folder, name):
    return np.load(os.path.join(folder, name + ".npy"))


def operator(folder, case):
    kind = case["operator"]
    if kind == "symmetric_rank_one":
        op = sensing.make_symmetric_rank_one(load(folder, "X").T)
    elif kind == "asymmetric_rank_one":
        op = sensing.make_asymmetric_rank_one(load(folder, "U").T, load(folder, "V").T)
    elif kind == "entry":
        op = sensing.make_entries(load(folder, "rows").astype(int), load(folder, "cols").astype(int),
                                  (case["d1"], case["d2"]))
    elif kind == "gaussian_ensemble":
        d1, d2, n = case["d1"], case["d2"], case["n"]
        A = load(folder, "A").reshape(d1, n, d2).transpose(1, 0, 2)
        if case["symmetric"]:
            A = 0.5 * (A + A.transpose(0, 2, 1))  # the reference stores sym(A_i) itself
        op = sensing.make_gaussian_ensemble(A, case["symmetric"])
    else:
        raise SystemExit(f"unknown operator {kind!r}")
    # The C++ loss scale c (the operator's isotropic scale: ½ for symmetric rank-one sensing), which
    # f and the exact line search use; the steps follow the residual's moment estimate
    # (factored_gd.moment_gradient, svp.moment_step), the least-squares gradient wherever the
    # operator has no trace shift.
    return op._replace(scale=case["scale"])


def factored_gd_gaps(folder, case, op, y):
    L, R = load(folder, "L_0"), load(folder, "R_0")
    psd = case["factorization"] == "psd"
    sigma = np.linalg.norm(L @ R.T, 2)
    gaps = []
    for t in range(1, case["iterations"] + 1):
        if psd:
            L = factored_gd.step_symmetric(op, y, L, case["preconditioner"], case["eta"], sigma,
                                           factored_gd.moment_gradient_symmetric)
            R = L
        else:
            L, R = factored_gd.step(op, y, L, R, case["preconditioner"], case["eta"], sigma,
                                    factored_gd.moment_gradient)
        cL, cR = load(folder, f"L_{t}"), load(folder, f"R_{t}")
        gap = max(np.linalg.norm(cL - L) / np.linalg.norm(L), np.linalg.norm(cR - R) / np.linalg.norm(R))
        gaps.append(gap)
    return gaps


def svp_gaps(folder, case, op, y):
    """SVP / NIHT from the C++ start X_0 = L_0 R_0'; the iterates X_t = L_t R_t' compared."""
    k = case["rank"]
    X, U, V = svp.best_rank_k(load(folder, "L_0") @ load(folder, "R_0").T, k)
    gaps = []
    for t in range(1, case["iterations"] + 1):
        X, U, V = svp.moment_step(op, y, X, U, V, case["step"], case["delta"])
        C = load(folder, f"L_{t}") @ load(folder, f"R_{t}").T
        if op.symmetric:
            C = 0.5 * (C + C.T)  # the estimate's symmetrisation
        gaps.append(np.linalg.norm(C - X) / np.linalg.norm(X))
    return gaps


def altmin_gaps(folder, case, op, y):
    """AltMin from the C++ start (L_0 = U_0 orthonormal, R_0 = V_hat_0); the products compared."""
    A = altmin.design_matrices(op)
    U = load(folder, "L_0")
    V_hat = altmin.solve_right(A, y, altmin.orthonormal(U))
    M0 = altmin.orthonormal(U) @ V_hat.T  # the start's first solve, compared as a product (QR signs differ)
    start_gap = np.linalg.norm(load(folder, "L_0") @ load(folder, "R_0").T - M0) / np.linalg.norm(M0)
    gaps = []
    for t in range(1, case["iterations"] + 1):
        U, V_hat = altmin.step(A, y, U, V_hat)
        M, C = U @ V_hat.T, load(folder, f"L_{t}") @ load(folder, f"R_{t}").T
        gaps.append(np.linalg.norm(C - M) / np.linalg.norm(M))
    gaps[0] = max(gaps[0], start_gap)
    return gaps


def nuclear_norm_gaps(folder, case, op, y):
    """Proximal gradient over the lambda path from 0; the iterates X_t = L_t R_t' compared."""
    shape = (case["d1"], case["d2"])
    lambdas = [case["lambda"]] if case.get("lambda") is not None else None
    iterates, _ = nuclear_norm.run(op, y, shape, case["variant"], lambdas=lambdas, ratio=case["lambda_ratio"],
                                   length=case["path_length"], tol=case["stage_tolerance"],
                                   stage_iters=case["stage_iterations"], iters=case["iterations"],
                                   loss=case.get("loss", "squared"), L0=1.0 / case.get("initial_step", 1.0),
                                   growth=case.get("step_growth", 1.0))
    if len(iterates) != case["iterations"]:
        raise SystemExit(f"the reference ran {len(iterates)} steps, the C++ run {case['iterations']}")
    gaps = []
    for t, X in enumerate(iterates, start=1):
        C = load(folder, f"L_{t}") @ load(folder, f"R_{t}").T
        if op.symmetric:
            C = 0.5 * (C + C.T)
        gaps.append(np.linalg.norm(C - X) / max(np.linalg.norm(X), 1e-300))
    return gaps


# The phase-retrieval starts: the C++ initializer's name -> (phase_starts function, its parameters).
PHASE_STARTS = {"truncated_spectral_init": ("truncated_spectral", ["alpha_y"]),
                "orthogonality_init": ("orthogonality_promoting", ["fraction"]),
                "weighted_correlation_init": ("weighted_correlation", ["fraction", "exponent"]),
                "optimal_spectral_init": ("optimal_spectral", []),
                "null_vector_init": ("null_vector", ["fraction"])}


def reference_start(A, y, start):
    function, names = PHASE_STARTS[start["name"]]
    kwargs = {name: start[name] for name in names if name in start}
    return getattr(phase_starts, function)(A, y, scale_kind=start.get("scale", "mean"), **kwargs)


def phase_flow_gaps(folder, case, op, y):
    """Wirtinger / amplitude flow from the C++ start z_0 = L_0; the signals z_t = L_t compared (M = z z').

    With case["start"] (a phase-retrieval initializer and its settings), the C++ start itself is compared
    with the reference's, up to sign (M = z z'), and counted in the first gap.
    """
    A = load(folder, "X").T  # m x n, rows a_i
    z = load(folder, "L_0")[:, 0]
    start_gap = 0.0
    if "start" in case:
        r = reference_start(A, y, case["start"])
        start_gap = min(np.linalg.norm(z - r), np.linalg.norm(z + r)) / np.linalg.norm(r)
        print(f"start: relative gap {start_gap:.2e}")
    # run() carries a line search's history (its Barzilai–Borwein steps) from step to step
    iterates = phase_retrieval.run(case["variant"], A, y, z, case["iterations"], case.get("params"))
    gaps = []
    for t, z in enumerate(iterates[1:], start=1):
        c = load(folder, f"L_{t}")[:, 0]
        gaps.append(np.linalg.norm(c - z) / np.linalg.norm(z))
    gaps[0] = max(gaps[0], start_gap)
    return gaps


def phasemax_gaps(folder, case, op, y):
    """PhaseMax from the C++ start (its anchor); the signals z_t = L_t compared."""
    A = load(folder, "X").T
    iterates = phase_retrieval.phasemax(A, y, load(folder, "L_0")[:, 0], case["iterations"], case.get("params"))
    gaps = []
    for t, z in enumerate(iterates[1:], start=1):
        c = load(folder, f"L_{t}")[:, 0]
        gaps.append(np.linalg.norm(c - z) / np.linalg.norm(z))
    return gaps


def main(folder):
    with open(os.path.join(folder, "case.json")) as f:
        case = json.load(f)
    op = operator(folder, case)
    y = load(folder, "y")
    methods = {"factored_gd": factored_gd_gaps, "svp": svp_gaps, "altmin_sensing": altmin_gaps,
               "nuclear_norm": nuclear_norm_gaps, "wirtinger_flow": phase_flow_gaps, "amplitude_flow": phase_flow_gaps,
               "gerchberg_saxton": phase_flow_gaps, "phasemax": phasemax_gaps}
    if case["method"] not in methods:
        raise SystemExit(f"unknown method {case['method']!r}")
    gaps = methods[case["method"]](folder, case, op, y)
    for t, gap in enumerate(gaps, start=1):
        print(f"iterate {t}: relative gap {gap:.2e}")
    worst = float(np.max(gaps))  # NaN propagates (and fails), unlike max()
    print(f"worst relative gap {worst:.2e} over {len(gaps)} iterates (tolerance {case['tolerance']:.0e})")
    return 0 if np.isfinite(worst) and worst <= case["tolerance"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
