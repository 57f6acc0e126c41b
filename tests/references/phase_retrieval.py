"""Real-valued phase retrieval by gradient methods: Wirtinger flow (WF), truncated Wirtinger flow
(TWF), amplitude flow (AF, also called reshaped Wirtinger flow), truncated amplitude flow (TAF) and
reweighted amplitude flow (RAF).

Measurements y_i = (a_i' x)^2, i = 1..m, a_i in R^n; A is the m x n matrix with rows a_i. With
u = A z (u_i = a_i' z) and the amplitudes psi_i = sqrt(max(y_i, 0)) (a noisy y_i may be negative;
it is clipped at 0), every variant steps

    z_{t+1} = z_t - step_t * g(z_t),      g = (1/m) A' v   for a per-measurement v:

  'wf'  (Candes, Li & Soltanolkotabi 2015, "Phase retrieval via Wirtinger flow: theory and
        algorithms", IEEE T-IT, Algorithm 1):
            v = (u^2 - y) * u,
        the gradient of f(z) = (1/4m) sum_i (u_i^2 - y_i)^2. (The paper writes the complex loss
        (1/2m) sum (y_r - |a_r* z|^2)^2 and steps along its Wirtinger derivative
        (1/m) sum (|a_r* z|^2 - y_r) a_r a_r* z; over the reals that vector is the ordinary gradient
        of the (1/4m) loss.) Step: step_t = mu_t / ||z_0||^2 with the schedule of the paper's
        Section 4 experiments, mu_t = min(1 - exp(-t/tau0), mu_max), tau0 = 330, mu_max = 0.2,
        t = 1 for the first step; ||z_0||^2 is the squared norm of the start actually given.
  'twf' (Chen & Candes 2015, "Solving random quadratic systems of equations is nearly as easy as
        solving linear systems", Algorithm 1, Poisson loss): with K = (1/m) sum_i |y_i - u_i^2|,
            E1 = { alpha_lb <= |u_i| / ||z|| <= alpha_ub },
            E2 = { |y_i - u_i^2| <= alpha_h K |u_i| / ||z|| },
            v = 2 (u^2 - y) / u  on E1 and E2,  0 elsewhere (never divided there);
        untruncated (alpha_lb = 0, alpha_ub = alpha_h = inf) it is the gradient of
        (1/m) sum_i (u_i^2 - y_i log u_i^2), the negative Poisson log-likelihood
        (up to terms free of z).
        alpha_lb = 0.3, alpha_ub = 5, alpha_h = 5, constant step mu = 0.2. At z = 0 every
        measurement is excluded (|u|/||z|| is undefined) and g = 0; a u_i = 0 is always excluded
        (it can pass E1 and E2 only when alpha_lb = 0).
  'af'  (Zhang & Liang 2016, "Reshaped Wirtinger flow for solving quadratic system of equations",
        NIPS 2016):
            v = u - psi * sign(u),
        the gradient of (1/2m) sum_i (|u_i| - psi_i)^2 wherever no u_i = 0 (sign(0) = 0).
        Constant step mu = 0.8 (the paper's real-valued step).
  'taf' (Wang, Giannakis & Eldar 2018, "Solving systems of random quadratic equations via
        truncated amplitude flow", IEEE T-IT, Algorithm 1):
            v = (u - psi * sign(u)) * [ |u_i| >= psi_i / (1 + gamma) ],
        gamma = 0.7, constant step mu = 0.6 (real-valued).
  'raf' (Wang, Giannakis, Saad & Chen 2018, "Phase retrieval via reweighted amplitude flow",
        IEEE T-SP):
            w_i = |u_i| / (|u_i| + beta psi_i),
        the paper's 1 / (1 + beta psi_i / |u_i|) written to stay finite (w_i = 0 when
        |u_i| + beta psi_i = 0);
            v = (u - psi * sign(u)) * w,
        beta = 10, constant step mu = 2 (real-valued).

Spectral start (the moment start of the C++ side, not any one paper's): for a_i ~ N(0, I_n),
E[a a' (a'x)^2] = 2 x x' + ||x||^2 I, so

    M_hat = ( A' diag(y) A / m - mean(y) I ) / 2

is unbiased for x x'; z_0 = sqrt(max(lambda_1, 0)) v_1 with (lambda_1, v_1) its top eigenpair.
(The papers' own starts differ: WF scales the top eigenvector of (1/m) A' diag(y) A by
sqrt(n sum y / sum ||a_i||^2); TWF truncates large y_i; TAF/RAF use orthogonality-promoting and
weighted-maximal-correlation starts.)

Errors: x is identifiable only up to sign, so sign_invariant_error(z, x) = min(||z - x||,
||z + x||) / ||x||; procrustes_error is its d x k form (minimum over orthogonal O).
"""

import numpy as np

VARIANTS = ("wf", "twf", "af", "taf", "raf")

