"""Checks of the numpy references: adjoints, moment inverses, gradients, planted-truth recovery and
ScaledGD's condition-number headline; the FM baselines' own checks (polynomial_network_checks.py,
fm_mcmc_checks.py) and the phase-retrieval flows' (phase_retrieval_checks.py).

    /usr/bin/python3 tests/references/test_references.py

Prints one line per check, the iterations-to-1e-8 tables, and a closing line 'N passed, N failed';
exits 0 when nothing failed. Every problem is drawn from numpy.random.default_rng(seed) with the
seed stated beside it: the truth first, then the design.
"""

import os

# One BLAS thread, set before numpy is imported (the build owns the other core).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import sys  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import altmin  # noqa: E402
import factored_gd  # noqa: E402
import fm_mcmc_checks  # noqa: E402
import phase_retrieval_checks  # noqa: E402
import polynomial_network_checks  # noqa: E402
import sensing  # noqa: E402
import svp  # noqa: E402

TOL_RECOVERY = 1e-6
TOL_HEADLINE = 1e-8
KAPPAS = (1, 5, 10, 20)


# --- problems -----------------------------------------------------------------------------------

def planted(rng, d1, d2, rank, kappa, psd=False):
    """M* = U diag(s) V', U, V Haar-orthonormal (QR of Gaussians), s linear from 1 to 1/kappa.

    sigma_max(M*) = 1 and sigma_min = 1/kappa (the ScaledGD paper's spectrum, its Section 5).
    psd: V = U (needs d1 = d2).
    """
    U = np.linalg.qr(rng.standard_normal((d1, rank)))[0]
    V = U if psd else np.linalg.qr(rng.standard_normal((d2, rank)))[0]
    s = np.linspace(1.0, 1.0 / kappa, rank)
    return (U * s) @ V.T


def problem(seed, draw, d1, d2, rank, kappa, psd=False):
    """(operator, data) for a noise-free planted truth; draw(rng) makes the operator."""
    rng = np.random.default_rng(seed)
    truth = planted(rng, d1, d2, rank, kappa, psd)
    op = draw(rng)
    return op, {"y": op.forward(truth), "truth": truth}


def iterations_to(errors, tol):
    """First t with errors[t] < tol, or None."""
    return next((t for t, e in enumerate(errors) if e < tol), None)


# --- adjoint identity and moment inverses -------------------------------------------------------

def test_adjoint_identity():
    worst = sensing.adjoint_identity_check(seed=0, tol=1e-12)
    return "max relative discrepancy %.1e over %d operators" % (max(worst.values()), len(worst))


def test_moment_inverses_unbiased():
    """M_hat estimates M: the rank-one and Gaussian designs at large n, entries averaged over draws.

    The thresholds sit well below the error of a wrong inverse (for symmetric rank-one, omitting
    the '- mean(y) I' and the 1/2 leaves an error of order 1).
    """
    rng = np.random.default_rng(11)
    d, out = 6, []
    M = planted(rng, d, d, 2, 2.0)
    P = planted(rng, d, d, 2, 2.0, psd=True)
    cases = [("symmetric_rank_one", sensing.draw_symmetric_rank_one(rng, 400000, d), P, 0.03),
             ("asymmetric_rank_one", sensing.draw_asymmetric_rank_one(rng, 400000, d, d), M, 0.03),
             ("gaussian_ensemble", sensing.draw_gaussian_ensemble(rng, 40000, d, d), M, 0.05),
             ("gaussian_ensemble_symmetric",
              sensing.draw_gaussian_ensemble(rng, 40000, d, d, symmetric=True), P, 0.05)]
    for name, op, truth, tol in cases:
        err = factored_gd.relative_error(op.moment_inverse(op.forward(truth)), truth)
        assert err < tol, f"{name}: moment inverse error {err:.3f} >= {tol}"
        out.append(f"{name} {err:.3f}")
    draws = 4000
    mean = np.zeros((d, d))
    for _ in range(draws):
        op = sensing.draw_entries(rng, 12, d, d)
        mean = mean + op.moment_inverse(op.forward(M)) / draws
    err = factored_gd.relative_error(mean, M)
    assert err < 0.05, f"entries: mean of {draws} moment inverses off by {err:.3f}"
    out.append(f"entries (mean of {draws}) {err:.3f}")
    return ", ".join(out)


# --- gradients against finite differences -------------------------------------------------------

def central_difference(f, Z, h=1e-6):
    """Entrywise central differences of the scalar f at the matrix Z."""
    g = np.zeros_like(Z)
    for idx in np.ndindex(Z.shape):
        E = np.zeros_like(Z)
        E[idx] = h
        g[idx] = (f(Z + E) - f(Z - E)) / (2 * h)
    return g


