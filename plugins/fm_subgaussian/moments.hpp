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

}  // namespace rankone::fm_subgaussian
