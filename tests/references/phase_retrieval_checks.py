"""Checks of the phase-retrieval reference (phase_retrieval.py: WF, TWF, RWF, AF, TAF, RAF, the
backtracking line search of WF, TWF and RWF, PhaseMax and PhaseLamp).

Run as a script: /usr/bin/python3 tests/references/phase_retrieval_checks.py (prints one line per
check with its measured figure, exits 1 if any check fails). Each test_*() raises AssertionError
on failure and returns a one-line note; CHECKS lists them in order (the same protocol as
polynomial_network_checks.py and fm_mcmc_checks.py, so test_references.py can import it).

Every problem is drawn from numpy.random.default_rng(seed), the seed stated in the check's
docstring: the truth x first, then the design A, then anything else (noise, a test point).

  test_gradients_finite_differences   wf, af and untruncated twf against their losses
  test_reductions                     taf at gamma = inf and raf at beta = 0 are af
  test_procrustes                     procrustes_error: k = 1, invariance, zero at Z = X O
  test_step_sizes                     the WF schedule and the constant steps
  test_fixed_point                    x and -x are fixed points of every variant (noise-free)
  test_planted_recovery               spectral start + each variant to sign-invariant error 1e-8
  test_start_conventions              phase_starts: eigenvector sign, selection ties, exact counts
  test_starts_correlation             the literature's starts: correlation with x at m/n = 2, 4, 6
  test_starts_scale                   the 'mean' and 'least_squares' norm estimates
  test_angle_start                    angle_start is at exactly the asked angle, with ||x||
  test_optimal_refuses                optimal_spectral refuses m <= n
  test_flows_from_paper_starts        taf, raf, twf from their own papers' starts to 1e-8
  test_gerchberg_saxton               GS is AF preconditioned by (A'A/m)^-1; recovery at m = 8n
  test_phasemax                       PhaseMax from the optimal spectral anchor at m = 3n, 4n
  test_frozen_losses                  rwf's g and twf's truncated g against their frozen losses
  test_line_search_rule               every accepted step: BB trial, cuts by 0.2, Armijo or 20 cuts
  test_line_search_recovery           wf + backtracking to 1e-8 in fewer iterations than wf
  test_rwf_recovery                   rwf (fixed schedule) to 1e-8 at n = 64, m = 6n
  test_phasemax_rounds                rounds = 1 is the old PhaseMax bit for bit; PhaseLamp's rounds

Recovery settings (n = 100, x ~ N(0, I_n) normalised, a_i ~ N(0, I_n), noise-free): wf at
m = 8n for 2500 iterations; twf, af, taf at m = 6n for 500; raf at m = 4n for 500 -- the settings
asked for, unchanged. RAF is the slowest per iteration at the truth: there every weight is
|u_i| / (|u_i| + beta |u_i|) = 1/(1 + beta) = 1/11, so its step 2 acts like a step 2/11 on the
amplitude loss, and m = 4n makes (1/m) A'A worse conditioned (smallest eigenvalue about
(1 - 1/2)^2); it still gets below 1e-8 inside the budget (about 320-390 iterations on seeds 0-2).

RWF and the line search (n = 64, m = 6n, spectral start, seeds 0-2): rwf on WF's schedule within
1500 iterations (about 310-470 here, like wf's), wf/twf/rwf with backtracking within 200 (about
28-80). After convergence (error ~1e-15) the line search runs on rounding noise: every BB
fallback to 1.5 x the previous step in test_line_search_rule comes from then.

Start settings (phase_starts.py; n = 200, x ~ N(0, I_n) normalised, noise-free, seeds 0-2): the
floor 0.7 at m = 6n is the one asked for and is tight for truncated_spectral (0.703 on seed 2:
its cut y_i <= 9 mean(y) drops only the 1-6 largest y_i here, the ones most aligned with x, and it
averages just below the plain start at 4n and 6n); optimal_spectral and orthogonality_promoting beat
the plain start at m = 4n on all three seeds.
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.dont_write_bytecode = True  # no __pycache__ left in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phase_retrieval as pr  # noqa: E402
import phase_starts as ps  # noqa: E402

FD_STEP = 1e-6
TOL_FD = 1e-6
TOL_FIXED = 1e-12
TOL_RECOVERY = 1e-8
N = 100
RECOVERY = [  # (variant, m / n, iterations)
    ("wf", 8, 2500),
    ("twf", 6, 500),
    ("af", 6, 500),
    ("taf", 6, 500),
    ("raf", 4, 500),
]
RECOVERY_SEEDS = (0, 1, 2)


def planted(seed, n, m, noise=0.0):
    """x ~ N(0, I_n) / ||.||, A (m x n) ~ N(0, 1), y = (A x)^2 (+ noise N(0, noise^2)), drawn in
    that order from default_rng(seed); returns (x, A, y, rng)."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(n)
    x /= np.linalg.norm(x)
    A = rng.standard_normal((m, n))
    y = (A @ x) ** 2
    if noise:
        y = y + noise * rng.standard_normal(m)
    return x, A, y, rng


def central_differences(f, z, h=FD_STEP):
    """(f(z + h e_j) - f(z - h e_j)) / (2h) for every j."""
    g = np.empty_like(z)
    for j in range(len(z)):
        e = np.zeros_like(z)
        e[j] = h
        g[j] = (f(z + e) - f(z - e)) / (2.0 * h)
    return g


def relative_gap(g, g_ref):
    """max_j |g_j - g_ref_j| / max_j |g_ref_j|."""
    return float(np.max(np.abs(g - g_ref)) / np.max(np.abs(g_ref)))


# --- 1. gradients against finite differences ------------------------------------------------------

