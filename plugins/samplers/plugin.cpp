// Registrations of the design samplers (docs/plugins/samplers.md).
#include <cmath>
#include <memory>

#include "rankone/plugin/plugin_api.hpp"
#include "samplers.hpp"

namespace rankone::samplers {
namespace {

constexpr const char* kDocPage = "docs/plugins/samplers.md";

/// A design vector of dimension d: d doubles (dense samplers), or one index (one-hot).
Footprint design_bytes(double bytes) {
  Footprint f;
  f.data.instance_bytes = bytes;
  return f;
}

Registration sampler(std::string name, std::string summary) {
  Registration r;
  r.kind = Kind::sampler;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.doc_page = kDocPage;
  r.footprint = [](const Params&, const FootprintContext& c) { return design_bytes(dense_bytes(c.data.shape.d1, 1)); };
  return r;
}

Registration gaussian() {
  Registration r = sampler("gaussian", "dense designs with i.i.d. N(mean, std^2) coordinates");
  r.schema.number("mean", 0.0, "mean of each coordinate");
  r.schema.number("std", 1.0, "standard deviation of each coordinate").above(0.0);
  r.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<GaussianSampler>(p.number("mean"), p.number("std"));
  };
  return r;
}

Registration bernoulli() {
  Registration r = sampler("bernoulli", "dense designs with i.i.d. two-point coordinates (Rademacher or standardised Bernoulli(p))");
  r.schema.choice("mode", "rademacher", {"rademacher", "standardized"},
                  "rademacher: ±1 with probability 1/2; standardized: (B − p)/sqrt(p(1 − p)), B ~ Bernoulli(p)");
  r.schema.number("p", 0.5, "success probability, in (0, 1); mode standardized only").above(0.0).below(1.0);
  r.schema.constraint({"p", "mode"}, "p applies to mode \"standardized\" only; Rademacher signs have p = 0.5",
                      [](const Params& p) { return p.string("mode") == "standardized" || p.number("p") == 0.5; });
  r.factory = [](const Params& p, const BuildContext&) {
    const auto mode = p.string("mode") == "rademacher" ? BernoulliSampler::Mode::rademacher
                                                       : BernoulliSampler::Mode::standardized;
    return std::make_unique<BernoulliSampler>(mode, p.number("p"));
  };
  return r;
}

Registration uniform() {
  Registration r = sampler("uniform", "dense designs with i.i.d. uniform [low, high) coordinates");
  r.schema.number("low", -std::sqrt(3.0), "lower end (default -sqrt(3): unit variance)");
  r.schema.number("high", std::sqrt(3.0), "upper end, > low (default sqrt(3))");
  r.schema.constraint({"low", "high"}, "low must be below high",
                      [](const Params& p) { return p.number("low") < p.number("high"); });
  r.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<UniformSampler>(p.number("low"), p.number("high"));
  };
  return r;
}

Registration exponential() {
  Registration r = sampler("exponential", "dense designs with i.i.d. centred exponential coordinates scale·(E − 1), a skewed law");
  r.schema.number("scale", 1.0, "multiplies E − 1 (standard deviation of each coordinate)").above(0.0);
  r.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<ExponentialSampler>(p.number("scale"));
  };
  return r;
}

Registration one_hot() {
  Registration r = sampler("one_hot", "index designs scale·e_i with i uniform in [0, dim)");
  r.schema.number("scale", 1.0, "value of the hot coordinate (DesignSide::scale)").above(0.0);
  r.factory = [](const Params& p, const BuildContext&) {
    return std::make_unique<OneHotSampler>(p.number("scale"));
  };
  r.footprint = [](const Params&, const FootprintContext&) { return design_bytes(sizeof(std::int32_t)); };  // IndexVector
  return r;
}

}  // namespace

PluginDescriptor describe_samplers() {
  PluginDescriptor d;
  for (auto make : {gaussian, bernoulli, uniform, exponential, one_hot}) d.registrations.push_back(make());
  return d;
}

}  // namespace rankone::samplers

RANKONE_PLUGIN(rankone::samplers::describe_samplers)
