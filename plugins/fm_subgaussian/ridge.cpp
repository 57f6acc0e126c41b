// `ridge`: exact L2-penalised linear regression from running sufficient statistics (docs/plugins/ridge.md).
#include "ridge.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankone::fm_subgaussian {

RidgeEstimator::RidgeEstimator(RidgeOptions options)
    : IterativeEstimator(std::numeric_limits<int>::max(), -1.0), options_(options) {}

RidgeEstimator::~RidgeEstimator() = default;

void RidgeEstimator::start(DataSource& data, Rng&) {
  summary_ = Summary{};
  const Index d = data.shape().d1;
  model_ = LowRankModel{};
  model_.left = Matrix::Zero(d, 1);  // no second-order term
  model_.right = Matrix::Zero(d, 1);
  model_.symmetrize = true;
  model_.w = Vector::Zero(d);
  if (const std::string why = feature_refusal(data.sensing_operator()); !why.empty()) return finish(Status::failed, "ridge " + why);
  if (!data.sensing_operator().has_first_order())
    return finish(Status::failed, "ridge fits only a'w + b, but the source's operator has no first-order term "
                                  "(give the operator \"first_order\": true)");
  count_ = 0;
  mean_ = Vector::Zero(d + 1);
  scatter_ = Matrix::Zero(d + 1, d + 1);
}

double RidgeEstimator::iterate(DataSource& data) {
  const Index budget = options_.training_size.value_or(data.finite() ? std::numeric_limits<Index>::max()
                                                                     : RidgeOptions::endless_training_size);
  const Index wanted = std::min(options_.batch_size, budget - count_);
  const Batch batch = wanted > 0 ? data.next(wanted) : Batch{};
  if (batch.instances() == 0) {
    if (count_ == 0) finish(Status::failed, "the data source returned no training instances");
    else if (options_.training_size && count_ < *options_.training_size)
      finish(Status::failed, "training_size " + std::to_string(*options_.training_size) +
                                 " is larger than the finite training set of " + std::to_string(count_) +
                                 " instances: lower it or leave it unset");
    else
      finish(Status::converged, "exact solution on " + std::to_string(count_) + " instances" +
                                    (options_.training_size ? " (training_size)" : data.finite() ? " (one pass of the finite source)" : ""));
    return -1.0;
  }
  // Chan et al.'s merge of (count, mean, centred scatter) with the batch's own statistics.
  Matrix V(mean_.size(), batch.instances());
  V.topRows(mean_.size() - 1) = feature_matrix(batch);
  V.bottomRows(1) = batch.y.transpose();
  const double nb = static_cast<double>(V.cols());
  const double na = static_cast<double>(count_);
  const Vector batch_mean = V.rowwise().mean();
  const Matrix centred = V.colwise() - batch_mean;
  const Vector delta = batch_mean - mean_;
  scatter_ += centred * centred.transpose() + (na * nb / (na + nb)) * delta * delta.transpose();
  mean_ += (nb / (na + nb)) * delta;
  count_ += V.cols();
  solve();
  return -1.0;
}

void RidgeEstimator::solve() {
  const Index d = mean_.size() - 1;
  const double n = static_cast<double>(count_);
  const Matrix C = scatter_.topLeftCorner(d, d) / n;  // feature covariance
  const Vector c = scatter_.topRightCorner(d, 1) / n;  // feature–label covariance
  Vector scale = Vector::Ones(d);
  if (options_.standardize)
    for (Index j = 0; j < d; ++j)
      if (C(j, j) > 0.0) scale(j) = std::sqrt(C(j, j));
  const Vector inv = scale.cwiseInverse();
  Matrix A = inv.asDiagonal() * C * inv.asDiagonal();
  A.diagonal().array() += options_.l2;
  const Vector rhs = inv.cwiseProduct(c);
  Eigen::LDLT<Matrix> ldlt(A);
  Vector beta;
  if (ldlt.info() == Eigen::Success && ldlt.isPositive() && options_.l2 > 0.0) beta = ldlt.solve(rhs);
  else beta = A.completeOrthogonalDecomposition().solve(rhs);  // l2 = 0 with collinear features: min-norm
  model_.w = inv.cwiseProduct(beta);
  model_.bias = mean_(d) - model_.w.dot(mean_.head(d));
}

void RidgeEstimator::measure_final_fit() {
  if (count_ == 0) return;
  if (record_test_fit(estimate(), "relative residual ‖y − ŷ‖/‖y‖ on the held-out test set")) return;
  const Index d = mean_.size() - 1;
  const double n = static_cast<double>(count_);
  // With the intercept fitted, Σ(y − ŷ)²/n = var(y) − 2 w'c + w'C w (c, C the centred (co)variances).
  const Matrix C = scatter_.topLeftCorner(d, d) / n;
  const Vector c = scatter_.topRightCorner(d, 1) / n;
  const double var_y = scatter_(d, d) / n;
  const Vector& w = model_.w;
  const double rss = std::max(0.0, var_y - 2.0 * w.dot(c) + w.dot(C * w));
  const double yy = var_y + mean_(d) * mean_(d);
  if (yy > 0.0) record_fit(std::sqrt(rss / yy), "relative training residual ‖y − ŷ‖/‖y‖ (ridge solves one training set exactly; no held-out test set)");
}

}  // namespace rankone::fm_subgaussian
