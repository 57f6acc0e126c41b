// Registrations of omc_psd, omc_general_theoretical, omc_general, als_completion, sgd_mf, bias_baseline and
// the completion metrics (test_relative_error, test_psnr, export_matrix).
#include <algorithm>
#include <cmath>
#include <memory>
#include <type_traits>

#include "biases.hpp"
#include "completion_metrics.hpp"
#include "offline_estimators.hpp"
#include "online_estimators.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::online_completion {
namespace {

constexpr const char* kPaper =
    "Jin, Kakade & Netrapalli 2016, Provable Efficient Online Matrix Completion via Non-convex Stochastic Gradient "
    "Descent (NIPS)";

/// The warm start (its entries, a copy of their values, omc_psd's hash of them, and the eigensolver)
/// or the steady state (a batch, the one kept for the noise floor with a truth, the undo log), plus
/// the factors with their saved and best copies (omc_general_theoretical: its per-step SVD copies too).
FootprintModel online_footprint(double factor_copies, double warm_bytes_per_entry) {
  return [factor_copies, warm_bytes_per_entry](const Params& p, const FootprintContext& c) {
    const OnlineOptions o(p);
    const DataFootprint& data = c.data;
    const double d1 = static_cast<double>(data.shape.d1), d2 = static_cast<double>(data.shape.d2);
    const Index k = o.rank;
    const double warm = initializer_batch_size(p).value_or(static_cast<double>(o.init_batch(data.shape.d1, data.shape.d2)));
    const double n = served_instances(c.data, static_cast<double>(o.batch_size));
    const double start = initializer_reads_data(p, c.registry)
                             ? batch_bytes(data, warm) + warm_bytes_per_entry * warm + eigensolver_bytes(data.shape.d1, data.shape.d2, k, 0)
                             : 0.0;
    const double step = (data.has_truth ? 2 : 1) * batch_bytes(data, n) + dense_bytes(n, 2.0 * static_cast<double>(k) + 2);
    Footprint f;
    f.add(start > step ? "warm start on " + format_count(warm) + " entries" : "batches of " + format_count(n) + " entries",
          std::max(start, step));
    f.add("factors and their copies", factor_copies * dense_bytes(d1 + d2, static_cast<double>(k) + 2));
    return f;
  };
}

/// The observed set of the whole training pass, the start and the factors with their copies.
/// Ω is 16 bytes an entry (value, 4-byte row and column ids), 24 with the row and column index that
/// ALS and the bias fit read. A data-driven start reads the served batch after Ω is copied, so both are
/// held; otherwise Ω takes the batch's arrays one by one (the batch and its largest array, 8 bytes an
/// entry). sgd_mf's first epoch deals Ω into blocks: its order and block numbers, 8 bytes an entry.
/// k: the rank of the factors (bias_baseline's 0); `indexed`: Ω carries the row and column index.
Footprint observed_set_footprint(const Params& p, const FootprintContext& c, Index k, bool sgd, bool indexed) {
  const DataFootprint& data = c.data;
  const double n = data.training_instances;
  const bool reads = initializer_reads_data(p, c.registry);  // bias_baseline has no start
  const double omega = (indexed ? 24.0 : 16.0) * n;
  const double reading = reads ? batch_bytes(data, n) + omega : std::max(batch_bytes(data, n) + 8.0 * n, omega);
  const double dealing = sgd ? omega + 8.0 * n : 0.0;
  const double start = reads ? 8 * n + eigensolver_bytes(data.shape.d1, data.shape.d2, std::max<Index>(k, 1), 0) : 0.0;
  Footprint f;
  f.add("observed set of " + format_count(n) + " entries", std::max(reading, dealing) + start);
  f.add("factors, biases and their copies",
        dense_bytes(static_cast<double>(data.shape.d1) + static_cast<double>(data.shape.d2), 4.0 * static_cast<double>(k) + 4));
  return f;
}

/// als_completion's and sgd_mf's: Ω indexed for ALS, and for sgd_mf's bias fit (offset biases).
FootprintModel offline_footprint(OfflineOptions::Method method) {
  return [method](const Params& p, const FootprintContext& c) {
    const OfflineOptions o(method, p);
    const bool sgd = method == OfflineOptions::Method::sgd_mf;
    return observed_set_footprint(p, c, o.rank, sgd, !sgd || o.offset == OffsetKind::biases);
  };
}

/// bias_baseline's: no factors, Ω indexed for its fit (its settings change neither).
Footprint bias_footprint(const Params& p, const FootprintContext& c) { return observed_set_footprint(p, c, 0, false, true); }

/// The data the conformance checks run the completion estimators on: entries of a 20 × 20 PSD
/// matrix of rank 2, observed uniformly, with a held-out set; a stream for the online estimators, a
/// fixed set of 400 observations for the offline ones.
Json completion_example_data(bool fixed_set) {
  Json data = {{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 20}, {"rank", 2}, {"truth", "psd"},
               {"test_size", 200}};
  if (fixed_set) data["size"] = 400;
  return data;
}

template <class Estimator>
Registration online_registration(std::string name, std::string summary, std::string citation, std::string doc) {
  Registration r;
  r.kind = Kind::estimator;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.citation = std::move(citation);
  r.doc_page = std::move(doc);
  r.schema = OnlineOptions::schema();
  // U U' + b 1' + 1 c' is not symmetric: the PSD estimator takes a scalar offset only.
  if constexpr (std::is_same_v<Estimator, OnlinePsd>)
    r.schema.constraint({"offset"}, "omc_psd completes a symmetric PSD matrix; row and column biases would break the "
                                    "symmetry (use \"mean\" or \"none\")",
                        [](const Params& p) { return p.string("offset") != "biases"; });
  IterativeEstimator::declare_policy(r.schema, {.init = "spectral_init"});
  r.example = {{"rank", 2}};
  r.example_data = completion_example_data(false);
  r.footprint = online_footprint(std::is_same_v<Estimator, OnlineGeneralTheoretical> ? 9 : 4,
                                 std::is_same_v<Estimator, OnlinePsd> ? 8 + 16 : 8);  // measured: benchmarks/memory_estimates.py
  r.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<Estimator>(OnlineOptions(p));
  };
  return r;
}