def test_gradients_finite_differences():
    """wf's g against f(z) = (1/4m) sum (u^2 - y)^2; af's g against (1/2m) sum (|u| - psi)^2; twf's
    untruncated g (alpha_lb = 0, alpha_ub = alpha_h = inf) against (1/m) sum (u^2 - y log u^2).
    n = 12, m = 80, noisy y (noise sd 0.3, so some y_i < 0 and psi_i = 0), z ~ N(0, I_n) drawn
    after the noise; seed 5. Central differences, h = 1e-6; relative gap (max entry) <= 1e-6.
    The test point has min |u_i| > 1e-2, so neither |u| nor log u^2 has a kink within h."""
    x, A, y, rng = planted(5, 12, 80, noise=0.3)
    z = rng.standard_normal(12)
    u = A @ z
    assert np.min(np.abs(u)) > 1e-2, f"test point too close to a kink: min |u| {np.min(np.abs(u))}"
    assert np.any(y < 0), "the noisy y should exercise the clipping"
    untruncated = {"alpha_lb": 0.0, "alpha_ub": np.inf, "alpha_h": np.inf}
    cases = [
        ("wf", pr.gradient("wf", A, y, z), lambda w: pr.wf_loss(A, y, w)),
        ("af", pr.gradient("af", A, y, z), lambda w: pr.af_loss(A, y, w)),
        ("twf", pr.gradient("twf", A, y, z, untruncated), lambda w: pr.poisson_loss(A, y, w)),
    ]
    notes = []
    for name, g, f in cases:
        gap = relative_gap(g, central_differences(f, z))
        assert gap <= TOL_FD, f"{name}: relative gap {gap:.2e}"
        notes.append(f"{name} {gap:.1e}")
    # the default truncation does exclude some measurements at this z (so the rule is exercised)
    g_default = pr.gradient("twf", A, y, z)
    assert relative_gap(g_default, cases[2][1]) > 1e-3, "the default twf truncation removed nothing"
    return ("relative gaps " + ", ".join(notes)
            + f" ({len(y)} measurements, {int(np.sum(y < 0))} with y < 0)")


def test_reductions():
    """taf with gamma = inf keeps every measurement and raf with beta = 0 weighs every u_i != 0
    by 1: both must equal af's g (1e-15 relative). Same problem and z as the finite-difference check
    (seed 5); also z = 0 gives g = 0 for every variant (twf excludes all, the others vanish)."""
    x, A, y, rng = planted(5, 12, 80, noise=0.3)
    z = rng.standard_normal(12)
    g_af = pr.gradient("af", A, y, z)
    gap_taf = relative_gap(pr.gradient("taf", A, y, z, {"gamma": np.inf}), g_af)
    gap_raf = relative_gap(pr.gradient("raf", A, y, z, {"beta": 0.0}), g_af)
    assert gap_taf <= 1e-15 and gap_raf <= 1e-15, (gap_taf, gap_raf)
    for variant in pr.VARIANTS:
        g0 = pr.gradient(variant, A, y, np.zeros(12))
        assert np.all(np.isfinite(g0)) and np.all(g0 == 0), (variant, g0)
    return f"taf(gamma=inf) vs af {gap_taf:.1e}, raf(beta=0) vs af {gap_raf:.1e}; g(0) = 0 for all"


# --- 2. Procrustes error --------------------------------------------------------------------------

def test_procrustes():
    """k = 1: procrustes_error(z, x) == sign_invariant_error(z, x) for z near x and near -x
    (1e-12 absolute); k = 3 (d = 8): invariant to Z -> Z O for a random orthogonal O (QR of a
    Gaussian), 0 at Z = X O (1e-7: the sqrt of a cancellation), and a 2-column Z against a
    3-column X is padded. Seed 6."""
    rng = np.random.default_rng(6)
    x = rng.standard_normal(8)
    worst_k1 = 0.0
    for s in (1.0, -1.0):
        z = s * x + 0.3 * rng.standard_normal(8)
        a, b = pr.procrustes_error(z, x), pr.sign_invariant_error(z, x)
        assert abs(a - b) <= 1e-12, (s, a, b)
        worst_k1 = max(worst_k1, abs(a - b))
    X = rng.standard_normal((8, 3))
    Z = X + 0.2 * rng.standard_normal((8, 3))
    O = np.linalg.qr(rng.standard_normal((3, 3)))[0]
    e, e_rot = pr.procrustes_error(Z, X), pr.procrustes_error(Z @ O, X)
    assert abs(e - e_rot) <= 1e-12 and e > 0.05, (e, e_rot)
    zero = pr.procrustes_error(X @ O, X)
    assert zero <= 1e-7, zero
    # brute check of the closed form: the orthogonal Procrustes solution O* = U V' of X'Z = U S V'
    U, _, Vt = np.linalg.svd(X.T @ Z)
    direct = np.linalg.norm(Z - X @ (U @ Vt)) / np.linalg.norm(X)
    assert abs(direct - e) <= 1e-12, (direct, e)
    padded = pr.procrustes_error(Z[:, :2], X)
    explicit = pr.procrustes_error(np.hstack([Z[:, :2], np.zeros((8, 1))]), X)
    at_identity = np.sqrt(np.linalg.norm(Z[:, :2] - X[:, :2]) ** 2
                          + np.linalg.norm(X[:, 2]) ** 2) / np.linalg.norm(X)
    assert padded == explicit and padded <= at_identity + 1e-12, (padded, explicit, at_identity)
    return (f"k=1 gap {worst_k1:.1e}; k=3 error {e:.4f}, after Z O {e_rot:.4f}, "
            f"against U V' {abs(direct - e):.1e}; Z = X O gives {zero:.1e}")


# --- 3. step sizes --------------------------------------------------------------------------------

