"""Lifted degree-2 polynomial network trained by coordinate descent (the polynomial-network baseline).

M. Blondel, M. Ishihata, A. Fujino, N. Ueda, *Polynomial Networks and Factorization Machines: New
Insights and Efficient Training Algorithms*, ICML 2016: the degree-2 polynomial network (PN), its
lifted form with two factor matrices, and the coordinate-descent training of the lifted form. The
variant here follows the polylearn package's PolynomialNetworkRegressor with squared loss and
fit_lower='augment' (a constant feature appended, so the same two factors also carry the linear
term and the bias). Written from the equations; no code taken from polylearn.

Data: X is d x n (one instance per column), y has n entries.

Augmentation (fit_lower = True): Xa = [X; 1'] (d_a = d + 1); fit_lower = False: Xa = X (d_a = d).

Parameters P, Q (both d_a x k). Prediction and residual:

    yhat_i = sum_s (P[:, s]' xa_i) (Q[:, s]' xa_i) = xa_i' P Q' xa_i,      e = yhat - y

Objective (polylearn's summed loss and beta, divided by n, with beta = n reg_v):

    J(P, Q) = (1/(2n)) sum_i e_i^2 + (reg_v / 2) (||P||_F^2 + ||Q||_F^2)

The augmented row is regularised like the others (as in polylearn's 'augment').

One epoch: for side in (P, Q), for s = 0..k-1, with xi = Xa' other[:, s] (the other factor's
projections, fixed while column s of this side moves), for j = 0..d_a-1:

    h     = Xa[j, :] * xi                              (yhat is affine in side[j, s], slope h)
    new   = old - (h'e + n reg_v old) / (h'h + n reg_v)
    e    += h (new - old)

J restricted to side[j, s] is the quadratic (1/(2n)) ||e + h t||^2 + (reg_v/2)(old + t)^2 in the
step t, so `new` is its exact minimiser (a Newton step on a quadratic); a coordinate with
h'h + n reg_v = 0 (h = 0 and reg_v = 0: J does not depend on it) is left where it is.

The model the factors represent (x'Ax = x' sym(A) x): with P_d = P[:d], Q_d = Q[:d] and, under
fit_lower, p = P[d], q = Q[d] (the augmented row),

    M = sym(P_d Q_d') = (P_d Q_d' + Q_d P_d') / 2       (full diagonal, any inertia)
    w = Q_d p + P_d q = sum_s (P[d, s] Q[:d, s] + Q[d, s] P[:d, s])
    b = p'q           = sum_s P[d, s] Q[d, s]

and yhat_i = x_i' M x_i + w'x_i + b exactly. (sym(P Q') of the augmented matrix is
[[M, w/2], [w'/2, b]]; with k columns it has rank <= 2k and at most k positive and k negative
eigenvalues, which is the class the k-column PN can represent.)
"""

import os
import sys

os.environ["OPENBLAS_NUM_THREADS"] = "1"  # one BLAS thread (the build owns the other core)

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree


# --- data, prediction, objective ----------------------------------------------------------------

def augment(X, fit_lower):
    """Xa = [X; ones(1, n)] when fit_lower, else X (a float64 copy either way)."""
    X = np.array(X, dtype=float)
    if X.ndim != 2:
        raise ValueError(f"X must be d x n, got shape {X.shape}")
    if not fit_lower:
        return X
    return np.vstack([X, np.ones((1, X.shape[1]))])


def predict(Xa, P, Q):
    """yhat_i = sum_s (P[:, s]' xa_i)(Q[:, s]' xa_i)."""
    return np.sum((P.T @ Xa) * (Q.T @ Xa), axis=0)


def objective(Xa, y, P, Q, reg_v):
    """J = (1/(2n)) ||yhat - y||^2 + (reg_v/2)(||P||_F^2 + ||Q||_F^2)."""
    e = predict(Xa, P, Q) - y
    n = Xa.shape[1]
    return float(e @ e) / (2 * n) + 0.5 * reg_v * (float(np.sum(P * P)) + float(np.sum(Q * Q)))


# --- coordinate descent -------------------------------------------------------------------------

def coordinate_steps(Xa, y, P, Q, reg_v):
    """One epoch as a generator, updating P and Q in place (pass copies).

    After each coordinate it yields (side, j, s, old, new, e): side 0 for P, 1 for Q; e the running
    residual yhat - y after the update. A skipped coordinate (h'h + n reg_v = 0) yields old = new.
    The residual is computed once, at the start of the epoch, and then kept by e += h (new - old).
    """
    n = Xa.shape[1]
    d_a, k = P.shape
    beta = n * reg_v
    e = predict(Xa, P, Q) - y
    for side, (this, other) in enumerate(((P, Q), (Q, P))):
        for s in range(k):
            xi = Xa.T @ other[:, s]
            for j in range(d_a):
                h = Xa[j, :] * xi
                old = this[j, s]
                denom = float(h @ h) + beta
                if denom == 0.0:
                    yield side, j, s, old, old, e
                    continue
                new = old - (float(h @ e) + beta * old) / denom
                this[j, s] = new
                e += h * (new - old)
                yield side, j, s, old, new, e