PluginDescriptor describe_online_completion() {
  PluginDescriptor d;
  d.registrations.push_back(online_registration<OnlinePsd>(
      "omc_psd", "online PSD matrix completion: spectral warm start, then one O(k) SGD step per observed entry",
      std::string(kPaper) + ", Algorithm 1", "docs/plugins/omc_psd.md"));
  d.registrations.push_back(online_registration<OnlineGeneral>(
      "omc_general",
      "online matrix completion: spectral warm start, then one SGD step per observed entry with renormalisation "
      "through k × k eigen-decompositions, O(k³)",
      std::string(kPaper) + ", Algorithm 3", "docs/plugins/omc_general.md"));
  d.registrations.push_back(online_registration<OnlineGeneralTheoretical>(
      "omc_general_theoretical",
      "online matrix completion with an SVD renormalisation of U V' every step, O(d k²): a reference for omc_general",
      std::string(kPaper) + ", Algorithm 2", "docs/plugins/omc_general.md"));

  Registration als;
  als.kind = Kind::estimator;
  als.name = "als_completion";
  als.summary = "offline matrix completion by alternating least squares with a (weighted) ridge term";
  als.citation = "Jain, Netrapalli & Sanghavi 2013, Low-rank Matrix Completion using Alternating Minimization; "
                 "Zhou et al. 2008 (weighted-λ ridge); baseline of " + std::string(kPaper) + ", Table 1";
  als.doc_page = "docs/plugins/als_completion.md";
  als.schema = OfflineOptions::schema(OfflineOptions::Method::als_completion);
  IterativeEstimator::declare_policy(als.schema, {.init = "spectral_init"});
  als.example = {{"rank", 2}};
  als.example_data = completion_example_data(true);
  als.footprint = offline_footprint(OfflineOptions::Method::als_completion);
  als.needs_finite_data = true;  // Ω is the whole of a finite source: an endless one is refused at validation
  als.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<AlsCompletion>(OfflineOptions(OfflineOptions::Method::als_completion, p));
  };
  d.registrations.push_back(std::move(als));

  Registration sgd;
  sgd.kind = Kind::estimator;
  sgd.name = "sgd_mf";
  sgd.summary = "offline SGD matrix factorisation (LIBMF's update): epochs over a fixed observed set in shuffled order";
  sgd.citation = "Chin, Zhuang, Juan & Lin 2015, A Fast Parallel SGD for Matrix Factorization in Shared Memory "
                 "Systems (LIBMF); baseline of " + std::string(kPaper) + ", Table 1";
  sgd.doc_page = "docs/plugins/sgd_mf.md";
  sgd.schema = OfflineOptions::schema(OfflineOptions::Method::sgd_mf);
  IterativeEstimator::declare_policy(sgd.schema, {.init = "random_init"});
  sgd.example = {{"rank", 2}};
  sgd.example_data = completion_example_data(true);
  sgd.footprint = offline_footprint(OfflineOptions::Method::sgd_mf);
  sgd.needs_finite_data = true;
  sgd.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<SgdMf>(OfflineOptions(OfflineOptions::Method::sgd_mf, p));
  };
  d.registrations.push_back(std::move(sgd));

  Registration biases;
  biases.kind = Kind::estimator;
  biases.name = "bias_baseline";
  biases.summary = "baseline predictor μ + b_u + b_i (global mean and regularised row/column biases) fitted to the "
                   "observed entries by exact block coordinate descent";
  biases.citation = "Koren 2008, Factorization Meets the Neighborhood (KDD), Section 2.1, baseline estimates";
  biases.doc_page = "docs/plugins/bias_baseline.md";
  biases.example_data = completion_example_data(true);
  biases.schema = BiasBaselineOptions::schema();
  IterativeEstimator::declare_policy(biases.schema);
  biases.factory = [](const Params& p, const BuildContext&) -> std::unique_ptr<Component> {
    return std::make_unique<BiasBaseline>(BiasBaselineOptions(p));
  };
  biases.footprint = bias_footprint;
  biases.needs_finite_data = true;
  d.registrations.push_back(std::move(biases));

  for (Registration& metric : completion_metric_registrations()) d.registrations.push_back(std::move(metric));
  return d;
}

}  // namespace
}  // namespace rankone::online_completion

RANKONE_PLUGIN(rankone::online_completion::describe_online_completion)
