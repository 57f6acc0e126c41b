#include "phase_flow.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "rankone/interfaces/estimator.hpp"
#include "rankone/linalg/balanced_factors.hpp"

namespace rankone::phase_retrieval {

namespace {
struct State {
  Vector z, u;
};
}  // namespace

std::string not_phase_retrieval(const DataSource& data, const Batch& batch, const std::string& who) {
  const SensingOperator& op = data.sensing_operator();
  const bool vectors = batch.left.kind != DesignSide::Kind::matrix && batch.left.kind != DesignSide::Kind::all;
  if (!op.symmetric() || batch.right || !vectors || op.has_first_order())
    return who + " is for phase retrieval, y_i = (a_i'x)²: it needs the symmetric rank-one operator "
                 "(symmetric_rank_one) without a first-order term";
  if (data.link() != Link::identity)
    return who + " is for phase retrieval, y_i = (a_i'x)²: the responses are signs (link \"sign\"), not intensities";
  if (data.truth() && data.truth()->zero_diagonal)
    return who + " is for phase retrieval, y_i = (a_i'x)²: the planted truth removes its diagonal (fm, zero_diagonal), "
                 "so the responses are not squares";
  return "";
}

PhaseFlow::PhaseFlow(const FixedSampleSettings& settings, std::string name)
    : FixedSampleEstimator(settings), name_(std::move(name)) {}

void PhaseFlow::start(DataSource& data, Rng& rng) {
  if (!read_training_set(data, name_)) return;
  const Batch& b = training();
  if (const std::string why = not_phase_retrieval(data, b, name_); !why.empty()) return finish(Status::failed, why);
  if (std::string why; !prepare(b, rng, why)) return finish(Status::failed, why);
  StartRequest request = start_request(1);
  request.one_factor = true;  // M = z z'
  const Start s = initial_model(data, request, rng);
  if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
  z_ = psd_factor(s.model, 1).left.col(0);
  start_norm_squared_ = z_.squaredNorm();
  if (!(start_norm_squared_ > 0.0) || !std::isfinite(start_norm_squared_))
    return finish(Status::failed, "the start is zero (its largest eigenvalue is not positive: are the responses (a'x)²?)");
  psi_ = amplitudes_of(b.y);
  u_ = b.left.project(z_).col(0);
  started();
}

Estimate PhaseFlow::estimate() const {
  Estimate e;
  e.left = z_;
  e.right = z_;
  e.symmetrize = true;
  return e;
}

Vector PhaseFlow::training_residual() const { return u_.array().square().matrix() - training().y; }

double PhaseFlow::advance(const Vector&) {
  Next next = next_signal(iteration() + 1);
  // ‖z⁺z⁺' − z z'‖_F with δ = z⁺ − z: ‖δ z⁺' + z δ'‖² = ‖δ‖²(‖z⁺‖² + ‖z‖²) + 2 (δ'z)(δ'z⁺), every term of
  // order ‖δ‖² (the expansion ‖z⁺‖⁴ + ‖z‖⁴ − 2 (z⁺'z)² cancels below √ε); relative to ‖z z'‖_F = ‖z‖².
  const Vector delta = next.z - z_;
  const double d2 = delta.squaredNorm(), c = z_.squaredNorm();
  const double squared = d2 * (next.z.squaredNorm() + c) + 2.0 * delta.dot(z_) * delta.dot(next.z);
  const double change = std::sqrt(std::max(squared, 0.0)) / std::max(c, 1e-300);
  z_ = std::move(next.z);
  u_ = next.u.size() != 0 ? std::move(next.u) : Vector(training().left.project(z_).col(0));
  return next.measures_convergence ? change : std::numeric_limits<double>::infinity();
}

PhaseFlow::Next GradientFlow::next_signal(int t) {
  const Batch& b = training();
  const Iterate it{measurements(), b.y, amplitudes(), signal().norm()};
  const Vector h = weights(it);
  const double m = static_cast<double>(b.instances());
  Vector g = precondition(b.left.accumulate(h).col(0) / m);
  if (backtracking_) return backtrack(it, std::move(g), t);
  return Next{signal() - step_size(t) * g, true, {}};
}

PhaseFlow::Next GradientFlow::backtrack(const Iterate& it, Vector g, int t) {
  constexpr double kSufficientDecrease = 0.1, kShrink = 0.2;
  constexpr int kMaxShrinks = 20;
  std::vector<double> trials{first_trial_step()};
  if (t > 1 && previous_g_.size() == g.size()) {
    // Barzilai–Borwein, PhasePack's adaptive combination of the two rules
    const Vector dx = signal() - previous_z_, dg = g - previous_g_;
    const double s = dx.dot(dg), tau_s = dx.squaredNorm() / s, tau_m = std::max(s / dg.squaredNorm(), 0.0);
    double tau = 2.0 * tau_m > tau_s ? tau_m : tau_s - tau_m / 2.0;
    if (!(tau > 0.0) || !std::isfinite(tau)) tau = 1.5 * previous_step_;  // let it grow: the search shrinks it
    // A near-zero curvature Δz'Δg makes the BB step too long for 20 shrinks: the first trial is searched next.
    trials.insert(trials.begin(), tau);
  }
  const double f0 = search_loss(it, it.u), slope = kSufficientDecrease * g.squaredNorm();
  Next next;
  double tau = 0.0;
  // Tests τ, 0.2τ, …, 0.2¹⁹τ; true at the first that satisfies Armijo (next and tau then hold it).
  const auto search = [&](double trial) {
    tau = trial;
    for (int shrinks = 0; shrinks < kMaxShrinks; ++shrinks, tau *= kShrink) {
      next.z = signal() - tau * g;
      next.u = training().left.project(next.z).col(0);
      if (search_loss(it, next.u) <= f0 - tau * slope) return true;
    }
    return false;
  };
  bool accepted = false;
  for (const double trial : trials)
    if ((accepted = search(trial))) break;
  if (!accepted) {  // at rounding, or at a stationary point: the last trial shrunk 20 times, untested
    next.z = signal() - tau * g;
    next.u = training().left.project(next.z).col(0);
  }
  previous_z_ = signal();
  previous_g_ = std::move(g);
  previous_step_ = tau;
  return next;
}

double GradientFlow::search_loss(const Iterate&, const Vector&) const {
  throw std::logic_error("this gradient flow declares no loss: it cannot search a line");
}

double GradientFlow::first_trial_step() const {
  throw std::logic_error("this gradient flow declares no first trial step: it cannot search a line");
}

std::any PhaseFlow::snapshot() const { return State{z_, u_}; }

void PhaseFlow::restore(const std::any& state) {
  const auto& s = std::any_cast<const State&>(state);
  z_ = s.z;
  u_ = s.u;
}

std::string PhaseFlow::stall_hint() const {
  const double ratio = static_cast<double>(training().size()) / static_cast<double>(problem().d1);
  if (ratio < 4.0)
    return "few measurements: m/n = " + short_number(ratio) + " (real Gaussian phase retrieval needs m/n ≳ 2 to be "
           "identifiable, and these flows about 3–6 from a spectral start)";
  return "";
}

}  // namespace rankone::phase_retrieval