def test_step_sizes():
    """wf: step_size(t) = min(1 - exp(-t/330), 0.2) / ||z0||^2 (t = 1 the first step; the cap
    reached at t = 330 log(1/0.8) ~ 73.6); the others return DEFAULTS[v]["mu"]; a partial params
    dict overrides one constant; run() returns iters + 1 iterates, z_1 = step(z_0, t = 1)."""
    s1 = pr.step_size("wf", 1, 4.0)
    assert abs(s1 - (1.0 - np.exp(-1.0 / 330.0)) / 4.0) <= 1e-18, s1
    assert pr.step_size("wf", 73, 1.0) < 0.2 and pr.step_size("wf", 74, 1.0) == 0.2
    assert pr.step_size("wf", 10, 1.0, {"mu_max": 0.01}) == 0.01
    for v in ("twf", "af", "taf", "raf"):
        assert pr.step_size(v, 1, 123.0) == pr.DEFAULTS[v]["mu"], v
    x, A, y, rng = planted(7, 10, 60)
    z0 = rng.standard_normal(10)
    zs = pr.run("wf", A, y, z0, 3)
    assert len(zs) == 4 and np.array_equal(zs[0], z0)
    z1 = z0 - s1 * 4.0 / float(z0 @ z0) * pr.gradient("wf", A, y, z0)
    assert np.allclose(zs[1], z1, rtol=0, atol=1e-15), np.max(np.abs(zs[1] - z1))
    return f"wf mu_1 = {s1 * 4.0:.6f} (x 1/||z0||^2), cap from t = 74; run() length and z_1 agree"


# --- 4. fixed point -------------------------------------------------------------------------------

def test_fixed_point():
    """Noise-free, n = 100, m = 6n, seed 8: step(v, A, y, s x, t) for s = +1, -1, every variant,
    t = 1 and t = 500 (wf: z0_norm_sq = ||x||^2 = 1), returns s x within 1e-12 relative."""
    x, A, y, _ = planted(8, N, 6 * N)
    worst = 0.0
    for v in pr.VARIANTS:
        for s in (1.0, -1.0):
            for t in (1, 500):
                z = pr.step(v, A, y, s * x, t, 1.0)
                gap = float(np.linalg.norm(z - s * x) / np.linalg.norm(x))
                assert gap <= TOL_FIXED, (v, s, t, gap)
                worst = max(worst, gap)
    return f"largest relative move from +-x over {len(pr.VARIANTS)} variants: {worst:.1e}"


# --- 5. planted recovery --------------------------------------------------------------------------

def test_planted_recovery():
    """Spectral start (pr.spectral_start) then each variant with its DEFAULTS, n = 100, noise-free,
    seeds 0, 1, 2 (planted(seed, n, m), so twf, af, taf share a problem): wf m = 8n, 2500
    iterations; twf, af, taf m = 6n, 500; raf m = 4n, 500. Each must reach sign-invariant error
    < 1e-8; the note gives, per seed, the first iteration below 1e-8 and (for each m) the start's
    error, its correlation with x and its norm (||x|| = 1)."""
    lines, failures = [], []
    for seed in RECOVERY_SEEDS:
        starts, counts = {}, []
        for variant, ratio, iters in RECOVERY:
            x, A, y, _ = planted(seed, N, ratio * N)
            z0 = pr.spectral_start(A, y)
            starts[ratio] = (pr.sign_invariant_error(z0, x), pr.correlation(z0, x),
                             float(np.linalg.norm(z0)))
            errors = [pr.sign_invariant_error(z, x) for z in pr.run(variant, A, y, z0, iters)]
            first = next((t for t, e in enumerate(errors) if e < TOL_RECOVERY), None)
            if first is None:
                failures.append(f"seed {seed} {variant}: {errors[-1]:.2e} after {iters} "
                                f"(start error {errors[0]:.3f})")
            counts.append(f"{variant} {first if first is not None else 'not reached'}")
        start_txt = ", ".join(f"m={r}n start err {e:.3f} corr {c:.3f} |z0| {nz:.3f}"
                              for r, (e, c, nz) in sorted(starts.items()))
        lines.append(f"seed {seed}: " + ", ".join(counts) + f" [{start_txt}]")
    note = "iterations to 1e-8 -- " + "; ".join(lines)
    assert not failures, "; ".join(failures) + " || " + note
    return note


# --- 6. the literature's starts (phase_starts.py) ------------------------------------------------

START_N = 200
START_RATIOS = (2, 4, 6)
START_SEEDS = (0, 1, 2)
START_FLOOR = 0.7  # every start's correlation at m = 6n
START_ORDER = ("plain_spectral", "truncated_spectral", "orthogonality_promoting",
               "weighted_correlation", "optimal_spectral", "null_vector")
START_SHORT = {"plain_spectral": "plain", "truncated_spectral": "trunc",
               "orthogonality_promoting": "orth", "weighted_correlation": "wmc",
               "optimal_spectral": "opt", "null_vector": "null"}


