#include "phasemax.hpp"

#include <cmath>

#include "rankone/interfaces/estimator.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::phase_retrieval {

const OptionsTable<PhaseMaxOptions>& PhaseMaxOptions::table() {
  static const OptionsTable<PhaseMaxOptions> t = [] {
    OptionsTable<PhaseMaxOptions> t;
    Schema& s = t.schema();
    t.bind(&PhaseMaxOptions::penalty, s.number("penalty", 1.0, "ρ of the first stage (relative to the RMS amplitude)").above(0.0));
    t.bind(&PhaseMaxOptions::penalty_growth, s.number("penalty_growth", 10.0, "ρ's factor from a stage to the next").above(1.0));
    t.bind(&PhaseMaxOptions::stages, s.integer("stages", 8, "values of ρ: the last is penalty · penalty_growth^(stages − 1)")
                                 .at_least(1)
                                 .at_most(kMaxCount));
    t.bind(&PhaseMaxOptions::stage_iterations,
           s.integer("stage_iterations", 500,
                     "steps allowed at each ρ but the last round's last (which max_iterations bounds)")
               .at_least(1)
               .at_most(kMaxCount));
    t.bind(&PhaseMaxOptions::stage_tolerance,
           s.number("stage_tolerance", 1e-10, "a stage but the last round's last ends when ‖x⁺ − x‖/‖x⁺‖ falls below this").at_least(0.0));
    t.bind(&PhaseMaxOptions::rounds, s.integer("rounds", 1,
                                       "PhaseLamp's iteration: each round but the last runs every stage on the stage "
                                       "rule, and the next round solves PhaseMax anew anchored at its solution; 1 is "
                                       "PhaseMax (max_iterations counts the steps of every round)")
                                 .at_least(1)
                                 .at_most(kMaxCount));
    s.constraint({"stages", "penalty", "penalty_growth"},
                 "the last penalty, penalty · penalty_growth^(stages − 1), must stay at most 1e15 (beyond it the steps "
                 "are below rounding)",
                 [](const Params& p) {
                   return std::log10(p.number("penalty")) +
                              (static_cast<double>(p.integer("stages")) - 1.0) * std::log10(p.number("penalty_growth")) <=
                          15.0;
                 });
    bind_fixed_sample_settings(t, 5000, "one accelerated step each");
    return t;
  }();
  return t;
}

PhaseMax::PhaseMax(PhaseMaxOptions options) : PhaseFlow(options, "phasemax"), options_(std::move(options)) {}

bool PhaseMax::prepare(const Batch& training, Rng& rng, std::string& why) {
  const double m = static_cast<double>(training.instances());
  const LinearMap gram = [&](const Matrix& Z) -> Matrix { return training.left.accumulate(training.left.project(Z)) / m; };
  EigenOptions solver;
  solver.tolerance = 1e-12;
  const EigenResult top = top_k_symmetric(gram, training.left.dim, 1, rng, solver);
  gram_top_ = top.converged ? top.values(0) : 0.0;
  scale_ = norm_estimate(training.y);  // the RMS amplitude
  if (gram_top_ > 0.0 && scale_ > 0.0) return true;
  why = "phasemax: " + std::string(scale_ > 0.0 ? "λ_max(A'A/m) could not be computed" : "every response is zero or negative");
  return false;
}

void PhaseMax::started() {
  anchor_ = signal() / signal().norm();
  previous_ = signal();
  previous_u_ = measurements();
  previous_momentum_ = momentum_ = 1.0;
  penalty_ = options_.penalty;
  stage_ = 0;
  stage_steps_ = 0;
  round_ = 0;
}

PhaseFlow::Next PhaseMax::next_signal(int) {
  const Batch& b = training();
  const Vector& x = signal();
  const Vector& u = measurements();
  // Beck & Teboulle's extrapolation y_k = x_{k−1} + ((t_{k−1} − 1)/t_k)(x_{k−1} − x_{k−2}); A is linear, so the
  // point's measurements come from the last two iterates' without a product.
  const double inertia = (previous_momentum_ - 1.0) / momentum_;
  const Vector point = x + inertia * (x - previous_);
  const Vector point_u = u + inertia * (u - previous_u_);
  const Vector violation = point_u.binaryExpr(amplitudes(), [](double v, double bound) {
    return sign_of(v) * std::max(std::abs(v) - bound, 0.0);
  });
  const double m = static_cast<double>(b.instances());
  const Vector gradient = (penalty_ / (m * scale_)) * b.left.accumulate(violation).col(0) - anchor_;
  const double lipschitz = penalty_ / scale_ * gram_top_;
  Next next{point - gradient / lipschitz, true, {}};
  previous_ = x;
  previous_u_ = u;
  if (gradient.dot(next.z - x) > 0.0) {  // the step went uphill from x: drop the momentum (restart)
    previous_momentum_ = momentum_ = 1.0;
  } else {
    previous_momentum_ = momentum_;
    momentum_ = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * momentum_ * momentum_));
  }
  ++stage_steps_;
  const bool last_stage = stage_ + 1 == options_.stages, last = last_stage && round_ + 1 == options_.rounds;
  const double change = (next.z - x).norm() / std::max(next.z.norm(), 1e-300);
  if (!last && (change < options_.stage_tolerance || stage_steps_ >= options_.stage_iterations)) {
    if (last_stage) {  // PhaseLamp: the next round anchors PhaseMax at this round's solution
      ++round_;
      stage_ = 0;
      penalty_ = options_.penalty;
      if (next.z.norm() > 0.0) anchor_ = next.z / next.z.norm();  // a zero solution keeps the last anchor
    } else {  // warm start at the next penalty
      ++stage_;
      penalty_ *= options_.penalty_growth;
    }
    stage_steps_ = 0;
    previous_momentum_ = momentum_ = 1.0;
  }
  // Only the last round's last penalty's iterates approach the solution: earlier stages cannot end the run.
  next.measures_convergence = last;
  return next;
}

}  // namespace rankone::phase_retrieval
