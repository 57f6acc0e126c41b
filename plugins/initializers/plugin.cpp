// Registration of the built-in starts (docs/plugins/initializers.md).
#include <memory>
#include <optional>

#include "initializers.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::initializers {
namespace {

constexpr const char* kDocPage = "docs/plugins/initializers.md";

Registration start(std::string name, std::string summary) {
  Registration r;
  r.kind = Kind::initializer;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.doc_page = kDocPage;
  return r;
}

Registration spectral() {
  Registration r = start("spectral_init", "the rank-k spectral (moment) estimate of one batch: scale·(𝒜'(y)/n − shift·mean(y)·I)");
  r.citation = "the spectral initialisation of Lin & Ye 2016 (Algorithm 1), Jain, Netrapalli & Sanghavi 2013 and "
               "Tong, Ma & Chi 2021 (ScaledGD)";
  r.schema.integer("batch_size", std::nullopt, "instances of the batch it reads (default: the estimator's batch size)")
      .at_least(1)
      .make_nullable();
  r.schema
      .number("tolerance", std::nullopt,
              "relative residual at which the eigensolver stops: a start only has to be well inside the sampling "
              "error of the moment estimate (≈ √(d/n)), not at machine precision. Default: the estimator's own where "
              "it states one (the completion estimators 1e-8; one_bit_mll, fm_moment_elimination and ifm 1e-10), "
              "else " + short_number(SpectralStart::kDefaultTolerance))
      .make_nullable()
      .above(0.0);
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<SpectralStart>(p.has("batch_size") ? std::optional<Index>(p.integer("batch_size")) : std::nullopt,
                                           p.has("tolerance") ? std::optional<double>(p.number("tolerance")) : std::nullopt);
  };
  return r;
}

Registration zero() {
  Registration r = start("zero_init", "the zero matrix (and w = 0): a convex solver's start, where its λ path begins");
  r.reads_data = false;
  r.factory = [](const Params&, const BuildContext&) -> std::unique_ptr<Component> { return std::make_unique<ZeroStart>(); };
  return r;
}

Registration random() {
  Registration r = start("random_init", "Gaussian factors with i.i.d. N(0, std²) entries, w = 0");
  r.reads_data = false;
  r.schema
      .number("std", std::nullopt,
              "standard deviation of every factor entry (for the FMs, of L in M0 = L L': libFM's init_stdev is √2 · std); "
              "default: the estimator's own where it states one (als_completion, sgd_mf: products with the RMS of the "
              "observed entries; leml: 1/√k), else " + short_number(RandomStart::kDefaultStd))
      .make_nullable()
      .above(0.0);
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<RandomStart>(p.has("std") ? std::optional<double>(p.number("std")) : std::nullopt);
  };
  return r;
}

Registration warm_start() {
  Registration r = start("warm_start", "a stored model (the folder `rankone model` writes) as the start");
  r.reads_data = false;
  r.schema.string("model", std::nullopt, "the model folder (model.json and its arrays), relative to the current directory")
      .make_required();
  r.example = {{"model", RANKONE_EXAMPLE_MODEL}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<WarmStart>(p.string("model"), p.path_of("model"));
  };
  return r;
}

Registration near_truth() {
  Registration r = start("near_truth", "the planted truth's balanced factors, each moved by Gaussian noise of relative norm "
                                       "`distance`");
  r.reads_data = false;
  r.schema.number("distance", 0.1, "relative Frobenius norm ‖ΔL‖/‖L‖ of each factor's perturbation (and of w's)")
      .at_least(0.0);
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<NearTruthStart>(p.number("distance"), p.path().empty() ? "/" : p.path());
  };
  return r;
}

}  // namespace

PluginDescriptor describe_initializers() {
  PluginDescriptor d;
  for (auto make : {spectral, random, zero, warm_start, near_truth}) d.registrations.push_back(make());
  return d;
}

}  // namespace rankone::initializers

RANKONE_PLUGIN(rankone::initializers::describe_initializers)
