#include "fm_mcmc.hpp"

#include <Eigen/Eigenvalues>
#include <cmath>

#include "features.hpp"

namespace rankone::fm_baselines {

const OptionsTable<FmMcmcOptions>& FmMcmcOptions::table() {
  static const OptionsTable<FmMcmcOptions> t = [] {
    OptionsTable<FmMcmcOptions> t;
    Schema& s = t.schema();
    t.bind(&FmMcmcOptions::rank, s.integer("rank", 8, "number of factors k (libFM's default dim 1,1,8)").at_least(1));
    s.retired("init_std", "the start is the component `init` now (M0 = L L', V = √2 L): write \"init\": {\"name\": "
                          "\"random_init\", \"std\": s}; libFM's init_stdev s is std s/√2");
    t.bind(&FmMcmcOptions::burn_in, s.integer("burn_in", 0, "sweeps left out of the posterior mean (libFM averages every "
                                                      "sample: 0)")
                                  .at_least(0)
                                  .at_most(kMaxCount));
    bind_fixed_sample_settings(t, 100, "one Gibbs sweep each; libFM's default iter 100", 0.0,
                               "converged when the posterior mean's training predictions change by less than this "
                               "(relative) in a sweep; 0: run every sweep, as libFM");
    s.constraint({"burn_in", "max_iterations"}, "burn_in must leave at least one sweep for the posterior mean",
                 [](const Params& p) { return p.integer("burn_in") == 0 || p.integer("burn_in") < p.integer("max_iterations"); });
    return t;
  }();
  return t;
}

FmMcmc::FmMcmc(FmMcmcOptions options) : FixedSampleEstimator(options), options_(std::move(options)) {}

void FmMcmc::start(DataSource& data, Rng& rng) {
  sampler_.reset();
  sums_ = Sums{};
  if (!read_training_set(data, "fm_mcmc")) return;
  if (const std::string why = feature_refusal(sensing()); !why.empty()) return finish(Status::failed, "fm_mcmc " + why);
  const Index d = problem().d1, k = options_.rank;
  rng_ = Rng(rng());
  StartRequest request = start_request(k);
  request.first_order = sensing().has_first_order();
  request.one_factor = true;
  const Start start = initial_model(data, request, rng_);
  if (!start.ok) return finish(Status::failed, "no start: " + start.failure);
  GibbsState s;
  s.mu_v = Vector::Zero(k);
  s.lambda_v = Vector::Zero(k);
  s.V = std::sqrt(2.0) * start.model.left;  // M0 = L L' = ½ V V'
  if (request.first_order) s.w = start.model.w.size() == d ? start.model.w : Vector(Vector::Zero(d));
  s.w0 = start.model.bias;
  sampler_.emplace(instances_by_features(training(), false), training().y, std::move(s));
}

Estimate FmMcmc::estimate() const {
  Estimate e;
  e.symmetrize = true;
  e.zero_diagonal = true;  // M = ½ (V V' − D(V V'))
  if (!sampler_) return e;
  if (sums_.samples == 0) {  // before the first kept sample: the current one
    const GibbsState& s = sampler_->state();
    e.left = s.V / std::sqrt(2.0);
    e.w = s.w;
    e.bias = s.w0;
  } else {
    const double m = static_cast<double>(sums_.samples);
    e.left = sums_.L / std::sqrt(m);
    e.w = sums_.w / m;
    e.bias = sums_.w0 / m;
  }
  e.right = e.left;
  return e;
}

void FmMcmc::add_sample() {
  const GibbsState& s = sampler_->state();
  const Index d = s.V.rows();
  if (sums_.samples == 0) {
    sums_.L.resize(d, 0);
    sums_.w = Vector::Zero(s.w.size());
    sums_.e = Vector::Zero(sampler_->residual().size());
  }
  sums_.L.conservativeResize(Eigen::NoChange, sums_.L.cols() + s.V.cols());
  sums_.L.rightCols(s.V.cols()) = s.V / std::sqrt(2.0);
  // L L' has rank at most d: beyond 2d columns, the same L L' from its eigenvectors (exact up to rounding).
  if (sums_.L.cols() >= 2 * d) {
    const Eigen::SelfAdjointEigenSolver<Matrix> eig(sums_.L * sums_.L.transpose());
    const Vector values = eig.eigenvalues().cwiseMax(0.0);
    const double floor = 1e-14 * values.maxCoeff();
    Index keep = 0;
    for (Index i = 0; i < values.size(); ++i) keep += values(i) > floor;
    sums_.L = eig.eigenvectors().rightCols(keep) * values.tail(keep).cwiseSqrt().asDiagonal();
  }
  sums_.w += s.w;
  sums_.w0 += s.w0;
  sums_.e += sampler_->residual();
  ++sums_.samples;
}

Vector FmMcmc::training_residual() const {
  if (!sampler_) return residual(estimate());
  return sums_.samples == 0 ? sampler_->residual() : Vector(sums_.e / static_cast<double>(sums_.samples));
}

double FmMcmc::advance(const Vector& r) {
  sampler_->sweep(sampler_->draw_variates(rng_));
  if (iteration() + 1 > options_.burn_in) add_sample();
  // The change of the posterior mean's training predictions ŷ = y + r.
  const Vector after = training_residual();
  const double size = (training().y + r).norm();
  return (after - r).norm() / std::max(size, 1e-300);
}

std::any FmMcmc::snapshot() const {
  if (!sampler_) return std::any();
  return Snapshot{sampler_->state(), sampler_->residual(), sums_};
}

void FmMcmc::restore(const std::any& state) {
  if (!state.has_value()) return;
  const auto& s = std::any_cast<const Snapshot&>(state);
  sampler_->reset(s.state, s.residual);
  sums_ = s.sums;
}

std::string FmMcmc::stall_hint() const {
  return "the chain moves little per sweep: raise max_iterations, or start elsewhere (init: random_init with another std)";
}

}  // namespace rankone::fm_baselines