def relative_gap(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def test_gradients_finite_differences():
    """grad f (asymmetric and symmetric forms) and the balancing term's gradient, to 1e-6 relative.

    The symmetric form is also checked on a non-symmetric Gaussian ensemble, where (S + S') X
    differs from 2 S X; the entries operator checks the scale c = d1 d2.
    """
    rng = np.random.default_rng(5)
    d1, d2, k, n = 6, 5, 2, 30
    worst = 0.0
    L, R = rng.standard_normal((d1, k)), rng.standard_normal((d2, k))
    for op in (sensing.draw_gaussian_ensemble(rng, n, d1, d2),
               sensing.draw_asymmetric_rank_one(rng, n, d1, d2),
               sensing.draw_entries(rng, n, d1, d2)):
        y = rng.standard_normal(n)
        gL, gR = factored_gd.gradient(op, y, L, R)
        fdL = central_difference(lambda Z: factored_gd.loss(op, y, Z, R), L)
        fdR = central_difference(lambda Z: factored_gd.loss(op, y, L, Z), R)
        worst = max(worst, relative_gap(gL, fdL), relative_gap(gR, fdR))
    bL, bR = factored_gd.balance_gradient(L, R)
    worst = max(worst,
                relative_gap(bL, central_difference(lambda Z: factored_gd.balance_penalty(Z, R), L)),
                relative_gap(bR, central_difference(lambda Z: factored_gd.balance_penalty(L, Z), R)))
    X = rng.standard_normal((d1, k))
    for op in (sensing.draw_symmetric_rank_one(rng, n, d1),
               sensing.draw_gaussian_ensemble(rng, n, d1, d1, symmetric=True),
               sensing.draw_gaussian_ensemble(rng, n, d1, d1)):
        y = rng.standard_normal(n)
        g = factored_gd.gradient_symmetric(op, y, X)
        fd = central_difference(lambda Z: factored_gd.loss_symmetric(op, y, Z), X)
        worst = max(worst, relative_gap(g, fd))
    assert worst < 1e-6, f"gradient off finite differences by {worst:.2e}"
    return f"max relative gap {worst:.1e}"


# --- planted-truth recovery ---------------------------------------------------------------------

# (name, seed, draw(rng), d1, d2, rank, iteration budget); kappa = 2 (singular values 1, 1/2).
# Measurement counts: Gaussian ensemble n = 4 r (d1 + d2) = 320 (< d1 d2 = 400; r(d1+d2-r) = 76
# unknowns); asymmetric rank-one n = 10 r (d1 + d2) = 700 (at n = 400 on 20 x 20 the fixed SVP
# step of 3/4 diverges: rank-one designs are far from isometric at small n); completion
# n = 5 r (d1 + d2) = 1000 of 2500 entries (p = 0.4).
RECOVERY = [
    ("gaussian_ensemble 20x20", 1, lambda rng: sensing.draw_gaussian_ensemble(rng, 320, 20, 20),
     20, 20, 2, 1000),
    ("asymmetric_rank_one 20x15", 2, lambda rng: sensing.draw_asymmetric_rank_one(rng, 700, 20, 15),
     20, 15, 2, 1000),
    ("entries 50x50", 3, lambda rng: sensing.draw_entries(rng, 1000, 50, 50), 50, 50, 2, 3000),
]
METHODS = [
    ("ScaledGD", lambda op, data, r, it: factored_gd.run(op, data, r, "scaled", iters=it,
                                                         stop_below=1e-9)),
    ("vanilla GD", lambda op, data, r, it: factored_gd.run(op, data, r, "none", iters=it,
                                                           stop_below=1e-9)),
    ("SVP", lambda op, data, r, it: svp.run(op, data, r, "fixed", iters=it, stop_below=1e-9)),
    ("NIHT", lambda op, data, r, it: svp.run(op, data, r, "normalized", iters=it,
                                             stop_below=1e-9)),
    ("NIHT (tangent projection)", lambda op, data, r, it: svp.run(
        op, data, r, "normalized", iters=it, projection="tangent", stop_below=1e-9)),
]


def recovery_test(case, method):
    name, seed, draw, d1, d2, rank, budget = case
    label, solve = method

    def check():
        op, data = problem(seed, draw, d1, d2, rank, 2.0)
        _, errors = solve(op, data, rank, budget)
        assert errors[-1] < TOL_RECOVERY, f"error {errors[-1]:.2e} after {len(errors) - 1} iterations"
        return f"{iterations_to(errors, TOL_RECOVERY)} iterations to 1e-6 (start {errors[0]:.2f})"
    check.__name__ = f"recovery {label} on {name}"
    return check


def test_symmetric_factorisations():
    """PSD truth, X X' factor: symmetric Gaussian ensemble (default eta = 0.25) equals the
    asymmetric ScaledGD at eta = 0.5 iteration for iteration; symmetric rank-one sensing needs
    eta = 0.1 (its E[A*A]/n = 2E + tr(E) I is not the identity). Indefinite truth: L R'."""
    out = []
    op, data = problem(4, lambda rng: sensing.draw_gaussian_ensemble(rng, 320, 20, 20, True),
                       20, 20, 2, 2.0, psd=True)
    sym = factored_gd.run(op, data, 2, "scaled", iters=400, stop_below=1e-9)[1]
    asym = factored_gd.run(op, data, 2, "scaled", iters=400, symmetric=False, stop_below=1e-9)[1]
    gap = max(abs(a - b) / b for a, b in zip(sym, asym))
    assert len(sym) == len(asym) and gap < 1e-6, f"symmetric and asymmetric ScaledGD differ ({gap})"
    for pre in ("scaled", "none"):
        errors = factored_gd.run(op, data, 2, pre, iters=1000, stop_below=1e-9)[1]
        assert errors[-1] < TOL_RECOVERY, f"symmetric Gaussian {pre}: {errors[-1]:.2e}"
        out.append(f"sym. Gaussian {pre} {iterations_to(errors, TOL_RECOVERY)}")
    op, data = problem(6, lambda rng: sensing.draw_symmetric_rank_one(rng, 1000, 20),
                       20, 20, 2, 2.0, psd=True)
    for pre in ("scaled", "none"):
        errors = factored_gd.run(op, data, 2, pre, eta=0.1, iters=1000, stop_below=1e-9)[1]
        assert errors[-1] < TOL_RECOVERY, f"symmetric rank-one {pre}: {errors[-1]:.2e}"
        out.append(f"sym. rank-one {pre} {iterations_to(errors, TOL_RECOVERY)}")
    # An indefinite symmetric truth (eigenvalues 1 and -1/2): the asymmetric factorisation on the
    # symmetric operator, spectral start from the SVD of the symmetric M_hat.
    op, data = problem(4, lambda rng: sensing.draw_gaussian_ensemble(rng, 320, 20, 20, True),
                       20, 20, 2, 2.0, psd=True)
    w, Q = np.linalg.eigh(data["truth"])
    indefinite = (Q * np.where(w > 0.75, w, -w)) @ Q.T
    data = {"y": op.forward(indefinite), "truth": indefinite}
    for pre in ("scaled", "none"):
        errors = factored_gd.run(op, data, 2, pre, iters=1000, symmetric=False, stop_below=1e-9)[1]
        assert errors[-1] < TOL_RECOVERY, f"indefinite truth, asymmetric {pre}: {errors[-1]:.2e}"
        out.append(f"indefinite (L R') {pre} {iterations_to(errors, TOL_RECOVERY)}")
    return "iterations to 1e-6: " + ", ".join(out)


# --- ScaledGD's headline: iterations independent of kappa ---------------------------------------

def kappa_table(seed, draw, d, rank, budgets=(600, 4000)):
    """{method: [iterations to 1e-8 for each kappa]}; same bases and design for every kappa.

    Budgets: 600 iterations for ScaledGD, 4000 for vanilla GD; a count that is not reached is
    recorded as the string 'not reached (error E after T)'.
    """
    rows = {"ScaledGD (eta = 0.5)": [], "vanilla GD (eta = 0.5/sigma_1(start))": [],
            "vanilla GD (eta = 0.5/sigma_max(M*))": []}
    for kappa in KAPPAS:
        op, data = problem(seed, draw, d, d, rank, kappa)
        runs = [factored_gd.run(op, data, rank, "scaled", iters=budgets[0],
                                stop_below=TOL_HEADLINE),
                factored_gd.run(op, data, rank, "none", iters=budgets[1],
                                stop_below=TOL_HEADLINE),
                factored_gd.run(op, data, rank, "none", iters=budgets[1], sigma=1.0,
                                stop_below=TOL_HEADLINE)]
        for row, (_, errors) in zip(rows.values(), runs):
            count = iterations_to(errors, TOL_HEADLINE)
            row.append(count if count is not None else
                       f"not reached (error {errors[-1]:.1e} after {len(errors) - 1})")
    return rows


def print_table(title, rows):
    print(f"\n{title}\n")
    print("| method | " + " | ".join(f"kappa = {k}" for k in KAPPAS) + " |")
    print("|---" * (len(KAPPAS) + 1) + "|")
    for name, counts in rows.items():
        print(f"| {name} | " + " | ".join(str(c) for c in counts) + " |")
    print()


HEADLINE = {"seeds": (7, 8, 9), "d": 20, "rank": 2, "n": 320}


def test_kappa_headline():
    """Gaussian ensemble 20x20, rank 2, n = 320, three seeds: ScaledGD's counts within a factor 1.5
    across kappa in {1, 5, 10, 20}; vanilla GD's at kappa = 20 at least 3x its count at kappa = 1."""
    h, notes = HEADLINE, []
    for seed in h["seeds"]:
        rows = kappa_table(seed, lambda rng: sensing.draw_gaussian_ensemble(rng, h["n"], h["d"],
                                                                           h["d"]),
                           h["d"], h["rank"])
        print_table(f"Iterations to relative error 1e-8, Gaussian ensemble {h['d']}x{h['d']}, "
                    f"rank {h['rank']}, n = {h['n']}, seed {seed}:", rows)
        scaled = rows["ScaledGD (eta = 0.5)"]
        vanilla = rows["vanilla GD (eta = 0.5/sigma_1(start))"]
        reached = all(isinstance(c, int) for c in scaled + vanilla)
        assert reached, f"seed {seed}: not every run reached 1e-8: {scaled} {vanilla}"
        spread = max(scaled) / min(scaled)
        growth = vanilla[-1] / vanilla[0]
        assert spread <= 1.5, f"seed {seed}: ScaledGD spread across kappa {spread:.2f} > 1.5"
        assert growth >= 3.0, f"seed {seed}: vanilla GD kappa=20 / kappa=1 = {growth:.2f} < 3"
        notes.append(f"seed {seed}: ScaledGD spread {spread:.2f}, vanilla growth {growth:.1f}x")
    return "; ".join(notes)


def test_kappa_completion_informational():
    """Matrix completion 50x50, rank 2, n = 1500 (p = 0.6), seeds 1-3: printed, not asserted (no
    incoherence projection; at kappa = 20 a run may stall away from M*, for every method)."""
    for seed in (1, 2, 3):
        rows = kappa_table(seed, lambda rng: sensing.draw_entries(rng, 1500, 50, 50), 50, 2)
        print_table(f"Iterations to 1e-8, completion 50x50, rank 2, n = 1500, seed {seed} "
                    "(informational):", rows)
    return "printed"


def test_altmin_rank_one_form():
    """altmin's rank-one form (the speed reference of benchmarks/numpy_baselines.py) gives the
    iterates of its general form on a small asymmetric rank-one problem (seed 5)."""
    rng = np.random.default_rng(5)
    d1, d2, k, n = 8, 6, 2, 300
    M = planted(rng, d1, d2, k, 2.0)
    A_left, A_right = rng.standard_normal((n, d1)), rng.standard_normal((n, d2))
    op = sensing.make_asymmetric_rank_one(A_left, A_right)
    y = op.forward(M)
    general = altmin.run(op, y, k, 4)
    rank_one = altmin.rank_one_run(A_left, A_right, y, k, 4)
    gap = max(np.linalg.norm(U1 @ V1.T - U2 @ V2.T) / np.linalg.norm(U1 @ V1.T)
              for (U1, V1), (U2, V2) in zip(general, rank_one))
    assert gap < 1e-10, gap
    return f"5 iterates, largest relative gap {gap:.1e}"


# --- runner -------------------------------------------------------------------------------------

def all_tests():
    tests = [test_adjoint_identity, test_moment_inverses_unbiased,
             test_gradients_finite_differences]
    tests += [recovery_test(case, method) for case in RECOVERY for method in METHODS]
    tests += [test_symmetric_factorisations, test_kappa_headline,
              test_kappa_completion_informational, test_altmin_rank_one_form]
    tests += polynomial_network_checks.CHECKS + fm_mcmc_checks.CHECKS + phase_retrieval_checks.CHECKS
    return tests


def run(tests):
    """Runs the checks, one line each; 0 when all passed, else 1."""
    start = time.perf_counter()
    passed = failed = 0
    for test in tests:
        t0 = time.perf_counter()
        try:
            note = test()
            passed += 1
            print(f"PASS {test.__name__} ({time.perf_counter() - t0:.2f} s): {note}", flush=True)
        except Exception:  # a failed assertion or an error in the reference: both fail the check
            failed += 1
            print(f"FAIL {test.__name__} ({time.perf_counter() - t0:.2f} s):", flush=True)
            traceback.print_exc(limit=2, file=sys.stdout)
    print(f"total {time.perf_counter() - start:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def main():
    return run(all_tests())


if __name__ == "__main__":
    sys.exit(main())
