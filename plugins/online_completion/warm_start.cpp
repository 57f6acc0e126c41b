// Observed-entry views and the spectral warm start d1 d2/|Ω| · P_Ω(M) (entries.hpp).
#include <algorithm>
#include <cmath>

#include "entries.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::online_completion {

std::optional<EntryView> entry_view(const Batch& batch) {
  if (!batch.right || batch.left.kind != DesignSide::Kind::index || batch.right->kind != DesignSide::Kind::index)
    return std::nullopt;
  const DesignSide& right = *batch.right;
  if (batch.left.index.size() != batch.y.size() || right.index.size() != batch.y.size()) return std::nullopt;
  EntryView v;
  v.rows = batch.left.index.data();
  v.cols = right.index.data();
  v.y = batch.y.data();
  v.value_scale = 1.0 / (batch.left.scale * right.scale);
  v.size = batch.y.size();
  return v;
}

std::string check_entry_source(const DataSource& data, bool needs_square) {
  const SensingOperator& op = data.sensing_operator();
  const auto index_only = [](const std::vector<DesignSide::Kind>& kinds) {
    return kinds.size() == 1 && kinds.front() == DesignSide::Kind::index;
  };
  if (op.symmetric() || !index_only(op.accepted_left()) || !index_only(op.accepted_right()))
    return "matrix completion needs observations of single entries M_ij: use the operator 'entry' with the "
           "'one_hot' sampler";
  const ProblemShape shape = data.shape();
  if (needs_square && shape.d1 != shape.d2)
    return "the PSD algorithm needs a square matrix, the source is " + std::to_string(shape.d1) + " × " +
           std::to_string(shape.d2);
  return "";
}

WarmStart spectral_warm_start(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                              bool psd, Rng& rng) {
  WarmStart w;
  const Index d1 = shape.d1;
  const Index d2 = shape.d2;
  const std::optional<EntryView> entries = entry_view(batch);
  if (!entries || entries->size == 0) {
    w.failure = "the warm-start batch holds no observed entries";
    return w;
  }
  if (rank > std::min(d1, d2)) {
    w.failure = "rank " + std::to_string(rank) + " exceeds min(d1, d2) = " + std::to_string(std::min(d1, d2));
    return w;
  }
  // 𝒜'(z) = Σ z_t s_l s_r e_i e_j', so z = y · value_scale² makes it Σ M_ij e_i e_j' = P_Ω(M).
  const Vector z = batch.y * (entries->value_scale * entries->value_scale);
  const double scale = static_cast<double>(d1) * static_cast<double>(d2) / static_cast<double>(entries->size);
  const LinearMap times = [&](const Matrix& Z) -> Matrix { return scale * op.adjoint_times(batch, z, Z); };
  const LinearMap transpose_times = [&](const Matrix& Z) -> Matrix {
    return scale * op.adjoint_transpose_times(batch, z, Z);
  };

  EigenOptions options;
  options.tolerance = 1e-8;  // a warm start needs the subspace only roughly; SGD refines it
  if (psd) {
    // P_Ω(M) of a symmetric M is not symmetric (each pair is sampled once): use its symmetric part.
    const LinearMap symmetric = [&](const Matrix& Z) -> Matrix { return 0.5 * (times(Z) + transpose_times(Z)); };
    // U0 U0' needs the k largest eigenvalues, not the k largest in magnitude: a negative noise
    // eigenvalue clamped to 0 would leave a zero column, a fixed point of the SGD. Shift by the
    // spectral radius so that the two orders agree.
    const EigenResult radius = top_k_symmetric(symmetric, d1, 1, rng, options);
    const double shift = std::abs(radius.values(0));
    const LinearMap shifted = [&](const Matrix& Z) -> Matrix { return symmetric(Z) + shift * Z; };
    const EigenResult eig = top_k_symmetric(shifted, d1, rank, rng, options);
    w.converged = radius.converged && eig.converged;
    // Floor at 1e-6 λ1 rather than 0 for the same reason: a zero column never moves.
    const Vector values = eig.values.array() - shift;
    w.values = values.cwiseMax(1e-6 * std::max(values.maxCoeff(), 0.0));
    w.left = eig.vectors * w.values.cwiseSqrt().asDiagonal();
    w.right = w.left;
  } else {
    const SvdResult svd = top_k_singular(times, transpose_times, d1, d2, rank, rng, options);
    w.converged = svd.converged;
    w.values = svd.values;
    const Vector root = svd.values.cwiseMax(0.0).cwiseSqrt();
    w.left = svd.left * root.asDiagonal();
    w.right = svd.right * root.asDiagonal();
  }
  if (!w.left.allFinite() || !w.right.allFinite()) w.failure = "the warm start is not finite";
  else if (w.values.size() == 0 || !(w.values.maxCoeff() > 0.0))
    w.failure = "the warm start is zero (no positive eigen/singular value in the observed entries)";
  return w;
}

double mean_row_energy(const RowMatrix& left, const RowMatrix& right) {
  return left.squaredNorm() / static_cast<double>(left.rows()) +
         right.squaredNorm() / static_cast<double>(right.rows());
}

}  // namespace rankone::online_completion