def test_start_conventions():
    """The conventions the C++ starts must share: sign_fixed makes the entry of largest |value|
    positive, the first one on an exact tie ((-0.5, 0.5, 0.1) -> (0.5, -0.5, -0.1); (0.5, -0.5)
    kept); top_eigenvector and bottom_eigenvector return w = (0.8, -0.6, 0) sign-fixed from
    matrices built around -w; the K largest / smallest break ties to the smaller index; counts are
    exact (ceil(0.1 * 30) = 3, ceil(96/6) = 16, floor(3 * 800/13) = 184) and at least 1."""
    tie = ps.sign_fixed(np.array([-0.5, 0.5, 0.1]))
    assert np.array_equal(tie, [0.5, -0.5, -0.1]), tie
    kept = ps.sign_fixed(np.array([0.5, -0.5]))
    assert np.array_equal(kept, [0.5, -0.5]), kept
    w = np.array([-0.8, 0.6, 0.0])
    top = ps.top_eigenvector(np.eye(3) + np.outer(w, w))              # eigenvalues 2, 1, 1
    bottom = ps.bottom_eigenvector(np.eye(3) - 2.0 * np.outer(w, w))  # eigenvalues -1, 1, 1
    gap = max(np.max(np.abs(top + w)), np.max(np.abs(bottom + w)))
    assert gap <= 1e-14, (top, bottom)
    c = np.array([1.0, 3.0, 3.0, 0.0, 3.0, 0.0])
    assert list(ps.largest(c, 3)) == [1, 2, 4] and list(ps.largest(c, 2)) == [1, 2]
    assert list(ps.smallest(c, 2)) == [3, 5] and list(ps.smallest(c, 3)) == [3, 5, 0]
    counts = (ps.count(0.1, 30, "ceil"), ps.count(1 / 6, 96, "ceil"),
              ps.count(3 / 13, 800, "floor"), ps.count(3 / 13, 4, "floor"))
    assert counts == (3, 16, 184, 1), counts
    return (f"sign fix (first entry on an exact tie); top/bottom eigenvectors (0.8, -0.6, 0) "
            f"({gap:.0e}); ties to the smaller index; counts {counts}")


def test_starts_correlation():
    """Correlation with x of each start (plain spectral T = y, truncated_spectral,
    orthogonality_promoting, weighted_correlation, optimal_spectral, null_vector; all at their
    defaults), n = 200, noise-free, planted(seed, n, ratio n) for seeds 0, 1, 2 and m/n = 2, 4, 6.
    At m = 6n every start must reach correlation >= 0.7; at m = 4n optimal_spectral and
    orthogonality_promoting must each be >= the plain spectral start on at least 2 of the 3 seeds
    (the papers' claim that their starts beat the plain one). The note is the table of means over
    the seeds (and, at 4n, how many seeds each beat plain on)."""
    corr = {}  # (ratio, name) -> [per seed]
    for ratio in START_RATIOS:
        for seed in START_SEEDS:
            x, A, y, _ = planted(seed, START_N, ratio * START_N)
            for name in START_ORDER:
                corr.setdefault((ratio, name), []).append(
                    ps.correlation(ps.STARTS[name](A, y), x))
    failures = []
    for name in START_ORDER:
        worst = min(corr[(6, name)])
        if worst < START_FLOOR:
            failures.append(f"{name} at 6n: {worst:.3f} < {START_FLOOR}")
    wins = {}
    for name in ("optimal_spectral", "orthogonality_promoting"):
        wins[name] = sum(c >= p for c, p in zip(corr[(4, name)], corr[(4, "plain_spectral")]))
        if wins[name] < 2:
            failures.append(f"{name} at 4n beats plain on {wins[name]} of 3 seeds")
    rows = []
    for ratio in START_RATIOS:
        cells = " ".join(f"{START_SHORT[name]} {np.mean(corr[(ratio, name)]):.3f}"
                         for name in START_ORDER)
        rows.append(f"m={ratio}n: {cells}")
    worst6 = min(min(corr[(6, name)]) for name in START_ORDER)
    note = ("mean correlation over seeds 0-2 (n = 200) -- " + "; ".join(rows)
            + f" | lowest at 6n {worst6:.3f}; at 4n opt beats plain on {wins['optimal_spectral']}/3"
            + f" seeds, orth on {wins['orthogonality_promoting']}/3")
    assert not failures, "; ".join(failures) + " || " + note
    return note


def test_starts_scale():
    """n = 50, m = 6n, seed 3. 'mean' (noise-free): ||z0|| = sqrt(mean(y)) within 1e-12 relative
    for every start; with noise (sd 0.3, some y < 0) it is sqrt(mean(max(y, 0))).
    'least_squares': the same direction (z0/||z0|| equal within 1e-12), s equal to
    np.linalg.lstsq's fit of psi on |A v| (1e-12 relative), and s (1 +- 1e-6) both give a larger
    residual || s |A v| - psi ||."""
    x, A, y, _ = planted(3, 50, 300)
    _, _, y_noisy, _ = planted(3, 50, 300, noise=0.3)
    assert np.any(y_noisy < 0)
    psi = pr.amplitudes(y)
    worst_mean = worst_dir = worst_lstsq = 0.0
    smallest_rise = np.inf
    for name in START_ORDER:
        f = ps.STARTS[name]
        z = f(A, y)
        worst_mean = max(worst_mean, abs(np.linalg.norm(z) / np.sqrt(np.mean(y)) - 1.0))
        zn = f(A, y_noisy)
        target = np.sqrt(np.mean(np.maximum(y_noisy, 0.0)))
        worst_mean = max(worst_mean, abs(np.linalg.norm(zn) / target - 1.0))
        z_ls = f(A, y, scale_kind="least_squares")
        v = z / np.linalg.norm(z)
        s = float(np.linalg.norm(z_ls))
        worst_dir = max(worst_dir, float(np.linalg.norm(z_ls / s - v)))
        w = np.abs(A @ v)
        s_fit = float(np.linalg.lstsq(w[:, None], psi, rcond=None)[0][0])
        worst_lstsq = max(worst_lstsq, abs(s / s_fit - 1.0))
        r0 = float(np.linalg.norm(s * w - psi))
        for factor in (1.0 - 1e-6, 1.0 + 1e-6):
            rise = float(np.linalg.norm(factor * s * w - psi)) - r0
            assert rise > 0.0, (name, factor, rise)
            smallest_rise = min(smallest_rise, rise / r0)
    assert worst_mean <= 1e-12 and worst_dir <= 1e-12 and worst_lstsq <= 1e-12, (
        worst_mean, worst_dir, worst_lstsq)
    return (f"'mean' norm gap {worst_mean:.1e}; 'least_squares' direction gap {worst_dir:.1e}, "
            f"against lstsq {worst_lstsq:.1e}, residual up by >= {smallest_rise:.1e} (relative) "
            f"at s (1 +- 1e-6), over the 6 starts")


