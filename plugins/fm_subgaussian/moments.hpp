#pragma once
/// \file Per-coordinate moments and the elimination coefficients of Algorithm 1 of
/// "Learning Factorization Machines on Sub-gaussian Data" (AAAI-19), Eqs. (8)–(9):
///
///   B_j = [[1, κ_j], [κ_j, φ_j − 1]],   G_j = B_j⁻¹ [κ_j, φ_j − 3]',   H_j = B_j⁻¹ [1, 0]',
///
/// with κ_j = E x_j³, φ_j = E x_j⁴ for zero-mean, unit-variance coordinates. det B_j = φ_j − 1 − κ_j²,
/// so the τ-MIP constant τ = min_j |φ_j − 1 − κ_j²| (Definition 2) is the smallest |det B_j|.
/// Closed forms: Gaussian κ = 0, φ = 3 → G = (0, 0), H = (1, 0), τ = 2; uniform on [−√3, √3]
/// κ = 0, φ = 9/5 → G = (0, −3/2), H = (1, 0), τ = 0.8; centred exponential κ = 2, φ = 9 →
/// G = (1, 1/2), H = (2, −1/2), τ = 4; every two-point law τ = 0 (B_j singular).
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "rankone/core/types.hpp"

namespace rankone::fm_subgaussian {

/// Sample third and fourth moments of each coordinate (rows of the d × n matrix Z).
struct CoordinateMoments {
  Vector kappa;  ///< mean of z³ per coordinate
  Vector phi;    ///< mean of z⁴ per coordinate

  /// τ = min_j |φ_j − 1 − κ_j²|.
  double tau() const {
    return (phi.array() - 1.0 - kappa.array().square()).abs().minCoeff();
  }
  /// The coordinate attaining τ.
  Index tau_coordinate() const {
    Index j = 0;
    (phi.array() - 1.0 - kappa.array().square()).abs().minCoeff(&j);
    return j;
  }
};

/// κ and φ estimated from the columns of Z (assumed standardised: mean 0, variance 1).
inline CoordinateMoments estimate_moments(const Matrix& Z) {
  const double n = static_cast<double>(Z.cols());
  const Eigen::ArrayXXd squares = Z.array().square();
  CoordinateMoments m;
  m.kappa = (squares * Z.array()).rowwise().sum().matrix() / n;
  m.phi = squares.square().rowwise().sum().matrix() / n;
  return m;
}

/// The d × 2 matrices G (columns G1, G2) and H (columns H1, H2) of Eqs. (8)–(9).
/// Coordinates with a singular B_j (|det| below `singular_below`) get NaN rows: callers check τ first.
struct EliminationCoefficients {
  Matrix G;
  Matrix H;
};

inline EliminationCoefficients elimination_coefficients(const CoordinateMoments& m, double singular_below = 1e-12) {
  const Index d = m.kappa.size();
  EliminationCoefficients c{Matrix(d, 2), Matrix(d, 2)};
  for (Index j = 0; j < d; ++j) {
    const double kappa = m.kappa(j);
    const double phi = m.phi(j);
    const double det = phi - 1.0 - kappa * kappa;
    if (std::abs(det) < singular_below) {
      c.G.row(j).setConstant(std::numeric_limits<double>::quiet_NaN());
      c.H.row(j).setConstant(std::numeric_limits<double>::quiet_NaN());
      continue;
    }
    // B⁻¹ = [[φ − 1, −κ], [−κ, 1]] / det.
    c.G(j, 0) = ((phi - 1.0) * kappa - kappa * (phi - 3.0)) / det;
    c.G(j, 1) = (-kappa * kappa + (phi - 3.0)) / det;
    c.H(j, 0) = (phi - 1.0) / det;
    c.H(j, 1) = -kappa / det;
  }
  return c;
}

/// The standard normal quantile Φ⁻¹(p) for 0 < p < 1, by bisection on erfc (to ~1e-15; called once a run).
inline double normal_quantile(double p) {
  double lo = -40.0, hi = 40.0;
  for (int i = 0; i < 200 && hi - lo > 1e-15 * std::max(1.0, std::abs(lo)); ++i) {
    const double mid = 0.5 * (lo + hi);
    if (0.5 * std::erfc(-mid / std::sqrt(2.0)) < p) lo = mid;
    else hi = mid;
  }
  return 0.5 * (lo + hi);
}

/// A lower confidence bound for the τ-MIP constant from one batch (the derivation:
/// docs/papers/fm-subgaussian.md, "A confidence bound for τ"). Per coordinate j, with u the values
/// standardised by the batch's own mean and (population) standard deviation, κ̂ = mean(u³) and
/// r = u² − 1 − κ̂u (the part of u² that no affine function of u explains):
///
///   T̂_j = mean(r²) = φ̂_j − 1 − κ̂_j²    (≥ 0, and 0 for a sample with two values),
///   se_j = sd(ψ)/√n, ψ = r² − T̂_j(2u² − 1) (the influence function: the delta method),
///   L_j = max(T̂_j − z se_j, T̂ᶜ_j − z seᶜ_j),   z = Φ⁻¹(1 − (1 − confidence)/2),
///
/// where T̂ᶜ_j = mean(min(r², c)), c the 0.999-quantile of r² on the batch, estimates E min(r², c) ≤ T_j
/// with its own influence function. The truncated term keeps one extreme value of a heavy-tailed
/// coordinate (centred exponential) from dragging the bound below 0; z splits α over the two bounds
/// (Bonferroni). τ_lower = min_j L_j is a lower confidence bound for τ = min_j T_j: it is at most
/// L_{j*} at the coordinate j* attaining τ, which is ≤ T_{j*} with probability ≥ confidence
/// (asymptotically), so the minimum over j needs no correction. A constant coordinate has T̂ = L = 0.
struct TauBound {
  Vector estimate;   ///< T̂_j
  Vector std_error;  ///< se_j (of the untruncated estimate)
  Vector lower;      ///< L_j
  double z = 0.0;    ///< Φ⁻¹(1 − (1 − confidence)/2)

