"""Alternating minimisation for low-rank matrix sensing: AltMinSense (Jain, Netrapalli & Sanghavi
2013, Algorithm 1) and its rank-one-measurement form (Zhong, Jain & Dhillon 2015, Algorithm 1).

Both alternate two least-squares problems over the factors of M = U V':

    V_hat = argmin_V sum_i (<A_i, U V'> - y_i)^2       with U orthonormal (QR of the last U_hat)
    U_hat = argmin_U sum_i (<A_i, U V'> - y_i)^2       with V orthonormal (QR of V_hat)

starting from U_0 = the top-k left singular vectors of the moment estimate M_hat = op.moment_inverse(y)
(the papers' (1/m) sum_i y_i A_i, scaled to estimate M). The papers split the samples into fresh
sets for each step (for the proof); this reference, like the C++ estimator, uses all of them every
time (the papers' own experiments do not split either, Section 5 of Zhong et al. (†)).

Each least-squares problem is solved exactly here, from explicit features: <A_i, U V'> =
<A_i' U, V>, so the rows of the V-problem are vec(A_i' U) and those of the U-problem vec(A_i V);
np.linalg.lstsq gives the minimum-norm solution when the problem is singular (a row of M never
observed). The A_i come from the operator's adjoint of unit vectors, so any operator of
sensing.py works (small problems only).
"""

import numpy as np


def design_matrices(op):
    """A_i for every measurement, (n, d1, d2), from the adjoint: A_i = A*(e_i)."""
    n = op.n
    out = np.empty((n,) + tuple(op.shape))
    for i in range(n):
        e = np.zeros(n)
        e[i] = 1.0
        out[i] = op.adjoint(e)
    return out


def orthonormal(F):
    """Q of the thin QR of F (its column space)."""
    return np.linalg.qr(F)[0]


def solve_right(A, y, U):
    """argmin_V sum_i (<A_i, U V'> - y_i)^2 (d2 x k), minimum norm."""
    rows = np.einsum("iab,ak->ibk", A, U).reshape(A.shape[0], -1)  # vec(A_i' U), row-major (b, k)
    v = np.linalg.lstsq(rows, y, rcond=None)[0]
    return v.reshape(A.shape[2], U.shape[1])


def solve_left(A, y, V):
    """argmin_U sum_i (<A_i, U V'> - y_i)^2 (d1 x k), minimum norm."""
    rows = np.einsum("iab,bk->iak", A, V).reshape(A.shape[0], -1)  # vec(A_i V), row-major (a, k)
    u = np.linalg.lstsq(rows, y, rcond=None)[0]
    return u.reshape(A.shape[1], V.shape[1])


def start(op, y, k):
    """U_0: the top-k left singular vectors of M_hat."""
    return np.linalg.svd(op.moment_inverse(y))[0][:, :k]


def step(A, y, U, V_hat):
    """One iteration from (U orthonormal, V_hat = solve_right(U)): U_hat against QR(V_hat), then
    V_hat against QR(U_hat). Returns (U, V_hat) of the new iterate; M = U V_hat'."""
    V = orthonormal(V_hat)
    U_hat = solve_left(A, y, V)
    U = orthonormal(U_hat)
    return U, solve_right(A, y, U)


def run(op, y, k, iters, U0=None):
    """Iterates [(U_0, V_hat_0), ..., (U_T, V_hat_T)], M_t = U_t V_hat_t'."""
    A = design_matrices(op)
    U = start(op, y, k) if U0 is None else orthonormal(U0)
    V_hat = solve_right(A, y, U)
    iterates = [(U, V_hat)]
    for _ in range(iters):
        U, V_hat = step(A, y, U, V_hat)
        iterates.append((U, V_hat))
    return iterates


# --- the rank-one-measurement form at scale ------------------------------------------------------
# For y_i = a_i' M b_i, <A_i, U V'> = (a_i'U)(V'b_i): the rows of the U-problem are a_i ⊗ (V'b_i)
# and those of the V-problem b_i ⊗ (U'a_i), n x d k instead of the n x d1 d2 of `design_matrices`
# (what a numpy user writes at d = 200). Solved by the normal equations (full column rank there).

def _least_squares(rows, y):
    return np.linalg.solve(rows.T @ rows, rows.T @ y)


def rank_one_solve_right(A_left, A_right, y, U):
    """argmin_V sum_i (a_i' U V' b_i - y_i)^2 (d2 x k)."""
    rows = np.einsum("ij,if->ijf", A_right, A_left @ U).reshape(len(y), -1)
    return _least_squares(rows, y).reshape(A_right.shape[1], U.shape[1])


def rank_one_solve_left(A_left, A_right, y, V):
    """argmin_U sum_i (a_i' U V' b_i - y_i)^2 (d1 x k)."""
    rows = np.einsum("ij,if->ijf", A_left, A_right @ V).reshape(len(y), -1)
    return _least_squares(rows, y).reshape(A_left.shape[1], V.shape[1])


def rank_one_run(A_left, A_right, y, k, iters):
    """`run` for asymmetric rank-one measurements given as their vectors (n x d1, n x d2)."""
    M_hat = A_left.T @ (y[:, None] * A_right) / len(y)
    U = np.linalg.svd(M_hat)[0][:, :k]
    V_hat = rank_one_solve_right(A_left, A_right, y, U)
    iterates = [(U, V_hat)]
    for _ in range(iters):
        U = orthonormal(rank_one_solve_left(A_left, A_right, y, orthonormal(V_hat)))
        V_hat = rank_one_solve_right(A_left, A_right, y, U)
        iterates.append((U, V_hat))
    return iterates