def test_angle_start():
    """x ~ N(0, I_n) * 3 (not unit), n = 200, default_rng(9): for angle 0, 0.3, 1.2, pi/2,
    correlation(angle_start(x, angle, rng), x) = cos(angle) within 1e-12 and ||z0|| = ||x||
    within 1e-12 relative."""
    rng = np.random.default_rng(9)
    x = 3.0 * rng.standard_normal(200)
    worst_c = worst_n = 0.0
    for angle in (0.0, 0.3, 1.2, np.pi / 2):
        z = ps.angle_start(x, angle, rng)
        worst_c = max(worst_c, abs(ps.correlation(z, x) - np.cos(angle)))
        worst_n = max(worst_n, abs(np.linalg.norm(z) / np.linalg.norm(x) - 1.0))
    assert worst_c <= 1e-12 and worst_n <= 1e-12, (worst_c, worst_n)
    return f"|correlation - cos| {worst_c:.1e}, norm gap {worst_n:.1e} over 4 angles"


def test_optimal_refuses():
    """optimal_spectral raises ValueError at m = n (and m < n): its weights
    (ybar - 1)/(ybar + sqrt(delta) - 1) have a pole at ybar = 1 - sqrt(delta) >= 0; at m = n + 1
    it returns a start. n = 40, seed 10."""
    for m in (40, 30):
        _, A, y, _ = planted(10, 40, m)
        try:
            ps.optimal_spectral(A, y)
        except ValueError:
            continue
        raise AssertionError(f"optimal_spectral accepted m = {m}, n = 40")
    _, A, y, _ = planted(10, 40, 41)
    z = ps.optimal_spectral(A, y)
    assert np.all(np.isfinite(z)) and np.linalg.norm(z) > 0
    return "ValueError at m = n and m < n (n = 40); m = n + 1 accepted"


FLOW_STARTS = [("taf", "orthogonality_promoting"), ("raf", "weighted_correlation"),
               ("twf", "truncated_spectral")]
FLOW_ITERS = 1000


def test_flows_from_paper_starts():
    """Each flow from its own paper's start (scale 'mean'), default constants, n = 200, m = 4n,
    noise-free, planted(0, n, m): taf from orthogonality_promoting, raf from weighted_correlation,
    twf from truncated_spectral, 1000 iterations each; the final sign-invariant error must be
    < 1e-8. The note gives the start's correlation, the first iteration below 1e-8 and the final
    error."""
    x, A, y, _ = planted(0, START_N, 4 * START_N)
    notes, failures = [], []
    for variant, start in FLOW_STARTS:
        z0 = ps.STARTS[start](A, y)
        errors = [pr.sign_invariant_error(z, x) for z in pr.run(variant, A, y, z0, FLOW_ITERS)]
        first = next((t for t, e in enumerate(errors) if e < TOL_RECOVERY), None)
        if not errors[-1] < TOL_RECOVERY:
            failures.append(f"{variant}: {errors[-1]:.2e} after {FLOW_ITERS}")
        notes.append(f"{variant} from {start} (corr {ps.correlation(z0, x):.3f}): below 1e-8 at "
                     f"{first if first is not None else 'never'}, final {errors[-1]:.1e}")
    note = "; ".join(notes)
    assert not failures, "; ".join(failures) + " || " + note
    return note


def test_gerchberg_saxton():
    """GS's projection is amplitude flow's direction preconditioned by (A'A/m)^-1 at step 1 (to rounding), has
    +-x as fixed points, and recovers a planted signal at m = 8n from the moment spectral start."""
    x, A, y, _ = planted(4, 100, 800)
    z = pr.spectral_start(A, y)
    m = A.shape[0]
    preconditioned = z - np.linalg.solve(A.T @ A / m, pr.gradient("af", A, y, z))
    gap = np.linalg.norm(pr.step("gs", A, y, z, 1, 1.0) - preconditioned) / np.linalg.norm(preconditioned)
    assert gap <= 1e-12, gap
    moves = [np.linalg.norm(pr.step("gs", A, y, s * x, 1, 1.0) - s * x) / np.linalg.norm(x) for s in (1.0, -1.0)]
    assert max(moves) <= 1e-12, moves
    iterates = pr.run("gs", A, y, z, 30)
    errors = [pr.sign_invariant_error(w, x) for w in iterates]
    first = next((t for t, e in enumerate(errors) if e < 1e-8), None)
    assert first is not None, errors[-1]
    return (f"projection vs preconditioned AF step {gap:.1e}; fixed points {max(moves):.1e}; from the spectral start "
            f"(error {errors[0]:.2f}) below 1e-8 at iteration {first} (n = 100, m = 8n)")


def test_phasemax():
    """PhaseMax by penalty continuation recovers planted signals from the optimal spectral anchor at m = 3n and
    4n (n = 100) within 2500 steps, its solution feasible to within the last penalty's 1/rho."""
    notes = []
    for mr in (3, 4):
        x, A, y, _ = planted(5, 100, mr * 100)
        anchor = ps.optimal_spectral(A, y)
        iterates = pr.phasemax(A, y, anchor, 2500)
        z = iterates[-1]
        error = pr.sign_invariant_error(z, x)
        excess = np.max(np.abs(A @ z) - pr.amplitudes(y)) / np.sqrt(np.mean(y))
        assert error < 1e-5 and excess < 1e-5, (mr, error, excess)
        notes.append(f"m = {mr}n: anchor correlation {pr.correlation(anchor, x):.2f}, error {error:.1e}, "
                     f"largest constraint excess {excess:.1e}")
    return "; ".join(notes)


