"""Factored gradient descent for low-rank matrix sensing: vanilla and scaled (ScaledGD).

Loss (c = op.scale: 1 for the Gaussian designs, d1 d2 for entries; see sensing.py):

    f(L, R) = (c / (2n)) sum_i (<A_i, L R'> - y_i)^2                       (asymmetric, M = L R')
    f(X)    = (c / (2n)) sum_i (<A_i, X X'> - y_i)^2                       (symmetric PSD, M = X X')

With r = A(L R') - y and S = (c/n) A*(r), the gradients are

    grad_L f = S R,    grad_R f = S' L
    grad_X f = (S + S') X          (= 2 S X when every A_i is symmetric)

(the symmetric one: d/dX <A_i, X X'> applied to a direction D is <A_i, D X' + X D'> =
<(A_i + A_i') X, D>, so the chain rule gives (c/n) sum_i r_i (A_i + A_i') X).

For entries, c = d1 d2 makes f = (1/(2p)) ||P_Omega(L R') - P_Omega(M)||_F^2 with p = n/(d1 d2), the
matrix-completion loss of Tong, Ma & Chi (2021); for the Gaussian ensemble f is their sensing loss
(1/2)||A(LR') - y||^2 with their N(0, 1/m) operator written as our N(0, 1) one divided by sqrt(n).

Preconditioners (one step from (L, R); both factors updated from the same old pair):

  'none'   (vanilla, Tu et al. 2016, rectangular case): gradient of
           f + (1/8) ||L'L - R'R||_F^2  (the balancing term), whose gradient is
           (+(1/2) L D, -(1/2) R D) with D = L'L - R'R;
               L <- L - (eta / sigma) (grad_L f + L D / 2)
               R <- R - (eta / sigma) (grad_R f - R D / 2)
           symmetric: X <- X - (eta / sigma) grad_X f  (no balancing term: one factor).
           sigma = sigma_1(L0 R0') of the start unless given (the truth is unknown to the method).
  'scaled' (ScaledGD, Tong, Ma & Chi 2021, the matrix-sensing update):
               L <- L - eta grad_L f (R'R)^{-1}
               R <- R - eta grad_R f (L'L)^{-1}
           symmetric: X <- X - eta grad_X f (X'X)^{-1}.

Default eta: 0.5 (asymmetric), 0.25 (symmetric). The symmetric gradient carries the factor 2 of
(S + S'), so eta = 0.25 on X gives, to first order at the truth, the same error map on X X' as
eta = 0.5 gives on L R' (see README.md, "symmetric step").

Spectral start (Tong, Ma & Chi 2021): M_hat = op.moment_inverse(y) = U Sigma V' (top k),
L0 = U Sigma^{1/2}, R0 = V Sigma^{1/2}; symmetric PSD: top-k eigenpairs (largest eigenvalues) of
(M_hat + M_hat')/2, X0 = Q max(Lambda, 0)^{1/2}.
"""

import numpy as np

DEFAULT_ETA = {"asymmetric": 0.5, "symmetric": 0.25}


# --- loss and gradients -------------------------------------------------------------------------

def residual(op, y, M):
    """r = A(M) - y."""
    return op.forward(M) - y


def loss(op, y, L, R):
    """f(L, R) = (c/(2n)) ||A(L R') - y||^2."""
    r = residual(op, y, L @ R.T)
    return op.scale / (2 * op.n) * float(r @ r)


def gradient(op, y, L, R):
    """(grad_L f, grad_R f) = (S R, S' L), S = (c/n) A*(A(L R') - y)."""
    S = (op.scale / op.n) * op.adjoint(residual(op, y, L @ R.T))
    return S @ R, S.T @ L


def moment_gradient(op, y, L, R):
    """(S R, S' L) with S = op.moment_inverse(A(L R') - y), the residual's moment estimate.

    On every operator whose moment inverse has no trace shift it is (c/n) A*(r), so this is
    `gradient`. On symmetric rank-one sensing, E[A*(A(E))]/n = 2E + tr(E) I makes f steeper along
    the trace (by 1 + k/2 on the rank-k tangent space, so no fixed step serves every rank);
    S = (A*(r)/n - mean(r) I)/2 has E[S] = L R' - M*, the bias removed. The C++ estimators use S.
    """
    S = op.moment_inverse(residual(op, y, L @ R.T))
    return S @ R, S.T @ L


def moment_gradient_symmetric(op, y, X):
    """(S + S') X with S = op.moment_inverse(A(X X') - y) (see moment_gradient)."""
    S = op.moment_inverse(residual(op, y, X @ X.T))
    return (S + S.T) @ X


def loss_symmetric(op, y, X):
    """f(X) = (c/(2n)) ||A(X X') - y||^2."""
    return loss(op, y, X, X)


def gradient_symmetric(op, y, X):
    """grad_X f = (S + S') X, S = (c/n) A*(A(X X') - y)."""
    S = (op.scale / op.n) * op.adjoint(residual(op, y, X @ X.T))
    return (S + S.T) @ X


def balance_penalty(L, R):
    """(1/8) ||L'L - R'R||_F^2 (Tu et al. 2016's balancing regulariser)."""
    D = L.T @ L - R.T @ R
    return float(np.sum(D * D)) / 8.0