DEFAULTS = {
    "wf": {"mu_max": 0.2, "tau0": 330.0},
    "twf": {"mu": 0.2, "alpha_lb": 0.3, "alpha_ub": 5.0, "alpha_h": 5.0},
    "af": {"mu": 0.8},
    "taf": {"mu": 0.6, "gamma": 0.7},
    "raf": {"mu": 2.0, "beta": 10.0},
    "gs": {},
}


def _params(variant, params):
    """DEFAULTS[variant] overridden by the (possibly partial) dict params."""
    if variant not in DEFAULTS:
        raise ValueError(f"unknown variant {variant!r}")
    merged = dict(DEFAULTS[variant])
    if params:
        merged.update(params)
    return merged


def amplitudes(y):
    """psi = sqrt(max(y, 0))."""
    return np.sqrt(np.maximum(y, 0.0))


# --- losses (for the finite-difference checks) ---------------------------------------------------

def wf_loss(A, y, z):
    """(1/4m) sum_i (u_i^2 - y_i)^2."""
    u = A @ z
    return float(np.sum((u * u - y) ** 2)) / (4.0 * len(y))


def af_loss(A, y, z):
    """(1/2m) sum_i (|u_i| - psi_i)^2."""
    return float(np.sum((np.abs(A @ z) - amplitudes(y)) ** 2)) / (2.0 * len(y))


def poisson_loss(A, y, z):
    """(1/m) sum_i (u_i^2 - y_i log u_i^2): the negative Poisson log-likelihood, up to terms
    free of z."""
    u2 = (A @ z) ** 2
    return float(np.sum(u2 - y * np.log(u2))) / len(y)


# --- the update ----------------------------------------------------------------------------------

def gradient(variant, A, y, z, params=None):
    """g with z_next = z - step * g; g = (1/m) A' v, v per variant (module docstring)."""
    p = _params(variant, params)
    m = len(y)
    u = A @ z
    if variant == "wf":
        v = (u * u - y) * u
    elif variant == "twf":
        v = np.zeros(m)
        norm_z = float(np.linalg.norm(z))
        if norm_z > 0:
            absu = np.abs(u)
            resid = y - u * u
            K = float(np.sum(np.abs(resid))) / m
            ratio = absu / norm_z
            e1 = (ratio >= p["alpha_lb"]) & (ratio <= p["alpha_ub"])
            with np.errstate(invalid="ignore"):  # inf * 0 -> nan -> excluded
                e2 = np.abs(resid) <= p["alpha_h"] * K * ratio
            keep = e1 & e2 & (u != 0)
            v[keep] = 2.0 * (u[keep] ** 2 - y[keep]) / u[keep]
    elif variant in ("af", "taf", "raf"):
        psi = amplitudes(y)
        v = u - psi * np.sign(u)
        if variant == "taf":
            v = v * (np.abs(u) >= psi / (1.0 + p["gamma"]))
        elif variant == "raf":
            absu = np.abs(u)
            den = absu + p["beta"] * psi
            w = np.zeros(m)
            pos = den > 0
            w[pos] = absu[pos] / den[pos]
            v = v * w
    else:
        raise ValueError(f"unknown variant {variant!r}")
    return A.T @ v / m


def step_size(variant, t, z0_norm_sq, params=None):
    """wf: min(1 - exp(-t/tau0), mu_max) / ||z_0||^2 (t = 1 for the first step); others: mu."""
    p = _params(variant, params)
    if variant == "wf":
        return min(1.0 - np.exp(-t / p["tau0"]), p["mu_max"]) / z0_norm_sq
    return p["mu"]


def step(variant, A, y, z, t, z0_norm_sq, params=None):
    """z - step_size(variant, t, z0_norm_sq) * gradient(variant, A, y, z); for "gs" (Gerchberg & Saxton 1972,
    Fienup 1982's error reduction, real case) the projection z <- argmin_z ||A z - psi * sign(A z)|| itself."""
    p = _params(variant, params)
    if variant == "gs":
        return np.linalg.lstsq(A, amplitudes(y) * np.sign(A @ z), rcond=None)[0]
    return z - step_size(variant, t, z0_norm_sq, p) * gradient(variant, A, y, z, p)


def run(variant, A, y, z0, iters, params=None):
    """[z_0, z_1, ..., z_iters], z_t = step(variant, A, y, z_{t-1}, t, ||z_0||^2)."""
    p = _params(variant, params)
    z = np.asarray(z0, dtype=float).copy()
    z0_norm_sq = float(z @ z)
    out = [z]
    for t in range(1, iters + 1):
        z = step(variant, A, y, z, t, z0_norm_sq, p)
        out.append(z)
    return out


# --- PhaseMax ------------------------------------------------------------------------------------

PHASEMAX_DEFAULTS = {"penalty": 1.0, "penalty_growth": 10.0, "stages": 8, "stage_iterations": 500,
                     "stage_tolerance": 1e-10}


