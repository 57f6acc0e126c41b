"""Data-driven starts for real phase retrieval: the plain spectral start, the truncated spectral
start (TWF), the orthogonality-promoting start (TAF), the weighted maximal correlation start (RAF),
the optimal spectral start, the null-vector start; and a start at a given angle from the truth.

Measurements y_i = (a_i' x)^2 (+ noise), i = 1..m, a_i in R^n the rows of A; psi_i = sqrt(max(y_i,
0)); delta = m/n. Every data-driven start is

    Y = (1/m) sum_i T_i a_i a_i' = A' diag(T) A / m,      z_0 = s v,

v a unit eigenvector of Y (the top one, of the largest ALGEBRAIC eigenvalue, except for the null
start, which takes the bottom one), sign-fixed so that its entry of largest |value| is positive (the
first such entry on a tie), and s a scale:

  'mean'           s = sqrt(mean(max(y, 0))): the papers' norm estimate, ||x||^2 = E[y] for
                   a ~ N(0, I_n). (WF and TWF multiply it by sqrt(m n / sum_i ||a_i||^2), which
                   is 1 + O(1/sqrt(mn)) for Gaussian rows; it is left out here.)
  'least_squares'  s = (|A v|' psi) / (|A v|' |A v|), the minimiser of || s |A v| - psi ||: the
                   rescaling of PhasePack (Chandra, Zhong, Hontz, McCulloch, Studer & Goldstein
                   2017, "PhasePack: a phase retrieval library") for its amplitude-flow starts,
                   here always over all m measurements. (PhasePack's null start fits only on the
                   measurements it did not select; its spectral and optimal spectral starts use
                   || |Av| psi || / || |Av|^2 || instead, which is not this minimiser.)

Selection: "the K largest c_i" sorts the indices by c_i descending, ties to the smaller index, and
takes the first K; "the K smallest" sorts ascending, ties to the smaller index. A count
K = ceil(f m) or floor(f m) is computed in exact rationals, with f read as the nearest fraction of
denominator <= 10^6 (so 0.1 * 30 is exactly 3, not ceil(3.0000000000000004) = 4), then clamped to
[1, m]. The factor m/K in T below only rescales Y; it does not move v.

  plain_spectral         T_i = y_i.
                         Candes, Li & Soltanolkotabi 2015, "Phase retrieval via Wirtinger flow:
                         theory and algorithms", IEEE T-IT, Algorithm 1 (the start).
  truncated_spectral     T_i = y_i [ |y_i| <= alpha_y^2 mean(y) ],  alpha_y = 3, mean(y) over all
                         y_i, unclipped (the paper's lambda_0^2 = (1/m) sum_i y_i).
                         Chen & Candes 2015, "Solving random quadratic systems of equations is
                         nearly as easy as solving linear systems", Algorithm 1 (the start).
  orthogonality_promoting
                         K = ceil(m/6); S = the K largest psi_i / ||a_i||;
                         T_i = [i in S] (m/K) / ||a_i||^2, i.e. Y = (1/K) sum_{i in S} a_i a_i' /
                         ||a_i||^2, top eigenvector: the rows most aligned with x (their complement
                         is the nearly orthogonal set the paper's derivation starts from).
                         Wang, Giannakis & Eldar 2018, "Solving systems of random quadratic
                         equations via truncated amplitude flow", IEEE T-IT, Algorithm 1 (the
                         start; |S| about m/6, the paper's default; the authors' code keeps
                         the psi_i/||a_i|| at or above the round(5m/6)-th smallest: the same
                         count or one more, 201 against 200 at m = 1200; PhasePack ranks psi_i
                         and does not normalise the rows).
  weighted_correlation   K = floor(3m/13) (at least 1); S = the K largest y_i;
                         T_i = [i in S] psi_i^gamma (m/K), gamma = 1/2: Y = (1/K) sum_{i in S}
                         psi_i^gamma a_i a_i', rows NOT normalised, as in the authors' published
                         code for the weighted maximal correlation start of Wang, Giannakis, Saad
                         & Chen 2018, "Phase retrieval via reweighted amplitude flow", IEEE T-SP,
                         Algorithm 1 (K = floor(3m/13) is PhasePack's count; the authors' code
                         keeps the y_i at or above the round(m/1.3)-th smallest: 186 at m = 800,
                         against 184 here).
  optimal_spectral       ybar_i = max(y_i, 0) / mean(y);
                         T_i = mean(y) (ybar_i - 1) / (ybar_i + sqrt(delta) - 1),
                         negative for ybar_i < 1 (hence the algebraic top eigenvector); needs
                         delta > 1 so the denominator stays positive at ybar_i = 0.
                         Mondelli & Montanari 2017, "Fundamental limits of weak recovery with
                         applications to phase retrieval" (the preprocessing T*_delta, written for
                         E[y] = 1; y is divided by its mean first and T multiplied back, as
                         PhasePack does); Luo, Alghamdi & Lu 2019, "Optimal spectral initialization
                         for signal recovery with applications to phase retrieval", IEEE T-SP, for
                         its optimality in correlation at every delta (not re-derived here).
  null_vector            K = ceil(m/2); I = the K smallest psi_i; T_i = [i in I] (m/K);
                         v = the BOTTOM eigenvector: the direction most orthogonal to the rows
                         with the smallest measurements.
                         Chen, Fannjiang & Liu 2017, "Phase retrieval with one or two diffraction
                         patterns by alternating projections with the null initialization",
                         Algorithm 1 (the null vector), in PhasePack's form (fraction 1/2,
                         smallest eigenvector of the selected rows' Gram matrix; PhasePack's own
                         count is m - round(m/2) + 1).

angle_start(x, angle, rng): u a standard normal vector with its x-component removed, normalised;
z_0 = ||x|| (cos(angle) x/||x|| + sin(angle) u), so correlation(z_0, x) = |cos(angle)| and
||z_0|| = ||x|| -- a start of known quality, for sweeps over the start's angle.

correlation(z, x) = |z'x| / (||z|| ||x||) (phase_retrieval.correlation).
"""

