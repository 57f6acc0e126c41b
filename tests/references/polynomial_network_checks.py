"""Checks of the polynomial-network reference (polynomial_network.py; Blondel et al., ICML 2016).

Run by test_references.py (CTest `references`).

Each test_*() raises AssertionError on failure and returns a one-line note; CHECKS lists them in
order. Every problem is drawn from numpy.random.default_rng(seed) with the seed stated in the
check's docstring (the truth or responses first, then the design, then the start).
"""

import os

# One BLAS thread, set before numpy is imported (the build owns the other core).
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"

import json  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import polynomial_network as pn  # noqa: E402

TOL_RECOVERY = 1e-6
RECOVERY_EPOCHS = 300
RECOVERY_SEEDS = (0, 1, 2)


def random_problem(seed, d, n, k, fit_lower, scale=0.5):
    """Unstructured problem: y ~ N(0, 1) (so J stays away from 0), X ~ N(0, 1) (d x n),
    P0, Q0 ~ N(0, scale^2) (d_a x k), drawn in that order from default_rng(seed)."""
    rng = np.random.default_rng(seed)
    y = rng.standard_normal(n)
    X = rng.standard_normal((d, n))
    Xa = pn.augment(X, fit_lower)
    d_a = Xa.shape[0]
    return Xa, y, scale * rng.standard_normal((d_a, k)), scale * rng.standard_normal((d_a, k))


def line(Xa, y, P, Q, reg_v, side, j, s, value):
    """J with the coordinate (side, j, s) set to value, every other coordinate as in (P, Q)."""
    P, Q = P.copy(), Q.copy()
    (P, Q)[side][j, s] = value
    return pn.objective(Xa, y, P, Q, reg_v)


# --- (a) no coordinate update increases J -------------------------------------------------------

def test_coordinate_monotone():
    """(a) J after every coordinate update of one epoch <= J before it (+1e-12 |J| slack), for
    reg_v in {0, 1e-3} and fit_lower in {True, False}; d = 6, n = 40, k = 3, seeds 10-13
    (random_problem). J is recomputed from scratch at each coordinate; at the end of the epoch the
    running residual must equal yhat - y recomputed (1e-10 relative)."""
    worst, count, drop = -np.inf, 0, []
    for seed, (reg_v, fit_lower) in enumerate([(0.0, True), (0.0, False), (1e-3, True),
                                                (1e-3, False)], start=10):
        Xa, y, P, Q = random_problem(seed, 6, 40, 3, fit_lower)
        J_prev = J_start = pn.objective(Xa, y, P, Q, reg_v)
        e = None
        for side, j, s, old, new, e in pn.coordinate_steps(Xa, y, P, Q, reg_v):
            J = pn.objective(Xa, y, P, Q, reg_v)
            rise = (J - J_prev) / abs(J_prev)
            assert rise <= 1e-12, (f"reg_v {reg_v}, fit_lower {fit_lower}: coordinate "
                                   f"{'PQ'[side]}[{j},{s}] raised J by {rise:.2e} (relative)")
            worst, count, J_prev = max(worst, rise), count + 1, J
        fresh = pn.predict(Xa, P, Q) - y
        gap = np.linalg.norm(e - fresh) / np.linalg.norm(fresh)
        assert gap < 1e-10, f"running residual off the recomputed one by {gap:.2e}"
        drop.append(f"{J_start:.3f}->{J_prev:.3f}")
    return (f"{count} coordinate updates, largest relative change of J {worst:.1e} "
            f"(J over the epoch: {', '.join(drop)})")


# --- (b) the closed form is the line minimiser --------------------------------------------------

