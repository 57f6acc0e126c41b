"""Measurement operators for low-rank matrix sensing, as plain numpy functions.

Every operator maps a d1 x d2 matrix M to n measurements y = A(M) and has an adjoint
A*(z) = sum_i z_i A_i (a d1 x d2 matrix), so that <A(M), z> = <M, A*(z)>.

    symmetric_rank_one   A_i = x_i x_i'          y_i = x_i' M x_i        (d1 = d2 = d)
    asymmetric_rank_one  A_i = u_i v_i'          y_i = u_i' M v_i
    entries              A_i = e_{r_i} e_{c_i}'  y_i = M[r_i, c_i]
    gaussian_ensemble    A_i i.i.d. N(0, 1)      y_i = <A_i, M>          (symmetric: (A_i + A_i')/2)

Each also has a moment inverse, the linear map of y that is unbiased for a truth of the operator's
kind (the spectral starts use it):

    symmetric_rank_one, x ~ N(0, I):  E[A*(A(M))]/n = 2M + tr(M) I, so  M_hat = (A*(y)/n - mean(y) I)/2
    asymmetric_rank_one, u, v ~ N(0, I) independent:                    M_hat = A*(y)/n
    gaussian_ensemble (both variants; the symmetric one for symmetric M): M_hat = A*(y)/n
    entries, n pairs uniform over the d1*d2 positions:                  M_hat = (d1 d2 / n) A*(y)

`make_*` bundles a design into an `Operator` record; `scale` is the number c with
(c/n) E[A*(A(M))] = M for the isotropic operators (c = 1 for the Gaussian designs, c = d1 d2 for
entries), used by factored_gd.py and svp.py to normalise the loss and the fixed SVP step.
"""

from collections import namedtuple

import numpy as np

# name: operator kind; shape: (d1, d2); symmetric: True when every A_i is symmetric (then the
# operator is read on symmetric matrices and the PSD factorisation X X' may be used);
# n: number of measurements; scale: c above; forward(M) -> y; adjoint(z) -> d1 x d2;
# moment_inverse(y) -> d1 x d2.
Operator = namedtuple("Operator", "name shape symmetric n scale forward adjoint moment_inverse")


# --- symmetric rank-one: y_i = x_i' M x_i -------------------------------------------------------

def symmetric_rank_one_forward(X, M):
    """y_i = x_i' M x_i for the rows x_i of X (n x d)."""
    return np.einsum("ij,ij->i", X @ M, X)


def symmetric_rank_one_adjoint(X, z):
    """A*(z) = sum_i z_i x_i x_i' = X' diag(z) X."""
    return X.T @ (z[:, None] * X)


def symmetric_rank_one_moment_inverse(X, y):
    """M_hat = (A*(y)/n - mean(y) I) / 2, from E[x x' (x' M x)] = 2M + tr(M) I for x ~ N(0, I)."""
    n, d = X.shape
    return 0.5 * (symmetric_rank_one_adjoint(X, y) / n - np.mean(y) * np.eye(d))


# --- asymmetric rank-one: y_i = u_i' M v_i ------------------------------------------------------

def asymmetric_rank_one_forward(U, V, M):
    """y_i = u_i' M v_i for the rows u_i of U (n x d1) and v_i of V (n x d2)."""
    return np.einsum("ij,ij->i", U @ M, V)


def asymmetric_rank_one_adjoint(U, V, z):
    """A*(z) = sum_i z_i u_i v_i' = U' diag(z) V."""
    return U.T @ (z[:, None] * V)


def asymmetric_rank_one_moment_inverse(U, V, y):
    """M_hat = A*(y)/n, from E[u v' (u' M v)] = E[u u'] M E[v v'] = M for independent N(0, I)."""
    return asymmetric_rank_one_adjoint(U, V, y) / len(y)


# --- entries: y_i = M[r_i, c_i] -----------------------------------------------------------------

def entries_forward(rows, cols, M):
    """y_i = M[r_i, c_i]."""
    return M[rows, cols]


def entries_adjoint(rows, cols, z, shape):
    """A*(z): z_i added at (r_i, c_i); a pair drawn twice accumulates both values."""
    out = np.zeros(shape)
    np.add.at(out, (rows, cols), z)
    return out


def entries_moment_inverse(rows, cols, y, shape):
    """M_hat = (d1 d2 / n) A*(y): each position is drawn with probability n/(d1 d2) on average."""
    return (shape[0] * shape[1] / len(y)) * entries_adjoint(rows, cols, y, shape)


# --- Gaussian ensemble: y_i = <A_i, M> ----------------------------------------------------------

def gaussian_ensemble_forward(A, M):
    """y_i = <A_i, M> = sum_jk A_ijk M_jk for A of shape (n, d1, d2)."""
    return A.reshape(A.shape[0], -1) @ M.ravel()


def gaussian_ensemble_adjoint(A, z):
    """A*(z) = sum_i z_i A_i."""
    return (A.reshape(A.shape[0], -1).T @ z).reshape(A.shape[1:])


