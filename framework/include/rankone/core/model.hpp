#pragma once
/// \file The model every estimator reports and every ground truth is stated in:
/// `y = bias + a'w + a' M b` with `M` in factored form.
#include <string>

#include "rankone/core/types.hpp"

namespace rankone {

/// A low-rank matrix with an optional first-order term, in factored form.
///
/// `M = L R'`, then optionally symmetrised (`(L R' + R L')/2`, which leaves `x'Mx` unchanged) and
/// optionally stripped of its diagonal (`M − D(M)`, the factorization-machine model).
struct LowRankModel {
  Matrix left;                 ///< L: d1 × k
  Matrix right;                ///< R: d2 × k
  bool symmetrize = false;     ///< M = (L R' + R L')/2
  bool zero_diagonal = false;  ///< M = M − D(M)
  Vector w;                    ///< first-order weights (size d1), empty when absent
  double bias = 0.0;           ///< intercept

  Index rows() const { return left.rows(); }
  Index cols() const { return right.rows(); }
  Index rank() const { return left.cols(); }
  bool has_first_order() const { return w.size() > 0; }

  /// The matrix M, formed densely (small problems, metrics and tests).
  Matrix dense() const;
  /// True when every stored number is finite.
  bool all_finite() const;

  /// An exactly symmetric model `U diag(values) U'` (the shape of a planted truth).
  static LowRankModel symmetric_from_eigen(const Matrix& U, const Vector& values);
};

using Estimate = LowRankModel;
using GroundTruth = LowRankModel;

/// Spectral and Frobenius norms of `a − b` (or of `a` when `b` is null), computed exactly from the
/// factors in O(d k²) when neither model removes its diagonal; densely otherwise.
struct DifferenceNorms {
  double spectral = 0.0;
  double frobenius = 0.0;
};
DifferenceNorms difference_norms(const LowRankModel& a, const LowRankModel* b);

/// The k = `m.rank()` largest singular values of M, in decreasing order (from the factors in
/// O(d k²); densely when the diagonal is removed, so only for small d there).
Vector singular_values(const LowRankModel& m);

/// Orthonormal basis (d1 × k) of the dominant k-dimensional column space of M
/// (eigenvectors by |eigenvalue| when M is symmetric, left singular vectors otherwise).
Matrix dominant_subspace(const LowRankModel& m, Index k);

}  // namespace rankone
