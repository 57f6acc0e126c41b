#include "rankone/estimation/fixed_sample.hpp"

#include <algorithm>
#include <cmath>

namespace rankone {
namespace {

double rms(const Vector& v) { return v.size() > 0 ? v.norm() / std::sqrt(static_cast<double>(v.size())) : 0.0; }

}  // namespace

Json FixedSampleEstimator::example_data() {
  return Json{{"name", "synthetic"}, {"operator", "gaussian_ensemble"}, {"d", 8}, {"d2", 6}, {"rank", 2},
              {"truth", "general"}, {"size", 200}, {"test_size", 50}};
}

Footprint FixedSampleEstimator::training_footprint(const FootprintContext& c) {
  const double n = c.data.training_instances;
  Footprint f;
  f.add("the training set of " + format_count(n) + " instances and the start's copy", 2 * batch_bytes(c.data, n));
  f.add("residuals", dense_bytes(n * c.data.measurements_per_instance, 2));
  return f;
}

FixedSampleEstimator::FixedSampleEstimator(const FixedSampleSettings& settings)
    : IterativeEstimator(settings.max_iterations, settings.tolerance), divergence_factor_(settings.divergence_factor) {
  describe_best_iterate("the training set", "iteration");
}

bool FixedSampleEstimator::read_training_set(DataSource& data, const std::string& estimator_name) {
  if (!data.finite() || !data.size()) {
    finish(Status::failed, estimator_name + " fits a fixed training set: it needs a finite source (synthetic with `size`, "
                                            "or a file)");
    return false;
  }
  op_ = &data.sensing_operator();
  shape_ = data.shape();
  training_ = data.next(*data.size());
  if (training_.empty()) {
    finish(Status::failed, "the source holds no training measurements");
    return false;
  }
  const MomentInverse inverse = op_->isotropic_inverse(shape_);
  loss_scale_ = inverse.scale;
  trace_shift_ = shape_.d1 == shape_.d2 ? inverse.trace_shift : 0.0;
  response_rms_ = rms(training_.y);
  sign_link_ = data.link() == Link::sign;
  return true;
}

bool FixedSampleEstimator::rank_fits(Index rank) {
  const Index most = std::min(shape_.d1, shape_.d2);
  if (rank <= most) return true;
  finish(Status::failed, "rank " + std::to_string(rank) + " exceeds min(d1, d2) = " + std::to_string(most) + " of the " +
                             std::to_string(shape_.d1) + " × " + std::to_string(shape_.d2) + " matrix");
  return false;
}

StartRequest FixedSampleEstimator::start_request(Index rank) const { return training_set_request(training_, rank); }

Vector FixedSampleEstimator::residual(const LowRankModel& model) const { return op_->forward(training_, model) - training_.y; }

Matrix FixedSampleEstimator::gradient_times(const Vector& r, const Matrix& Z) const {
  Matrix out = (loss_scale_ / static_cast<double>(r.size())) * op_->adjoint_times(training_, r, Z);
  if (trace_shift_ != 0.0) out -= (loss_scale_ * trace_shift_ * r.mean()) * Z;
  return out;
}

Matrix FixedSampleEstimator::gradient_transpose_times(const Vector& r, const Matrix& Z) const {
  Matrix out = (loss_scale_ / static_cast<double>(r.size())) * op_->adjoint_transpose_times(training_, r, Z);
  if (trace_shift_ != 0.0) out -= (loss_scale_ * trace_shift_ * r.mean()) * Z;
  return out;
}

std::pair<Matrix, Matrix> FixedSampleEstimator::gradient_pair(const Vector& r, const Matrix& R, const Matrix& L) const {
  auto [SR, StL] = op_->adjoint_pair(training_, r, R, L);
  const double c = loss_scale_ / static_cast<double>(r.size());
  SR *= c;
  StL *= c;
  if (trace_shift_ != 0.0) {
    SR -= (loss_scale_ * trace_shift_ * r.mean()) * R;
    StL -= (loss_scale_ * trace_shift_ * r.mean()) * L;
  }
  return {std::move(SR), std::move(StL)};
}

Matrix FixedSampleEstimator::gradient_dense(const Vector& r) const {
  Matrix out = (loss_scale_ / static_cast<double>(r.size())) * op_->adjoint_dense(training_, r);
  if (trace_shift_ != 0.0) out.diagonal().array() -= loss_scale_ * trace_shift_ * r.mean();
  return out;
}

Matrix FixedSampleEstimator::loss_gradient_dense(const Vector& r) const {
  return (loss_scale_ / static_cast<double>(r.size())) * op_->adjoint_dense(training_, r);
}

double FixedSampleEstimator::gradient_dot(const Vector& r, double dot_with_S, double trace_of_direction) const {
  return dot_with_S + loss_scale_ * trace_shift_ * r.mean() * trace_of_direction;
}

double FixedSampleEstimator::iterate(DataSource&) {
  const int t = iteration();
  const Vector r = training_residual();
  const double residual_rms = rms(r);
  if (end_if_diverged(residual_rms, response_rms_, divergence_factor_, "on the training set after iteration " + std::to_string(t),
                      "the responses' RMS", [this] { return restore_best("; the estimate returned is the diverged iterate"); }))
    return -1.0;
  const double fit = training_fit(r);
  record_fit(fit, fit_measure("the training set, of the iterate before the step"));
  keep_if_best(fit, t);
  return advance(r);
}

double FixedSampleEstimator::training_fit(const Vector& r) const {
  if (sign_link_) return fit_of(training_.y, r + training_.y);
  return response_rms_ > 0.0 ? rms(r) / response_rms_ : 0.0;
}

std::string FixedSampleEstimator::fit_measure(const std::string& where) const {
  return (sign_link_ ? "fraction of signs the estimate gets wrong on " : "relative residual ‖y − ŷ‖/‖y‖ on ") + where;
}

void FixedSampleEstimator::measure_final_fit() {
  if (record_test_fit(estimate(), fit_measure("the held-out test set"))) return;
  record_fit(training_fit(training_residual()), fit_measure("the training set (no held-out test set)"));
}

}  // namespace rankone