def phasemax(A, y, x0, iters, params=None):
    """PhaseMax (Goldstein & Studer 2018, program (1); Bahmani & Romberg 2017): maximise <c, x> subject to
    |a_i'x| <= b_i, b = sqrt(max(y, 0)), c = x0/||x0|| the anchor, by a quadratic penalty with continuation:
    at penalty rho minimise

        F(x) = -c'x + (rho / (2 m b_rms)) sum_i max(|a_i'x| - b_i, 0)^2,      b_rms = sqrt(mean(b^2))

    by FISTA steps (Beck & Teboulle 2009) of length 1/L, L = (rho / b_rms) lambda_max(A'A/m) (the penalty's
    gradient is Lipschitz with that constant), restarting the momentum when a step goes uphill,
    grad F(y)'(x_new - x) > 0 (O'Donoghue & Candes 2015). A stage (but the last) ends when
    ||x_new - x||/||x_new|| < stage_tolerance or after stage_iterations steps; the next multiplies rho by
    penalty_growth, warm-started with the momentum reset. Returns [x_0, ..., x_iters] (one FISTA step each)."""
    p = dict(PHASEMAX_DEFAULTS)
    p.update(params or {})
    m = A.shape[0]
    b = amplitudes(y)
    b_rms = np.sqrt(np.mean(b ** 2))
    top = np.linalg.eigvalsh(A.T @ A / m)[-1]
    c = x0 / np.linalg.norm(x0)
    x = np.asarray(x0, dtype=float).copy()
    u = A @ x
    x_prev, u_prev = x.copy(), u.copy()
    t_prev, t_cur, rho, stage, steps = 1.0, 1.0, p["penalty"], 0, 0
    out = [x]
    for _ in range(iters):
        # Beck & Teboulle: y_k = x_{k-1} + ((t_{k-1} - 1) / t_k) (x_{k-1} - x_{k-2}), t_1 = 1.
        inertia = (t_prev - 1.0) / t_cur
        point = x + inertia * (x - x_prev)
        point_u = u + inertia * (u - u_prev)
        violation = np.sign(point_u) * np.maximum(np.abs(point_u) - b, 0.0)
        g = (rho / (m * b_rms)) * (A.T @ violation) - c
        x_new = point - g / (rho / b_rms * top)
        x_prev, u_prev = x, u
        if g @ (x_new - x) > 0.0:  # uphill from x: restart the momentum
            t_prev = t_cur = 1.0
        else:
            t_prev, t_cur = t_cur, 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t_cur * t_cur))
        steps += 1
        change = np.linalg.norm(x_new - x) / np.linalg.norm(x_new)
        if stage + 1 < p["stages"] and (change < p["stage_tolerance"] or steps >= p["stage_iterations"]):
            stage, rho, steps, t_prev, t_cur = stage + 1, rho * p["penalty_growth"], 0, 1.0, 1.0
        x = x_new
        u = A @ x
        out.append(x)
    return out


# --- start and errors ----------------------------------------------------------------------------

def spectral_start(A, y):
    """z0 = sqrt(max(lambda_1, 0)) v_1, (lambda_1, v_1) the top eigenpair of
    M_hat = (A' diag(y) A / m - mean(y) I) / 2."""
    m, n = A.shape
    M_hat = (A.T @ (A * y[:, None]) / m - np.mean(y) * np.eye(n)) / 2.0
    M_hat = (M_hat + M_hat.T) / 2.0
    lam, V = np.linalg.eigh(M_hat)
    return np.sqrt(max(lam[-1], 0.0)) * V[:, -1]


def sign_invariant_error(z, x):
    """min(||z - x||, ||z + x||) / ||x||."""
    return min(np.linalg.norm(z - x), np.linalg.norm(z + x)) / np.linalg.norm(x)


def correlation(z, x):
    """|z'x| / (||z|| ||x||)."""
    return abs(float(z @ x)) / (np.linalg.norm(z) * np.linalg.norm(x))


def procrustes_error(Z, X):
    """min over orthogonal O of ||Z - X O||_F / ||X||_F, for d x k factors (the narrower padded
    with zero columns): sqrt(max(||Z||^2 + ||X||^2 - 2 ||X'Z||_*, 0)) / ||X||_F."""
    Z = np.asarray(Z, dtype=float)
    X = np.asarray(X, dtype=float)
    if Z.ndim == 1:
        Z = Z[:, None]
    if X.ndim == 1:
        X = X[:, None]
    k = max(Z.shape[1], X.shape[1])
    Z = np.hstack([Z, np.zeros((Z.shape[0], k - Z.shape[1]))])
    X = np.hstack([X, np.zeros((X.shape[0], k - X.shape[1]))])
    nuc = float(np.sum(np.linalg.svd(X.T @ Z, compute_uv=False)))
    sq = float(np.sum(Z * Z)) + float(np.sum(X * X)) - 2.0 * nuc
    return np.sqrt(max(sq, 0.0)) / np.linalg.norm(X)
