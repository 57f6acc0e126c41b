#pragma once
/// \file The one-shot spectral (moment) estimate of a low-rank model from one batch, as a free
/// function other plugins can reuse (gFM's initialisation is exactly this). Header-only because
/// plugin libraries cannot link to one another; include it as "../spectral/spectral_estimate.hpp"
/// or add plugins/spectral to the include path.
///
/// For isotropic designs (standard Gaussian x, or uniform index designs) the sensing operator
/// supplies a moment inversion (`SensingOperator::isotropic_inverse`) such that
///
///   M̂ = scale · (𝒜'(y)/n − trace_shift · mean(y) · I)
///
/// is an unbiased estimate of M* when y = 𝒜(M*) (+ x'w* + noise). For symmetric Gaussian sensing
/// E[(x'Mx) x x'] = 2M + tr(M) I and E[x'Mx] = tr(M), hence scale ½ and trace_shift 1; the
/// first-order term adds nothing in expectation because E[(x'w) x x'] = 0 (odd Gaussian moments).
/// The estimate is the best rank-k approximation of M̂: its k eigenpairs of largest |eigenvalue|
/// (symmetric operators) or its k largest singular triplets, found matrix-free in O(n d k) per
/// product. When requested, w is estimated by E[y x] = w* (again E[x x'] = I and E x³ = 0).
#include <algorithm>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/sensing_operator.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::spectral {

/// The moment estimate M̂(z) = scale·(𝒜'(z)/n − trace_shift·mean(z)·I) as matrix-free maps
/// Z ↦ M̂ Z and Z ↦ M̂' Z. They refer to the arguments, which must outlive them.
struct MomentMaps {
  LinearMap times;            ///< Z (d2 × k) ↦ M̂ Z (d1 × k)
  LinearMap transpose_times;  ///< Z (d1 × k) ↦ M̂' Z (d2 × k)
};

/// Builds the maps of M̂(z) for a batch (z: one response per measurement, usually y).
/// The trace shift needs a square M (d1 = d2); a caller must check that first.
inline MomentMaps moment_maps(const Batch& batch, const SensingOperator& op, const ProblemShape& shape,
                              const Vector& z) {
  const MomentInverse inverse = op.isotropic_inverse(shape);
  const double n = static_cast<double>(z.size());
  const double shift = inverse.trace_shift * z.mean();
  MomentMaps maps;
  maps.times = [&batch, &op, &z, inverse, n, shift](const Matrix& Z) -> Matrix {
    Matrix out = op.adjoint_times(batch, z, Z) / n;
    if (shift != 0.0) out -= shift * Z;
    return inverse.scale * out;
  };
  maps.transpose_times = [&batch, &op, &z, inverse, n, shift](const Matrix& Z) -> Matrix {
    Matrix out = op.adjoint_transpose_times(batch, z, Z) / n;
    if (shift != 0.0) out -= shift * Z;
    return inverse.scale * out;
  };
  return maps;
}

/// The outcome of a spectral estimate. On failure `model` is the zero model of the right shape.
struct SpectralResult {
  LowRankModel model;     ///< rank-k M̂ (left factor orthonormal, right factor carries the values)
  Matrix left_vectors;    ///< d1 × k orthonormal: eigenvectors, or left singular vectors
  Matrix right_vectors;   ///< d2 × k orthonormal: the same eigenvectors, or right singular vectors
  Vector values;          ///< k eigenvalues by decreasing |value| (signed), or singular values
  int solver_iterations = 0;  ///< eigensolver restarts (0: dense solver)
  bool ok = false;            ///< false when the batch was unusable or the eigensolver did not converge
  std::string failure;        ///< why, when !ok
};

/// The rank-`rank` spectral estimate of M* (and of w* when `first_order` and the operator has a
/// first-order term) from one batch. Symmetric operators give M = U diag(λ) U' with
/// `LowRankModel::symmetric_from_eigen`; others M = U diag(σ) V' stored as left = U, right = V diag(σ).
/// `rng` seeds the eigensolver's random start.
inline SpectralResult spectral_estimate(const Batch& batch, const SensingOperator& op, const ProblemShape& shape,
                                        Index rank, bool first_order, Rng& rng, const EigenOptions& options = {}) {
  SpectralResult result;
  const bool symmetric = op.symmetric();
  const Index d1 = shape.d1;
  const Index d2 = symmetric ? shape.d1 : shape.d2;
  result.model.left = Matrix::Zero(d1, rank);
  result.model.right = Matrix::Zero(d2, rank);
  result.model.symmetrize = symmetric;
  if (batch.empty()) {
    result.failure = "the data source returned an empty batch";
    return result;
  }
  if (rank > std::min(d1, d2)) {
    result.failure = "rank " + std::to_string(rank) + " exceeds the matrix dimensions " + std::to_string(d1) + " × " +
                     std::to_string(d2);
    return result;
  }
  if (op.isotropic_inverse(shape).trace_shift != 0.0 && d1 != d2) {
    result.failure = "the operator's moment inversion has a trace shift, which needs a square matrix";
    return result;
  }

  const MomentMaps maps = moment_maps(batch, op, shape, batch.y);
  if (symmetric) {
    const EigenResult eig = top_k_symmetric(maps.times, d1, rank, rng, options);
    result.solver_iterations = eig.iterations;
    if (!eig.converged) {
      result.failure = "the eigensolver did not converge in " + std::to_string(eig.iterations) + " iterations";
      return result;
    }
    result.model = LowRankModel::symmetric_from_eigen(eig.vectors, eig.values);
    result.left_vectors = eig.vectors;
    result.right_vectors = eig.vectors;
    result.values = eig.values;
  } else {
    const SvdResult svd = top_k_singular(maps.times, maps.transpose_times, d1, d2, rank, rng, options);
    result.solver_iterations = svd.iterations;
    if (!svd.converged) {
      result.failure = "the singular value solver did not converge in " + std::to_string(svd.iterations) +
                       " iterations";
      return result;
    }
    result.model.left = svd.left;
    result.model.right = svd.right * svd.values.asDiagonal();
    result.left_vectors = svd.left;
    result.right_vectors = svd.right;
    result.values = svd.values;
  }
  if (first_order && op.has_first_order()) {
    result.model.w = op.first_order_adjoint(batch, batch.y) / static_cast<double>(batch.size());
  }
  result.ok = true;
  return result;
}

}  // namespace rankone::spectral
