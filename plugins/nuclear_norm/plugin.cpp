// Registration of the `nuclear_norm` estimator (docs/plugins/nuclear_norm.md).
#include "nuclear_norm.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"

namespace rankone::nuclear_norm {
namespace {

/// The training set (and the start's copy), the residuals, and the dense iterate, momentum point,
/// gradient, trial step and SVD workspace.
Footprint footprint(const Params&, const FootprintContext& c) {
  const double d1 = static_cast<double>(c.data.shape.d1), d2 = static_cast<double>(c.data.shape.d2);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("dense iterate, momentum point, gradient, trial step and SVD workspace", 8 * dense_bytes(d1, d2));
  return f;
}

PluginDescriptor describe() {
  // convex: the path starts at 0, the solution at λ_max (no init)
  return fixed_sample_plugin<NuclearNorm, NuclearNormOptions>(
      {"nuclear_norm",
      "nuclear-norm regularised least squares min f(X) + λ‖X‖_* on a fixed training set by proximal gradient (plain or "
      "accelerated, with backtracking; Soft-Impute's exact step on entries) over a decreasing λ path with warm starts",
      "Ji & Ye 2009, An Accelerated Gradient Method for Trace Norm Minimization (ICML), Algorithms 1 and 2; Mazumder, "
      "Hastie & Tibshirani 2010, Spectral Regularization Algorithms for Learning Large Incomplete Matrices (JMLR 11), "
      "Algorithm 1 (Soft-Impute)",
       "", Json{{"path_length", 3}, {"max_iterations", 20}}, footprint});
}

}  // namespace
}  // namespace rankone::nuclear_norm

RANKONE_PLUGIN(rankone::nuclear_norm::describe)