def test_coordinate_minimiser():
    """(b) At every coordinate of one epoch (state before the update, other coordinates fixed):
    J(new +/- delta) > J(new) with delta = 1e-3 max(1, |new|); the vertex of the parabola through
    J at old - 1, old, old + 1 equals new (1e-9 max(1, |new|)); and J at old + 2 lies on that
    parabola (1e-10 relative: J is exactly quadratic in one coordinate). reg_v in {0, 1e-3},
    fit_lower in {True, False}; d = 5, n = 30, k = 2, seeds 20-23 (random_problem)."""
    worst_vertex, worst_quad, worst_rise, count = 0.0, 0.0, np.inf, 0
    for seed, (reg_v, fit_lower) in enumerate([(0.0, True), (0.0, False), (1e-3, True),
                                                (1e-3, False)], start=20):
        Xa, y, P, Q = random_problem(seed, 5, 30, 2, fit_lower)
        for side, j, s, old, new, _ in pn.coordinate_steps(Xa, y, P, Q, reg_v):
            def J(v):
                return line(Xa, y, P, Q, reg_v, side, j, s, v)
            J0, delta = J(new), 1e-3 * max(1.0, abs(new))
            rise = min(J(new - delta), J(new + delta)) - J0
            assert rise > 0, (f"{'PQ'[side]}[{j},{s}]: J(new +/- delta) not above J(new) "
                              f"(rise {rise:.2e})")
            worst_rise = min(worst_rise, rise / (delta * delta))
            Jm, Jc, Jp = J(old - 1.0), J(old), J(old + 1.0)
            curv = Jp - 2.0 * Jc + Jm  # = 2a for J = a t^2 + ...
            assert curv > 0, f"{'PQ'[side]}[{j},{s}]: J not convex along the coordinate"
            vertex = old - (Jp - Jm) / (2.0 * curv)
            vgap = abs(vertex - new) / max(1.0, abs(new))
            assert vgap < 1e-9, (f"{'PQ'[side]}[{j},{s}]: parabola vertex {vertex:.12g}, "
                                 f"closed form {new:.12g}")
            J2 = J(old + 2.0)
            predicted = Jc + 2.0 * (Jp - Jm) / 2.0 + 4.0 * curv / 2.0
            qgap = abs(J2 - predicted) / abs(J2)
            assert qgap < 1e-10, f"{'PQ'[side]}[{j},{s}]: J not quadratic ({qgap:.2e})"
            worst_vertex, worst_quad = max(worst_vertex, vgap), max(worst_quad, qgap)
            count += 1
    return (f"{count} coordinates: vertex gap <= {worst_vertex:.1e}, off-parabola <= "
            f"{worst_quad:.1e}, smallest (J(new +/- delta) - J(new)) / delta^2 {worst_rise:.2e}")


# --- (c) model(P, Q) reproduces predict() -------------------------------------------------------

def test_model_predicts():
    """(c) x'Mx + w'x + b from model(P, Q, fit_lower) equals predict() to 1e-12 (max abs gap over
    max |yhat|), M symmetric; fit_lower in {True, False}; d = 7, n = 50, k = 3, seed 30:
    X ~ N(0, 1), then P, Q ~ N(0, 1) for each fit_lower in turn."""
    rng = np.random.default_rng(30)
    X = rng.standard_normal((7, 50))
    notes = []
    for fit_lower in (True, False):
        Xa = pn.augment(X, fit_lower)
        P, Q = rng.standard_normal((Xa.shape[0], 3)), rng.standard_normal((Xa.shape[0], 3))
        M, w, b = pn.model(P, Q, fit_lower)
        assert M.shape == (7, 7) and w.shape == (7,), f"shapes M {M.shape}, w {w.shape}"
        assert np.array_equal(M, M.T), "M not symmetric"
        yhat = pn.predict(Xa, P, Q)
        from_model = np.einsum("in,ij,jn->n", X, M, X) + w @ X + b
        gap = np.max(np.abs(from_model - yhat)) / np.max(np.abs(yhat))
        assert gap < 1e-12, f"fit_lower {fit_lower}: model off predict() by {gap:.2e}"
        notes.append(f"fit_lower {fit_lower}: {gap:.1e}")
    return "relative gap " + ", ".join(notes)


# --- (d) planted recovery -----------------------------------------------------------------------

def planted(seed, d=10, n=2000, k=2):
    """y = x'M*x + w*'x + b*, noise-free. From default_rng(seed), in order: U (d x 2, QR of a
    Gaussian), M* = U diag(1, -0.7) U' (indefinite, nonzero diagonal); w* ~ N(0, I) scaled to norm
    1; b* = 0.5; X ~ N(0, 1) (d x n); P0, Q0 ~ N(0, 0.1^2) ((d + 1) x k)."""
    rng = np.random.default_rng(seed)
    U = np.linalg.qr(rng.standard_normal((d, 2)))[0]
    M = (U * np.array([1.0, -0.7])) @ U.T
    w = rng.standard_normal(d)
    w /= np.linalg.norm(w)
    b = 0.5
    X = rng.standard_normal((d, n))
    y = np.einsum("in,ij,jn->n", X, M, X) + w @ X + b
    P0, Q0 = 0.1 * rng.standard_normal((d + 1, k)), 0.1 * rng.standard_normal((d + 1, k))
    return X, y, (M, w, b), P0, Q0


