#pragma once
/// \file What the estimators of y = x'Mx (+ w'x) on feature vectors share (plugins/fm_subgaussian,
/// plugins/fm_baselines): whether a source's operator gives them features, and a batch's features
/// as a dense matrix.
#include <algorithm>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone {

/// Why `op` cannot feed an estimator of x'Mx on feature vectors, or "" when it can: the symmetric
/// operator with dense or sparse designs (index designs are not features).
inline std::string feature_refusal(const SensingOperator& op) {
  if (!op.symmetric()) return "needs the symmetric operator x'Mx (symmetric_rank_one); the source's operator is not symmetric";
  const auto kinds = op.accepted_left();
  const auto accepts = [&](DesignSide::Kind k) { return std::find(kinds.begin(), kinds.end(), k) != kinds.end(); };
  if (!accepts(DesignSide::Kind::dense) && !accepts(DesignSide::Kind::sparse)) return "needs dense or sparse feature vectors";
  return "";
}

/// The instances of a batch as a dense d × n matrix (dense designs as they are; sparse designs expanded).
inline Matrix feature_matrix(const Batch& batch) {
  if (batch.left.kind == DesignSide::Kind::dense) return batch.left.dense;
  return batch.left.to_dense();
}

}  // namespace rankone
