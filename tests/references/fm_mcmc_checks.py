"""Self-checks of fm_mcmc.py (the Bayesian factorization machine's Gibbs sampler).

Run by test_references.py (CTest `references`).

Each test_*() raises AssertionError when it fails and returns a one-line note; CHECKS lists them
for test_references.py. Every problem is drawn from numpy.random.default_rng(seed), seed stated.

  test_layouts                   pack/unpack round trips and the factor-major order of V and z_v
  test_predict_forms             predict's (sum_f ...) form equals w0 + w'x + x'Mx, M from pairs j < l
  test_conditionals_brute_force  (a) every draw's (mean, var) / (shape, rate) against the log joint
  test_residual_bookkeeping      (b) the incremental e (and q) against predict - y
  test_recovery                  (c) planted FM, posterior mean of alpha and test RMSE
  test_posterior_mean            (d) incremental posterior mean against the direct average
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import math  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fm_mcmc  # noqa: E402

TOL_CONDITIONAL = 1e-9
TOL_BOOKKEEPING = 1e-10


# --- small problem ------------------------------------------------------------------------------

def small_problem(seed, d=6, n=50, k=2):
    """X ~ N(0,1) (d x n), y ~ N(0, 1), and a random state with alpha and the lambdas > 0."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((d, n))
    y = rng.standard_normal(n)
    state = {"alpha": rng.uniform(0.5, 2.0), "w0": rng.normal(0.0, 1.0),
             "mu_w": rng.normal(0.0, 0.5), "lambda_w": rng.uniform(0.5, 3.0),
             "mu_v": rng.normal(0.0, 0.5, k), "lambda_v": rng.uniform(0.5, 3.0, k),
             "w": rng.normal(0.0, 1.0, d), "V": rng.normal(0.0, 0.5, (d, k))}
    return rng, X, y, state


# --- the log joint, written independently of the sweep ------------------------------------------

def log_normal(x, mean, precision):
    x = np.asarray(x, dtype=float)
    return float(np.sum(0.5 * math.log(precision) - 0.5 * math.log(2 * math.pi)
                        - 0.5 * precision * (x - mean) ** 2))


def log_gamma_density(x, shape, rate):
    return shape * math.log(rate) - math.lgamma(shape) + (shape - 1) * math.log(x) - rate * x


def pairwise_by_pairs(V):
    """M[j, l] = M[l, j] = <V[j], V[l]>/2 for j < l, zero diagonal (pair by pair)."""
    d = V.shape[0]
    M = np.zeros((d, d))
    for j in range(d):
        for l in range(j + 1, d):
            M[j, l] = M[l, j] = 0.5 * float(V[j] @ V[l])
    return M


def log_joint(X, y, s):
    """log p(y, w, V, mu's, lambda's, alpha) with a flat w0 prior (up to a constant):
    y_i ~ N(w0 + w'x_i + x_i'Mx_i, 1/alpha); w_j ~ N(mu_w, 1/lambda_w); v_jf ~ N(mu_v[f], 1/lambda_v[f]);
    mu ~ N(mu_0, 1/(beta_0 lambda)); lambda, alpha ~ Gamma(alpha_0/2, rate gamma_0/2)."""
    a0, b0, g0, m0 = fm_mcmc.ALPHA_0, fm_mcmc.BETA_0, fm_mcmc.GAMMA_0, fm_mcmc.MU_0
    M = pairwise_by_pairs(s["V"])
    yhat = s["w0"] + X.T @ s["w"] + np.einsum("ji,jl,li->i", X, M, X)
    out = log_normal(y, yhat, s["alpha"]) + log_gamma_density(s["alpha"], a0 / 2, g0 / 2)
    out += log_normal(s["w"], s["mu_w"], s["lambda_w"])
    out += log_normal(s["mu_w"], m0, b0 * s["lambda_w"])
    out += log_gamma_density(s["lambda_w"], a0 / 2, g0 / 2)
    for f in range(s["V"].shape[1]):
        out += log_normal(s["V"][:, f], s["mu_v"][f], s["lambda_v"][f])
        out += log_normal(s["mu_v"][f], m0, b0 * s["lambda_v"][f])
        out += log_gamma_density(s["lambda_v"][f], a0 / 2, g0 / 2)
    return out