import math
import os
import sys
from fractions import Fraction

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import phase_retrieval  # noqa: E402

amplitudes = phase_retrieval.amplitudes    # psi = sqrt(max(y, 0))
correlation = phase_retrieval.correlation  # |z'x| / (||z|| ||x||)

SCALES = ("mean", "least_squares")


# --- eigenvectors ---------------------------------------------------------------------------------

def sign_fixed(v):
    """v with its entry of largest |value| (the first one on a tie) made positive. A tie counts
    only between exactly equal computed magnitudes: on a computed eigenvector a near-tie is decided
    by round-off, so two implementations may return opposite signs there."""
    i = int(np.argmax(np.abs(v)))  # argmax returns the first maximiser
    return -v if v[i] < 0 else v


def top_eigenvector(Y):
    """Unit eigenvector of the largest algebraic eigenvalue of symmetric Y (np.linalg.eigh on
    (Y + Y')/2), sign-fixed."""
    Y = np.asarray(Y, dtype=float)
    _, V = np.linalg.eigh((Y + Y.T) / 2.0)
    return sign_fixed(V[:, -1])


def bottom_eigenvector(Y):
    """Unit eigenvector of the smallest algebraic eigenvalue of symmetric Y, sign-fixed."""
    Y = np.asarray(Y, dtype=float)
    _, V = np.linalg.eigh((Y + Y.T) / 2.0)
    return sign_fixed(V[:, 0])


def weighted_matrix(A, T):
    """Y = (1/m) sum_i T_i a_i a_i' = A' diag(T) A / m."""
    return A.T @ (A * np.asarray(T, dtype=float)[:, None]) / A.shape[0]


# --- counts and selections ------------------------------------------------------------------------

def count(fraction, m, rounding):
    """ceil (rounding = 'ceil') or floor ('floor') of fraction * m, in exact rationals with fraction
    read as the nearest fraction of denominator <= 10^6; then clamped to [1, m]."""
    product = Fraction(fraction).limit_denominator(10**6) * m
    if rounding == "ceil":
        K = math.ceil(product)
    elif rounding == "floor":
        K = math.floor(product)
    else:
        raise ValueError(f"unknown rounding {rounding!r}")
    return min(max(K, 1), m)


def largest(c, K):
    """Indices of the K largest c_i (descending, ties to the smaller index)."""
    return np.argsort(-np.asarray(c, dtype=float), kind="stable")[:K]


def smallest(c, K):
    """Indices of the K smallest c_i (ascending, ties to the smaller index)."""
    return np.argsort(np.asarray(c, dtype=float), kind="stable")[:K]


def _indicator(m, idx):
    mask = np.zeros(m)
    mask[idx] = 1.0
    return mask


# --- scale ----------------------------------------------------------------------------------------

def scale(A, y, v, kind):
    """'mean': sqrt(mean(max(y, 0))); 'least_squares': (|Av|' psi) / (|Av|' |Av|)."""
    if kind == "mean":
        return float(np.sqrt(np.mean(np.maximum(y, 0.0))))
    if kind == "least_squares":
        w = np.abs(A @ v)
        return float(w @ amplitudes(y)) / float(w @ w)
    raise ValueError(f"unknown scale {kind!r}")


