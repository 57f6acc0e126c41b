// Registration of the `spectral` estimator (docs/plugins/spectral.md).
#include <memory>

#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/plugin_api.hpp"
#include "spectral_estimator.hpp"

namespace rankone::spectral {

/// One batch, the eigensolver (its products weight every measurement) and the factors.
Footprint spectral_footprint(const Params& p, const FootprintContext& c) {
  const SpectralOptions o(p);
  const DataFootprint& data = c.data;
  const double n = served_instances(c.data, static_cast<double>(o.batch_size));
  const Index k = o.rank;
  Footprint f;
  f.add("batch of " + format_count(n) + " instances", batch_bytes(data, n));
  f.add("eigensolver", eigensolver_bytes(data.shape.d1, data.shape.d2, k, adjoint_bytes_per_column(data, n)));
  f.add("factors", dense_bytes(static_cast<double>(data.shape.d1) + static_cast<double>(data.shape.d2), static_cast<double>(k)));
  return f;
}

PluginDescriptor describe_spectral() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "spectral";
  r.one_pass = true;
  r.summary = "one-shot moment estimate: top-k eigen/singular pairs of scale·(𝒜'(y)/n − shift·mean(y)·I), and w = Σ y x / n";
  r.citation =
      "Lin & Ye 2016, A Non-convex One-Pass Framework for Generalized Factorization Machine and Rank-One Matrix "
      "Sensing, Algorithm 1 (initialisation)";
  r.doc_page = "docs/plugins/spectral.md";
  r.schema = SpectralOptions::schema();
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<SpectralEstimator>(SpectralOptions(p));
  };
  r.footprint = spectral_footprint;
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace rankone::spectral

RANKONE_PLUGIN(rankone::spectral::describe_spectral)