def balance_gradient(L, R):
    """Gradient of (1/8)||D||_F^2, D = L'L - R'R: (L D / 2, -R D / 2)."""
    D = L.T @ L - R.T @ R
    return 0.5 * L @ D, -0.5 * R @ D


# --- spectral starts ----------------------------------------------------------------------------

def spectral_start(M_hat, k):
    """L0 = U_k Sigma_k^{1/2}, R0 = V_k Sigma_k^{1/2} from the top-k SVD of M_hat."""
    U, s, Vt = np.linalg.svd(M_hat, full_matrices=False)
    root = np.sqrt(s[:k])
    return U[:, :k] * root, Vt[:k].T * root


def spectral_start_symmetric(M_hat, k):
    """X0 = Q_k max(Lambda_k, 0)^{1/2}: the k largest eigenvalues of the symmetrised M_hat.

    For a PSD truth. An eigenvalue that comes out negative gives a zero column (the positive part).
    An indefinite truth cannot be written X X'; use the asymmetric form (spectral_start on the
    symmetric M_hat takes the k largest |eigenvalues|, L0 = Q |Lambda|^{1/2}, R0 = Q sign(Lambda)
    |Lambda|^{1/2}) instead.
    """
    w, Q = np.linalg.eigh(0.5 * (M_hat + M_hat.T))
    top = np.argsort(w)[::-1][:k]
    return Q[:, top] * np.sqrt(np.maximum(w[top], 0.0))


# --- one step -----------------------------------------------------------------------------------

def right_solve(G, P):
    """G P^{-1} for a symmetric positive definite k x k P."""
    return np.linalg.solve(P, G.T).T


def step(op, y, L, R, preconditioner, eta, sigma, direction=None):
    """One asymmetric step from (L, R); `sigma` is vanilla GD's step scale (unused by 'scaled');
    `direction` the gradient function (default `gradient`; `moment_gradient` for the C++ form)."""
    gL, gR = (direction or gradient)(op, y, L, R)
    if preconditioner == "scaled":
        return L - eta * right_solve(gL, R.T @ R), R - eta * right_solve(gR, L.T @ L)
    if preconditioner == "none":
        bL, bR = balance_gradient(L, R)
        return L - (eta / sigma) * (gL + bL), R - (eta / sigma) * (gR + bR)
    raise ValueError(f"unknown preconditioner {preconditioner!r}")


def step_symmetric(op, y, X, preconditioner, eta, sigma, direction=None):
    """One symmetric step from X (`direction`: default `gradient_symmetric`)."""
    g = (direction or gradient_symmetric)(op, y, X)
    if preconditioner == "scaled":
        return X - eta * right_solve(g, X.T @ X)
    if preconditioner == "none":
        return X - (eta / sigma) * g
    raise ValueError(f"unknown preconditioner {preconditioner!r}")


# --- driver -------------------------------------------------------------------------------------

def relative_error(M, truth):
    return np.linalg.norm(M - truth) / np.linalg.norm(truth)


def run(operator, data, rank, preconditioner="scaled", eta=None, iters=100, start=None,
        symmetric=None, sigma=None, stop_below=None):
    """Run `iters` steps; return (iterates, errors).

    data: {"y": measurements, "truth": M* (optional)} (a bare array is taken as y).
    symmetric: use the PSD factorisation X X' (default: operator.symmetric). Iterates are then
        returned as pairs (X_t, X_t) so that L_t R_t' = X_t X_t' either way.
    start: (L0, R0) or, symmetric, X0; default the spectral start of operator.moment_inverse(y).
    eta: default DEFAULT_ETA; vanilla GD steps eta / sigma with sigma = sigma_1(L0 R0') of the start
        unless `sigma` is given.
    stop_below: with the truth given, stop after the first iterate whose error is below it (a
        convenience for counting iterations; it does not change any iterate).
    Returns iterates [(L_0, R_0), ..., (L_T, R_T)] (T = iters unless stopped) and, when the truth
    is given, errors[t] = ||L_t R_t' - M*||_F / ||M*||_F for t = 0..T (else None).
    """
    data = data if isinstance(data, dict) else {"y": data}
    y, truth = data["y"], data.get("truth")
    symmetric = operator.symmetric if symmetric is None else symmetric
    if eta is None:
        eta = DEFAULT_ETA["symmetric" if symmetric else "asymmetric"]
    M_hat = None if start is not None else operator.moment_inverse(y)

    if symmetric:
        X = spectral_start_symmetric(M_hat, rank) if start is None else start
        L, R = X, X
    else:
        L, R = spectral_start(M_hat, rank) if start is None else start
    if sigma is None:
        sigma = np.linalg.norm(L @ R.T, 2)

    iterates = [(L, R)]
    errors = None if truth is None else [relative_error(L @ R.T, truth)]
    for _ in range(iters):
        if stop_below is not None and errors is not None and errors[-1] < stop_below:
            break
        if symmetric:
            X = step_symmetric(operator, y, L, preconditioner, eta, sigma)
            L, R = X, X
        else:
            L, R = step(operator, y, L, R, preconditioner, eta, sigma)
        iterates.append((L, R))
        if errors is not None:
            errors.append(relative_error(L @ R.T, truth))
    return iterates, errors
