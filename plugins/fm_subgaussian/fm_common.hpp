#pragma once
/// \file Pieces shared by the estimators of plugins/fm_subgaussian beside the core's
/// estimation/features.hpp: per-feature standardisation that is folded back into the reported
/// model (`FeatureScaling`), and predictions of a factored model on a feature matrix. Header-only so
/// the tests can use them without linking the plugin library.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/estimation/features.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone::fm_subgaussian {

using rankone::BatchReader;  // shared with gfm_one_pass (rankone/estimation/batch_reader.hpp)

/// Per-feature affine standardisation z = (x − μ) / s, estimated on training data. The estimators
/// learn in z coordinates and report the model in x coordinates (`to_raw`), so predictions on raw
/// test data need no transformation. Disabled, it is the identity.
struct FeatureScaling {
  Vector mean;   ///< μ (size d); zero when disabled
  Vector scale;  ///< s (size d); one when disabled

  static FeatureScaling identity(Index d) { return {Vector::Zero(d), Vector::Ones(d)}; }

  /// μ and s from the columns of X (population std; a constant feature keeps s = 1).
  static FeatureScaling estimate(const Matrix& X) {
    FeatureScaling f;
    const double n = static_cast<double>(X.cols());
    f.mean = X.rowwise().sum() / n;
    f.scale = ((X.colwise() - f.mean).array().square().rowwise().sum() / n).sqrt().matrix();
    for (Index j = 0; j < f.scale.size(); ++j)
      if (!(f.scale(j) > 1e-12 * std::max(1.0, std::abs(f.mean(j))))) f.scale(j) = 1.0;
    return f;
  }

  Matrix apply(const Matrix& X) const {
    return ((X.colwise() - mean).array().colwise() / scale.array()).matrix();
  }

  /// The model in raw coordinates of a model learned in z coordinates:
  /// M_x = S⁻¹ M_z S⁻¹ (same structure, zero diagonal kept), w_x = S⁻¹ w_z − (M_x + M_x') μ,
  /// b_x = b_z − w_z' S⁻¹ μ + μ' M_x μ. O(dk).
  LowRankModel to_raw(const LowRankModel& z) const {
    LowRankModel x = z;
    const Vector inv = scale.cwiseInverse();
    x.left = inv.asDiagonal() * z.left;
    x.right = inv.asDiagonal() * z.right;
    const Vector wz = z.has_first_order() ? z.w : Vector::Zero(mean.size());
    // (M_x + M_x') μ from the factors, minus twice the diagonal when the model removes it.
    Vector sym_mu = x.left * (x.right.transpose() * mean) + x.right * (x.left.transpose() * mean);
    if (x.zero_diagonal) sym_mu -= 2.0 * (x.left.cwiseProduct(x.right).rowwise().sum()).cwiseProduct(mean);
    x.w = inv.cwiseProduct(wz) - sym_mu;
    x.bias = z.bias - wz.dot(inv.cwiseProduct(mean)) + 0.5 * mean.dot(sym_mu);
    return x;
  }
};

/// The standardisation check the moment methods (fm_moment_elimination, ifm) make on their first
/// batch when `standardize` is off. Their updates assume E[x x'] = I; measured (d = 50, k = 2,
/// n = 5000, 30 iterations, docs/plugins/fm_moment_elimination.md, "Standardisation check"), a
/// second moment of 0.64 or 1.44 along the coordinates, or of 1 + |E x|² = 1.5 along the mean,
/// stalls or diverges, while 0.81 – 1.21 and 1.25 converge. So the design is refused when, by more than
/// `kStandardErrors` standard errors, some E x_j² (mean of x_j², se = sd(x_j²)/√n) or 1 + |E x|²
/// (|E x|² estimated by |x̄|² − Σ_j var_j/n, which removes the bias d/n) is outside
/// [kLowSecondMoment, kHighSecondMoment]. Returns "" or why.
struct StandardisationCheck {
  static constexpr double kLowSecondMoment = 0.8;
  static constexpr double kHighSecondMoment = 1.25;
  static constexpr double kStandardErrors = 3.0;

