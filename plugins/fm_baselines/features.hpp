#pragma once
/// \file The training set as both FM baselines' solvers read it: one instance per row (n × d), so
/// that a feature's values over the instances are one contiguous column.
#include "rankone/estimation/features.hpp"

namespace rankone::fm_baselines {

/// The n × d feature matrix of the training set, a trailing column of ones when `augment`.
inline Matrix instances_by_features(const Batch& training, bool augment) {
  const Matrix X = feature_matrix(training);
  Matrix out(X.cols(), X.rows() + (augment ? 1 : 0));
  out.leftCols(X.rows()) = X.transpose();
  if (augment) out.col(X.rows()).setOnes();
  return out;
}

}  // namespace rankone::fm_baselines
