"""Bayesian factorization machine, fitted by Gibbs sampling (MCMC).

Papers: C. Freudenthaler, L. Schmidt-Thieme, S. Rendle, *Bayesian factorization machines*, NIPS
workshop on sparse representation and low-rank approximation (2011); S. Rendle, *Factorization
machines with libFM*, ACM TIST 3(3) (2012), the MCMC inference section. Hyperprior values are
libFM's fixed ones: alpha_0 = beta_0 = gamma_0 = 1, mu_0 = 0; the global bias w0 has a flat prior.

Data: X is d x n (one instance x_i per column), y has n entries.

Model (a degree-2 factorization machine, V: d x k):

    yhat_i = w0 + sum_j w_j x_ij + (1/2) sum_f [ (sum_j v_jf x_ij)^2 - sum_j v_jf^2 x_ij^2 ]
           = w0 + w'x_i + x_i' M x_i,          M = (V V' - diag(V V')) / 2,
    e_i    = yhat_i - y_i.

Priors (the ones whose full conditionals are the sweep below):

    y_i | ...      ~ N(yhat_i, 1/alpha)
    w_j            ~ N(mu_w, 1/lambda_w),      v_jf ~ N(mu_v[f], 1/lambda_v[f])
    mu | lambda    ~ N(mu_0, 1/(beta_0 lambda))   (each pair (mu_w, lambda_w), (mu_v[f], lambda_v[f]))
    lambda, alpha  ~ Gamma(shape alpha_0/2, rate gamma_0/2)
    w0             ~ flat

Gamma(shape a, rate b) is G / b with G ~ Gamma(a, 1).

Full conditionals. Every model parameter theta enters yhat linearly, yhat = g + theta h with h = d
yhat / d theta, so the likelihood in theta is Gaussian with precision alpha h'h; with a
N(mu, 1/lambda) prior, completing the square in -(alpha/2)||e||^2 - (lambda/2)(theta - mu)^2 gives

    var  = 1 / (lambda + alpha h'h)
    mean = var (alpha (theta h'h - h'e) + lambda mu) = -var (alpha (h'e - theta h'h) - mu lambda)

(e evaluated at the current theta). The derivative h is

    w0:    h_i = 1   (flat prior: lambda = 0)
    w_j:   h_i = x_ij
    v_jf:  h_i = x_ij (q_i - x_ij v_jf),   q_i = sum_l v_lf x_il

(the pairwise term is (1/2)[(x_ij v_jf + r_i)^2 - x_ij^2 v_jf^2 - ...] with r_i = q_i - x_ij v_jf,
which is x_ij v_jf r_i + terms free of v_jf). For a precision lambda with mean mu and d
coefficients theta_j ~ N(mu, 1/lambda), the lambda terms of the log joint are
(d/2 + 1/2 + alpha_0/2 - 1) log lambda - (lambda/2)(sum_j (theta_j - mu)^2 + beta_0 (mu - mu_0)^2
+ gamma_0), so

    lambda | mu, theta ~ Gamma((alpha_0 + d + 1)/2,
                               rate (beta_0 (mu - mu_0)^2 + gamma_0 + sum_j (theta_j - mu)^2)/2)
    mu | lambda, theta ~ N((sum_j theta_j + beta_0 mu_0)/(d + beta_0), 1/((d + beta_0) lambda))
    alpha | e          ~ Gamma((alpha_0 + n)/2, rate (gamma_0 + sum_i e_i^2)/2)

One sweep, in this order, each draw conditioned on the values current at that moment (lambda is
drawn given the old mu, then mu given the new lambda):

    1. alpha          2. w0            3. lambda_w        4. mu_w        5. w_0 .. w_{d-1}
    6. lambda_v[f], f = 0..k-1          7. mu_v[f], f = 0..k-1
    8. for f = 0..k-1: q = X' V[:, f]; for j = 0..d-1: v_jf (then q += x_j (new - old))

e is recomputed from the state at the start of a sweep (e = predict - y) and then maintained
incrementally: e += h (new - old), h taken at the old value. Initial state (libFM): alpha = 1,
w0 = 0, w = 0, mu's = 0, lambda's = 0, V = V0 given.

Posterior mean after sweep t with burn-in b: the current sample's model (w0_t, w_t, M_t) while
t <= b, else the average over sweeps s = b+1..t of (w0_s, w_s, M_s), kept incrementally as
mean += (model - mean)/(t - b). Predictions are linear in (w0, w, M), so this is libFM's average of
the samples' predictions.

Flat layouts (float64 vectors; the C++ writes them as .npy):
  variates (one sweep): [g_alpha, z_w0, g_lambda_w, z_mu_w, g_lambda_v[0..k-1], z_mu_v[0..k-1],
      z_w[0..d-1], z_v factor-major (for f: for j: z_v[j, f])]             4 + 2k + d + dk
      g_alpha ~ Gamma((alpha_0 + n)/2, 1), g_lambda ~ Gamma((alpha_0 + d + 1)/2, 1), z ~ N(0, 1).
  state: [alpha, w0, mu_w, lambda_w, mu_v[0..k-1], lambda_v[0..k-1], w[0..d-1],
      V factor-major (for f: for j: V[j, f])]                               4 + 2k + d + dk
  posterior mean: [bias, w[0..d-1], M row-major d x d]                      1 + d + d^2

agree_fm.py replays a C++ run through `agree`.
"""

