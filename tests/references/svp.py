"""Singular Value Projection (Jain, Meka & Dhillon 2010) and its normalised step (NIHT,
Tanner & Wei 2013).

    P_k(Y)  = U_k Sigma_k V_k'   the best rank-k approximation (top-k SVD)
    G(X)    = A*(y - A(X))       the negative gradient of (1/2)||A(X) - y||^2

  'fixed'      (SVP, Algorithm 1 of Jain et al.):  X_{t+1} = P_k(X_t + eta G(X_t)),  X_0 = 0,
               eta = c / ((1 + delta) n), delta = 1/3 by default (c = op.scale, sensing.py).
               For the Gaussian ensemble (c = 1) this is 1/(1 + delta) for the operator A/sqrt(n),
               whose restricted isometry constant is delta; for entries (c = d1 d2) it is
               1/((1 + delta) p) with p = n/(d1 d2), the completion step of Jain et al.
  'normalized' (NIHT, Tanner & Wei):  with U_t the top-k left singular vectors of X_t and
               P_U(G) = U_t U_t' G (projection onto the current column space),
                   alpha_t = ||P_U(G)||_F^2 / ||A(P_U(G))||^2,
                   X_{t+1} = P_k(X_t + alpha_t G(X_t)),
               X_0 = P_k(M_hat), M_hat = op.moment_inverse(y) (the rank-k start H_k(A*(y)) of
               Tanner & Wei, for our unnormalised operators scaled by c/n so that it estimates M).
               projection='tangent' uses U U' G + G V V' - U U' G V V' instead (V: the top-k
               right singular vectors), the projection onto the tangent space at X_t.
               No backtracking safeguard (see README.md).
"""

import numpy as np


def best_rank_k(Y, k):
    """(P_k(Y), U_k, V_k)."""
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    return (U[:, :k] * s[:k]) @ Vt[:k], U[:, :k], Vt[:k].T


def negative_gradient(op, y, X):
    """G = A*(y - A(X))."""
    return op.adjoint(y - op.forward(X))


def fixed_step(op, delta=1.0 / 3.0):
    """eta = c / ((1 + delta) n)."""
    return op.scale / ((1.0 + delta) * op.n)


def project(G, U, V, projection="column"):
    """P(G): U U' G ('column', Tanner & Wei), or U U' G + G V V' - U U' G V V' ('tangent': onto the
    tangent space of the rank-k matrices at X = U S V')."""
    UG = U @ (U.T @ G)
    if projection == "column":
        return UG
    if projection == "tangent":
        return UG + (G @ V) @ V.T - (UG @ V) @ V.T
    raise ValueError(f"unknown projection {projection!r}")


def normalized_step(op, G, U, V, projection="column"):
    """alpha = ||P(G)||_F^2 / ||A(P(G))||^2 with P = project(., U, V, projection)."""
    PG = project(G, U, V, projection)
    num = float(np.sum(PG * PG))
    den = float(np.sum(op.forward(PG) ** 2))
    return num / den if den > 0 else 0.0


def moment_step(op, y, X, U, V, step="fixed", delta=1.0 / 3.0):
    """One step along S = op.moment_inverse(A(X) - y) (factored_gd.moment_gradient: S is (c/n) A*(r)
    on every operator without a trace shift, where this is the step of `run`; on symmetric rank-one
    sensing its trace bias removed). 'fixed': X - S/(1 + delta). 'normalized': the exact line search
    of f along D = U U' S, alpha = <grad f, D> / ((c/n) ||A(D)||^2), grad f = (c/n) A*(r).
    Returns (P_k(X - mu S), U, V) of the new iterate."""
    r = op.forward(X) - y
    S = op.moment_inverse(r)
    if step == "fixed":
        mu = 1.0 / (1.0 + delta)
    elif step == "normalized":
        D = project(S, U, V, "column")
        grad = (op.scale / op.n) * op.adjoint(r)
        den = (op.scale / op.n) * float(np.sum(op.forward(D) ** 2))
        mu = float(np.sum(grad * D)) / den if den > 0 else 0.0
    else:
        raise ValueError(f"unknown step {step!r}")
    return best_rank_k(X - mu * S, U.shape[1])


def relative_error(X, truth):
    return np.linalg.norm(X - truth) / np.linalg.norm(truth)


def run(op, data, rank, step="fixed", iters=100, start=None, delta=1.0 / 3.0,
        projection="column", stop_below=None):
    """Run `iters` SVP steps; return (iterates, errors) as factored_gd.run does.

    data: {"y": ..., "truth": M* (optional)} or a bare y. start: X_0 (default as in the module doc:
    0 for 'fixed', P_k(M_hat) for 'normalized'). errors[t] for t = 0..T when the truth is given
    (T = iters, or fewer when stop_below is given and an error falls below it).
    """
    data = data if isinstance(data, dict) else {"y": data}
    y, truth = data["y"], data.get("truth")
    if start is not None:
        X, U, V = best_rank_k(start, rank)
    elif step == "fixed":
        X, U, V = np.zeros(op.shape), None, None
    else:
        X, U, V = best_rank_k(op.moment_inverse(y), rank)

    eta = fixed_step(op, delta)
    iterates = [X]
    errors = None if truth is None else [relative_error(X, truth)]
    for _ in range(iters):
        if stop_below is not None and errors is not None and errors[-1] < stop_below:
            break
        G = negative_gradient(op, y, X)
        if step == "fixed":
            size = eta
        elif step == "normalized":
            size = normalized_step(op, G, U, V, projection)
        else:
            raise ValueError(f"unknown step {step!r}")
        X, U, V = best_rank_k(X + size * G, rank)
        iterates.append(X)
        if errors is not None:
            errors.append(relative_error(X, truth))
    return iterates, errors

