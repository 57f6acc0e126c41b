// Registration of the `svp` estimator (docs/plugins/svp.md).
#include "rankone/estimation/fixed_sample_plugin.hpp"
#include "svp.hpp"

namespace rankone::svp {
namespace {

/// The training set (and the start's copy), the residual, and the dense d1 × d2 iterate, gradient
/// and SVD workspace.
Footprint footprint(const Params&, const FootprintContext& c) {
  const double d1 = static_cast<double>(c.data.shape.d1), d2 = static_cast<double>(c.data.shape.d2);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("dense iterate, gradient and SVD workspace", 6 * dense_bytes(d1, d2));
  return f;
}

PluginDescriptor describe() {
  return fixed_sample_plugin<Svp, SvpOptions>(
      {"svp",
      "singular value projection X ← P_k(X − μ S) for the least-squares loss of a fixed training set: SVP's fixed step "
      "or NIHT's normalised one",
      "Jain, Meka & Dhillon 2010, Guaranteed Rank Minimization via Singular Value Projection (NIPS), Algorithm 1; "
      "Tanner & Wei 2013, Normalized Iterative Hard Thresholding for Matrix Completion (SIAM J. Sci. Comput. 35(5))",
       "spectral_init", Json{{"rank", 2}, {"max_iterations", 20}}, footprint});
}

}  // namespace
}  // namespace rankone::svp

RANKONE_PLUGIN(rankone::svp::describe)
