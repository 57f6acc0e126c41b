#pragma once
/// \file The training set as both FM baselines' solvers read it: one instance per row (n × d), so
/// that a feature's values over the instances are one contiguous column.
#include <algorithm>

#include "rankone/estimation/features.hpp"

namespace rankone::fm_baselines {

/// The n × d feature matrix of the training set, a trailing column of ones when `augment`. The
/// transpose goes in blocks of instances that stay in cache (a plain one reads a d-strided row per
/// column, several times slower on the whole run's scale).
inline Matrix instances_by_features(const Batch& training, bool augment) {
  const bool dense = training.left.kind == DesignSide::Kind::dense;
  const Matrix expanded = dense ? Matrix() : training.left.to_dense();
  const Matrix& X = dense ? training.left.dense : expanded;  // d × n
  const Index d = X.rows(), n = X.cols();
  constexpr Index block = 64;
  Matrix out(n, d + (augment ? 1 : 0));
  for (Index i = 0; i < n; i += block) {
    const Index b = std::min(block, n - i);
    out.block(i, 0, b, d) = X.middleCols(i, b).transpose();
  }
  if (augment) out.col(d).setOnes();
  return out;
}

}  // namespace rankone::fm_baselines
