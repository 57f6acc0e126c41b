#include "gfm_one_pass.hpp"

#include <cmath>
#include <limits>
#include <sstream>

#include "rankone/estimation/spectral.hpp"

namespace rankone::gfm {

namespace {

double rms(const Vector& v) { return v.size() == 0 ? 0.0 : std::sqrt(v.squaredNorm() / static_cast<double>(v.size())); }

std::string format(double x) {
  std::ostringstream os;
  os.precision(3);
  os << x;
  return os.str();
}

/// (‖w − w'‖ + ‖M − M'‖_F) / (‖w‖ + ‖M‖_F): the relative change the stopping rule tests.
double relative_change(const LowRankModel& now, const LowRankModel& before) {
  const double dm = difference_norms(now, &before).frobenius;
  const double m = difference_norms(now, nullptr).frobenius;
  const double dw = now.has_first_order() ? (now.w - before.w).norm() : 0.0;
  const double w = now.has_first_order() ? now.w.norm() : 0.0;
  const double size = m + w;
  return size > 0 ? (dm + dw) / size : (dm + dw > 0 ? std::numeric_limits<double>::infinity() : 0.0);
}

}  // namespace

GfmOptions GfmOptions::from_params(const Params& params) {
  GfmOptions o;
  o.rank = params.integer("rank");
  o.batch_size = params.integer("batch_size");
  o.init_batch_size = params.has("init_batch_size") ? params.integer("init_batch_size") : o.batch_size;
  o.iterations = static_cast<int>(params.integer("iterations"));
  o.passes = params.integer("passes");
  o.tolerance = params.number("tolerance");
  o.first_order = params.boolean("first_order");
  o.divergence_factor = params.number("divergence_factor");
  return o;
}

GfmOnePass::GfmOnePass(const GfmOptions& options)
    : IterativeEstimator(options.iterations, options.tolerance), options_(options), reader_(options.passes) {}

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

  data_ = &data;
  const Batch batch = reader_.next(data, options_.init_batch_size);
  const SpectralResult init = spectral_estimate(batch, op, shape, options_.rank, /*first_order=*/false, rng);
  if (!init.ok) {
    finish(Status::failed, "spectral initialisation failed: " + init.failure);
    return;
  }
  U_ = init.left_vectors;
  // Algorithm 1 starts from M = 0 (V = 0) and only the subspace U; the asymmetric update U ← QR(G V)
  // needs a right factor, so there the start is the spectral estimate U Σ V' itself.
  if (!symmetric_) V_ = init.right_vectors * init.values.asDiagonal();
  response_rms_ = rms(batch.y);
  if (!(response_rms_ > 0) || !std::isfinite(response_rms_)) response_rms_ = 1.0;
}

Summary GfmOnePass::summary() const {
  Summary s = IterativeEstimator::summary();
  if (data_ && s.status != Status::running) s.message += reader_.reuse_note(*data_);
  return s;
}

LowRankModel GfmOnePass::model() const {
  LowRankModel m;
  m.left = U_;
  m.right = V_;
  m.symmetrize = symmetric_;
  m.w = w_;
  return m;
}

Matrix GfmOnePass::model_times(const Matrix& Z) const {
  if (symmetric_) return 0.5 * (U_ * (V_.transpose() * Z) + V_ * (U_.transpose() * Z));
  return U_ * (V_.transpose() * Z);
}

Matrix GfmOnePass::model_transpose_times(const Matrix& Z) const {
  if (symmetric_) return model_times(Z);
  return V_ * (U_.transpose() * Z);
}

double GfmOnePass::iterate(DataSource& data) {
  const int t = iteration() + 1;
  const Batch batch = reader_.next(data, options_.batch_size);
  if (batch.instances() < options_.batch_size) {
    // A shorter last batch would break the per-iteration sample size the guarantee needs: the data end here.
    const std::string passes = reader_.passes_allowed() == 1
                                   ? std::string("one pass over the data")
                                   : std::to_string(reader_.passes_started()) + " passes over the data (passes = " +
                                         std::to_string(reader_.passes_allowed()) + ")";
    const std::string unused = batch.instances() == 0 ? std::string()
                                                      : "; the partial last batch of " +
                                                            std::to_string(batch.instances()) + " instances is not used";
    finish(Status::max_iterations, passes + ": the source ran out after " + std::to_string(data.samples_drawn()) +
                                       " samples (" + std::to_string(t - 1) + " iterations" + unused + ")");
    return -1.0;
  }
  const SensingOperator& op = data.sensing_operator();
  const LowRankModel before = model();
  const Vector residual = batch.y - op.forward(batch, before);

  // The residual on a fresh batch is an out-of-sample error of the current estimate.
  const double residual_rms = rms(residual);
  if (!std::isfinite(residual_rms) || residual_rms > options_.divergence_factor * response_rms_) {
    finish(Status::diverged, "diverged at iteration " + std::to_string(t) + ": residual RMS " + format(residual_rms) +
                                 " exceeds divergence_factor × initial response RMS (" +
                                 format(options_.divergence_factor) + " × " + format(response_rms_) + ")");
    return -1.0;
  }

  // G = M̂(r) + M_t, applied matrix-free.
  const MomentMaps moment = moment_maps(batch, op, data.shape(), residual);
  Matrix U_next;
  Matrix V_next;
  if (symmetric_) {
    U_next = orthonormalize(moment.times(U_) + model_times(U_));
    V_next = moment.times(U_next) + model_times(U_next);
  } else {
    U_next = orthonormalize(moment.times(V_) + model_times(V_));
    V_next = moment.transpose_times(U_next) + model_transpose_times(U_next);
  }
  Vector w_next = w_;
  if (has_w_) w_next += op.first_order_adjoint(batch, residual) / static_cast<double>(batch.size());

  if (!U_next.allFinite() || !V_next.allFinite() || !w_next.allFinite()) {
    finish(Status::diverged, "diverged at iteration " + std::to_string(t) +
                                 ": the update produced non-finite values (the previous estimate is kept)");
    return -1.0;
  }
  U_ = std::move(U_next);
  V_ = std::move(V_next);
  w_ = std::move(w_next);
  return relative_change(model(), before);
}

}  // namespace rankone::gfm
