// `fm`: conventional factorization machine trained by SGD or ALS (docs/plugins/fm.md).
#include "conventional_fm.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

namespace rankone::fm_subgaussian {

ConventionalFmEstimator::ConventionalFmEstimator(ConventionalFmOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(options) {}

ConventionalFmEstimator::~ConventionalFmEstimator() = default;

void ConventionalFmEstimator::start(DataSource& data, Rng& rng) {
  summary_ = Summary{};
  const Index d = data.shape().d1;
  scaling_ = FeatureScaling::identity(d);
  U_ = Matrix::Zero(d, options_.rank);
  if (const std::string why = feature_refusal(data.sensing_operator()); !why.empty()) return finish(Status::failed, "fm " + why);
  first_order_ = data.sensing_operator().has_first_order();

  // The training set: the first training_size instances, else one whole pass of a finite source.
  Batch train;
  if (options_.training_size) {
    train = data.next(*options_.training_size);
    if (data.finite() && train.instances() < *options_.training_size)
      return finish(Status::failed, "training_size " + std::to_string(*options_.training_size) +
                                        " is larger than the finite training set of " +
                                        std::to_string(train.instances()) + " instances: lower it or leave it unset");
    data_note_ = "; the first " + std::to_string(train.instances()) + " instances of the " +
                 (data.finite() ? "finite source" : "stream") + " held in memory";
  } else if (data.finite()) {
    for (Batch b = data.next(1 << 14); b.instances() > 0; b = data.next(1 << 14)) {
      if (train.instances() == 0) train = std::move(b);
      else train.append(b);
    }
    data_note_ = "; " + std::to_string(train.instances()) + " instances (one pass of the finite source) held in memory";
  } else {
    train = data.next(ConventionalFmOptions::endless_training_size);
    data_note_ = "; the first " + std::to_string(train.instances()) + " instances of the stream held in memory";
  }
  if (train.instances() == 0) return finish(Status::failed, "the data source returned no training instances");

  const Matrix X = feature_matrix(train);
  const FeatureScaling raw = FeatureScaling::estimate(X);
  min_variance_ = raw.scale.array().square().minCoeff();
  max_variance_ = raw.scale.array().square().maxCoeff();
  scaling_ = options_.standardize ? raw : FeatureScaling::identity(d);
  Z_ = scaling_.apply(X);
  y_ = train.y;
  if (options_.solver == ConventionalFmOptions::Solver::als) {
    Zt_ = Z_.transpose();
    Z_.resize(0, 0);  // ALS reads features only
  }

  rng_ = Rng(rng());
  StartRequest request = training_set_request(train, options_.rank);
  request.one_factor = true;
  const Start start = initial_model(data, request, rng_);
  if (!start.ok) return finish(Status::failed, "fm: no start: " + start.failure);
  // The start's M0 = L L' is in the data's coordinates; in the learning ones M_z = S M0 S (w and b start as below).
  U_ = scaling_.scale.asDiagonal() * start.model.left;
  w_ = first_order_ ? Vector::Zero(d) : Vector();
  bias_ = options_.fits_intercept() ? y_.mean() : 0.0;
  if (options_.solver == ConventionalFmOptions::Solver::als) refresh_residuals();
}

LowRankModel ConventionalFmEstimator::scaled_model() const {
  LowRankModel m;
  m.left = U_;
  m.right = U_;
  m.symmetrize = true;  // U U' is symmetric already; the flag tells consumers so
  m.zero_diagonal = true;
  m.w = w_;
  m.bias = bias_;
  return m;
}

Estimate ConventionalFmEstimator::estimate() const { return scaling_.to_raw(scaled_model()); }

Summary ConventionalFmEstimator::summary() const {
  Summary s = summary_;
  if (!data_note_.empty() && s.status != Status::running) s.message += data_note_;
  return s;
}

namespace {
struct FmState {
  Matrix U;
  Vector w;
  double bias = 0.0;
};
}  // namespace

std::any ConventionalFmEstimator::snapshot() const { return FmState{U_, w_, bias_}; }

void ConventionalFmEstimator::restore(const std::any& state) {
  const auto& s = std::any_cast<const FmState&>(state);
  U_ = s.U;
  w_ = s.w;
  bias_ = s.bias;
  if (options_.solver == ConventionalFmOptions::Solver::als) refresh_residuals();
}

void ConventionalFmEstimator::refresh_residuals() {
  const Matrix& Zt = Zt_;
  projected_ = Zt * U_;  // N × k
  const Vector squares_term = Zt.array().square().matrix() * U_.array().square().matrix().rowwise().sum();
  residual_ = projected_.array().square().rowwise().sum().matrix() - squares_term;
  if (first_order_) residual_ += Zt * w_;
  residual_.array() += bias_ - y_.array();
}

void ConventionalFmEstimator::sgd_epoch() {
  const Index n = Z_.cols();
  std::vector<Index> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), Index{0});
  std::shuffle(order.begin(), order.end(), rng_);
  // libFM keeps η constant (decay 0); a decaying step removes the O(η) noise floor of constant-step SGD.
  const double eta = options_.learning_rate / (1.0 + options_.decay * iteration());
  Vector q(U_.cols());
  Vector z2(Z_.rows());
  for (const Index i : order) {
    const auto z = Z_.col(i);
    z2 = z.array().square();
    q.noalias() = U_.transpose() * z;
    // ŷ = b + w'z + Σ_f [q_f² − Σ_j u_jf² z_j²]
    double prediction = bias_ + q.squaredNorm() - z2.dot(U_.array().square().matrix().rowwise().sum());
    if (first_order_) prediction += w_.dot(z);
    const double e = prediction - y_(i);
    if (options_.fits_intercept()) bias_ -= eta * e;
    if (first_order_) w_ -= eta * (e * z + options_.reg_w * w_);
    // ∂ŷ/∂u_jf = 2 (z_j q_f − u_jf z_j²)
    U_ -= eta * (2.0 * e * (z * q.transpose() - z2.asDiagonal() * U_) + options_.reg_v * U_);
  }
}

