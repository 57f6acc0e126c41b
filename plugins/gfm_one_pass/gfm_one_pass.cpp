#include "gfm_one_pass.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "rankone/estimation/spectral.hpp"
#include "rankone/linalg/blocked_products.hpp"

namespace rankone::gfm {

namespace {

double rms(const Vector& v) { return v.size() == 0 ? 0.0 : std::sqrt(v.squaredNorm() / static_cast<double>(v.size())); }

/// What a diverged run returns when no fit was recorded before it.
const char* const kBeforeThisIteration = "; the estimate is the one before this iteration";

/// (|b − b'| + ‖w − w'‖ + ‖M − M'‖_F) / (|b| + ‖w‖ + ‖M‖_F): the relative change the stopping rule tests.
double relative_change(const LowRankModel& now, const LowRankModel& before) {
  const double dm = difference_norms(now, &before).frobenius;
  const double m = difference_norms(now, nullptr).frobenius;
  const double dw = now.has_first_order() ? (now.w - before.w).norm() : 0.0;
  const double w = now.has_first_order() ? now.w.norm() : 0.0;
  const double change = dm + dw + std::abs(now.bias - before.bias);
  const double size = m + w + std::abs(now.bias);
  return size > 0 ? change / size : (change > 0 ? std::numeric_limits<double>::infinity() : 0.0);
}

}  // namespace

GfmOnePass::GfmOnePass(const GfmOptions& options)
    : IterativeEstimator(options.max_iterations, options.tolerance), options_(options), reader_(options.passes.value_or(1)) {}

GfmOnePass::~GfmOnePass() = default;

void GfmOnePass::start(DataSource& data, Rng& rng) {
  const SensingOperator& op = data.sensing_operator();
  const ProblemShape shape = data.shape();
  symmetric_ = op.symmetric();
  has_w_ = options_.first_order && op.has_first_order();
  const Index d1 = shape.d1;
  const Index d2 = symmetric_ ? shape.d1 : shape.d2;
  U_ = Matrix::Zero(d1, options_.rank);
  V_ = Matrix::Zero(d2, options_.rank);
  w_ = has_w_ ? Vector::Zero(d1) : Vector();
  b_ = 0.0;

  data_ = &data;
  d_ = d1;
  const BatchReader::Plan plan = BatchReader::choose(data, options_.batch_size, options_.passes, options_.max_iterations,
                                                     10 * d1 * options_.rank, "gfm_one_pass");
  batch_size_ = plan.batch_size;
  reader_.allow_passes(plan.passes);
  batch_note_ = plan.note;
  if (const std::string why = BatchReader::refusal(data, batch_size_, "batch_size"); !why.empty())
    return finish(Status::failed, why);
  // The start (`init`, spectral_init by default) reads through this estimator's reader: its passes apply.
  bool ran_out = false;
  StartRequest request;
  request.rank = options_.rank;
  request.first_order = false;  // Algorithm 1 starts from w = 0
  request.subspace = true;       // U_0: the start's column space
  request.batch_size = batch_size_;
  request.read = [&](Index n) {
    Batch b = reader_.next(data, n);
    ran_out = ran_out || b.instances() == 0;
    return b;
  };
  request.refusal = [&data](Index n, const std::string& parameter) { return BatchReader::refusal(data, n, parameter); };
  Start init = initial_model(data, request, rng);
  if (!init.ok)
    return finish(Status::failed, init.failure + (ran_out ? " (" + reader_.exhausted_message(data, 0) +
                                                                "; set passes > 1 to re-use a finite set)"
                                                          : std::string()));
  // x'Mx: Algorithm 1 starts from M = 0 (V = 0) in the start's column space U. The asymmetric update
  // U ← QR(G V) needs a right factor, so there the start is the start's model itself (U Σ V' for spectral_init).
  U_ = init.basis;
  // U V' = B B' L R' = L R' with V = R (L' B); spectral_init's L is its basis already: V = R exactly.
  if (!symmetric_) {
    const bool left_is_basis = init.model.left.rows() == init.basis.rows() && init.model.left.cols() == init.basis.cols() &&
                               (init.model.left.array() == init.basis.array()).all();
    V_ = left_is_basis ? init.model.right : Matrix(init.model.right * (init.model.left.transpose() * init.basis));
  }
  // The start's b fits the start's M (0 for x'Mx, so b = mean(y)) on the start's batch, when it read one.
  if (options_.intercept && !init.batch.empty()) b_ = refit_intercept(init.batch, op, U_, V_, w_);
  if (!init.batch.empty()) data.recycle(std::move(init.batch));  // its buffers hold the first iteration's batch
}

namespace {
struct GfmState {
  Matrix U, V;
  Vector w;
  double b = 0.0;
};
}  // namespace

std::any GfmOnePass::snapshot() const { return GfmState{U_, V_, w_, b_}; }

void GfmOnePass::restore(const std::any& state) {
  const auto& s = std::any_cast<const GfmState&>(state);
  U_ = s.U;
  V_ = s.V;
  w_ = s.w;
  b_ = s.b;
}

Summary GfmOnePass::summary() const {
  Summary s = IterativeEstimator::summary();
  if (data_ && s.status != Status::running) s.message += reader_.reuse_note(*data_);
  if (!batch_note_.empty()) s.notes.push_back(batch_note_);
  if (const std::string note = reader_.dropped_note("gfm_one_pass", batch_size_); !note.empty())
    s.notes.push_back(note);
  // A run can end well (no truth to judge it by, a file) with an intercept it cannot fit: say so.
  if (const std::string intercept = missing_intercept();
      s.status != Status::running && !intercept.empty() && s.message.find(intercept) == std::string::npos)
    s.notes.push_back("gfm_one_pass: " + intercept);
  return s;
}

LowRankModel GfmOnePass::model() const {
  LowRankModel m;
  m.left = U_;
  m.right = V_;
  m.symmetrize = symmetric_;
  m.w = w_;
  m.bias = b_;
  return m;
}

double GfmOnePass::refit_intercept(const Batch& batch, const SensingOperator& op, const Matrix& U, const Matrix& V,
                                   const Vector& w) const {
  LowRankModel m;
  m.left = U;
  m.right = V;
  m.symmetrize = symmetric_;
  m.w = w;
  return (batch.y - op.forward(batch, m)).mean();
}

Matrix GfmOnePass::model_times(const Matrix& Z) const {
  if (symmetric_) return 0.5 * (U_ * (V_.transpose() * Z) + V_ * (U_.transpose() * Z));
  return U_ * (V_.transpose() * Z);
}

Matrix GfmOnePass::model_transpose_times(const Matrix& Z) const {
  if (symmetric_) return model_times(Z);
  return V_ * (U_.transpose() * Z);
}

Vector GfmOnePass::dense_residual(const Batch& batch, Matrix& XrXtU) const {
  const Matrix& X = batch.left.dense;  // d × n
  const Index k = U_.cols();
  const Index first_order = has_w_ ? 1 : 0;
  Matrix F(X.rows(), 2 * k + first_order);
  F.leftCols(k) = U_;
  F.middleCols(k, k) = V_;
  if (has_w_) F.col(2 * k) = w_;
  Vector residual(X.cols());
  // Each slice's rows of P = X'[U V w] give its residuals, and with them its weights [r·X'U, r].
  XrXtU = blocked_fused_products(
      X, F, k + first_order,
      [&](Index first, const Eigen::Ref<const Matrix>& P, Eigen::Ref<Matrix> W) {
        // x'(U V' + V U')x / 2 = Σ_a (x'U_a)(x'V_a).
        auto r = residual.segment(first, P.rows());
        r = (P.leftCols(k).array() * P.middleCols(k, k).array()).rowwise().sum();
        if (has_w_) r += P.col(2 * k);
        if (options_.intercept) r.array() += b_;
        r = batch.y.segment(first, P.rows()) - r;
        W.leftCols(k).noalias() = r.asDiagonal() * P.leftCols(k);
        if (has_w_) W.col(k) = r;
      },
      resolve_threads(options_.threads));
  return residual;
}

void GfmOnePass::dense_update(const Batch& batch, const MomentInverse& inverse, const Vector& residual,
                              const Matrix& XrXtU, Matrix& U_next, Matrix& V_next, Vector& w_next,
                              double& b_next) const {
  const Matrix& X = batch.left.dense;
  const Index k = U_.cols();
  const double n = static_cast<double>(residual.size());
  const double shift = inverse.trace_shift * residual.mean();
  // G Z = scale·(X diag(r) X'Z / n − shift·Z) + M_t Z, as moment_maps computes it.
  const auto G = [&](const Matrix& X_weighted, const Matrix& Z) -> Matrix {
    return inverse.scale * (X_weighted / n - shift * Z) + model_times(Z);
  };
  U_next = orthonormalize(G(XrXtU.leftCols(k), U_));
  if (has_w_) w_next = w_ + XrXtU.col(k) / n;
  // One pass gives X diag(r) X'U_new and, with an intercept, X X'U_new and X 1 as well, so
  // b = mean(y − x'U V'x − x'w) costs no pass of its own: Σ_i x_i'U V'x_i = Σ_a V_a'(X X'U)_a.
  const Index weight_cols = options_.intercept ? 2 * k + 1 : k;
  const Matrix B = blocked_fused_products(
      X, U_next, weight_cols,
      [&](Index first, const Eigen::Ref<const Matrix>& XtU_next, Eigen::Ref<Matrix> W) {
        W.leftCols(k).noalias() = residual.segment(first, XtU_next.rows()).asDiagonal() * XtU_next;
        if (!options_.intercept) return;
        W.middleCols(k, k) = XtU_next;
        W.col(2 * k).setOnes();
      },
      resolve_threads(options_.threads));
  V_next = G(B.leftCols(k), U_next);
  if (!options_.intercept) return;
  const double quadratic = (V_next.array() * B.middleCols(k, k).array()).sum();
  const double linear = has_w_ ? B.col(2 * k).dot(w_next) : 0.0;
  b_next = (batch.y.sum() - quadratic - linear) / n;
}

double GfmOnePass::iterate(DataSource& data) {
  const int t = iteration() + 1;
  Batch batch = reader_.next(data, batch_size_);
  if (batch.instances() == 0) {  // the shared rule: a short last batch is not used (BatchReader)
    finish(Status::max_iterations, reader_.exhausted_message(data, t - 1));
    return -1.0;
  }
  const SensingOperator& op = data.sensing_operator();
  const LowRankModel before = model();
  // x'Mx (+ x'w) on dense designs: the fused path. A symmetric operator measures <x x', M> + x'w by
  // SensingOperator's definition, so this computes the same quantities up to summation order.
  const bool dense = symmetric_ && batch.left.kind == DesignSide::Kind::dense && !batch.right;
  Matrix XrXtU;
  const Vector residual = dense ? dense_residual(batch, XrXtU) : Vector(batch.y - op.forward(batch, before));

  // The residual on a fresh batch is an out-of-sample error of the current estimate: its fit.
  const double residual_rms = rms(residual);
  const double y_norm = batch.y.norm();
  const double fit = y_norm > 0 ? residual.norm() / y_norm : std::numeric_limits<double>::infinity();
  if (std::isfinite(fit)) {
    record_fit(fit, "relative residual ‖y − ŷ‖/‖y‖ on the last fresh batch, before its update");
    last_mean_residual_ = residual.mean();
    last_residual_rms_ = residual_rms;
    last_response_rms_ = rms(batch.y);
    keep_if_best(fit, t - 1);
  }
  if (end_if_diverged(residual_rms, rms(batch.y), options_.divergence_factor, t, [this] { return restore_best(kBeforeThisIteration); }))
    return -1.0;

  // G = M̂(r) + M_t, applied matrix-free.
  Matrix U_next;
  Matrix V_next;
  Vector w_next = w_;
  double b_next = b_;
  if (dense) {
    dense_update(batch, op.isotropic_inverse(data.shape()), residual, XrXtU, U_next, V_next, w_next, b_next);
  } else {
    const MomentMaps moment = moment_maps(batch, op, data.shape(), residual);
    if (symmetric_) {
      U_next = orthonormalize(moment.times(U_) + model_times(U_));
      V_next = moment.times(U_next) + model_times(U_next);
    } else {
      U_next = orthonormalize(moment.times(V_) + model_times(V_));
      V_next = moment.transpose_times(U_next) + model_transpose_times(U_next);
    }
    if (has_w_) w_next += op.first_order_adjoint(batch, residual) / static_cast<double>(batch.size());
    if (options_.intercept) b_next = refit_intercept(batch, op, U_next, V_next, w_next);
  }

  if (end_if_not_finite(U_next.allFinite() && V_next.allFinite() && w_next.allFinite() && std::isfinite(b_next), "values",
                        [this] { return restore_best(kBeforeThisIteration); }))
    return -1.0;
  U_ = std::move(U_next);
  V_ = std::move(V_next);
  w_ = std::move(w_next);
  b_ = b_next;
  // The batch is kept (moved) for the noise floor, measured once when the run ends.
  if (std::isfinite(fit))
    record_fresh_fit(fit, "relative residual ‖y − ŷ‖/‖y‖ on the last fresh batch, before its update", std::move(batch),
                     data);
  return relative_change(model(), before);
}

std::string GfmOnePass::missing_intercept() const {
  // A constant part of the residual is an intercept the model y = x'w + x'Mx cannot represent; not
  // when the residual exceeds y itself (a diverging estimate's residual has any mean).
  if (options_.intercept || last_residual_rms_ <= 0 || last_residual_rms_ >= last_response_rms_ ||
      std::abs(last_mean_residual_) <= 0.5 * last_residual_rms_)
    return "";
  return "the residual has mean " + short_number(last_mean_residual_) + " (RMS " + short_number(last_residual_rms_) +
         "): the responses have a nonzero mean/intercept the model has no term for (y = x'w + x'Mx); set "
         "intercept: true";
}

std::string GfmOnePass::stall_hint() const {
  std::vector<std::string> hints;
  const double k = static_cast<double>(options_.rank);
  const double d = static_cast<double>(d_);
  if (const std::string intercept = missing_intercept(); !intercept.empty()) hints.push_back(intercept);
  // Measured phase transition (docs/gfm-phase-transition.md): every trial at n ≥ 8·k·d reaches 1e-3,
  // none at n ≤ 2·k·d; below 8·k·d a stalled run may simply lack samples.
  const double enough = 8.0 * k * d;
  if (static_cast<double>(batch_size_) < enough)
    hints.push_back("batch of " + std::to_string(batch_size_) + " rows is small for d = " + std::to_string(d_) +
                    ", rank " + std::to_string(options_.rank) +
                    " (gfm_one_pass needs n of order k·d·log d; every measured run with n ≥ 8·k·d converged; try ≥ " +
                    std::to_string(static_cast<long long>(std::ceil(enough))) + ")");
  const Vector s = singular_values(model());
  if (s.size() > 1 && s(0) > 0 && s(s.size() - 1) < 1e-2 * s(0))
    hints.push_back("rank may be above the true rank (σ_k/σ_1 = " + short_number(s(s.size() - 1) / s(0)) + ")");
  std::string text;
  for (const auto& h : hints) text += (text.empty() ? "" : "; ") + h;
  return text;
}

}  // namespace rankone::gfm
