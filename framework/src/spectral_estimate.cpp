// The one-shot spectral (moment) estimate (rankone/estimation/spectral.hpp).
#include "rankone/estimation/spectral.hpp"

#include <algorithm>

namespace rankone {

MomentMaps moment_maps(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, const Vector& z) {
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

SpectralResult spectral_estimate(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                                 bool first_order, Rng& rng, const EigenOptions& options) {
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
      result.failure =
          "the singular value solver did not converge in " + std::to_string(svd.iterations) + " iterations";
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

SpectralResult spectral_psd_estimate(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                                     bool first_order, Rng& rng, const EigenOptions& options) {
  SpectralResult result;
  const Index d = shape.d1;
  result.model.left = Matrix::Zero(d, rank);
  result.model.right = Matrix::Zero(d, rank);
  result.model.symmetrize = op.symmetric();
  if (batch.empty()) {
    result.failure = "the data source returned an empty batch";
    return result;
  }
  if (!op.symmetric() && shape.d1 != shape.d2) {
    result.failure = "a PSD start needs a square matrix; the data's is " + std::to_string(shape.d1) + " × " +
                     std::to_string(shape.d2);
    return result;
  }
  if (rank > d) {
    result.failure = "rank " + std::to_string(rank) + " exceeds the matrix dimension " + std::to_string(d);
    return result;
  }
  const MomentMaps maps = moment_maps(batch, op, shape, batch.y);
  // The symmetric part: an asymmetric operator's M̂ (entries sampled once per pair) is not symmetric.
  const LinearMap symmetric =
      op.symmetric() ? maps.times : LinearMap([&maps](const Matrix& Z) -> Matrix { return 0.5 * (maps.times(Z) + maps.transpose_times(Z)); });
  // The k largest algebraic eigenvalues, not the largest in magnitude (a negative noise eigenvalue
  // has no PSD factor).
  const EigenResult eig = top_k_algebraic(symmetric, d, rank, rng, options);
  result.solver_iterations = eig.iterations;
  if (!eig.converged) {
    result.failure = "the eigensolver did not converge in " + std::to_string(eig.iterations) + " iterations";
    return result;
  }
  result.values = eig.values;
  result.model = LowRankModel::symmetric_from_eigen(eig.vectors, result.values);
  result.model.symmetrize = op.symmetric();
  result.left_vectors = eig.vectors;
  result.right_vectors = eig.vectors;
  if (first_order && op.has_first_order())
    result.model.w = op.first_order_adjoint(batch, batch.y) / static_cast<double>(batch.size());
  result.ok = true;
  return result;
}

}  // namespace rankone
