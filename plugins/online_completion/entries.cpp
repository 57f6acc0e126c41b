// Observed-entry views of a batch (entries.hpp).
#include <algorithm>
#include <cmath>

#include "entries.hpp"
#include "rankone/linalg/balanced_factors.hpp"

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

std::pair<Matrix, Matrix> completion_factors(const Start& start, Index rank) {
  if (start.batch.instances() == 0) return {start.model.left, start.model.right};
  BalancedFactors f = balanced_factors(start.model, rank);
  return {std::move(f.left), std::move(f.right)};
}

double mean_row_energy(const RowMatrix& left, const RowMatrix& right) {
  return left.squaredNorm() / static_cast<double>(left.rows()) +
         right.squaredNorm() / static_cast<double>(right.rows());
}

}  // namespace rankone::online_completion
