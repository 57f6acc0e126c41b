"""Real-valued phase retrieval by gradient methods: Wirtinger flow (WF), truncated Wirtinger flow
(TWF), reweighted Wirtinger flow (RWF), amplitude flow (AF, also called reshaped Wirtinger flow),
truncated amplitude flow (TAF) and reweighted amplitude flow (RAF); WF, TWF and RWF also with a
backtracking line search; PhaseMax and its repeated form PhaseLamp.

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
  'rwf' (Yuan & Wang 2017, "Phase retrieval via reweighted Wirtinger flow", Applied Optics 56(9),
        as in PhasePack, Chandra et al. 2017): with weights taken at the current z,
            w_i = 1 / (|u_i^2 - y_i| + eta),      S = sum_i w_i,
            v = (m w / S) (u^2 - y) u,
        so g = (1/S) sum_i w_i (u_i^2 - y_i) u_i a_i is the gradient at z' = z of the loss with the
        weights FROZEN at z,
            f_z(z') = (1/(4S)) sum_i w_i ((a_i'z')^2 - y_i)^2       (rwf_loss),
        a measurement that fits badly (large |u_i^2 - y_i|) weighs less. eta = 0.9; the step is WF's
        schedule, min(1 - exp(-t/tau0), mu_max) / ||z_0||^2, tau0 = 330, mu_max = 0.2. At z = 0
        every v_i = 0 (the factor u_i), so g = 0.
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

Backtracking line search (params["line_search"] = "backtracking"; the default "none" is the fixed
steps above), for wf, twf and rwf only: PhasePack's steepest-descent search (Chandra, Zhong, Hontz,
McCulloch, Studer & Goldstein 2017, "PhasePack: a phase retrieval library"), a Barzilai-Borwein trial
step (Barzilai & Borwein 1988) cut back until Armijo's sufficient decrease holds. At iteration
t = 1, 2, ... from z (u = A z), g = gradient(variant, z) and f = the variant's loss with its
weights / truncation FROZEN at z (frozen_loss), f0 = f(z):

    wf   f(z') = (1/4m) sum_i (u'_i^2 - y_i)^2                         (nothing to freeze),
    twf  f(z') = (1/m) sum_{i in K} (u'_i^2 - y_i log u'_i^2),
         K = the measurements gradient() keeps at z (E1, E2 and u_i != 0); a term with y_i = 0 is
         u'_i^2 (0 log 0 = 0), a term with y_i != 0 and u'_i^2 = 0 makes f = +inf, f = 0 if K is
         empty,
    rwf  f(z') = (1/(4S)) sum_i w_i (u'_i^2 - y_i)^2,  w and S those of z,

(u' = A z'), so g is the gradient of f at z in each case. The trial step:

    t = 1   wf, rwf: mu_max / ||z_0||^2;  twf: mu;
    t > 1   dx = z_t - z_{t-1}, dg = g_t - g_{t-1} (g_{t-1} the previous iteration's gradient, with
            that iteration's weights), s = dx'dg, tau_S = ||dx||^2 / s,
            tau_M = max(s / ||dg||^2, 0),  tau = tau_M if 2 tau_M > tau_S else tau_S - tau_M / 2
            (PhasePack's choice between the two BB steps); if tau <= 0 or is not finite (s = 0 or
            dg = 0 included): tau = 1.5 x the previous accepted step.

Armijo: tau is accepted when f(z - tau g) <= f0 - 0.1 tau ||g||^2 (a nan f fails); otherwise
tau <- 0.2 tau and the test is repeated, 20 tests in all (tau_trial .. 0.2^19 tau_trial). When they
all fail at t > 1, the t = 1 trial (mu_max / ||z_0||^2, twf: mu) is tested the same way (a near-zero
curvature s makes the BB step too long for 20 cuts); when that fails too, its 0.2^20 multiple is
taken untested (at most 41 evaluations of f per iteration, f0 included). z_{t+1} = z - tau g. With the line search
TWF's unset constants become alpha_lb = 0.1 and alpha_h = 6 (alpha_ub stays 5): Chen & Candes's
constants for their line-search runs; a value given in params wins.

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

VARIANTS = ("wf", "twf", "af", "taf", "raf", "rwf")

DEFAULTS = {
    "wf": {"mu_max": 0.2, "tau0": 330.0},
    "twf": {"mu": 0.2, "alpha_lb": 0.3, "alpha_ub": 5.0, "alpha_h": 5.0},
    "rwf": {"mu_max": 0.2, "tau0": 330.0, "eta": 0.9},
    "af": {"mu": 0.8},
    "taf": {"mu": 0.6, "gamma": 0.7},
    "raf": {"mu": 2.0, "beta": 10.0},
    "gs": {},
}


# The backtracking line search (module docstring): the variants that have it, its constants, and
# the TWF constants that replace the unset defaults when it is on.
LINE_SEARCH_VARIANTS = ("wf", "twf", "rwf")
LINE_SEARCH = {"armijo": 0.1, "shrink": 0.2, "shrinks": 20, "growth": 1.5}
TWF_LINE_SEARCH_DEFAULTS = {"alpha_lb": 0.1, "alpha_h": 6.0}


def _params(variant, params):
    """DEFAULTS[variant] overridden by the (possibly partial) dict params; for twf with
    params["line_search"] = "backtracking", the unset alpha_lb, alpha_h are
    TWF_LINE_SEARCH_DEFAULTS'."""
    if variant not in DEFAULTS:
        raise ValueError(f"unknown variant {variant!r}")
    merged = dict(DEFAULTS[variant])
    if params:
        merged.update(params)
    if variant == "twf" and merged.get("line_search", "none") == "backtracking":
        for key, value in TWF_LINE_SEARCH_DEFAULTS.items():
            if not params or key not in params:
                merged[key] = value
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


