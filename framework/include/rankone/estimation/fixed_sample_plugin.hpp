#pragma once
/// \file The registration every fixed-sample estimator's plugin makes (estimation/fixed_sample.hpp):
/// its name, texts and footprint are its own; the kind, page, schema (its Options' table and the
/// shared policy), example data and factory follow from the types.
///
/// \code
///   RANKONE_PLUGIN([] {
///     return fixed_sample_plugin<Svp, SvpOptions>({"svp", "summary", "citation", "spectral_init", example, footprint});
///   })
/// \endcode
#include <memory>
#include <string>

#include "rankone/estimation/fixed_sample.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone {

struct FixedSamplePlugin {
  std::string name;
  std::string summary;
  std::string citation;  ///< the papers, algorithms and equations
  std::string init;      ///< the default initializer ("": the estimator declares no `init`)
  Json example;          ///< parameters of the conformance run, on example_data
  FootprintModel footprint;
  Json example_data = nullptr;  ///< the conformance run's source; null: FixedSampleEstimator::example_data()
  std::string page = "";        ///< the documentation page; "": docs/plugins/<name>.md
};

/// One registration of estimator E, built from Options(params).
template <class E, class Options>
Registration fixed_sample_registration(FixedSamplePlugin p) {
  Registration r;
  r.kind = Kind::estimator;
  r.name = p.name;
  r.summary = std::move(p.summary);
  r.citation = std::move(p.citation);
  r.doc_page = p.page.empty() ? "docs/plugins/" + p.name + ".md" : std::move(p.page);
  r.schema = Options::schema();
  IterativeEstimator::declare_policy(r.schema, {.init = p.init});
  r.example = std::move(p.example);
  // A finite source: it fits a fixed training set.
  r.example_data = p.example_data.is_null() ? FixedSampleEstimator::example_data() : std::move(p.example_data);
  r.factory = [](const Params& params, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<E>(Options(params));
  };
  r.footprint = std::move(p.footprint);
  r.needs_finite_data = true;
  return r;
}

/// A plugin of one such registration.
template <class E, class Options>
PluginDescriptor fixed_sample_plugin(FixedSamplePlugin p) {
  PluginDescriptor d;
  d.registrations.push_back(fixed_sample_registration<E, Options>(std::move(p)));
  return d;
}

}  // namespace rankone
