#pragma once
/// \file Pieces shared by the estimators of plugins/fm_subgaussian: dense feature matrices,
/// per-feature standardisation that is folded back into the reported model (`FeatureScaling`), and
/// predictions of a factored model on a feature matrix. Header-only so the tests can use them
/// without linking the plugin library.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone::fm_subgaussian {

/// The instances of a batch as a dense d × n matrix (dense designs as they are; sparse designs
/// expanded). Index (one-hot) designs are not features and are rejected by the estimators earlier.
inline Matrix feature_matrix(const Batch& batch) {
  if (batch.left.kind == DesignSide::Kind::dense) return batch.left.dense;
  return batch.left.to_dense();
}

/// Why a source cannot feed these estimators, or "" when it can: they need the symmetric
/// `x'Mx` operator with dense (or sparse) feature vectors.
inline std::string unsupported_source(const DataSource& data) {
  const SensingOperator& op = data.sensing_operator();
  if (!op.symmetric()) return "needs the symmetric operator x'Mx (symmetric_rank_one); the source's operator is not symmetric";
  const auto kinds = op.accepted_left();
  const bool features = std::find(kinds.begin(), kinds.end(), DesignSide::Kind::dense) != kinds.end() ||
                        std::find(kinds.begin(), kinds.end(), DesignSide::Kind::sparse) != kinds.end();
  if (!features) return "needs dense or sparse feature vectors";
  return "";
}

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
