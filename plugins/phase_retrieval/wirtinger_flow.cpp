#include "wirtinger_flow.hpp"

#include <cmath>
#include <limits>

namespace rankone::phase_retrieval {

namespace {
constexpr double kTau0 = 330.0, kAlphaUb = 5.0, kEta = 0.9;
// Chen & Candès's truncation constants, the second pair for the line search
constexpr double kAlphaLb = 0.3, kAlphaH = 5.0, kAlphaLbSearch = 0.1, kAlphaHSearch = 6.0;

// The unset truncation thresholds, which depend on the step rule
double unset_alpha_lb(bool searches) { return searches ? kAlphaLbSearch : kAlphaLb; }
double unset_alpha_h(bool searches) { return searches ? kAlphaHSearch : kAlphaH; }
bool searches(const Params& p) { return p.string("line_search") == "backtracking"; }
}  // namespace

const OptionsTable<WirtingerFlowOptions>& WirtingerFlowOptions::table() {
  static const OptionsTable<WirtingerFlowOptions> t = [] {
    OptionsTable<WirtingerFlowOptions> t;
    Schema& s = t.schema();
    t.bind_choice(&WirtingerFlowOptions::variant,
                  s.choice("variant", "wf", {"wf", "twf", "rwf"},
                           "wf: Wirtinger flow on (1/4m) Σ ((a_i'z)² − y_i)² with the step schedule "
                           "min(1 − e^(−t/τ0), μ)/‖z_0‖²; twf: truncated Wirtinger flow on the Poisson loss, "
                           "measurements with |a_i'z| far from ‖z‖ or a residual far above the mean left out; "
                           "rwf: reweighted Wirtinger flow, each measurement of wf's loss weighted by "
                           "1/(|(a_i'z)² − y_i| + η) at the current z, on wf's schedule"),
                  {{"wf", Variant::wf}, {"twf", Variant::twf}, {"rwf", Variant::rwf}});
    t.bind_choice(&WirtingerFlowOptions::line_search,
                  s.choice("line_search", "none", {"none", "backtracking"},
                           "none: the variant's step schedule; backtracking: a Barzilai–Borwein trial step shrunk "
                           "by 0.2 until it decreases the loss by 0.1 τ ‖∇f‖² (Armijo), PhasePack's search"),
                  {{"none", LineSearch::none}, {"backtracking", LineSearch::backtracking}});
    t.bind(&WirtingerFlowOptions::step_size,
           s.number("step_size", 0.2,
                    "μ: wf's and rwf's largest step (of min(1 − e^(−t/τ0), μ)/‖z_0‖²), twf's constant step; with "
                    "the line search, the first trial step (μ/‖z_0‖², twf μ)")
               .above(0.0));
    t.bind(&WirtingerFlowOptions::tau0,
           s.number("tau0", std::nullopt, "wf, rwf: the schedule's time constant τ0; unset: 330").above(0.0).make_nullable());
    t.bind(&WirtingerFlowOptions::alpha_lb, s.number("alpha_lb", std::nullopt, "twf: keeps |a_i'z| ≥ α_lb ‖z‖; unset: 0.3, with the "
                                                                  "line search 0.1")
                                   .at_least(0.0)
                                   .make_nullable());
    t.bind(&WirtingerFlowOptions::alpha_ub, s.number("alpha_ub", std::nullopt, "twf: keeps |a_i'z| ≤ α_ub ‖z‖; unset: 5").above(0.0).make_nullable());
    t.bind(&WirtingerFlowOptions::alpha_h, s.number("alpha_h", std::nullopt,
                                       "twf: keeps |y_i − (a_i'z)²| ≤ α_h K |a_i'z|/‖z‖, K the mean |residual|; "
                                       "unset: 5, with the line search 6")
                                  .above(0.0)
                                  .make_nullable());
    t.bind(&WirtingerFlowOptions::eta, s.number("eta", std::nullopt, "rwf: η of the weights 1/(|(a_i'z)² − y_i| + η), in the "
                                                        "responses' units; unset: 0.9")
                              .above(0.0)
                              .make_nullable());
    s.only_with("tau0", "variant", std::vector<std::string>{"wf", "rwf"});
    s.only_with("tau0", "line_search", "none");
    for (const char* name : {"alpha_lb", "alpha_ub", "alpha_h"}) s.only_with(name, "variant", "twf");
    s.only_with("eta", "variant", "rwf");
    s.constraint({"alpha_lb", "alpha_ub", "line_search"},
                 "twf keeps α_lb ‖z‖ ≤ |a_i'z| ≤ α_ub ‖z‖: α_lb must be below α_ub", [](const Params& p) {
                   const double lb = p.has("alpha_lb") ? p.number("alpha_lb") : unset_alpha_lb(searches(p));
                   return lb < (p.has("alpha_ub") ? p.number("alpha_ub") : kAlphaUb);
                 });
    bind_fixed_sample_settings(t, 2500, "one gradient step each");
    return t;
  }();
  return t;
}

WirtingerFlow::WirtingerFlow(WirtingerFlowOptions options)
    : GradientFlow(options, "wirtinger_flow", options.line_search == WirtingerFlowOptions::LineSearch::backtracking),
      options_(std::move(options)) {}

Vector WirtingerFlow::kept(const Iterate& it) const {
  const bool search = options_.line_search == WirtingerFlowOptions::LineSearch::backtracking;
  const double lb = options_.alpha_lb.value_or(unset_alpha_lb(search)) * it.z_norm;
  const double ub = options_.alpha_ub.value_or(kAlphaUb) * it.z_norm;
  const Index m = it.u.size();
  double K = 0.0;
  for (Index i = 0; i < m; ++i) K += std::abs(it.y(i) - it.u(i) * it.u(i));
  K /= static_cast<double>(m);
  const double bound = options_.alpha_h.value_or(unset_alpha_h(search)) * K / it.z_norm;
  Vector keep(m);
  for (Index i = 0; i < m; ++i) {
    const double a = std::abs(it.u(i)), r = it.u(i) * it.u(i) - it.y(i);
    keep(i) = a >= lb && a <= ub && std::abs(r) <= bound * a && a > 0.0 ? 1.0 : 0.0;
  }
  return keep;
}

Vector WirtingerFlow::reweights(const Iterate& it) const {
  const double eta = options_.eta.value_or(kEta);
  return it.u.binaryExpr(it.y, [eta](double u, double y) { return 1.0 / (std::abs(u * u - y) + eta); });
}

Vector WirtingerFlow::weights(const Iterate& it) const {
  const Index m = it.u.size();
  Vector h(m);
  switch (options_.variant) {
    case WirtingerFlowOptions::Variant::wf:
      // d/du_i of ¼ (u_i² − y_i)²
      for (Index i = 0; i < m; ++i) h(i) = (it.u(i) * it.u(i) - it.y(i)) * it.u(i);
      return h;
    case WirtingerFlowOptions::Variant::rwf: {
      // wf's derivative, each weighted by m w_i / Σ w (weights of mean one: wf's step scale carries over)
      const Vector w = reweights(it);
      const double scale = static_cast<double>(m) / w.sum();
      for (Index i = 0; i < m; ++i) h(i) = scale * w(i) * (it.u(i) * it.u(i) - it.y(i)) * it.u(i);
      return h;
    }
    case WirtingerFlowOptions::Variant::twf: {
      // Poisson loss u_i² − y_i log u_i², derivative 2 (u_i² − y_i)/u_i, on the kept measurements only.
      const Vector keep = kept(it);
      for (Index i = 0; i < m; ++i) h(i) = keep(i) != 0.0 ? 2.0 * (it.u(i) * it.u(i) - it.y(i)) / it.u(i) : 0.0;
      return h;
    }
  }
  return h;
}

double WirtingerFlow::search_loss(const Iterate& at, const Vector& u) const {
  const Index m = u.size();
  const Vector& y = at.y;
  double f = 0.0;
  switch (options_.variant) {
    case WirtingerFlowOptions::Variant::wf:
      for (Index i = 0; i < m; ++i) f += (u(i) * u(i) - y(i)) * (u(i) * u(i) - y(i));
      return f / (4.0 * static_cast<double>(m));
    case WirtingerFlowOptions::Variant::rwf: {
      const Vector w = reweights(at);
      for (Index i = 0; i < m; ++i) f += w(i) * (u(i) * u(i) - y(i)) * (u(i) * u(i) - y(i));
      return f / (4.0 * w.sum());
    }
    case WirtingerFlowOptions::Variant::twf: {
      const Vector keep = kept(at);
      for (Index i = 0; i < m; ++i) {
        if (keep(i) == 0.0) continue;
        const double u2 = u(i) * u(i);
        // u_i = 0 on a kept measurement: +∞ (Armijo refuses the trial). A negative (noisy) y_i leaves the
        // Poisson loss unbounded below as u_i → 0; the truncation at the iterate keeps |u_i| ≥ α_lb ‖z‖ there.
        f += y(i) == 0.0 ? u2 : u2 > 0.0 ? u2 - y(i) * std::log(u2) : std::numeric_limits<double>::infinity();
      }
      return f / static_cast<double>(m);
    }
  }
  return f;
}

double WirtingerFlow::step_size(int t) const {
  if (options_.variant == WirtingerFlowOptions::Variant::twf) return options_.step_size;
  const double tau0 = options_.tau0.value_or(kTau0);
  return std::min(1.0 - std::exp(-static_cast<double>(t) / tau0), options_.step_size) / start_norm_squared();
}

double WirtingerFlow::first_trial_step() const {
  return options_.variant == WirtingerFlowOptions::Variant::twf ? options_.step_size : options_.step_size / start_norm_squared();
}

}  // namespace rankone::phase_retrieval