def _start(A, y, T, scale_kind, bottom=False):
    Y = weighted_matrix(A, T)
    v = bottom_eigenvector(Y) if bottom else top_eigenvector(Y)
    return scale(A, y, v, scale_kind) * v


# --- the starts -----------------------------------------------------------------------------------

def plain_spectral(A, y, scale_kind="mean"):
    """Candes, Li & Soltanolkotabi 2015: T_i = y_i, top eigenvector."""
    return _start(A, y, np.asarray(y, dtype=float), scale_kind)


def truncated_spectral(A, y, alpha_y=3.0, scale_kind="mean"):
    """Chen & Candes 2015: T_i = y_i [ |y_i| <= alpha_y^2 mean(y) ], top eigenvector."""
    y = np.asarray(y, dtype=float)
    T = y * (np.abs(y) <= alpha_y**2 * np.mean(y))
    return _start(A, y, T, scale_kind)


def orthogonality_promoting(A, y, fraction=1 / 6, scale_kind="mean"):
    """Wang, Giannakis & Eldar 2018: K = ceil(fraction m), S = the K largest psi_i/||a_i||,
    Y = (1/K) sum_S a_i a_i'/||a_i||^2, top eigenvector."""
    m = len(y)
    K = count(fraction, m, "ceil")
    row_sq = np.maximum(np.sum(A * A, axis=1), 1e-300)  # a zero row (psi = 0) gets ratio 0
    S = largest(amplitudes(y) / np.sqrt(row_sq), K)
    T = _indicator(m, S) / row_sq * (m / K)
    return _start(A, y, T, scale_kind)


def weighted_correlation(A, y, fraction=3 / 13, exponent=0.5, scale_kind="mean"):
    """Wang, Giannakis, Saad & Chen 2018 (authors' code): K = max(floor(fraction m), 1),
    S = the K largest y_i, Y = (1/K) sum_S psi_i^exponent a_i a_i', top eigenvector."""
    m = len(y)
    K = count(fraction, m, "floor")
    S = largest(y, K)
    T = _indicator(m, S) * amplitudes(y) ** exponent * (m / K)
    return _start(A, y, T, scale_kind)


def optimal_spectral(A, y, scale_kind="mean"):
    """Mondelli & Montanari 2017: T_i = mean(y) (ybar_i - 1)/(ybar_i + sqrt(delta) - 1),
    ybar = max(y, 0)/mean(y), algebraic top eigenvector. ValueError unless delta = m/n > 1 and
    mean(y) > 0."""
    m, n = A.shape
    delta = m / n
    if delta <= 1.0:
        raise ValueError(f"optimal_spectral needs m/n > 1 (got m = {m}, n = {n})")
    y = np.asarray(y, dtype=float)
    mean_y = float(np.mean(y))
    if mean_y <= 0.0:
        raise ValueError(f"optimal_spectral needs mean(y) > 0 (got {mean_y})")
    ybar = np.maximum(y, 0.0) / mean_y
    T = mean_y * (ybar - 1.0) / (ybar + np.sqrt(delta) - 1.0)
    return _start(A, y, T, scale_kind)


def null_vector(A, y, fraction=0.5, scale_kind="mean"):
    """Chen, Fannjiang & Liu 2017 (PhasePack's form): K = ceil(fraction m), I = the K smallest
    psi_i, Y = (1/K) sum_I a_i a_i', BOTTOM eigenvector."""
    m = len(y)
    K = count(fraction, m, "ceil")
    if K < A.shape[1]:
        raise ValueError(f"K = {K} measurements, fewer than n = {A.shape[1]}: the bottom eigenvector is not determined")
    I = smallest(amplitudes(y), K)
    T = _indicator(m, I) * (m / K)
    return _start(A, y, T, scale_kind, bottom=True)


STARTS = {
    "plain_spectral": plain_spectral,
    "truncated_spectral": truncated_spectral,
    "orthogonality_promoting": orthogonality_promoting,
    "weighted_correlation": weighted_correlation,
    "optimal_spectral": optimal_spectral,
    "null_vector": null_vector,
}


# --- a start of known angle -----------------------------------------------------------------------

def angle_start(x, angle, rng):
    """z0 = ||x|| (cos(angle) x/||x|| + sin(angle) u), u = rng.standard_normal(n) with its
    x-component removed, normalised."""
    x = np.asarray(x, dtype=float)
    norm_x = float(np.linalg.norm(x))
    xhat = x / norm_x
    u = rng.standard_normal(len(x))
    u = u - (u @ xhat) * xhat
    u /= np.linalg.norm(u)
    return norm_x * (np.cos(angle) * xhat + np.sin(angle) * u)