# --- 8. RWF, the frozen losses and the backtracking line search ----------------------------------

def test_frozen_losses():
    """The line search's losses (pr.frozen_loss) have the variants' gradients at the point they are
    frozen at. Same problem and z as the finite-difference check (seed 5: n = 12, m = 80, noisy y):
    rwf's g against f(z') = (1/(4S)) sum w_i (u'_i^2 - y_i)^2, w and S at z (pr.rwf_loss, and
    frozen_loss("rwf") the same numbers); twf's truncated g (default constants, and the line
    search's alpha_lb = 0.1, alpha_h = 6) against (1/m) sum_{K} (u'^2 - y log u'^2), K kept at z;
    central differences, h = 1e-6, relative gap <= 1e-6; rwf's weights must vary (g differs from
    wf's by > 1e-3). Edge cases of the twf loss (untruncated, one row of A made e_1): a y_i = 0
    term is u'^2 (0 log 0 = 0), a u'_1 = 0 with y_1 != 0 gives +inf, and with nothing kept (z = 0)
    f = 0."""
    x, A, y, rng = planted(5, 12, 80, noise=0.3)
    z = rng.standard_normal(12)
    g_rwf = pr.gradient("rwf", A, y, z)
    gap_rwf = relative_gap(g_rwf, central_differences(lambda w: pr.rwf_loss(A, y, w, z), z))
    assert gap_rwf <= TOL_FD, f"rwf: relative gap {gap_rwf:.2e}"
    frozen = pr.frozen_loss("rwf", A, y, z)
    other = z + 0.1 * rng.standard_normal(12)
    for w in (z, other):
        assert abs(frozen(w) - pr.rwf_loss(A, y, w, z)) <= 1e-15 * abs(frozen(w)), w
    weights = pr.rwf_weights(A @ z, y, pr.DEFAULTS["rwf"]["eta"])
    assert relative_gap(g_rwf, pr.gradient("wf", A, y, z)) > 1e-3, "rwf's weights changed nothing"
    notes = [f"rwf {gap_rwf:.1e} (weights {weights.min():.3f}..{weights.max():.3f})"]
    for label, params in (("twf", None), ("twf line-search constants", {"line_search": "backtracking"})):
        g = pr.gradient("twf", A, y, z, params)
        gap = relative_gap(g, central_differences(pr.frozen_loss("twf", A, y, z, params), z))
        assert gap <= TOL_FD, f"{label}: relative gap {gap:.2e}"
        notes.append(f"{label} {gap:.1e}")
    g_twf_ls = pr.gradient("twf", A, y, z, {"line_search": "backtracking"})
    assert relative_gap(pr.gradient("twf", A, y, z), g_twf_ls) > 1e-3, "the line-search constants changed nothing"
    wf_frozen = pr.frozen_loss("wf", A, y, z)
    assert wf_frozen(other) == pr.wf_loss(A, y, other)
    # edge cases of the frozen twf loss
    untruncated = {"alpha_lb": 0.0, "alpha_ub": np.inf, "alpha_h": np.inf}
    A1 = A.copy()
    A1[0] = 0.0
    A1[0, 0] = 1.0
    y1 = y.copy()
    y1[[0, 3]] = 0.0
    f1 = pr.frozen_loss("twf", A1, y1, z, untruncated)  # every u_i != 0 at z: all kept
    u2 = (A1 @ other) ** 2
    by_hand = (float(np.sum(u2)) - float(np.sum((y1 * np.log(u2))[y1 != 0]))) / len(y1)
    assert abs(f1(other) - by_hand) <= 1e-13 * abs(by_hand), (f1(other), by_hand)
    on_zero = other.copy()
    on_zero[0] = 0.0  # u'_0 = 0 exactly, y_0 = 0: finite
    assert np.isfinite(f1(on_zero))
    y1[0] = 0.5
    f2 = pr.frozen_loss("twf", A1, y1, z, untruncated)
    assert f2(on_zero) == np.inf and np.isfinite(f2(other))
    f_empty = pr.frozen_loss("twf", A, y, np.zeros(12))
    assert f_empty(other) == 0.0
    return ("central differences of the frozen losses: " + ", ".join(notes)
            + "; twf edge cases (0 log 0 = 0, u' = 0 with y != 0 is +inf, empty K is 0) hold")


LS_N = 64
LS_RATIO = 6
LS_ITERS = 200
LS_SEEDS = (0, 1, 2)
BACKTRACKING = {"line_search": "backtracking"}


