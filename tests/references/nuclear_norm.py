"""Nuclear-norm regularised least squares by proximal gradient: the plain and the accelerated
method with backtracking of Ji & Ye 2009 (An accelerated gradient method for trace norm
minimization, ICML: Algorithms 1 and 2), over a decreasing path of lambda with warm starts, and
Soft-Impute (Mazumder, Hastie & Tibshirani 2010, JMLR, Algorithm 1) as the proximal step with the
exact step size of the entries operator.

    F(X) = f(X) + lam ||X||_*,    f(X) = (c/2n) ||A(X) - y||^2          (c = op.scale, sensing.py)
    grad f(X) = (c/n) A*(A(X) - y)
    logistic loss (labels +-1): f(X) = (c/n) sum_i log(1 + exp(-y_i s_i)), s = A(X),
    grad f(X) = (c/n) A*(-y / (1 + exp(y s)))
    p_L(Y) = SVT_{lam/L}(Y - grad f(Y) / L)     (SVT_tau: singular values shrunk by tau, floored at 0)

Backtracking (Ji & Ye): from the last L, multiply L by gamma until F(p_L(Y)) <= Q_L(p_L(Y), Y) with
Q_L(Z, Y) = f(Y) + <Z - Y, grad f(Y)> + (L/2) ||Z - Y||_F^2 + lam ||Z||_*. With `growth` > 1 the
next step starts from L / growth (Ji & Ye keep L: growth 1); the first from L0.
Accelerated: X_k = p_L(Y_k), a_{k+1} = (1 + sqrt(1 + 4 a_k^2)) / 2,
Y_{k+1} = X_k + ((a_k - 1) / a_{k+1}) (X_k - X_{k-1}), a_1 = 1, Y_1 = X_0.
Soft-Impute: for entries drawn without replacement f has Lipschitz constant exactly c/n = 1/p, and
X <- SVT_lam(P_Omega(M) + P_Omega^perp(X)) is p_L at L = c/n without backtracking (SVT_{lam p} of the
normalised loss: the same iterate for lam_softimpute = lam p).

The path (a choice written here; Mazumder et al. and Toh & Yun use the same idea): lam_max =
||grad f(0)||_2, the smallest lam whose minimiser is 0; then `length` values geometrically from
lam_max * ratio^(1/length) down to lam_max * ratio; each stage runs until the relative change of X
falls below `tol` (or `stage_iters` steps), the next starting from its result, the momentum reset.
"""

import numpy as np

SLACK = 1e-12  # the C++ estimator's rounding allowance in the backtracking test (a choice)


def svt(Y, tau):
    """Singular value thresholding: U max(S - tau, 0) V'."""
    U, s, Vt = np.linalg.svd(Y, full_matrices=False)
    s = np.maximum(s - tau, 0.0)
    return (U * s) @ Vt


def f(op, y, X, loss="squared"):
    s = op.forward(X)
    if loss == "logistic":
        return op.scale / op.n * float(np.sum(np.logaddexp(0.0, -y * s)))
    r = s - y
    return op.scale / (2 * op.n) * float(r @ r)


def grad(op, y, X, loss="squared"):
    s = op.forward(X)
    if loss == "logistic":
        return (op.scale / op.n) * op.adjoint(-y * 0.5 * (1.0 - np.tanh(0.5 * y * s)))  # -y / (1 + e^{ys})
    return (op.scale / op.n) * op.adjoint(s - y)


def nuclear(X):
    return float(np.sum(np.linalg.svd(X, compute_uv=False)))


def lambda_max(op, y, shape, loss="squared"):
    return float(np.linalg.norm(grad(op, y, np.zeros(shape), loss), 2))


def backtracked_step(op, y, Y, lam, L, gamma=2.0, loss="squared"):
    """(p_L(Y), L) with the smallest L = L_prev * gamma^j satisfying Ji & Ye's condition."""
    fY, gY = f(op, y, Y, loss), grad(op, y, Y, loss)
    while True:
        Z = svt(Y - gY / L, lam / L)
        D = Z - Y
        Q = fY + float(np.sum(D * gY)) + 0.5 * L * float(np.sum(D * D)) + lam * nuclear(Z)
        F = f(op, y, Z, loss) + lam * nuclear(Z)
        if F <= Q + SLACK * max(abs(F), abs(Q)):  # rounding allowance: at a converged stage F = Q
            return Z, L
        L *= gamma


def path(op, y, shape, ratio, length, loss="squared"):
    top = lambda_max(op, y, shape, loss)
    return [top * ratio ** (j / length) for j in range(1, length + 1)]


def run(op, y, shape, method="accelerated", lambdas=None, ratio=1e-4, length=10, tol=1e-6, stage_iters=500,
        iters=None, L0=1.0, gamma=2.0, loss="squared", growth=1.0):
    """Iterates X_1, X_2, ... (one per proximal step) over the path; returns the list of iterates and
    the stage (lambda index) of each. `iters` caps the total number of steps."""
    lambdas = path(op, y, shape, ratio, length, loss) if lambdas is None else lambdas
    X = np.zeros(shape)
    L = L0 if method != "soft_impute" else op.scale / op.n
    out, stages = [], []
    for s, lam in enumerate(lambdas):
        X_prev, Y, a = X, X, 1.0
        for _ in range(stage_iters):
            if iters is not None and len(out) >= iters:
                return out, stages
            if method == "soft_impute":
                X_new = svt(Y - grad(op, y, Y) / L, lam / L)
            else:
                X_new, L = backtracked_step(op, y, Y, lam, L, gamma, loss)
                L /= growth
            change = np.linalg.norm(X_new - X) / max(np.linalg.norm(X), 1e-300)
            if method == "accelerated":
                a_next = (1 + np.sqrt(1 + 4 * a * a)) / 2
                Y = X_new + ((a - 1) / a_next) * (X_new - X)
                a = a_next
            else:
                Y = X_new
            X_prev, X = X, X_new
            out.append(X)
            stages.append(s)
            if change < tol:
                break
    return out, stages
