#include "label_metrics.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace rankone::one_bit {

RecoveryError::~RecoveryError() = default;
PrecisionAtK::~PrecisionAtK() = default;

LowRankModel with_unit_columns(const LowRankModel& model) {
  if (model.symmetrize || model.zero_diagonal) {
    throw std::invalid_argument("recovery_error: column normalisation needs a plain factored model L R'");
  }
  LowRankModel out = model;
  // ‖L R(j,:)'‖² = R(j,:) (L'L) R(j,:)'.
  const Matrix gram = model.left.transpose() * model.left;
  const Vector norms = ((model.right * gram).array() * model.right.array()).rowwise().sum().sqrt();
  for (Index j = 0; j < norms.size(); ++j)
    if (norms(j) > 0.0) out.right.row(j) /= norms(j);
  return out;
}

MetricValues RecoveryError::evaluate(const MetricContext& ctx) const {
  const DifferenceNorms e = normalize_columns_ ? difference_norms(with_unit_columns(ctx.estimate), ctx.truth)
                                               : difference_norms(ctx.estimate, ctx.truth);
  return {{"recovery_error", e.spectral}};
}

MetricValues PrecisionAtK::evaluate(const MetricContext& ctx) const {
  const Batch& test = *ctx.test;
  if (!test.right || test.right->kind != DesignSide::Kind::all) {
    throw std::invalid_argument(
        "precision_at_k needs a test set that pairs each instance with every label (synthetic: "
        "test_full_labels = true)");
  }
  const Index n = test.instances();
  const Index labels = test.right->dim;
  const Index k = std::min(k_, labels);
  if (n == 0) return {{"precision_at_k", std::numeric_limits<double>::quiet_NaN()}};
  const Vector scores = ctx.op.forward(test, ctx.estimate);
  // Measurement i + n·j is instance i, label j (label-major, see core/batch.hpp).
  const Eigen::Map<const Matrix> S(scores.data(), n, labels);
  const Eigen::Map<const Matrix> Y(test.y.data(), n, labels);
  std::vector<Index> order(static_cast<std::size_t>(labels));
  double hits = 0.0;
  for (Index i = 0; i < n; ++i) {
    std::iota(order.begin(), order.end(), Index{0});
    std::partial_sort(order.begin(), order.begin() + k, order.end(), [&](Index a, Index b) {
      return S(i, a) > S(i, b) || (S(i, a) == S(i, b) && a < b);  // ties: the lower label first
    });
    for (Index t = 0; t < k; ++t) hits += Y(i, order[static_cast<std::size_t>(t)]) > 0.0;
  }
  return {{"precision_at_k", hits / static_cast<double>(n * k)}};
}

}  // namespace rankone::one_bit