def gaussian_ensemble_moment_inverse(A, y):
    """M_hat = A*(y)/n, from E[A_i <A_i, M>] = M (for the symmetric variant: for symmetric M)."""
    return gaussian_ensemble_adjoint(A, y) / len(y)


# --- designs and Operator records ---------------------------------------------------------------

def make_symmetric_rank_one(X):
    n, d = X.shape
    return Operator("symmetric_rank_one", (d, d), True, n, 1.0,
                    lambda M: symmetric_rank_one_forward(X, M),
                    lambda z: symmetric_rank_one_adjoint(X, z),
                    lambda y: symmetric_rank_one_moment_inverse(X, y))


def make_asymmetric_rank_one(U, V):
    n = U.shape[0]
    return Operator("asymmetric_rank_one", (U.shape[1], V.shape[1]), False, n, 1.0,
                    lambda M: asymmetric_rank_one_forward(U, V, M),
                    lambda z: asymmetric_rank_one_adjoint(U, V, z),
                    lambda y: asymmetric_rank_one_moment_inverse(U, V, y))


def make_entries(rows, cols, shape):
    rows, cols = np.asarray(rows), np.asarray(cols)
    return Operator("entries", tuple(shape), False, len(rows), float(shape[0] * shape[1]),
                    lambda M: entries_forward(rows, cols, M),
                    lambda z: entries_adjoint(rows, cols, z, shape),
                    lambda y: entries_moment_inverse(rows, cols, y, shape))


def make_gaussian_ensemble(A, symmetric=False):
    """A: (n, d1, d2). symmetric=True expects A already symmetrised (see draw_gaussian_ensemble)."""
    name = "gaussian_ensemble_symmetric" if symmetric else "gaussian_ensemble"
    return Operator(name, A.shape[1:], symmetric, A.shape[0], 1.0,
                    lambda M: gaussian_ensemble_forward(A, M),
                    lambda z: gaussian_ensemble_adjoint(A, z),
                    lambda y: gaussian_ensemble_moment_inverse(A, y))


def draw_symmetric_rank_one(rng, n, d):
    """x_i ~ N(0, I_d)."""
    return make_symmetric_rank_one(rng.standard_normal((n, d)))


def draw_asymmetric_rank_one(rng, n, d1, d2):
    """u_i ~ N(0, I_d1), v_i ~ N(0, I_d2), independent."""
    return make_asymmetric_rank_one(rng.standard_normal((n, d1)), rng.standard_normal((n, d2)))


def draw_entries(rng, n, d1, d2):
    """n distinct positions, uniform without replacement over the d1*d2 positions."""
    flat = rng.choice(d1 * d2, size=n, replace=False)
    return make_entries(flat // d2, flat % d2, (d1, d2))


def draw_gaussian_ensemble(rng, n, d1, d2, symmetric=False):
    """A_i with i.i.d. N(0, 1) entries; symmetric variant (A_i + A_i')/2 (needs d1 = d2)."""
    A = rng.standard_normal((n, d1, d2))
    if symmetric:
        A = 0.5 * (A + A.transpose(0, 2, 1))
    return make_gaussian_ensemble(A, symmetric)


# --- adjoint identity ---------------------------------------------------------------------------

def adjoint_discrepancy(op, M, z):
    """|<A(M), z> - <M, A*(z)>| relative to ||A(M)|| ||z|| (the Cauchy-Schwarz bound of both sides).

    Relative to the bound rather than to |<A(M), z>| itself, which may be near 0 by chance.
    """
    y = op.forward(M)
    lhs = float(y @ z)
    rhs = float(np.sum(M * op.adjoint(z)))
    return abs(lhs - rhs) / (np.linalg.norm(y) * np.linalg.norm(z))


def adjoint_identity_check(seed=0, tol=1e-12):
    """<A(M), z> = <M, A*(z)> for each of the four operators (and the symmetric ensemble).

    Returns {name: relative discrepancy}; raises AssertionError when one exceeds tol. M is a random
    dense matrix (symmetric for the symmetric operators, on whose symmetric matrices they act).
    """
    rng = np.random.default_rng(seed)
    d1, d2, n = 7, 5, 40
    ops = [draw_symmetric_rank_one(rng, n, d1),
           draw_asymmetric_rank_one(rng, n, d1, d2),
           draw_entries(rng, n // 2, d1, d2),
           # a design with a repeated pair (0, 1): the adjoint must accumulate both values
           make_entries([0, 3, 0, 6], [1, 4, 1, 0], (d1, d2)),
           draw_gaussian_ensemble(rng, n, d1, d2),
           draw_gaussian_ensemble(rng, n, d1, d1, symmetric=True)]
    out = {}
    for k, op in enumerate(ops):
        M = rng.standard_normal(op.shape)
        if op.symmetric:
            M = 0.5 * (M + M.T)
        z = rng.standard_normal(op.n)
        name = op.name + ("_repeated" if k == 3 else "")
        out[name] = adjoint_discrepancy(op, M, z)
        assert out[name] <= tol, f"adjoint identity fails for {name}: {out[name]:.3e}"
    return out


if __name__ == "__main__":
    for name, value in adjoint_identity_check().items():
        print(f"{name:32s} {value:.2e}")