import os
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree

ALPHA_0 = 1.0
BETA_0 = 1.0
GAMMA_0 = 1.0
MU_0 = 0.0

STATE_KEYS = ("alpha", "w0", "mu_w", "lambda_w", "mu_v", "lambda_v", "w", "V")


# --- model --------------------------------------------------------------------------------------

def predict(X, w0, w, V):
    """yhat_i = w0 + w'x_i + (1/2) sum_f [(x_i'V[:, f])^2 - sum_j V[j, f]^2 x_ij^2]; X is d x n."""
    Q = X.T @ V
    return w0 + X.T @ w + 0.5 * np.sum(Q * Q - (X * X).T @ (V * V), axis=1)


def pairwise_matrix(V):
    """M = (V V' - diag(V V')) / 2, so that x'Mx is the FM's pairwise term."""
    G = V @ V.T
    return 0.5 * (G - np.diag(np.diag(G)))


def predict_model(X, bias, w, M):
    """yhat_i = bias + w'x_i + x_i' M x_i (a posterior-mean model)."""
    return bias + X.T @ w + np.einsum("ji,jl,li->i", X, M, X)


def sample_model(state):
    """(w0, w, M) of one sample."""
    return state["w0"], state["w"].copy(), pairwise_matrix(state["V"])


def initial_state(V0):
    """libFM's start: alpha = 1, w0 = 0, w = 0, mu's = 0, lambda's = 0, V = V0."""
    d, k = V0.shape
    return {"alpha": 1.0, "w0": 0.0, "mu_w": 0.0, "lambda_w": 0.0, "mu_v": np.zeros(k),
            "lambda_v": np.zeros(k), "w": np.zeros(d), "V": np.array(V0, dtype=float)}


def copy_state(state):
    return {key: (np.array(v, dtype=float) if key in ("mu_v", "lambda_v", "w", "V") else float(v))
            for key, v in state.items() if key in STATE_KEYS}


# --- flat layouts -------------------------------------------------------------------------------

def state_size(d, k):
    return 4 + 2 * k + d + d * k


def variates_size(d, k):
    return 4 + 2 * k + d + d * k


def mean_size(d):
    return 1 + d + d * d


def pack_state(state):
    """[alpha, w0, mu_w, lambda_w, mu_v, lambda_v, w, V factor-major]."""
    return np.concatenate([[state["alpha"], state["w0"], state["mu_w"], state["lambda_w"]],
                           state["mu_v"], state["lambda_v"], state["w"],
                           np.asarray(state["V"]).T.ravel()]).astype(float)