def test_planted_recovery():
    """(d) d = 10, n = 2000, k = 2, fit_lower, reg_v = 0, seeds 0, 1, 2 (planted): within 300
    epochs ||M - M*||_F/||M*||_F, ||w - w*|| and |b - b*| all < 1e-6.

    k = 2 is the smallest that can work: M* alone is sym(p q') with one column
    (p, q = u1 +/- sqrt(0.7) u2), but the augmented model [[M*, w*/2], [w*'/2, b*]] has rank 4
    with inertia (2, 2) when w* is outside range(M*), and sym(P Q') with k columns reaches rank 2k
    and at most k eigenvalues of each sign.

    Measured (this reference): epochs to all three < 1e-6: 21, 39, 23 for seeds 0, 1, 2;
    the errors then fall to ~1e-16 by epoch 100 (with k = 3 it takes 32, 45, 125 epochs).
    """
    notes = []
    for seed in RECOVERY_SEEDS:
        X, y, (Ms, ws, bs), P, Q = planted(seed)
        Xa = pn.augment(X, True)
        errs, reached = None, None
        for t in range(1, RECOVERY_EPOCHS + 1):
            P, Q = pn.epoch(Xa, y, P, Q, 0.0)
            M, w, b = pn.model(P, Q, True)
            errs = (np.linalg.norm(M - Ms) / np.linalg.norm(Ms), np.linalg.norm(w - ws), abs(b - bs))
            if max(errs) < TOL_RECOVERY:
                reached = t
                break
        assert reached is not None, (f"seed {seed}: after {RECOVERY_EPOCHS} epochs errors "
                                     f"M {errs[0]:.2e}, w {errs[1]:.2e}, b {errs[2]:.2e}")
        notes.append(f"seed {seed}: {reached} epochs (M {errs[0]:.1e}, w {errs[1]:.1e}, "
                     f"b {errs[2]:.1e})")
    return "to 1e-6: " + "; ".join(notes)


# --- agree(): a replay of a run written like the C++ one ----------------------------------------

def test_agree_replay():
    """agree() on a folder written like the C++ one (column-major .npy, fortran_order True), from
    the reference's own run (d = 4, n = 25, k = 2, fit_lower, reg_v = 1e-2, 3 epochs; seed 40,
    random_problem): every gap < 1e-14; a 1e-6 perturbation of Q_2 shows as a gap ~1e-6 at t = 2
    (and only there, each replay step starting from the reference's own iterate); a NaN in P_3
    and a missing Q_3 both raise."""
    Xa, y, P0, Q0 = random_problem(40, 4, 25, 2, True)
    X = Xa[:-1]
    reg_v, T = 1e-2, 3
    iterates = pn.run(X, y, P0, Q0, reg_v, True, T)
    case = {"method": "polynomial_network", "rank": 2, "reg_v": reg_v, "fit_lower": True,
            "iterations": T, "tolerance": 1e-10}
    with tempfile.TemporaryDirectory() as folder:
        def save(name, A):
            np.save(os.path.join(folder, name + ".npy"), np.asfortranarray(A))
        save("X", X)
        save("y", y)
        for t, (P, Q) in enumerate(iterates):
            save(f"P_{t}", P)
            save(f"Q_{t}", Q)
        with open(os.path.join(folder, "case.json"), "w") as f:
            json.dump(case, f)
        assert np.load(os.path.join(folder, "P_0.npy")).flags.f_contiguous
        gaps = pn.agree(folder, case)
        assert [t for t, _ in gaps] == list(range(1, T + 1)), f"epochs {gaps}"
        clean = max(g for _, g in gaps)
        assert clean < 1e-14, f"self-replay gap {clean:.2e}"
        Q2 = iterates[2][1].copy()
        Q2[0, 0] += 1e-6 * np.linalg.norm(Q2)
        save("Q_2", Q2)
        bumped = dict(pn.agree(folder, case))
        assert 0.5e-6 < bumped[2] < 2e-6 and bumped[1] < 1e-14 and bumped[3] < 1e-14, \
            f"perturbed Q_2: gaps {bumped}"
        P3 = iterates[3][0].copy()
        P3[1, 1] = np.nan
        save("P_3", P3)
        for broken in ("nan", "missing"):
            if broken == "missing":
                save("P_3", iterates[3][0])
                os.remove(os.path.join(folder, "Q_3.npy"))
            try:
                pn.agree(folder, case)
            except (ValueError, FileNotFoundError):
                pass
            else:
                raise AssertionError(f"agree() did not raise on a {broken} iterate")
    return f"self-replay gap {clean:.1e}; perturbed Q_2 gap {bumped[2]:.2e}; NaN and missing raise"


CHECKS = [test_coordinate_monotone, test_coordinate_minimiser, test_model_predicts,
          test_planted_recovery, test_agree_replay]