def coordinate(name, index):
    """(get, set) for one scalar of a state dict."""
    if name in ("alpha", "w0", "lambda_w", "mu_w"):
        return (lambda s: s[name]), (lambda s, x: s.__setitem__(name, x))
    key = {"w": "w", "lambda_v": "lambda_v", "mu_v": "mu_v", "v": "V"}[name]

    def put(s, x):
        s[key] = s[key].copy()
        s[key][index] = x
    return (lambda s: s[key][index]), put


def brute_gaussian(X, y, s, name, index):
    """(mean, var) of the one-coordinate log joint, a quadratic A t^2 + B t + C in t = theta - theta_0,
    fitted through t = -1, 0.5, 2."""
    get, put = coordinate(name, index)
    c = get(s)
    ts = np.array([-1.0, 0.5, 2.0])
    vals = []
    for t in ts:
        trial = fm_mcmc.copy_state(s)
        put(trial, c + t)
        vals.append(log_joint(X, y, trial))
    A, B, _ = np.linalg.solve(np.vander(ts, 3), np.array(vals))
    assert A < 0, f"{name}[{index}]: the log joint is not concave in the coordinate (A = {A})"
    return c - B / (2 * A), -1.0 / (2 * A)


def brute_gamma(X, y, s, name, index):
    """(shape, rate) from the one-coordinate log joint, P log x + Q x + C through x = x_0 (0.5, 1, 2):
    shape = P + 1, rate = -Q."""
    get, put = coordinate(name, index)
    c = get(s)
    xs = c * np.array([0.5, 1.0, 2.0])
    vals = []
    for x in xs:
        trial = fm_mcmc.copy_state(s)
        put(trial, x)
        vals.append(log_joint(X, y, trial))
    P, Q, _ = np.linalg.solve(np.column_stack([np.log(xs), xs, np.ones(3)]), np.array(vals))
    return P + 1.0, -Q


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-300)


# --- checks -------------------------------------------------------------------------------------

def test_layouts():
    """Round trips, and V / z_v factor-major: entry 4 + 2k + d + f d + j is V[j, f]."""
    rng, X, y, state = small_problem(1)
    d, k = state["V"].shape
    vec = fm_mcmc.pack_state(state)
    assert vec.size == fm_mcmc.state_size(d, k)
    back = fm_mcmc.unpack_state(vec, d, k)
    assert np.array_equal(fm_mcmc.pack_state(back), vec), "state round trip"
    off = 4 + 2 * k + d
    assert vec[off + 1 * d + 2] == state["V"][2, 1], "V is not factor-major in the state vector"
    assert vec[4 + 1] == state["mu_v"][1] and vec[4 + k + 1] == state["lambda_v"][1]
    z = fm_mcmc.draw_variates(rng, X.shape[1], d, k)
    u = fm_mcmc.unpack_variates(z, d, k)
    assert np.array_equal(fm_mcmc.pack_variates(u), z), "variates round trip"
    assert u["z_v"][2, 1] == z[off + 1 * d + 2], "z_v is not factor-major in the variates"
    M = rng.standard_normal((d, d))
    b, w, M2 = fm_mcmc.unpack_mean(fm_mcmc.pack_mean(0.5, state["w"], M), d)
    assert b == 0.5 and np.array_equal(w, state["w"]) and np.array_equal(M2, M), "mean round trip"
    assert fm_mcmc.pack_mean(0.5, state["w"], M)[1 + d + 1] == M[0, 1], "M is not row-major"
    return f"sizes state {vec.size}, variates {z.size}, mean {fm_mcmc.mean_size(d)} (d={d}, k={k})"


def test_predict_forms():
    """predict (the O(nkd) form) equals w0 + w'x + x'Mx with M built pair by pair (seed 2)."""
    _, X, _, s = small_problem(2)
    a = fm_mcmc.predict(X, s["w0"], s["w"], s["V"])
    M = pairwise_by_pairs(s["V"])
    b = s["w0"] + X.T @ s["w"] + np.array([x @ M @ x for x in X.T])
    c = fm_mcmc.predict_model(X, s["w0"], s["w"], fm_mcmc.pairwise_matrix(s["V"]))
    gap = max(np.max(np.abs(a - b)), np.max(np.abs(c - b))) / np.max(np.abs(b))
    assert gap < 1e-12, f"predict forms differ by {gap:.1e}"
    return f"max relative gap {gap:.1e}"