def unpack_state(vec, d, k):
    vec = np.asarray(vec, dtype=float).ravel()
    if vec.size != state_size(d, k):
        raise ValueError(f"state has {vec.size} entries, expected {state_size(d, k)} (d={d}, k={k})")
    return {"alpha": float(vec[0]), "w0": float(vec[1]), "mu_w": float(vec[2]),
            "lambda_w": float(vec[3]), "mu_v": vec[4:4 + k].copy(),
            "lambda_v": vec[4 + k:4 + 2 * k].copy(), "w": vec[4 + 2 * k:4 + 2 * k + d].copy(),
            "V": vec[4 + 2 * k + d:].reshape(k, d).T.copy()}


def pack_variates(v):
    """[g_alpha, z_w0, g_lambda_w, z_mu_w, g_lambda_v, z_mu_v, z_w, z_v factor-major]."""
    return np.concatenate([[v["g_alpha"], v["z_w0"], v["g_lambda_w"], v["z_mu_w"]],
                           v["g_lambda_v"], v["z_mu_v"], v["z_w"],
                           np.asarray(v["z_v"]).T.ravel()]).astype(float)


def unpack_variates(vec, d, k):
    vec = np.asarray(vec, dtype=float).ravel()
    if vec.size != variates_size(d, k):
        raise ValueError(f"variates have {vec.size} entries, expected {variates_size(d, k)} "
                         f"(d={d}, k={k})")
    return {"g_alpha": float(vec[0]), "z_w0": float(vec[1]), "g_lambda_w": float(vec[2]),
            "z_mu_w": float(vec[3]), "g_lambda_v": vec[4:4 + k].copy(),
            "z_mu_v": vec[4 + k:4 + 2 * k].copy(), "z_w": vec[4 + 2 * k:4 + 2 * k + d].copy(),
            "z_v": vec[4 + 2 * k + d:].reshape(k, d).T.copy()}


def pack_mean(bias, w, M):
    """[bias, w, M row-major]."""
    return np.concatenate([[bias], w, np.asarray(M).ravel()]).astype(float)


def unpack_mean(vec, d):
    vec = np.asarray(vec, dtype=float).ravel()
    if vec.size != mean_size(d):
        raise ValueError(f"posterior mean has {vec.size} entries, expected {mean_size(d)}")
    return float(vec[0]), vec[1:1 + d].copy(), vec[1 + d:].reshape(d, d).copy()


def draw_variates(rng, n, d, k):
    """One sweep's variates from a numpy Generator (for the self-checks; the C++ draws its own)."""
    a_lambda = (ALPHA_0 + d + 1) / 2.0
    g_alpha = rng.gamma((ALPHA_0 + n) / 2.0)
    z_w0 = rng.standard_normal()
    g_lambda_w = rng.gamma(a_lambda)
    z_mu_w = rng.standard_normal()
    g_lambda_v = rng.gamma(a_lambda, size=k)
    z_mu_v = rng.standard_normal(k)
    z_w = rng.standard_normal(d)
    z_v = rng.standard_normal(d * k)  # already factor-major
    return np.concatenate([[g_alpha, z_w0, g_lambda_w, z_mu_w], g_lambda_v, z_mu_v, z_w, z_v])


# --- full conditionals --------------------------------------------------------------------------

def alpha_conditional(e):
    """(shape, rate) of alpha | e: ((alpha_0 + n)/2, (gamma_0 + e'e)/2)."""
    return (ALPHA_0 + e.size) / 2.0, (GAMMA_0 + float(e @ e)) / 2.0


def lambda_conditional(theta, mu):
    """(shape, rate) of lambda | mu, theta (d coefficients):
    ((alpha_0 + d + 1)/2, (beta_0 (mu - mu_0)^2 + gamma_0 + sum_j (theta_j - mu)^2)/2)."""
    r = theta - mu
    return ((ALPHA_0 + theta.size + 1) / 2.0,
            (BETA_0 * (mu - MU_0) ** 2 + GAMMA_0 + float(r @ r)) / 2.0)


def mu_conditional(theta, lam):
    """(mean, var) of mu | lambda, theta:
    ((sum theta + beta_0 mu_0)/(d + beta_0), 1/((d + beta_0) lambda))."""
    m = theta.size + BETA_0
    return (float(np.sum(theta)) + BETA_0 * MU_0) / m, 1.0 / (m * lam)