void ConventionalFmEstimator::als_epoch() {
  // Coordinate descent (libFM's ALS): ŷ is linear in each single parameter θ with slope h, so
  // θ* = (θ Σh² − Σ e h) / (Σh² + N λ) minimises J in θ; residuals and Z'U are updated in place.
  const double n = static_cast<double>(Zt_.rows());
  if (options_.fits_intercept()) {
    const double delta = -residual_.mean();
    bias_ += delta;
    residual_.array() += delta;
  }
  if (first_order_) {
    for (Index j = 0; j < Zt_.cols(); ++j) {
      const auto h = Zt_.col(j);
      const double hh = h.squaredNorm();
      const double updated = (w_(j) * hh - residual_.dot(h)) / (hh + n * options_.reg_w);
      if (!(hh > 0.0)) continue;
      residual_ += (updated - w_(j)) * h;
      w_(j) = updated;
    }
  }
  Vector h(Zt_.rows());
  for (Index f = 0; f < U_.cols(); ++f) {
    for (Index j = 0; j < Zt_.cols(); ++j) {
      const auto z = Zt_.col(j);
      const double u = U_(j, f);
      h = 2.0 * z.cwiseProduct(projected_.col(f) - u * z);
      const double hh = h.squaredNorm();
      if (!(hh > 0.0)) continue;
      const double updated = (u * hh - residual_.dot(h)) / (hh + n * options_.reg_v);
      residual_ += (updated - u) * h;
      projected_.col(f) += (updated - u) * z;
      U_(j, f) = updated;
    }
  }
  // Refresh from scratch once per epoch so rounding in the in-place updates cannot accumulate.
  refresh_residuals();
}

double ConventionalFmEstimator::iterate(DataSource&) {
  const Matrix U_prev = U_;
  const Vector w_prev = w_;
  const double bias_prev = bias_;
  if (options_.solver == ConventionalFmOptions::Solver::sgd) sgd_epoch();
  else als_epoch();
  if (end_if_not_finite(U_.allFinite() && w_.allFinite() && std::isfinite(bias_), "parameters",
                        [&] {
                          restore(FmState{U_prev, w_prev, bias_prev});
                          return std::string("; the estimate returned is the one before this epoch");
                        },
                        options_.solver == ConventionalFmOptions::Solver::sgd ? "reduce learning_rate" : ""))
    return -1.0;
  const double change = (w_ - w_prev).norm() + factored_difference_norm(U_, U_, U_prev, U_prev);
  const double size = w_.norm() + factored_norm(U_, U_);
  return size > 0.0 ? change / size : change;
}

void ConventionalFmEstimator::measure_final_fit() {
  if (record_test_fit(estimate(), "relative residual ‖y − ŷ‖/‖y‖ on the held-out test set")) return;
  const double y_norm = y_.norm();
  if (!(y_norm > 0.0)) return;
  double residual_norm = 0.0;
  if (options_.solver == ConventionalFmOptions::Solver::als) {
    residual_norm = residual_.norm();  // kept up to date by every ALS epoch
  } else {
    residual_norm = (predict(Z_, scaled_model()) - y_).norm();
  }
  record_fit(residual_norm / y_norm, "relative training residual ‖y − ŷ‖/‖y‖ (fm learns from one training set; no held-out test set)");
}

std::string ConventionalFmEstimator::stall_hint() const {
  std::string hint;
  if (!options_.standardize && (min_variance_ < 0.5 || max_variance_ > 2.0))
    hint = "features are not standardised (column variances from " + short_number(min_variance_) + " to " +
           short_number(max_variance_) + "; set standardize); ";
  if (options_.solver == ConventionalFmOptions::Solver::sgd)
    return hint + "SGD with learning_rate " + short_number(options_.learning_rate) +
           " may be too slow or too noisy: change learning_rate, raise max_iterations or add decay, or use solver als";
  return hint + "try a larger max_iterations or smaller reg_v / reg_w";
}

}  // namespace rankone::fm_subgaussian
