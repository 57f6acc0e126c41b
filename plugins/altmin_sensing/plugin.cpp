// Registration of the `altmin_sensing` estimator (docs/plugins/altmin_sensing.md).
#include "altmin_sensing.hpp"
#include "rankone/estimation/fixed_sample_plugin.hpp"

namespace rankone::altmin {
namespace {

/// The training set (and the copy a data-driven start reads), the residual and a CG solve's
/// products, and the factors with their previous and best copies.
Footprint footprint(const Params& p, const FootprintContext& c) {
  const AltMinOptions o(p);
  const double k = static_cast<double>(o.rank);
  const double d = static_cast<double>(c.data.shape.d1 + c.data.shape.d2);
  Footprint f = FixedSampleEstimator::training_footprint(c);
  f.add("factors, conjugate-gradient vectors, previous and best copies", 8 * dense_bytes(d, k));
  return f;
}

PluginDescriptor describe() {
  return fixed_sample_plugin<AltMinSensing, AltMinOptions>(
      {"altmin_sensing",
      "alternating least squares over the factors of M = U V' on a fixed training set (AltMinSense; for rank-one "
      "measurements Zhong, Jain & Dhillon's AltMin), each half-step solved matrix-free by conjugate gradients; "
      "spectral start",
      "Jain, Netrapalli & Sanghavi 2013, Low-rank Matrix Completion using Alternating Minimization (STOC), Algorithm 1 "
      "(AltMinSense); Zhong, Jain & Dhillon 2015, Efficient Matrix Sensing Using Rank-1 Gaussian Measurements (ALT), "
      "Algorithm 1",
       "spectral_init", Json{{"rank", 2}, {"max_iterations", 20}}, footprint});
}

}  // namespace
}  // namespace rankone::altmin

RANKONE_PLUGIN(rankone::altmin::describe)
