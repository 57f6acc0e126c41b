// Registration of the `factored_gd` estimator (docs/plugins/factored_gd.md).
#include "factored_gd.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"

namespace rankone::factored_gd {
namespace {

/// The training set (and the copy a data-driven start reads), the residual and the factors with
/// their gradients, previous and best copies.
Footprint footprint(const Params& p, const FootprintContext& c) {
  const FactoredGdOptions o(p);
  const double k = static_cast<double>(o.rank);
  const double d = static_cast<double>(c.data.shape.d1 + c.data.shape.d2);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("factors, gradients, previous and best copies", 6 * dense_bytes(d, k));
  return f;
}

PluginDescriptor describe() {
  return fixed_sample_plugin<FactoredGd, FactoredGdOptions>(
      {"factored_gd",
      "factored gradient descent on M = L R' (or X X') for the least-squares loss of a fixed training set: ScaledGD "
      "(preconditioner scaled) or vanilla GD with the balancing term (none); spectral start",
      "Tong, Ma & Chi 2021, Accelerating Ill-Conditioned Low-Rank Matrix Estimation via Scaled Gradient Descent (JMLR "
      "22), the ScaledGD update for matrix sensing; Tu, Boczar, Simchowitz, Soltanolkotabi & Recht 2016, Low-rank "
      "Solutions of Linear Matrix Equations via Procrustes Flow (ICML), the rectangular objective with (1/8)‖U'U − V'V‖²",
       "spectral_init", Json{{"rank", 2}, {"max_iterations", 20}}, footprint});
}

}  // namespace
}  // namespace rankone::factored_gd

RANKONE_PLUGIN(rankone::factored_gd::describe)
