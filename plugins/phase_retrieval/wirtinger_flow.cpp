#include "wirtinger_flow.hpp"

#include <cmath>
#include <limits>

namespace rankone::phase_retrieval {

using Options = WirtingerFlowOptions;

namespace {
constexpr double kTau0 = 330.0, kAlphaLb = 0.3, kAlphaUb = 5.0, kAlphaH = 5.0;
}  // namespace

const OptionsTable<Options>& Options::table() {
  static const OptionsTable<Options> t = [] {
    OptionsTable<Options> t;
    Schema& s = t.schema();
    t.bind_choice(&Options::variant,
                  s.choice("variant", "wf", {"wf", "twf"},
                           "wf: Wirtinger flow on (1/4m) Σ ((a_i'z)² − y_i)² with the step schedule "
                           "min(1 − e^(−t/τ0), μ)/‖z_0‖²; twf: truncated Wirtinger flow on the Poisson loss, "
                           "measurements with |a_i'z| far from ‖z‖ or a residual far above the mean left out"),
                  {{"wf", Variant::wf}, {"twf", Variant::twf}});
    t.bind(&Options::step_size,
           s.number("step_size", 0.2, "μ: wf's largest step (of min(1 − e^(−t/τ0), μ)/‖z_0‖²), twf's constant step")
               .above(0.0));
    t.bind(&Options::tau0, s.number("tau0", std::nullopt, "wf: the schedule's time constant τ0; unset: 330").above(0.0).make_nullable());
    t.bind(&Options::alpha_lb, s.number("alpha_lb", std::nullopt, "twf: keeps |a_i'z| ≥ α_lb ‖z‖; unset: 0.3").at_least(0.0).make_nullable());
    t.bind(&Options::alpha_ub, s.number("alpha_ub", std::nullopt, "twf: keeps |a_i'z| ≤ α_ub ‖z‖; unset: 5").above(0.0).make_nullable());
    t.bind(&Options::alpha_h, s.number("alpha_h", std::nullopt,
                                       "twf: keeps |y_i − (a_i'z)²| ≤ α_h K |a_i'z|/‖z‖, K the mean |residual|; unset: 5")
                                  .above(0.0)
                                  .make_nullable());
    s.only_with("tau0", "variant", "wf");
    for (const char* name : {"alpha_lb", "alpha_ub", "alpha_h"}) s.only_with(name, "variant", "twf");
    s.constraint({"alpha_lb", "alpha_ub"}, "twf keeps α_lb ‖z‖ ≤ |a_i'z| ≤ α_ub ‖z‖: α_lb must be below α_ub",
                 [](const Params& p) {
                   return p.has("alpha_lb") ? p.number("alpha_lb") < (p.has("alpha_ub") ? p.number("alpha_ub") : kAlphaUb)
                                            : !p.has("alpha_ub") || kAlphaLb < p.number("alpha_ub");
                 });
    bind_fixed_sample_settings(t, 2500, "one gradient step each");
    return t;
  }();
  return t;
}

WirtingerFlow::WirtingerFlow(Options options)
    : GradientFlow(options, "wirtinger_flow"), options_(std::move(options)) {}

Vector WirtingerFlow::weights(const Iterate& it) const {
  const Index m = it.u.size();
  Vector h(m);
  if (options_.variant == Options::Variant::wf) {
    // d/du_i of ¼ (u_i² − y_i)²
    for (Index i = 0; i < m; ++i) h(i) = (it.u(i) * it.u(i) - it.y(i)) * it.u(i);
    return h;
  }
  // Poisson loss u_i² − y_i log u_i², derivative 2 (u_i² − y_i)/u_i, on the kept measurements only.
  const double lb = options_.alpha_lb.value_or(kAlphaLb) * it.z_norm;
  const double ub = options_.alpha_ub.value_or(kAlphaUb) * it.z_norm;
  double K = 0.0;
  for (Index i = 0; i < m; ++i) K += std::abs(it.y(i) - it.u(i) * it.u(i));
  K /= static_cast<double>(m);
  const double bound = options_.alpha_h.value_or(kAlphaH) * K / it.z_norm;
  for (Index i = 0; i < m; ++i) {
    const double a = std::abs(it.u(i)), r = it.u(i) * it.u(i) - it.y(i);
    const bool kept = a >= lb && a <= ub && std::abs(r) <= bound * a && a > 0.0;
    h(i) = kept ? 2.0 * r / it.u(i) : 0.0;
  }
  return h;
}

double WirtingerFlow::step_size(int t) const {
  if (options_.variant == Options::Variant::twf) return options_.step_size;
  const double tau0 = options_.tau0.value_or(kTau0);
  return std::min(1.0 - std::exp(-static_cast<double>(t) / tau0), options_.step_size) / start_norm_squared();
}

}  // namespace rankone::phase_retrieval
