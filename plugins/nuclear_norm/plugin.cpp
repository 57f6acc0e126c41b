// Registration of the `nuclear_norm` estimator and of the one-bit baselines that are configurations
// of it, `trace_logistic` and `trace_squared` (docs/plugins/nuclear_norm.md).
#include "nuclear_norm.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"

namespace rankone::nuclear_norm {
namespace {

constexpr const char* kPage = "docs/plugins/nuclear_norm.md";

/// The training set (and the copy reading it makes), the residuals, the dense iterate, momentum
/// point, gradient, trial step and SVD workspace, and on vector designs the operator's products
/// with an iterate whose rank reaches min(d1, d2): X'L and the scores of every label, n × max(r, m).
Footprint footprint(const Params&, const FootprintContext& c) {
  const double d1 = static_cast<double>(c.data.shape.d1), d2 = static_cast<double>(c.data.shape.d2);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("dense iterate, momentum point, gradient, trial step and SVD workspace", 8 * dense_bytes(d1, d2));
  if (c.data.dense_designs)
    f.add("the operator's products with a full-rank iterate",
          2 * dense_bytes(c.data.training_instances, std::max(std::min(d1, d2), c.data.measurements_per_instance)));
  return f;
}

/// The presets' conformance data: Qiu et al.'s setting, a finite one-bit single-label problem
/// (20 features, 6 labels, rank 2) with a fully labelled test set.
Json one_bit_data() {
  return {{"name", "synthetic"}, {"operator", "single_label"}, {"d", 20}, {"d2", 6}, {"rank", 2}, {"truth", "unit_columns"},
          {"link", "sign"}, {"size", 3000}, {"test_size", 100}, {"test_full_labels", true}};
}

template <NuclearNormOptions::Loss kLoss>
Registration trace_preset(const std::string& name, const std::string& what, const std::string& table_name) {
  return fixed_sample_registration<NuclearNorm, TraceNormOptions<kLoss>>(
      {name,
       "trace-norm-regularised " + what + " (mean loss + μ‖W‖_*): nuclear_norm's proximal method on one λ with a step "
       "that grows by 1.5 after each accepted step",
       "Qiu, Luo, Ye & Lin 2017, Nonconvex One-bit Single-label Multi-label Learning, Table 2 (" + table_name +
           "); solved as nuclear_norm (Ji & Ye 2009, Algorithm 1)",
       "zero_init", Json{{"penalty", 0.01}, {"max_iterations", 20}}, footprint, one_bit_data(), kPage});
}

PluginDescriptor describe() {
  PluginDescriptor d;
  // convex: zero_init by default, the solution at λ_max where the path begins
  d.registrations.push_back(fixed_sample_registration<NuclearNorm, NuclearNormOptions>(
      {"nuclear_norm",
       "nuclear-norm regularised least squares or logistic regression min f(X) + λ‖X‖_* on a fixed training set by "
       "proximal gradient (plain or accelerated, with backtracking; Soft-Impute's exact step on entries) over a "
       "decreasing λ path with warm starts",
       "Ji & Ye 2009, An Accelerated Gradient Method for Trace Norm Minimization (ICML), Algorithms 1 and 2; Mazumder, "
       "Hastie & Tibshirani 2010, Spectral Regularization Algorithms for Learning Large Incomplete Matrices (JMLR 11), "
       "Algorithm 1 (Soft-Impute)",
       "zero_init", Json{{"path_length", 3}, {"max_iterations", 20}}, footprint}));
  d.registrations.push_back(trace_preset<NuclearNormOptions::Loss::logistic>("trace_logistic", "logistic regression", "LRT"));
  d.registrations.push_back(trace_preset<NuclearNormOptions::Loss::squared>("trace_squared", "least squares", "SMT"));
  return d;
}

}  // namespace
}  // namespace rankone::nuclear_norm

RANKONE_PLUGIN(rankone::nuclear_norm::describe)