def test_conditionals_brute_force():
    """(a) d = 6, n = 50, k = 2, seed 3 (random state, alpha and lambdas > 0): every draw of one
    sweep, at the working state it sees, has the (mean, var) of the log joint's quadratic in that
    coordinate (w0, w_j, v_jf; also mu_w, mu_v[f]) and the (shape, rate) of its
    (a-1) log x - b x form (alpha, lambda_w, lambda_v[f]), to 1e-9 relative; and the drawn value is
    mean + sqrt(var) z or g / rate with the sweep's own variate."""
    rng, X, y, state = small_problem(3)
    d, k = state["V"].shape
    zvec = fm_mcmc.draw_variates(rng, X.shape[1], d, k)
    z = fm_mcmc.unpack_variates(zvec, d, k)
    record = []
    fm_mcmc.sweep(X, y, state, zvec, d, k, record)
    variate = {"alpha": lambda i: z["g_alpha"], "w0": lambda i: z["z_w0"],
               "lambda_w": lambda i: z["g_lambda_w"], "mu_w": lambda i: z["z_mu_w"],
               "w": lambda i: z["z_w"][i], "lambda_v": lambda i: z["g_lambda_v"][i],
               "mu_v": lambda i: z["z_mu_v"][i], "v": lambda i: z["z_v"][i]}
    names = [r[0] for r in record]
    expected = (["alpha", "w0", "lambda_w", "mu_w"] + ["w"] * d + ["lambda_v"] * k + ["mu_v"] * k
                + ["v"] * (d * k) + ["end"])
    assert names == expected, f"draw order {names}"
    worst = {"gaussian": 0.0, "gamma": 0.0, "draw": 0.0}
    for (name, index, params, before), nxt in zip(record[:-1], record[1:]):
        after = nxt[3]
        get, _ = coordinate(name, index)
        if name in ("alpha", "lambda_w", "lambda_v"):
            shape, rate = brute_gamma(X, y, before, name, index)
            worst["gamma"] = max(worst["gamma"], rel(params[0], shape), rel(params[1], rate))
            drawn = variate[name](index) / params[1]
        else:
            mean, var = brute_gaussian(X, y, before, name, index)
            worst["gaussian"] = max(worst["gaussian"], rel(params[0], mean), rel(params[1], var))
            drawn = params[0] + math.sqrt(params[1]) * variate[name](index)
        worst["draw"] = max(worst["draw"], rel(get(after), drawn))
    assert worst["gaussian"] < TOL_CONDITIONAL, f"Gaussian conditionals off by {worst['gaussian']:.1e}"
    assert worst["gamma"] < TOL_CONDITIONAL, f"gamma conditionals off by {worst['gamma']:.1e}"
    assert worst["draw"] < 1e-14, f"drawn values off the variates by {worst['draw']:.1e}"
    return (f"{len(record) - 1} draws: Gaussian (mean, var) max rel. gap {worst['gaussian']:.1e}, "
            f"gamma (shape, rate) {worst['gamma']:.1e}, draw vs variate {worst['draw']:.1e}")


def test_residual_bookkeeping():
    """(b) seed 4, d = 6, n = 50, k = 2, 5 sweeps from a random state: the incrementally kept e
    equals predict - y after each sweep (and before every draw), and q equals X'V[:, f], to 1e-10."""
    rng, X, y, state = small_problem(4)
    d, k = state["V"].shape
    worst_end = worst_any = worst_q = 0.0
    for _ in range(5):
        record = []
        state = fm_mcmc.sweep(X, y, state, fm_mcmc.draw_variates(rng, X.shape[1], d, k), d, k,
                              record)
        for name, index, _, s in record:
            gap = np.max(np.abs(s["e"] - (fm_mcmc.predict(X, s["w0"], s["w"], s["V"]) - y)))
            worst_any = max(worst_any, gap)
            if name == "end":
                worst_end = max(worst_end, gap)
                assert np.array_equal(fm_mcmc.pack_state(s), fm_mcmc.pack_state(state))
            if name == "v":
                worst_q = max(worst_q, np.max(np.abs(s["q"] - X.T @ s["V"][:, index[1]])))
    assert worst_end < TOL_BOOKKEEPING, f"e after a sweep off predict - y by {worst_end:.1e}"
    assert worst_any < TOL_BOOKKEEPING, f"e before a draw off predict - y by {worst_any:.1e}"
    assert worst_q < TOL_BOOKKEEPING, f"q off X'V[:, f] by {worst_q:.1e}"
    return (f"max |e - (predict - y)| after a sweep {worst_end:.1e}, before any draw "
            f"{worst_any:.1e}; max |q - X'v_f| {worst_q:.1e}")