def rwf_weights(u, y, eta):
    """w_i = 1 / (|u_i^2 - y_i| + eta): RWF's weights at u = A z."""
    return 1.0 / (np.abs(u * u - y) + eta)


def rwf_loss(A, y, z, at, params=None):
    """(1/(4S)) sum_i w_i ((a_i'z)^2 - y_i)^2 with w = rwf_weights(A at, y, eta), S = sum_i w_i: RWF's
    loss with the weights frozen at the point `at` (its gradient in z at z = at is gradient("rwf", at))."""
    p = _params("rwf", params)
    w = rwf_weights(A @ at, y, p["eta"])
    u = A @ z
    return float(np.sum(w * (u * u - y) ** 2)) / (4.0 * float(np.sum(w)))


def _twf_kept(A, y, z, u, p):
    """TWF's kept set at z (u = A z): E1 and E2 and u_i != 0; nothing at z = 0."""
    m = len(y)
    norm_z = float(np.linalg.norm(z))
    if not norm_z > 0:
        return np.zeros(m, dtype=bool)
    absu = np.abs(u)
    resid = y - u * u
    K = float(np.sum(np.abs(resid))) / m
    ratio = absu / norm_z
    e1 = (ratio >= p["alpha_lb"]) & (ratio <= p["alpha_ub"])
    with np.errstate(invalid="ignore"):  # inf * 0 -> nan -> excluded
        e2 = np.abs(resid) <= p["alpha_h"] * K * ratio
    return e1 & e2 & (u != 0)


def frozen_loss(variant, A, y, z, params=None):
    """The function z' -> f(z') of the line search (module docstring) for wf, twf, rwf: the variant's
    loss with its truncation (twf) or weights (rwf) frozen at z; gradient(variant, z) is its gradient
    at z' = z.
        wf   (1/4m) sum_i (u'_i^2 - y_i)^2
        twf  (1/m) sum_{i in K} (u'_i^2 - y_i log u'_i^2), K kept at z; y_i = 0 gives u'_i^2; y_i != 0
             with u'_i^2 = 0 gives +inf; 0 when K is empty
        rwf  (1/(4S)) sum_i w_i (u'_i^2 - y_i)^2, w, S at z"""
    p = _params(variant, params)
    m = len(y)
    if variant == "wf":
        return lambda z_new: wf_loss(A, y, z_new)
    if variant == "twf":
        keep = _twf_kept(A, y, z, A @ z, p)
        if not np.any(keep):
            return lambda z_new: 0.0
        y_keep = y[keep]
        nonzero = y_keep != 0

        def twf_frozen(z_new):
            u2 = (A @ z_new)[keep] ** 2
            if np.any(nonzero & (u2 == 0)):
                return np.inf
            terms = u2.copy()
            terms[nonzero] -= y_keep[nonzero] * np.log(u2[nonzero])
            return float(np.sum(terms)) / m
        return twf_frozen
    if variant == "rwf":
        w = rwf_weights(A @ z, y, p["eta"])
        four_s = 4.0 * float(np.sum(w))

        def rwf_frozen(z_new):
            u = A @ z_new
            return float(np.sum(w * (u * u - y) ** 2)) / four_s
        return rwf_frozen
    raise ValueError(f"no line-search loss for variant {variant!r}")


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
        keep = _twf_kept(A, y, z, u, p)
        v[keep] = 2.0 * (u[keep] ** 2 - y[keep]) / u[keep]
    elif variant == "rwf":
        w = rwf_weights(u, y, p["eta"])
        v = (m * w / float(np.sum(w))) * (u * u - y) * u
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
    """wf, rwf: min(1 - exp(-t/tau0), mu_max) / ||z_0||^2 (t = 1 for the first step); others: mu."""
    p = _params(variant, params)
    if variant in ("wf", "rwf"):
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
    """[z_0, z_1, ..., z_iters]: z_t = step(variant, A, y, z_{t-1}, t, ||z_0||^2), or with
    params["line_search"] = "backtracking" the line search's z_t (run_with_steps)."""
    return run_with_steps(variant, A, y, z0, iters, params)[0]


