#include "amplitude_flow.hpp"

#include <cmath>

namespace rankone::phase_retrieval {

namespace {
constexpr double kGamma = 0.7, kBeta = 10.0;
}  // namespace

const OptionsTable<AmplitudeFlowOptions>& AmplitudeFlowOptions::table() {
  static const OptionsTable<AmplitudeFlowOptions> t = [] {
    OptionsTable<AmplitudeFlowOptions> t;
    Schema& s = t.schema();
    t.bind_choice(&AmplitudeFlowOptions::variant,
                  s.choice("variant", "af", {"af", "taf", "raf"},
                           "af: amplitude flow on (1/2m) Σ (|a_i'z| − √y_i)²; taf: truncated, measurements with "
                           "|a_i'z| < √y_i/(1 + γ) left out; raf: reweighted, each by |a_i'z|/(|a_i'z| + β √y_i)"),
                  {{"af", Variant::af}, {"taf", Variant::taf}, {"raf", Variant::raf}});
    t.bind(&AmplitudeFlowOptions::step_size,
           s.number("step_size", std::nullopt, "μ, the constant step; unset: 0.8 (af), 0.6 (taf), 2 (raf)")
               .above(0.0)
               .make_nullable());
    t.bind(&AmplitudeFlowOptions::gamma, s.number("gamma", std::nullopt, "taf: keeps |a_i'z| ≥ √y_i/(1 + γ); unset: 0.7").above(0.0).make_nullable());
    t.bind(&AmplitudeFlowOptions::beta, s.number("beta", std::nullopt, "raf: weights |a_i'z|/(|a_i'z| + β √y_i); unset: 10").at_least(0.0).make_nullable());
    s.only_with("gamma", "variant", "taf");
    s.only_with("beta", "variant", "raf");
    bind_fixed_sample_settings(t, 1000, "one gradient step each");
    return t;
  }();
  return t;
}

double AmplitudeFlowOptions::mu() const {
  if (step_size) return *step_size;
  switch (variant) {
    case Variant::af: return 0.8;
    case Variant::taf: return 0.6;
    case Variant::raf: return 2.0;
  }
  return 0.8;
}

AmplitudeFlow::AmplitudeFlow(AmplitudeFlowOptions options) : GradientFlow(options, "amplitude_flow"), options_(std::move(options)) {}

Vector AmplitudeFlow::weights(const Iterate& it) const {
  const Index m = it.u.size();
  Vector h(m);
  const double gamma = options_.gamma.value_or(kGamma), beta = options_.beta.value_or(kBeta);
  for (Index i = 0; i < m; ++i) {
    const double u = it.u(i), a = std::abs(u), psi = it.psi(i);
    const double g = u - psi * sign_of(u);  // d/du_i of ½ (|u_i| − ψ_i)²
    switch (options_.variant) {
      case AmplitudeFlowOptions::Variant::af: h(i) = g; break;
      case AmplitudeFlowOptions::Variant::taf: h(i) = a >= psi / (1.0 + gamma) ? g : 0.0; break;
      case AmplitudeFlowOptions::Variant::raf: {
        // 1/(1 + β ψ_i/|u_i|), written to stay finite at u_i = 0
        const double denominator = a + beta * psi;
        h(i) = denominator > 0.0 ? g * (a / denominator) : 0.0;
        break;
      }
    }
  }
  return h;
}

}  // namespace rankone::phase_retrieval