def coordinate_conditional(h, e, old, alpha, mu, lam):
    """(mean, var) of one linear coefficient with yhat = g + theta h, prior N(mu, 1/lam) (lam = 0:
    flat): var = 1/(lam + alpha h'h), mean = -var (alpha (h'e - old h'h) - mu lam)."""
    hh = float(h @ h)
    var = 1.0 / (lam + alpha * hh)
    return -var * (alpha * (float(h @ e) - old * hh) - mu * lam), var


# --- one sweep ----------------------------------------------------------------------------------

def _snapshot(s, e, q=None):
    out = copy_state(s)
    out["e"] = e.copy()
    if q is not None:
        out["q"] = q.copy()
    return out


def sweep(X, y, state, variates, d, k, record=None):
    """One Gibbs sweep from `state` (not mutated) with the pre-drawn `variates` (flat vector or the
    dict of unpack_variates); returns the new state (a dict, STATE_KEYS).

    record: a list, or None. When a list, one entry per draw is appended,
    (name, index, params, before), name in {'alpha', 'w0', 'lambda_w', 'mu_w', 'w', 'lambda_v',
    'mu_v', 'v'}, index None, j, f or (j, f), params (shape, rate) or (mean, var), before a copy of
    the working state (with its e, and q for 'v') just before that draw; and last ('end', None,
    None, after) with the final state and its incrementally maintained e.
    """
    X = np.asarray(X, dtype=float)
    y = np.asarray(y, dtype=float)
    if X.shape[0] != d or state["V"].shape != (d, k) or y.shape != (X.shape[1],):
        raise ValueError(f"shapes: X {X.shape}, y {y.shape}, V {state['V'].shape}, d={d}, k={k}")
    v = variates if isinstance(variates, dict) else unpack_variates(variates, d, k)
    s = copy_state(state)
    w, V = s["w"], s["V"]
    e = predict(X, s["w0"], w, V) - y

    def note(name, index, params, q=None):
        if record is not None:
            record.append((name, index, params, _snapshot(s, e, q)))

    # 1. alpha
    shape, rate = alpha_conditional(e)
    note("alpha", None, (shape, rate))
    s["alpha"] = v["g_alpha"] / rate
    alpha = s["alpha"]

    # 2. w0 (flat prior)
    mean, var = coordinate_conditional(np.ones_like(e), e, s["w0"], alpha, 0.0, 0.0)
    note("w0", None, (mean, var))
    new = mean + np.sqrt(var) * v["z_w0"]
    e += new - s["w0"]
    s["w0"] = new

    # 3.-4. lambda_w given the old mu_w, then mu_w given the new lambda_w
    shape, rate = lambda_conditional(w, s["mu_w"])
    note("lambda_w", None, (shape, rate))
    s["lambda_w"] = v["g_lambda_w"] / rate
    mean, var = mu_conditional(w, s["lambda_w"])
    note("mu_w", None, (mean, var))
    s["mu_w"] = mean + np.sqrt(var) * v["z_mu_w"]

    # 5. w_j
    for j in range(d):
        h = X[j]
        mean, var = coordinate_conditional(h, e, w[j], alpha, s["mu_w"], s["lambda_w"])
        note("w", j, (mean, var))
        new = mean + np.sqrt(var) * v["z_w"][j]
        e += h * (new - w[j])
        w[j] = new

    # 6.-7. lambda_v[f] (all f), then mu_v[f] (all f)
    for f in range(k):
        shape, rate = lambda_conditional(V[:, f], s["mu_v"][f])
        note("lambda_v", f, (shape, rate))
        s["lambda_v"][f] = v["g_lambda_v"][f] / rate
    for f in range(k):
        mean, var = mu_conditional(V[:, f], s["lambda_v"][f])
        note("mu_v", f, (mean, var))
        s["mu_v"][f] = mean + np.sqrt(var) * v["z_mu_v"][f]

    # 8. v_jf, factor by factor
    for f in range(k):
        q = X.T @ V[:, f]
        for j in range(d):
            x = X[j]
            old = V[j, f]
            h = x * (q - x * old)
            mean, var = coordinate_conditional(h, e, old, alpha, s["mu_v"][f], s["lambda_v"][f])
            note("v", (j, f), (mean, var), q)
            new = mean + np.sqrt(var) * v["z_v"][j, f]
            q += x * (new - old)
            e += h * (new - old)
            V[j, f] = new

    note("end", None, None)
    return s


