// Registration of the `gfm_one_pass` estimator (docs/plugins/gfm_one_pass.md).
#include <memory>

#include "gfm_one_pass.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::gfm {

/// The larger of the spectral start (its batch and eigensolver) and an iteration (the fresh batch,
/// the one kept for the noise floor when there is a truth, the n × k products), plus the factors.
Footprint gfm_footprint(const Params& p, const FootprintContext& c) {
  const GfmOptions o(p);
  const DataFootprint& data = c.data;
  const double n = served_instances(c.data, static_cast<double>(BatchReader::footprint_batch_size(o.batch_size)));
  // Only a data-driven start reads a batch and solves an eigenproblem; the others hold their factors.
  const bool spectral = initializer_reads_data(p, c.registry);
  const double n0 = !spectral ? 0.0 : served_instances(c.data, initializer_batch_size(p).value_or(n));
  const Index k = o.rank;
  const double d = static_cast<double>(data.shape.d1), d2 = static_cast<double>(data.shape.d2);
  const double start =
      spectral ? batch_bytes(data, n0) + eigensolver_bytes(data.shape.d1, data.shape.d2, k, adjoint_bytes_per_column(data, n0))
               : 0.0;
  // Its dense products run on blocks of 2048 instances: no packing of the whole batch.
  // intercept: its pass multiplies X by k + 1 more columns (X'U_new and 1).
  const double columns = 5.0 * static_cast<double>(k) + 3 + (o.intercept ? static_cast<double>(k) + 1 : 0.0);
  const double step = (data.has_truth ? 2 : 1) * batch_bytes(data, n) +
                      dense_bytes(n * data.measurements_per_instance, columns);
  Footprint f;
  if (start > step) f.add("spectral start on " + format_count(n0) + " instances", start);
  else f.add(std::string(data.has_truth ? "two batches" : "a batch") + " of " + format_count(n) + " instances and the iteration's products", step);
  f.add("factors, their previous and best copies", 5 * dense_bytes(d + d2, static_cast<double>(k)));
  return f;
}

PluginDescriptor describe_gfm() {
  Registration r;
  r.kind = Kind::estimator;
  r.name = "gfm_one_pass";
  r.one_pass = true;
  r.summary =
      "one-pass generalized FM / rank-one matrix sensing: a fresh batch per iteration, U ← QR(G U), V ← G U with "
      "G = M̂(residual) + M_t, w ← w + X r / n; spectral start";
  r.citation =
      "Lin & Ye 2016, A Non-convex One-Pass Framework for Generalized Factorization Machine and Rank-One Matrix "
      "Sensing (NIPS), Algorithm 1; asymmetric variant: docs/papers/gfm-one-pass.md";
  r.doc_page = "docs/plugins/gfm_one_pass.md";
  r.schema = GfmOptions::schema();
  IterativeEstimator::declare_policy(r.schema, {.early_stopping = true, .init = "spectral_init"});
  r.example = Json{{"rank", 2}, {"batch_size", 2000}, {"max_iterations", 3}};
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<GfmOnePass>(GfmOptions(p));
  };
  r.footprint = gfm_footprint;
  PluginDescriptor d;
  d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace rankone::gfm

RANKONE_PLUGIN(rankone::gfm::describe_gfm)