  /// τ̂ = min_j T̂_j and the coordinate attaining it.
  double tau(Index* coordinate = nullptr) const {
    Index j = 0;
    const double v = estimate.minCoeff(&j);
    if (coordinate) *coordinate = j;
    return v;
  }
  /// τ_lower = min_j L_j and the coordinate attaining it.
  double lower_bound(Index* coordinate = nullptr) const {
    Index j = 0;
    const double v = lower.minCoeff(&j);
    if (coordinate) *coordinate = j;
    return v;
  }
};

namespace detail {

/// mean(min(r², c)) and the standard error from its influence function, which includes the
/// estimation of the mean, the scale and κ of the standardisation (derivatives of
/// E[min(r², c)] through r = u² − 1 − κu; for c = ∞ they reduce to −2T(u² − 1)).
inline std::pair<double, double> truncated_mean_and_error(const Eigen::ArrayXd& u, double kappa,
                                                          const Eigen::ArrayXd& r, const Eigen::ArrayXd& r2, double c) {
  const double n = static_cast<double>(u.size());
  const Eigen::ArrayXd kept = (r2 < c).cast<double>();
  const Eigen::ArrayXd m = r2.min(c);
  const double t = m.mean();
  const double a_mean = (kept * 2.0 * r * (2.0 * u - kappa)).mean();
  const double a_scale = (kept * r * u * (2.0 * u - kappa)).mean();
  const double a_kappa = (kept * 2.0 * r * u).mean();
  const Eigen::ArrayXd u2 = u.square();
  // Influence of the mean (u), the standard deviation ((u² − 1)/2) and κ (u³ − κ − 3u − 1.5κ(u² − 1)).
  const Eigen::ArrayXd psi = m - t - a_mean * u - a_scale * (u2 - 1.0) -
                             a_kappa * (u2 * u - kappa - 3.0 * u - 1.5 * kappa * (u2 - 1.0));
  return {t, std::sqrt(psi.square().mean() / n)};
}

}  // namespace detail

/// T̂_j, se_j and L_j for the rows of X (d × n, raw or standardised: T is invariant to the scale and
/// shift of each coordinate). One coordinate at a time: O(n) extra memory, O(n) work per coordinate.
inline TauBound tau_bound(const Matrix& X, double confidence) {
  const Index d = X.rows();
  TauBound b{Vector::Zero(d), Vector::Zero(d), Vector::Zero(d), normal_quantile(1.0 - (1.0 - confidence) / 2.0)};
  Eigen::ArrayXd u(X.cols());
  std::vector<double> sorted(static_cast<std::size_t>(X.cols()));
  for (Index j = 0; j < d; ++j) {
    u = X.row(j).transpose().array();
    const double mean = u.mean();
    u -= mean;
    const double variance = u.square().mean();
    if (!(variance > 1e-24 * std::max(1.0, mean * mean))) continue;  // constant: a one-point law, τ_j = 0
    u /= std::sqrt(variance);
    const double kappa = u.cube().mean();
    const Eigen::ArrayXd r = u.square() - 1.0 - kappa * u;
    const Eigen::ArrayXd r2 = r.square();
    const auto [t, se] = detail::truncated_mean_and_error(u, kappa, r, r2, std::numeric_limits<double>::infinity());
    std::copy(r2.data(), r2.data() + r2.size(), sorted.begin());
    const auto q = sorted.begin() + static_cast<std::ptrdiff_t>(0.999 * static_cast<double>(sorted.size() - 1));
    std::nth_element(sorted.begin(), q, sorted.end());
    const auto [tc, sec] = detail::truncated_mean_and_error(u, kappa, r, r2, *q);
    b.estimate(j) = t;
    b.std_error(j) = se;
    b.lower(j) = std::max(t - b.z * se, tc - b.z * sec);
  }
  return b;
}

}  // namespace rankone::fm_subgaussian