def _bb_trial(dx, dg, previous):
    """The Barzilai-Borwein trial of the line search, written again from the specification."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        s = np.float64(np.dot(dx, dg))
        tau_s = np.float64(np.dot(dx, dx)) / s
        tau_m = np.float64(s / np.float64(np.dot(dg, dg)))
        if tau_m < 0.0:
            tau_m = np.float64(0.0)
        tau = tau_m if 2.0 * tau_m > tau_s else tau_s - tau_m / 2.0
    return float(tau) if np.isfinite(tau) and tau > 0.0 else 1.5 * previous


def test_line_search_rule():
    """Backtracking (params {"line_search": "backtracking"}) for wf, twf and rwf on planted(0, 64,
    6 * 64) from the spectral start, 200 iterations each, replayed step by step with the module's
    gradient and frozen_loss: the trial is mu_max/||z0||^2 (wf, rwf) or mu (twf) at t = 1 and the
    BB rule (recomputed here; 1e-12 relative) after; the accepted step is the trial times 0.2^k
    (k = record["shrinks"]), every earlier trial fails Armijo f(z - tau g) <= f0 - 0.1 tau ||g||^2,
    the accepted one passes it unless k = 20, and z_{t+1} = z - tau g exactly. twf's replay uses
    alpha_lb = 0.1, alpha_h = 6 given explicitly (the line search's defaults), and an explicit
    alpha_lb wins. run() returns run_with_steps()'s iterates; "af" with backtracking is refused."""
    x, A, y, _ = planted(0, LS_N, LS_RATIO * LS_N)
    z0 = pr.spectral_start(A, y)
    z0_norm_sq = float(z0 @ z0)
    # twf's constants under the line search: the unset ones change, a given one wins
    g_ls = pr.gradient("twf", A, y, z0, BACKTRACKING)
    assert np.array_equal(g_ls, pr.gradient("twf", A, y, z0, {"alpha_lb": 0.1, "alpha_h": 6.0}))
    assert np.array_equal(pr.gradient("twf", A, y, z0, {"line_search": "backtracking", "alpha_lb": 0.3}),
                          pr.gradient("twf", A, y, z0, {"alpha_lb": 0.3, "alpha_h": 6.0}))
    replay_params = {"wf": {}, "rwf": {}, "twf": {"alpha_lb": 0.1, "alpha_h": 6.0}}
    notes = []
    for variant in pr.LINE_SEARCH_VARIANTS:
        record = {}
        zs, steps = pr.run_with_steps(variant, A, y, z0, LS_ITERS, BACKTRACKING, record)
        assert len(zs) == LS_ITERS + 1 and len(steps) == LS_ITERS and len(record["shrinks"]) == LS_ITERS
        assert all(np.array_equal(a, b) for a, b in zip(zs, pr.run(variant, A, y, z0, LS_ITERS, BACKTRACKING)))
        p = replay_params[variant]
        armijo = shrunk = fallback = cut = restarts = 0
        first_fallback = None
        g_prev = None
        for t in range(LS_ITERS):
            z, tau, trial, k = zs[t], steps[t], record["trial"][t], record["shrinks"][t]
            g = pr.gradient(variant, A, y, z, p)
            f = pr.frozen_loss(variant, A, y, z, p)
            f0, g_sq = f(z), float(g @ g)
            first = 0.2 / z0_norm_sq if variant in ("wf", "rwf") else 0.2
            if t == 0:
                assert trial == first, (variant, trial, first)
            else:
                expected = _bb_trial(z - zs[t - 1], g - g_prev, steps[t - 1])
                if abs(trial - expected) > 1e-12 * expected:  # the search fell back to the first trial
                    assert trial == first, (variant, t, trial, expected, first)
                    tried = expected
                    for _ in range(20):  # only after all 20 tests of the BB step failed
                        assert not f(z - tried * g) <= f0 - 0.1 * tried * g_sq, (variant, t, tried)
                        tried *= 0.2
                    restarts += 1
                if expected == 1.5 * steps[t - 1]:
                    fallback += 1
                    first_fallback = first_fallback or t + 1
            assert 0 <= k <= 20, (variant, t, k)
            tried = trial
            for _ in range(k):  # every cut followed a failed test
                assert not f(z - tried * g) <= f0 - 0.1 * tried * g_sq, (variant, t, tried)
                tried *= 0.2
            assert tau == tried, (variant, t, tau, tried)
            if k < 20:
                assert f(z - tau * g) <= f0 - 0.1 * tau * g_sq, (variant, t, tau)
                armijo += 1
            else:
                shrunk += 1
            cut += k > 0
            assert np.array_equal(zs[t + 1], z - tau * g), (variant, t)
            g_prev = g
        notes.append(f"{variant}: {armijo} steps pass Armijo ({cut} after cuts), {shrunk} taken after 20 "
                     f"cuts, {restarts} searches restarted from the first trial, {fallback} BB fallbacks to 1.5 x "
                     f"(the first at t = {first_fallback})")
    try:
        pr.run("af", A, y, z0, 2, BACKTRACKING)
    except ValueError:
        pass
    else:
        raise AssertionError("af accepted the line search")
    return "; ".join(notes) + " (n = 64, m = 6n, 200 iterations)"


def _first_below(iterates, x, tol=TOL_RECOVERY):
    return next((t for t, z in enumerate(iterates) if pr.sign_invariant_error(z, x) < tol), None)


def test_line_search_recovery():
    """planted(seed, 64, 6 * 64), seeds 0, 1, 2, spectral start: wf with backtracking must reach
    sign-invariant error < 1e-8 within 200 iterations, and sooner than plain wf (its schedule,
    up to 1500 iterations); twf and rwf with backtracking must also reach it within 200. The note
    gives the first iteration below 1e-8 of each."""
    lines, failures = [], []
    for seed in LS_SEEDS:
        x, A, y, _ = planted(seed, LS_N, LS_RATIO * LS_N)
        z0 = pr.spectral_start(A, y)
        plain = _first_below(pr.run("wf", A, y, z0, 1500), x)
        counts = {v: _first_below(pr.run(v, A, y, z0, LS_ITERS, BACKTRACKING), x)
                  for v in pr.LINE_SEARCH_VARIANTS}
        if plain is None or counts["wf"] is None or not counts["wf"] < plain:
            failures.append(f"seed {seed}: wf + backtracking {counts['wf']}, plain wf {plain}")
        failures += [f"seed {seed}: {v} + backtracking not below 1e-8 in {LS_ITERS}"
                     for v, c in counts.items() if c is None]
        lines.append(f"seed {seed}: wf {plain}, wf+bt {counts['wf']}, twf+bt {counts['twf']}, "
                     f"rwf+bt {counts['rwf']}")
    note = "iterations to 1e-8 (n = 64, m = 6n) -- " + "; ".join(lines)
    assert not failures, "; ".join(failures) + " || " + note
    return note


def test_rwf_recovery():
    """rwf with its defaults (eta = 0.9, WF's schedule, no line search) from the spectral start,
    planted(seed, 64, 6 * 64), seeds 0, 1, 2: sign-invariant error < 1e-8 within 1500 iterations."""
    counts, failures = [], []
    for seed in LS_SEEDS:
        x, A, y, _ = planted(seed, LS_N, LS_RATIO * LS_N)
        iterates = pr.run("rwf", A, y, pr.spectral_start(A, y), 1500)
        first = _first_below(iterates, x)
        if first is None:
            failures.append(f"seed {seed}: {pr.sign_invariant_error(iterates[-1], x):.1e} after 1500")
        counts.append(f"seed {seed} {first}")
    note = "rwf iterations to 1e-8 (n = 64, m = 6n): " + ", ".join(counts)
    assert not failures, "; ".join(failures) + " || " + note
    return note


# --- 9. PhaseLamp -------------------------------------------------------------------------------

def _boundaries(labels):
    """Indices t (0-based steps) where labels[t] != labels[t - 1]."""
    return [t for t in range(1, len(labels)) if labels[t] != labels[t - 1]]


def test_phasemax_rounds():
    """planted(11, 64, 3 * 64), spectral-start anchor. rounds = 1 given and left unset are the same
    run, one round whose anchor never moves, on the defaults (1200 steps: stages end on the step
    count) and on stages 5, stage_iterations 80, stage_tolerance 1e-5 (some stages end on the
    tolerance); its "measures" flags are True exactly in the last stage. (When the option was added,
    rounds = 1 was checked bit for bit against the code before it.) rounds = 3 (stages 4, stage_iterations
    150, 2100 steps): the round index steps 0 -> 1 -> 2; at each round's first step the stage is 0
    and the anchor is the previous iterate normalised (the last round's solution, exactly); the
    steps before the first round boundary are the rounds = 1 run's, and from a boundary on the run
    is a fresh phasemax started (and anchored) at that iterate with one round fewer, bit for bit;
    "measures" is True exactly in the last stage of round 3."""
    x, A, y, _ = planted(11, 64, 3 * 64)
    anchor = pr.spectral_start(A, y)
    tol_ends = 0
    for params, iters in (({}, 1200), ({"stages": 5, "stage_iterations": 80, "stage_tolerance": 1e-5}, 600)):
        unset = pr.phasemax(A, y, anchor, iters, params)
        one = pr.phasemax(A, y, anchor, iters, dict(params, rounds=1))
        assert len(one) == len(unset) and all(np.array_equal(a, b) for a, b in zip(one, unset)), params
        trace = pr.phasemax_trace(A, y, anchor, iters, params)
        assert set(trace["round"]) == {0}
        c0 = anchor / np.linalg.norm(anchor)
        assert all(np.array_equal(c, c0) for c in trace["anchor"])  # PhaseMax never re-anchors
        stages = params.get("stages", 8)
        assert trace["measures"] == [s == stages - 1 for s in trace["stage"]]
        ends = [0] + _boundaries(trace["stage"])
        tol_ends += sum(b - a < params.get("stage_iterations", 500) for a, b in zip(ends, ends[1:]))
    assert tol_ends > 0, "no stage ended on the tolerance"
    params = {"stages": 4, "stage_iterations": 150, "rounds": 3}
    iters = 2100
    trace = pr.phasemax_trace(A, y, anchor, iters, params)
    its, rounds = trace["iterates"], trace["round"]
    starts = _boundaries(rounds)
    assert len(starts) == 2 and [rounds[0]] + [rounds[b] for b in starts] == [0, 1, 2], starts
    c0 = anchor / np.linalg.norm(anchor)
    assert all(np.array_equal(c, c0) for c in trace["anchor"][:starts[0]])
    for b, end in zip(starts, starts[1:] + [iters]):
        assert trace["stage"][b] == 0
        expected = its[b] / np.linalg.norm(its[b])  # the previous round's solution, normalised
        assert all(np.array_equal(c, expected) for c in trace["anchor"][b:end]), b
    single = pr.phasemax(A, y, anchor, starts[0], {"stages": 4, "stage_iterations": 150})
    assert all(np.array_equal(a, b) for a, b in zip(its[:starts[0] + 1], single))
    fresh = pr.phasemax_trace(A, y, its[starts[0]], iters - starts[0], dict(params, rounds=2))
    assert all(np.array_equal(a, b) for a, b in zip(its[starts[0]:], fresh["iterates"]))
    assert trace["round"][starts[0]:] == [r + 1 for r in fresh["round"]]
    assert trace["measures"] == [r == 2 and s == 3 for r, s in zip(rounds, trace["stage"])]
    assert trace["measures"][-1] and not any(trace["measures"][:starts[1]])
    errors = [pr.sign_invariant_error(its[t], x) for t in starts + [iters]]
    return (f"rounds = 1 is one round with a fixed anchor ({tol_ends} stages ended on the tolerance); "
            f"rounds = 3: rounds start at steps {starts}, anchor = last round's solution normalised, "
            f"measuring steps {sum(trace['measures'])}; error at the round ends "
            + ", ".join(f"{e:.1e}" for e in errors))


CHECKS = [test_gradients_finite_differences, test_reductions, test_procrustes, test_step_sizes,
          test_fixed_point, test_planted_recovery, test_start_conventions, test_starts_correlation,
          test_starts_scale, test_angle_start, test_optimal_refuses, test_flows_from_paper_starts,
          test_gerchberg_saxton, test_phasemax, test_frozen_losses, test_line_search_rule,
          test_line_search_recovery, test_rwf_recovery, test_phasemax_rounds]


if __name__ == "__main__":
    import test_references  # the shared runner (it imports this module for its own list)
    sys.exit(test_references.run(CHECKS))