# --- posterior mean and driver ------------------------------------------------------------------

def update_mean(mean, model, t, burn_in):
    """Posterior mean after sweep t (1-based) from the one after t-1 (None at t = 1)."""
    count = t - burn_in
    if mean is None or count <= 1:
        return tuple(np.array(m, dtype=float) if np.ndim(m) else float(m) for m in model)
    return tuple(a + (b - a) / count for a, b in zip(mean, model))


def run(X, y, V0, sweeps, burn_in, rng, variates=None):
    """`sweeps` Gibbs sweeps from libFM's start with V = V0.

    rng: numpy Generator for draw_variates (ignored for the sweeps whose variates are given:
    `variates`, an optional list of flat vectors, one per sweep).
    Returns (states, means): states[t] for t = 0..sweeps (dicts), means[t-1] = (bias, w, M), the
    posterior mean after sweep t = 1..sweeps.
    """
    X = np.asarray(X, dtype=float)
    d, n = X.shape
    k = V0.shape[1]
    state = initial_state(V0)
    states, means, mean = [state], [], None
    for t in range(1, sweeps + 1):
        z = variates[t - 1] if variates is not None else draw_variates(rng, n, d, k)
        state = sweep(X, y, state, z, d, k)
        mean = update_mean(mean, sample_model(state), t, burn_in)
        states.append(state)
        means.append(mean)
    return states, means


# --- agreement with a C++ run -------------------------------------------------------------------

def _load(folder, name):
    path = os.path.join(folder, name + ".npy")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"missing {path}")
    a = np.asarray(np.load(path), dtype=float)
    if not np.all(np.isfinite(a)):
        raise ValueError(f"{path} holds NaN or inf")
    return a


def relative_gap(a, b):
    """||a - b|| / max(||b||, 1e-300); b is the reference."""
    return float(np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300))


def agree(folder, case):
    """Replay a C++ run: [(t, gap_t)] for t = 1..T.

    case: {"method": "fm_mcmc", "rank": k, "burn_in": b, "iterations": T, "tolerance"}. The folder
    holds X.npy (d x n), y.npy, state_0.npy and, for t = 1..T, variates_t.npy, state_t.npy and
    mean_t.npy. The reference starts from the C++ state_0 and steps from its own previous state
    with the C++ variates; gap_t = max(relative gap of state_t, relative gap of mean_t), each as
    one flat vector, relative to the reference's norm. Raises on a missing file, a wrong size, or
    NaN / inf in a file or a gap.
    """
    if case.get("method") != "fm_mcmc":
        raise ValueError(f"not an fm_mcmc case: {case.get('method')!r}")
    k, b, T = int(case["rank"]), int(case["burn_in"]), int(case["iterations"])
    X, y = _load(folder, "X"), _load(folder, "y").ravel()
    if X.ndim != 2 or X.shape[1] != y.size:
        raise ValueError(f"X is {X.shape}, y has {y.size} entries")
    d = X.shape[0]
    state = unpack_state(_load(folder, "state_0"), d, k)
    mean, gaps = None, []
    for t in range(1, T + 1):
        state = sweep(X, y, state, _load(folder, f"variates_{t}"), d, k)
        mean = update_mean(mean, sample_model(state), t, b)
        c_state = _load(folder, f"state_{t}").ravel()
        c_mean = _load(folder, f"mean_{t}").ravel()
        if c_state.size != state_size(d, k) or c_mean.size != mean_size(d):
            raise ValueError(f"sweep {t}: state has {c_state.size} entries, mean {c_mean.size}")
        gap = max(relative_gap(c_state, pack_state(state)), relative_gap(c_mean, pack_mean(*mean)))
        if not np.isfinite(gap):
            raise ValueError(f"sweep {t}: gap is {gap}")
        gaps.append((t, gap))
    return gaps
