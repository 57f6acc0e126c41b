// The one-hot sampler: index designs, so scale·e_i is never formed as a dense vector.
#include <cstdint>
#include <limits>
#include <string>

#include "rankone/core/errors.hpp"
#include "rankone/core/params.hpp"
#include "samplers.hpp"

namespace rankone::samplers {

OneHotSampler::OneHotSampler(double scale) : scale_(scale) {
  if (!(scale > 0.0)) throw ConfigError("one_hot: scale must be > 0, found " + Json(scale).dump());
}

void OneHotSampler::sample(Rng& rng, Index dim, Index n, DesignSide& out) const {
  if (n > 0 && dim < 1) throw InputError("one_hot: cannot draw an index in [0, " + std::to_string(dim) + ")");
  if (dim > std::numeric_limits<IndexVector::Scalar>::max())
    throw InputError("one_hot: dimension " + std::to_string(dim) + " exceeds the 32-bit index range");
  out.kind = DesignSide::Kind::index;
  out.dim = dim;
  out.scale = scale_;
  out.dense.resize(0, 0);
  out.sparse = SparseMatrix();
  out.index.resize(n);
  const auto range = static_cast<std::uint64_t>(dim);
  for (Index i = 0; i < n; ++i) out.index(i) = static_cast<IndexVector::Scalar>(rng.below(range));
}

Moments OneHotSampler::moments(Index dim) const {
  const double p = 1.0 / static_cast<double>(dim);  // P(coordinate j is the hot one)
  const double s = scale_;
  Moments moments;
  moments.mean = s * p;
  moments.variance = s * s * p * (1.0 - p);
  moments.kappa = s * s * s * p;
  moments.phi = s * s * s * s * p;
  return moments;
}

}  // namespace rankone::samplers