def barzilai_borwein(dx, dg, previous):
    """The line search's trial step for t > 1: s = dx'dg, tau_S = ||dx||^2 / s,
    tau_M = max(s / ||dg||^2, 0), tau = tau_M if 2 tau_M > tau_S else tau_S - tau_M / 2; if tau <= 0
    or tau is not finite, 1.5 * previous (the previous iteration's accepted step)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.float64(dx @ dg)
        tau_s = np.float64(dx @ dx) / s
        tau_m = max(s / np.float64(dg @ dg), 0.0)  # a nan stays nan (then tau is nan)
        tau = tau_m if 2.0 * tau_m > tau_s else tau_s - tau_m / 2.0
    tau = float(tau)
    if not np.isfinite(tau) or tau <= 0.0:
        return LINE_SEARCH["growth"] * previous
    return tau


def run_with_steps(variant, A, y, z0, iters, params=None, record=None):
    """(iterates, steps): iterates = [z_0, ..., z_iters] as run() returns them, steps[t - 1] the step
    length that made z_t = z_{t-1} - steps[t - 1] g(z_{t-1}) (nan for "gs", which takes no step).
    Without a line search (params["line_search"] absent or "none") the steps are step_size()'s
    schedule and the iterates step()'s. With "backtracking" (wf, twf, rwf) they are the accepted
    steps of the module docstring's line search; a dict `record` then receives, per iteration,
    record["trial"] (the trial the accepted step was cut from: the BB step, or the first trial when the
    search fell back to it) and record["shrinks"] (the number of cuts by 0.2 from it, 0..20; 20 means
    the step was taken untested)."""
    p = _params(variant, params)
    search = p.get("line_search", "none")
    z = np.asarray(z0, dtype=float).copy()
    z0_norm_sq = float(z @ z)
    out, steps = [z], []
    if search == "none":
        for t in range(1, iters + 1):
            steps.append(np.nan if variant == "gs" else step_size(variant, t, z0_norm_sq, p))
            z = step(variant, A, y, z, t, z0_norm_sq, p)
            out.append(z)
        return out, steps
    if search != "backtracking":
        raise ValueError(f"unknown line_search {search!r}")
    if variant not in LINE_SEARCH_VARIANTS:
        raise ValueError(f"no line search for variant {variant!r}")
    if record is not None:
        record.setdefault("trial", [])
        record.setdefault("shrinks", [])
    z_prev = g_prev = None
    for t in range(1, iters + 1):
        g = gradient(variant, A, y, z, p)
        f = frozen_loss(variant, A, y, z, p)
        f0 = f(z)
        g_sq = float(g @ g)
        first = p["mu_max"] / z0_norm_sq if variant in ("wf", "rwf") else p["mu"]
        # Candidates: the BB step (t > 1), then the first trial; each tested at tau, 0.2 tau, ..., 0.2^19 tau.
        trials = [first] if t == 1 else [barzilai_borwein(z - z_prev, g - g_prev, steps[-1]), first]
        accepted = False
        for trial in trials:
            tau, shrinks = trial, 0
            while shrinks < LINE_SEARCH["shrinks"]:
                if f(z - tau * g) <= f0 - LINE_SEARCH["armijo"] * tau * g_sq:  # nan: False, a cut
                    accepted = True
                    break
                tau *= LINE_SEARCH["shrink"]
                shrinks += 1
            if accepted:
                break
        if record is not None:
            record["trial"].append(trial)
            record["shrinks"].append(shrinks)
        z_prev, g_prev = z, g
        z = z - tau * g
        steps.append(tau)
        out.append(z)
    return out, steps


# --- PhaseMax ------------------------------------------------------------------------------------

PHASEMAX_DEFAULTS = {"penalty": 1.0, "penalty_growth": 10.0, "stages": 8, "stage_iterations": 500,
                     "stage_tolerance": 1e-10, "rounds": 1}


def phasemax(A, y, x0, iters, params=None):
    """PhaseMax (Goldstein & Studer 2018, program (1); Bahmani & Romberg 2017): maximise <c, x> subject to
    |a_i'x| <= b_i, b = sqrt(max(y, 0)), c = x0/||x0|| the anchor, by a quadratic penalty with continuation:
    at penalty rho minimise

        F(x) = -c'x + (rho / (2 m b_rms)) sum_i max(|a_i'x| - b_i, 0)^2,      b_rms = sqrt(mean(b^2))

    by FISTA steps (Beck & Teboulle 2009) of length 1/L, L = (rho / b_rms) lambda_max(A'A/m) (the penalty's
    gradient is Lipschitz with that constant), restarting the momentum when a step goes uphill,
    grad F(y)'(x_new - x) > 0 (O'Donoghue & Candes 2015). A stage (but the last) ends when
    ||x_new - x||/||x_new|| < stage_tolerance or after stage_iterations steps; the next multiplies rho by
    penalty_growth, warm-started with the momentum reset. Returns [x_0, ..., x_iters] (one FISTA step each).

    params["rounds"] = R > 1 is PhaseLamp (Dhifallah, Thrampoulidis & Lu 2017, "Phase retrieval via linear
    programming: fundamental limits and algorithmic improvements"): PhaseMax repeated with the anchor moved to
    the previous round's solution, c_{r+1} = x_r / ||x_r||. Rounds 1..R-1 end their last stage by the rule of
    the other stages; the next round starts from that step's x_new (also the next iterate) with
    c = x_new / ||x_new||, rho = penalty, the first stage and the momentum reset. Round R runs as PhaseMax does
    with R = 1: its last stage never ends. phasemax_trace gives the per-step details."""
    return phasemax_trace(A, y, x0, iters, params)["iterates"]


def phasemax_trace(A, y, x0, iters, params=None):
    """phasemax with its bookkeeping: a dict of
        "iterates"  [x_0, ..., x_iters]
    and, per step t = 1..iters at index t - 1 (the step that made x_t):
        "measures"  whether x_t measures convergence: the step was taken in the last stage of the final
                    round (the only iterates that approach the final program's solution)
        "round", "stage"   the round (0..rounds-1) and stage (0..stages-1) the step was taken in
        "anchor"    the anchor c that step used.
    Each step, in order: the FISTA step x_new; the restart / momentum update; then, if the step's
    stage is not the final round's last stage and (change < stage_tolerance or its steps >=
    stage_iterations), change = ||x_new - x|| / ||x_new||: a stage but the round's last moves to the next
    stage (rho *= penalty_growth), a round's last stage to the next round (c = x_new / ||x_new||,
    rho = penalty, stage 0); both reset the step count and the momentum (t_prev = t_cur = 1)."""
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
    t_prev, t_cur, rho, stage, steps, rnd = 1.0, 1.0, p["penalty"], 0, 0, 0
    trace = {"iterates": [x], "measures": [], "round": [], "stage": [], "anchor": []}
    for _ in range(iters):
        trace["round"].append(rnd)
        trace["stage"].append(stage)
        trace["anchor"].append(c)
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
        last_stage = stage + 1 >= p["stages"]
        final_round = rnd + 1 >= p["rounds"]
        trace["measures"].append(bool(last_stage and final_round))
        if not (last_stage and final_round) and (change < p["stage_tolerance"]
                                                 or steps >= p["stage_iterations"]):
            if not last_stage:
                stage, rho = stage + 1, rho * p["penalty_growth"]
            else:  # PhaseLamp: the next round, anchored at this round's solution
                rnd, stage, rho = rnd + 1, 0, p["penalty"]
                norm = np.linalg.norm(x_new)
                c = x_new / norm if norm > 0 else c  # a zero solution keeps the last anchor
            steps, t_prev, t_cur = 0, 1.0, 1.0
        x = x_new
        u = A @ x
        trace["iterates"].append(x)
    return trace


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