def epoch(Xa, y, P, Q, reg_v):
    """One epoch of coordinate descent (all of P, then all of Q); returns new arrays (P, Q)."""
    P, Q = np.array(P, dtype=float), np.array(Q, dtype=float)
    if P.shape != Q.shape or P.shape[0] != Xa.shape[0]:
        raise ValueError(f"P {P.shape} and Q {Q.shape} must both be d_a x k, d_a = {Xa.shape[0]}")
    for _ in coordinate_steps(Xa, y, P, Q, reg_v):
        pass
    return P, Q


def run(X, y, P0, Q0, reg_v, fit_lower, epochs):
    """[(P_0, Q_0), (P_1, Q_1), ..., (P_T, Q_T)], T = epochs, from the start (P0, Q0) (d_a x k)."""
    Xa = augment(X, fit_lower)
    y = np.asarray(y, dtype=float)
    P, Q = np.array(P0, dtype=float), np.array(Q0, dtype=float)
    iterates = [(P, Q)]
    for _ in range(epochs):
        P, Q = epoch(Xa, y, P, Q, reg_v)
        iterates.append((P, Q))
    return iterates


def model(P, Q, fit_lower):
    """(M, w, b) with yhat = x'Mx + w'x + b; without fit_lower, w = 0 (length d) and b = 0."""
    if fit_lower:
        Pd, Qd, p, q = P[:-1], Q[:-1], P[-1], Q[-1]
        w = Qd @ p + Pd @ q
        b = float(p @ q)
    else:
        Pd, Qd = P, Q
        w, b = np.zeros(P.shape[0]), 0.0
    A = Pd @ Qd.T
    return 0.5 * (A + A.T), w, b


# --- agreement with a C++ run -------------------------------------------------------------------

def _load(folder, name):
    path = os.path.join(folder, name + ".npy")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"missing {path}")
    return np.load(path)


def _rel(a, b):
    return float(np.linalg.norm(a - b)) / max(float(np.linalg.norm(a)), 1e-300)


def agree(folder, case):
    """[(t, gap_t) for t = 1..T]: the reference replayed from the C++ start on the C++ data.

    gap_t = max(||P_t^ref - P_t^cpp||_F / ||P_t^ref||_F, the same for Q). Each reference epoch
    starts from the reference's own previous iterate (P_0, Q_0 the C++ start). Raises on a missing
    file, a shape mismatch, or a non-finite iterate (reference or C++); the caller compares the
    gaps with case["tolerance"].
    """
    if case.get("method") != "polynomial_network":
        raise ValueError(f"not a polynomial_network case: {case.get('method')!r}")
    fit_lower, k, reg_v = bool(case["fit_lower"]), int(case["rank"]), float(case["reg_v"])
    X, y = _load(folder, "X"), _load(folder, "y").reshape(-1)
    if X.ndim != 2 or X.shape[1] != y.size:
        raise ValueError(f"X {X.shape} is not d x n with n = len(y) = {y.size}")
    Xa = augment(X, fit_lower)
    P, Q = _load(folder, "P_0").astype(float), _load(folder, "Q_0").astype(float)
    if P.shape != (Xa.shape[0], k) or Q.shape != P.shape:
        raise ValueError(f"P_0 {P.shape}, Q_0 {Q.shape}: expected {(Xa.shape[0], k)}")
    for name, A in (("X", X), ("y", y), ("P_0", P), ("Q_0", Q)):
        if not np.all(np.isfinite(A)):
            raise ValueError(f"{name}.npy is not finite")
    gaps = []
    for t in range(1, int(case["iterations"]) + 1):
        P, Q = epoch(Xa, y, P, Q, reg_v)
        cP, cQ = _load(folder, f"P_{t}"), _load(folder, f"Q_{t}")
        if cP.shape != P.shape or cQ.shape != Q.shape:
            raise ValueError(f"epoch {t}: C++ shapes {cP.shape}, {cQ.shape}, reference {P.shape}")
        if not (np.all(np.isfinite(P)) and np.all(np.isfinite(Q))):
            raise ValueError(f"epoch {t}: the reference iterate is not finite")
        if not (np.all(np.isfinite(cP)) and np.all(np.isfinite(cQ))):
            raise ValueError(f"epoch {t}: the C++ iterate is not finite")
        gap = max(_rel(P, cP), _rel(Q, cQ))
        if not np.isfinite(gap):
            raise ValueError(f"epoch {t}: gap is not finite")
        gaps.append((t, gap))
    return gaps
