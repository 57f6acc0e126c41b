// The alternating estimators `fm_moment_elimination` and `ifm` (docs/plugins/fm_moment_elimination.md,
// docs/plugins/ifm.md).
#include "alternating.hpp"

#include <cmath>
#include <memory>
#include <vector>

#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::fm_subgaussian {

namespace {

/// Four digits in the standardisation hint: column variances near 1 differ in the third.
std::string format(double v) { return short_number(v, 4); }

double rms(const Vector& v) { return v.size() ? std::sqrt(v.squaredNorm() / static_cast<double>(v.size())) : 0.0; }

/// 𝒜'(r) Y / (2n) = X diag(r) X' Y / (2n), matrix-free: O(n d k).
Matrix half_adjoint_times(const Matrix& Z, const Vector& r, const Matrix& Y) {
  const double n = static_cast<double>(Z.cols());
  const Matrix projected = Z.transpose() * Y;  // n × k
  return Z * (r.asDiagonal() * projected) / (2.0 * n);
}

}  // namespace

AlternatingEstimator::AlternatingEstimator(AlternatingOptions options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(options), reader_(options.passes.value_or(1)) {}

AlternatingEstimator::~AlternatingEstimator() = default;

bool AlternatingEstimator::next_batch(DataSource& data, Matrix& Z, Vector& y) {
  Batch batch = reader_.next(data, batch_size_);
  if (batch.instances() == 0) return false;  // the shared rule: a short last batch is not used (BatchReader)
  Z = scaling_.apply(feature_matrix(batch));
  y = batch.y;
  last_batch_ = std::move(batch);  // kept for the noise floor (see iterate)
  return true;
}

namespace {
struct AlternatingState {
  Matrix U, V;
  Vector w;
  double bias = 0.0;
};
}  // namespace

std::any AlternatingEstimator::snapshot() const { return AlternatingState{U_, V_, w_, bias_}; }

void AlternatingEstimator::restore(const std::any& state) {
  const auto& s = std::any_cast<const AlternatingState&>(state);
  U_ = s.U;
  V_ = s.V;
  w_ = s.w;
  bias_ = s.bias;
}

void AlternatingEstimator::start(DataSource& data, Rng& rng) {
  data_ = &data;
  summary_ = Summary{};
  const Index d = data.shape().d1;
  scaling_ = FeatureScaling::identity(d);
  if (const std::string why = feature_refusal(data.sensing_operator()); !why.empty()) return finish(Status::failed, name() + " " + why);
  if (options_.rank > d)
    return finish(Status::failed, "rank " + std::to_string(options_.rank) + " exceeds the dimension " + std::to_string(d));
  first_order_ = data.sensing_operator().has_first_order();

  const BatchReader::Plan plan =
      BatchReader::choose(data, options_.batch_size, options_.passes, options_.max_iterations, 10 * d * options_.rank, name());
  batch_size_ = std::max<Index>(2, plan.batch_size);
  reader_.allow_passes(plan.passes);
  batch_note_ = plan.note;
  // First batch: the standardisation check, the feature scaling and whatever the estimator estimates
  // once (fm_moment_elimination: κ, φ, τ).
  if (const std::string why = BatchReader::refusal(data, batch_size_, "batch_size"); !why.empty())
    return finish(Status::failed, why);
  Batch first = reader_.next(data, batch_size_);
  if (first.instances() == 0)
    return finish(Status::failed, "the data ran out before the first batch of " + std::to_string(batch_size_) +
                                      " instances (" + reader_.exhausted_message(data, 0) +
                                      "; lower batch_size, or set passes > 1 to re-use a finite set)");
  const Matrix X0 = feature_matrix(first);
  const FeatureScaling raw = FeatureScaling::estimate(X0);  // population mean and std per feature
  d_ = d;
  min_variance_ = raw.scale.array().square().minCoeff();
  max_variance_ = raw.scale.array().square().maxCoeff();
  mean_norm_sq_ = raw.mean.squaredNorm();
  if (!options_.standardize && options_.require_standardized) {
    // The moment updates assume E x x' = I; far from it they stall or diverge.
    if (const std::string why = StandardisationCheck::refusal(X0); !why.empty())
      return finish(Status::failed, name() + ": " + why + ", or require_standardized: false to run anyway");
  }
  scaling_ = options_.standardize ? raw : FeatureScaling::identity(d);
  Matrix Z = scaling_.apply(X0);
  if (const std::string why = prepare(Z); !why.empty()) return finish(Status::failed, why);

  // Ū⁽⁰⁾ = the start's column space, V = 0, w = 0 (Algorithm 1, line 3). The default start,
  // spectral_init, takes the top-k eigenvectors (by |eigenvalue|) of the estimator's 𝓜(−y) ≈ M*: on
  // a batch of its own when the first one estimated moments, else on the first batch.
  const Vector first_y = first.y;
  bool first_used = separate_initialisation_batch();
  StartRequest request;
  request.rank = options_.rank;
  request.batch_size = batch_size_;
  request.eigen_tolerance = EigenOptions{}.tolerance;  // Ū⁽⁰⁾ to the solver's precision, as the paper's figures were run
  request.read = [&](Index n) -> Batch {
    if (!first_used && n == batch_size_) {
      first_used = true;
      return std::move(first);
    }
    return reader_.next(data, n);
  };
  request.refusal = [&data](Index n, const std::string& parameter) { return BatchReader::refusal(data, n, parameter); };
  std::shared_ptr<const Matrix> start_Z;  // the start batch's learning features, kept for its intercept
  request.moment = [this, &start_Z](const Batch& batch) -> LinearMap {
    start_Z = std::make_shared<const Matrix>(scaling_.apply(feature_matrix(batch)));
    auto r = std::make_shared<const Vector>(-batch.y);
    return [this, Zb = start_Z, r](const Matrix& Y) -> Matrix { return correction_times(*Zb, *r, Y); };
  };
  request.subspace = true;  // U_0: the start's column space
  const Start start = initial_model(data, request, rng);
  if (!start.ok)
    return finish(Status::failed, "no start: " + start.failure +
                                      (start.ran_out ? " (" + reader_.exhausted_message(data, 0) + "; set passes > 1 to re-use a finite set)"
                                                     : std::string()));
  if (start.basis.rows() != d) return finish(Status::failed, "no start: the start's factors are not d × k");
  // The moment map's eigenbasis is in the learning coordinates already; another start's M0 is in the
  // data's, and M_z = S M0 S spans S times its column space.
  U_ = start.from_moment ? start.basis : orthonormalize(scaling_.scale.asDiagonal() * start.model.left);
  V_ = Matrix::Zero(d, options_.rank);
  w_ = first_order_ ? Vector::Zero(d) : Vector();
  bias_ = 0.0;
  if (options_.fits_intercept()) {
    // The intercept of the start's batch (the first batch when the start read none).
    if (start.batch.instances() > 0)
      bias_ = (start.batch.y - predict(start_Z ? *start_Z : Matrix(scaling_.apply(feature_matrix(start.batch))), model_z())).mean();
    else
      bias_ = (first_y - predict(Z, model_z())).mean();
  }
}

LowRankModel AlternatingEstimator::model_z() const {
  LowRankModel m;
  m.left = U_;
  m.right = V_;
  m.symmetrize = true;  // x'Mx sees only (Ū V' + V Ū')/2; report that part
  m.zero_diagonal = zero_diagonal();
  m.w = w_;
  m.bias = bias_;
  return m;
}

Estimate AlternatingEstimator::estimate() const {
  if (U_.size() == 0) {  // failed before initialising: the zero model of the right shape
    const Index d = scaling_.mean.size();
    LowRankModel zero;
    zero.left = Matrix::Zero(d, options_.rank);
    zero.right = Matrix::Zero(d, options_.rank);
    zero.symmetrize = true;
    return zero;
  }
  return scaling_.to_raw(model_z());
}

Summary AlternatingEstimator::summary() const {
  Summary s = summary_;
  if (data_) s.message += reader_.reuse_note(*data_);
  if (!batch_note_.empty()) s.notes.push_back(batch_note_);
  if (const std::string note = reader_.dropped_note(name(), batch_size_); !note.empty()) s.notes.push_back(note);
  return s;
}

double AlternatingEstimator::iterate(DataSource& data) {
  Matrix Z;
  Vector y;
  if (!next_batch(data, Z, y)) {
    finish(Status::max_iterations, reader_.exhausted_message(data, iteration()));
    return -1.0;
  }
  const Vector r = predict(Z, model_z()) - y;
  const double residual_rms = rms(r);
  // The batch is fresh: its residual is an out-of-sample error of the current estimate.
  const double y_norm = y.norm();
  const double fit = y_norm > 0.0 ? r.norm() / y_norm : std::numeric_limits<double>::infinity();
  if (std::isfinite(fit)) {
    record_fit(fit, "relative residual ‖y − ŷ‖/‖y‖ on the last fresh batch, before its update");
    keep_if_best(fit, iteration());
  }
  if (end_if_diverged(residual_rms, rms(y), options_.divergence_factor, iteration() + 1,
                      [this] { return restore_best("; the estimate is the one before this iteration"); }))
    return -1.0;

  const Matrix U_prev = U_;
  const Matrix V_prev = V_;
  const Vector w_prev = w_;
  const double eta = options_.step_size;
  U_ = orthonormalize(V_ - eta * correction_times(Z, r, U_prev));
  V_ = V_ * (U_prev.transpose() * U_) - eta * correction_times(Z, r, U_);
  if (first_order_) w_ -= eta * first_order_correction(Z, r);
  // The intercept is confounded with tr(M) in mean(r); M and w ignore it (𝓜 removes P0·I or the
  // diagonal), so it is refitted by least squares on this batch once they have moved.
  if (options_.fits_intercept()) bias_ -= (predict(Z, model_z()) - y).mean();

  // The batch the fit was measured on is kept (moved) for the noise floor, measured when the run ends.
  if (std::isfinite(fit))
    record_fresh_fit(fit, "relative residual ‖y − ŷ‖/‖y‖ on the last fresh batch, before its update",
                     std::move(last_batch_), data);
  const double change = (w_ - w_prev).norm() + factored_difference_norm(U_, V_, U_prev, V_prev);
  const double size = w_.norm() + factored_norm(U_, V_);
  return size > 0.0 ? change / size : change;
}

std::string AlternatingEstimator::stall_hint() const {
  std::vector<std::string> hints;
  // The band of the standardisation check, on the point estimates: the check refuses only what is
  // outside it by more than three standard errors.
  using Check = StandardisationCheck;
  if (!options_.standardize && (min_variance_ < Check::kLowSecondMoment || max_variance_ > Check::kHighSecondMoment ||
                                mean_norm_sq_ > Check::kHighSecondMoment - 1.0))
    hints.push_back("features are not standardised (column variances from " + format(min_variance_) + " to " +
                    format(max_variance_) + ", |mean|^2 " + format(mean_norm_sq_) + "; set standardize)");
  // Measured sample complexity (docs/fm_subgaussian_sample_complexity.md): every run with n ≥ 10·k·d succeeded.
  if (static_cast<double>(batch_size_) < 10.0 * static_cast<double>(options_.rank * d_))
    hints.push_back("batch of " + std::to_string(batch_size_) + " rows may be small for d = " +
                    std::to_string(d_) + ", rank " + std::to_string(options_.rank) + " (try ≥ 10·k·d = " +
                    std::to_string(10 * options_.rank * d_) + ")");
  if (hints.empty() && options_.step_size >= 1.0)
    hints.push_back("the data may be far from the sub-gaussian moment model; try step_size < 1");
  std::string text;
  for (const auto& h : hints) text += (text.empty() ? "" : "; ") + h;
  return text;
}

// ---- fm_moment_elimination ----

MomentEliminationEstimator::MomentEliminationEstimator(const MomentEliminationOptions& options)
    : AlternatingEstimator(options), tau_threshold_(options.tau_threshold), tau_confidence_(options.tau_confidence) {}

std::string MomentEliminationEstimator::prepare(const Matrix& Z) {
  // τ is a property of the standardised law: tau_bound standardises each coordinate by the batch's
  // own mean and std, so a two-point law gives exactly 0 whatever its p and the scaling of Z.
  const TauBound bound = tau_bound(Z, tau_confidence_);
  Index j_tau = 0, j_lower = 0;
  const double tau = bound.tau(&j_tau);
  const double lower = bound.lower_bound(&j_lower);
  const std::string level = format(100.0 * tau_confidence_) + "%";
  if (tau_threshold_ > 0.0 && !(lower >= tau_threshold_)) {  // 0: no test (the bound may be below 0)
    return "estimated tau-MIP constant tau = min_j (phi_j - 1 - kappa_j^2) = " + format(tau) + " (coordinate " +
           std::to_string(j_tau) + ", from " + std::to_string(Z.cols()) + " instances); its " + level +
           " lower confidence bound = " + format(lower) + " (coordinate " + std::to_string(j_lower) + ": estimate " +
           format(bound.estimate(j_lower)) + ", standard error " + format(bound.std_error(j_lower)) + ", z = " +
           format(bound.z) + "; the larger of estimate - z * standard error and that bound for the 0.999-truncated "
           "mean) is below tau_threshold = " + format(tau_threshold_) +
           ": the data do not show that the diagonal of M* can be told apart from w* (Proposition 1). Use ifm "
           "(zero-diagonal model); if the features are continuous, a larger batch_size shrinks the standard error "
           "(as 1/sqrt(batch_size))";
  }
  const CoordinateMoments moments = estimate_moments(Z);
  // Without standardize the coefficients come from the moments of the features as given, whose
  // det B_j = phi_j - 1 - kappa_j^2 can be near 0 although tau is not: G and H divide by it.
  Index j_det = 0;
  const double det = (moments.phi.array() - 1.0 - moments.kappa.array().square()).abs().minCoeff(&j_det);
  if (!(det >= tau_threshold_)) {
    return "the moment matrices B_j of the features as given are near-singular: min_j |phi_j - 1 - kappa_j^2| = " +
           format(det) + " (coordinate " + std::to_string(j_det) + ", moments about 0 of the unstandardised values) is "
           "below tau_threshold = " + format(tau_threshold_) + ", although the standardised estimate of tau is " +
           format(tau) + ": set standardize";
  }
  coefficients_ = elimination_coefficients(moments);
  return "";
}

Matrix MomentEliminationEstimator::correction_times(const Matrix& Z, const Vector& r, const Matrix& Y) const {
  const double n = static_cast<double>(Z.cols());
  const double p0 = r.mean();
  const Vector p1 = Z * r / n;
  const Vector p2 = Z.array().square().matrix() * r / n - Vector::Constant(Z.rows(), p0);
  const Vector diagonal = coefficients_.G.col(0).cwiseProduct(p1) + coefficients_.G.col(1).cwiseProduct(p2);
  // The −½ P0 I term is the erratum of Eq. (7) (docs/papers/fm-subgaussian.md): E 𝒜'𝒜(Δ)/n has a
  // tr(Δ) I part.
  return half_adjoint_times(Z, r, Y) - 0.5 * p0 * Y - 0.5 * (diagonal.asDiagonal() * Y);
}

Vector MomentEliminationEstimator::first_order_correction(const Matrix& Z, const Vector& r) const {
  const double n = static_cast<double>(Z.cols());
  const Vector p1 = Z * r / n;
  const Vector p2 = Z.array().square().matrix() * r / n - Vector::Constant(Z.rows(), r.mean());
  return coefficients_.H.col(0).cwiseProduct(p1) + coefficients_.H.col(1).cwiseProduct(p2);
}

// ---- ifm ----

Matrix ImprovedFmEstimator::correction_times(const Matrix& Z, const Vector& r, const Matrix& Y) const {
  const double n = static_cast<double>(Z.cols());
  // diag(𝒜'(r))_j / (2n) = Σ_i r_i z_ij² / (2n).
  const Vector diagonal = Z.array().square().matrix() * r / (2.0 * n);
  return half_adjoint_times(Z, r, Y) - diagonal.asDiagonal() * Y;
}

Vector ImprovedFmEstimator::first_order_correction(const Matrix& Z, const Vector& r) const {
  return Z * r / static_cast<double>(Z.cols());
}

}  // namespace rankone::fm_subgaussian