RECOVERY = {"seed_truth": 11, "seed_chain": 12, "d": 8, "k": 2, "n": 2000, "n_test": 2000,
            "noise": 0.1, "sweeps": 200, "burn_in": 20}


def test_recovery():
    """(c) planted FM (seed 11: w0* ~ N(0,1), w* ~ N(0, I), V* ~ N(0, 0.5^2), x ~ N(0, I), then
    the training rows, noise sd 0.1, then 2000 noise-free test rows), d = 8, k = 2, n = 2000; the
    chain (seed 12: V0 ~ N(0, 0.1^2), then the variates) runs 200 sweeps with burn-in 20. The mean
    of alpha over sweeps 21..200 is within 20% of 1/0.1^2 = 100, and the posterior-mean model's
    test RMSE is below 0.05."""
    c = RECOVERY
    rng = np.random.default_rng(c["seed_truth"])
    d, k, n = c["d"], c["k"], c["n"]
    w0s, ws, Vs = rng.standard_normal(), rng.standard_normal(d), rng.normal(0.0, 0.5, (d, k))
    Ms = fm_mcmc.pairwise_matrix(Vs)
    X = rng.standard_normal((d, n))
    y = fm_mcmc.predict_model(X, w0s, ws, Ms) + c["noise"] * rng.standard_normal(n)
    Xt = rng.standard_normal((d, c["n_test"]))
    yt = fm_mcmc.predict_model(Xt, w0s, ws, Ms)
    chain = np.random.default_rng(c["seed_chain"])
    V0 = chain.normal(0.0, 0.1, (d, k))
    states, means = fm_mcmc.run(X, y, V0, c["sweeps"], c["burn_in"], chain)
    alpha = np.mean([s["alpha"] for s in states[c["burn_in"] + 1:]])
    target = 1.0 / c["noise"] ** 2
    bias, w, M = means[-1]
    rmse = float(np.sqrt(np.mean((fm_mcmc.predict_model(Xt, bias, w, M) - yt) ** 2)))
    last = states[-1]
    rmse_last = float(np.sqrt(np.mean((fm_mcmc.predict(Xt, last["w0"], last["w"], last["V"]) - yt) ** 2)))
    assert abs(alpha - target) < 0.2 * target, f"posterior mean of alpha {alpha:.1f}, target {target}"
    assert rmse < 0.05, f"test RMSE {rmse:.4f} >= 0.05"
    return (f"mean alpha over kept sweeps {alpha:.1f} (target {target:.0f}), test RMSE of the "
            f"posterior mean {rmse:.4f} (last sample {rmse_last:.4f}, sd(y_test) {np.std(yt):.2f})")


def test_posterior_mean():
    """(d) seed 5, d = 6, n = 50, k = 2, 12 sweeps, burn-in 0, 4 and 12: the incremental posterior
    mean equals the sample model while t <= b and the direct average over s = b+1..t after, to
    1e-12 relative (flat vectors)."""
    rng, X, y, _ = small_problem(5)
    d, k = 6, 2
    V0 = rng.normal(0.0, 0.1, (d, k))
    zs = [fm_mcmc.draw_variates(rng, X.shape[1], d, k) for _ in range(12)]
    worst = 0.0
    for b in (0, 4, 12):
        states, means = fm_mcmc.run(X, y, V0, 12, b, None, variates=zs)
        models = [fm_mcmc.pack_mean(*fm_mcmc.sample_model(s)) for s in states[1:]]
        for t in range(1, 13):
            direct = models[t - 1] if t <= b else np.mean(models[b:t], axis=0)
            worst = max(worst, fm_mcmc.relative_gap(fm_mcmc.pack_mean(*means[t - 1]), direct))
    assert worst < 1e-12, f"incremental posterior mean off the direct average by {worst:.1e}"
    return f"max relative gap {worst:.1e} over burn-in 0, 4, 12"


CHECKS = [test_layouts, test_predict_forms, test_conditionals_brute_force,
          test_residual_bookkeeping, test_recovery, test_posterior_mean]
