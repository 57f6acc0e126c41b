// Dense samplers: each fills the dim × n design matrix with bulk generation (fill_normal,
// fill_uniform, 64 signs per random word), then a simple transform the compiler vectorises.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <string>

#include "samplers.hpp"
#include "rankone/core/portable_math.hpp"  // log_positive

namespace rankone::samplers {

void DenseSampler::sample(Rng& rng, Index dim, Index n, DesignSide& out) const {
  out.kind = DesignSide::Kind::dense;
  out.dim = dim;
  out.scale = 1.0;
  out.index.resize(0);
  out.sparse = SparseMatrix();
  out.dense.resize(dim, n);  // keeps the allocation when the shape is unchanged
  fill(rng, out.dense.data(), dim * n);
}

// ---- gaussian ------------------------------------------------------------------------------------

GaussianSampler::GaussianSampler(double mean, double std_dev) : mean_(mean), std_dev_(std_dev) {}

void GaussianSampler::fill(Rng& rng, double* values, Index count) const {
  rng.fill_normal(values, count);
  if (mean_ == 0.0 && std_dev_ == 1.0) return;
  for (Index i = 0; i < count; ++i) values[i] = mean_ + std_dev_ * values[i];
}

Moments GaussianSampler::moments(Index) const {
  const double m = mean_, v = std_dev_ * std_dev_;
  Moments moments;
  moments.mean = m;
  moments.variance = v;
  moments.kappa = m * m * m + 3.0 * m * v;
  moments.phi = m * m * m * m + 6.0 * m * m * v + 3.0 * v * v;
  return moments;
}

// ---- bernoulli -----------------------------------------------------------------------------------

BernoulliSampler::BernoulliSampler(Mode mode, double p) : mode_(mode), p_(p) {
  if (mode == Mode::rademacher) {
    high_ = 1.0;
    low_ = -1.0;
  } else {
    const double sigma = std::sqrt(p * (1.0 - p));
    high_ = (1.0 - p) / sigma;
    low_ = -p / sigma;
  }
}

void BernoulliSampler::fill(Rng& rng, double* values, Index count) const {
  if (mode_ == Mode::rademacher) {
    // One random word gives 64 signs: bit j of the word becomes the sign bit of ±1.0.
    for (Index first = 0; first < count; first += 64) {
      const std::uint64_t word = rng();
      const Index block = std::min<Index>(64, count - first);
      for (Index j = 0; j < block; ++j)
        values[first + j] = std::bit_cast<double>(std::bit_cast<std::uint64_t>(1.0) | (((word >> j) & 1) << 63));
    }
    return;
  }
  rng.fill_uniform(values, count);
  for (Index i = 0; i < count; ++i) values[i] = values[i] < p_ ? high_ : low_;
}

Moments BernoulliSampler::moments(Index) const {
  Moments moments;
  moments.mean = 0.0;
  moments.variance = 1.0;
  if (mode_ == Mode::rademacher) {
    moments.kappa = 0.0;
    moments.phi = 1.0;
  } else {
    const double q = 1.0 - p_;
    moments.kappa = (1.0 - 2.0 * p_) / std::sqrt(p_ * q);
    moments.phi = (1.0 - 3.0 * p_ + 3.0 * p_ * p_) / (p_ * q);
  }
  return moments;
}

// ---- uniform -------------------------------------------------------------------------------------

UniformSampler::UniformSampler(double low, double high) : low_(low), high_(high) {}

void UniformSampler::fill(Rng& rng, double* values, Index count) const {
  rng.fill_uniform(values, count);
  const double width = high_ - low_;
  for (Index i = 0; i < count; ++i) values[i] = low_ + width * values[i];
}

Moments UniformSampler::moments(Index) const {
  // E x^k = (b^{k+1} − a^{k+1}) / ((k + 1)(b − a)), expanded so that no cancellation occurs.
  const double a = low_, b = high_;
  Moments moments;
  moments.mean = 0.5 * (a + b);
  moments.variance = (b - a) * (b - a) / 12.0;
  moments.kappa = (a + b) * (a * a + b * b) / 4.0;
  moments.phi = (a * a * a * a + a * a * a * b + a * a * b * b + a * b * b * b + b * b * b * b) / 5.0;
  return moments;
}

// ---- exponential ---------------------------------------------------------------------------------

ExponentialSampler::ExponentialSampler(double scale) : scale_(scale) {}

void ExponentialSampler::fill(Rng& rng, double* values, Index count) const {
  rng.fill_uniform(values, count);
  // Inversion: 1 − u is exact for u on the 2⁻⁵³ grid and lies in (0, 1] (normal doubles), so the log is
  // finite. RankOne's own log, not libm's, whose variant (and last bit) glibc picks by the CPU.
  for (Index i = 0; i < count; ++i) values[i] = scale_ * (-log_positive(1.0 - values[i]) - 1.0);
}

Moments ExponentialSampler::moments(Index) const {
  // Central moments of Exp(1) are the derangement numbers: 1, 0, 1, 2, 9, 44, …
  const double s2 = scale_ * scale_;
  Moments moments;
  moments.mean = 0.0;
  moments.variance = s2;
  moments.kappa = 2.0 * s2 * scale_;
  moments.phi = 9.0 * s2 * s2;
  return moments;
}

}  // namespace rankone::samplers