  static std::string refusal(const Matrix& X) {
    const auto fmt = [](double v) {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.3g", v);
      return std::string(buf);
    };
    const Index d = X.rows();
    const double n = static_cast<double>(X.cols());
    Vector second(d), second_se(d), mean(d), variance(d);
    for (Index j = 0; j < d; ++j) {  // one coordinate at a time: O(n) extra memory
      const Eigen::ArrayXd squares = X.row(j).transpose().array().square();
      second(j) = squares.mean();
      second_se(j) = std::sqrt((squares - second(j)).square().mean() / n);
      mean(j) = X.row(j).mean();
      variance(j) = std::max(0.0, second(j) - mean(j) * mean(j));
    }
    const std::string what = " Set standardize: true (the model is still reported in raw coordinates)";
    for (Index j = 0; j < d; ++j) {
      const double margin = kStandardErrors * second_se(j);
      if (second(j) + margin < kLowSecondMoment || second(j) - margin > kHighSecondMoment)
        return "features not standardised: the mean of x_j^2 over the first batch of " + std::to_string(X.cols()) +
               " instances is " + fmt(second(j)) + " (standard error " + fmt(second_se(j)) + "; mean of x_j " +
               fmt(mean(j)) + ") at coordinate " + std::to_string(j) + " (from " + fmt(second.minCoeff()) +
               " to " + fmt(second.maxCoeff()) + " over the " + std::to_string(d) + " coordinates), outside [" +
               fmt(kLowSecondMoment) + ", " + fmt(kHighSecondMoment) + "] by more than " + fmt(kStandardErrors) +
               " standard errors; the moment updates assume E x x' = I (second moments of 0.64 and 1.44 were "
               "measured to stall or diverge)." + what;
    }
    // E x x' = Σ + μμ': along μ the second moment is about 1 + |μ|².
    const double mean_sq = mean.squaredNorm() - variance.sum() / n;
    const double mean_sq_se =
        std::sqrt((2.0 * variance.array().square() / (n * n) + 4.0 * mean.array().square() * variance.array() / n).sum());
    if (mean_sq - kStandardErrors * mean_sq_se > kHighSecondMoment - 1.0)
      return "features not standardised: |E x|^2 estimated on the first batch of " + std::to_string(X.cols()) +
             " instances is " + fmt(mean_sq) + " (standard error " + fmt(mean_sq_se) + "; largest |mean| " +
             fmt(mean.cwiseAbs().maxCoeff()) + "), so the second moment along the mean, 1 + |E x|^2, exceeds " +
             fmt(kHighSecondMoment) + " by more than " + fmt(kStandardErrors) +
             " standard errors; the moment updates assume E x x' = I (|E x|^2 = 0.5 was measured to stall or "
             "diverge)." + what;
    return "";
  }
};

/// Predictions b + Z'w + z'Mz for every column z of Z, M = L R' (minus its diagonal when
/// `zero_diagonal`). O(n d k); x'Mx = Σ_f (x'L_f)(x'R_f), so symmetrisation does not matter.
inline Vector predict(const Matrix& Z, const LowRankModel& m) {
  const Matrix left = Z.transpose() * m.left;
  const Matrix right = Z.transpose() * m.right;
  Vector y = left.cwiseProduct(right).rowwise().sum();
  if (m.zero_diagonal) y -= Z.array().square().matrix().transpose() * m.left.cwiseProduct(m.right).rowwise().sum();
  if (m.has_first_order()) y += Z.transpose() * m.w;
  return y.array() + m.bias;
}

/// ‖A B' − C D'‖_F from the factors in O(d k²): ‖[A, −C][B, D]'‖_F² = tr((P'P)(Q'Q)).
inline double factored_difference_norm(const Matrix& A, const Matrix& B, const Matrix& C, const Matrix& D) {
  Matrix P(A.rows(), A.cols() + C.cols());
  Matrix Q(B.rows(), B.cols() + D.cols());
  P << A, -C;
  Q << B, D;
  const double sq = ((P.transpose() * P).cwiseProduct(Q.transpose() * Q)).sum();
  return std::sqrt(std::max(0.0, sq));
}

/// ‖A B'‖_F from the factors.
inline double factored_norm(const Matrix& A, const Matrix& B) {
  return std::sqrt(std::max(0.0, ((A.transpose() * A).cwiseProduct(B.transpose() * B)).sum()));
}

}  // namespace rankone::fm_subgaussian
