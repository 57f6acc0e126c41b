// Registrations of `fm_mcmc` and `polynomial_network` (docs/plugins/fm_mcmc.md, docs/plugins/polynomial_network.md).
#include "fm_mcmc.hpp"
#include "polynomial_network.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"

namespace rankone::fm_baselines {
namespace {

/// A finite x'Mx + w'x source with dense Gaussian features and a held-out test set.
Json example_data() {
  return Json{{"name", "synthetic"}, {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
              {"d", 6}, {"rank", 2}, {"truth", "symmetric"}, {"size", 300}, {"test_size", 50}};
}

/// The n × d (+1) copy of the features the solver reads.
double features_bytes(const FootprintContext& c, double extra_columns) {
  return dense_bytes(c.data.training_instances, static_cast<double>(c.data.shape.d1) + extra_columns);
}

Footprint mcmc_footprint(const Params& p, const FootprintContext& c) {
  const FmMcmcOptions o(p);
  const double d = static_cast<double>(c.data.shape.d1), k = static_cast<double>(o.rank);
  const double n = c.data.training_instances;
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("the features one instance per row, and the sampler's residual, predictions and projections X V",
        features_bytes(c, 0) + dense_bytes(n, k + 2));
  f.add("the posterior mean's factor (fewer than 2d + k columns) and the best copy of it and of the chain",
        2 * dense_bytes(d, 2 * d + k) + 2 * dense_bytes(d, k) + 2 * dense_bytes(n, 2));
  return f;
}

Footprint network_footprint(const Params& p, const FootprintContext& c) {
  const PolynomialNetworkOptions o(p);
  const double d = static_cast<double>(c.data.shape.d1) + 1, k = static_cast<double>(o.rank);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("the augmented features one instance per row, the residual and the projections X P and X Q",
        features_bytes(c, 1) + dense_bytes(c.data.training_instances, 2 * k + 1));
  f.add("P and Q, their previous and best copies", 6 * dense_bytes(d, k));
  return f;
}

PluginDescriptor describe() {
  PluginDescriptor d;
  d.registrations.push_back(fixed_sample_registration<FmMcmc, FmMcmcOptions>(
      {"fm_mcmc",
       "Bayesian factorization machine (M = ½(VV' - D(VV')), w, w0) by Gibbs sampling with libFM's hierarchical priors; "
       "the estimate is the posterior mean over the samples (libFM's MCMC)",
       "Freudenthaler, Schmidt-Thieme & Rendle 2011, Bayesian Factorization Machines (NIPS workshop); Rendle 2012, "
       "Factorization Machines with libFM (ACM TIST 3(3)), Section 4.3 and Algorithm 4 (MCMC inference)",
       "random_init", Json{{"rank", 2}, {"max_iterations", 5}}, mcmc_footprint, example_data()}));
  d.registrations.push_back(fixed_sample_registration<PolynomialNetwork, PolynomialNetworkOptions>(
      {"polynomial_network",
       "degree-2 polynomial network y = x~'PQ'x~ (M = sym(PQ'), indefinite with its diagonal; w and b through a constant "
       "feature) by coordinate descent, as polylearn",
       "Blondel, Ishihata, Fujino & Ueda 2016, Polynomial Networks and Factorization Machines: New Insights and Efficient "
       "Training Algorithms (ICML), the lifted degree-2 network (Section 5) by coordinate descent; polylearn's "
       "PolynomialNetworkRegressor",
       "random_init", Json{{"rank", 2}, {"max_iterations", 5}}, network_footprint, example_data()}));
  return d;
}

}  // namespace
}  // namespace rankone::fm_baselines

RANKONE_PLUGIN(rankone::fm_baselines::describe)
