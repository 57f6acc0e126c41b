#pragma once
/// \file The design samplers of docs/plugins/samplers.md. Every coordinate of every design is drawn
/// independently; all randomness comes from the `Rng` passed to `sample`, so one sampler object can
/// serve many threads. Constructors take values their registration's schema has already checked
/// (bounds and cross-field constraints, before any factory runs): they do not check them again.
#include "rankone/interfaces/sampler.hpp"

namespace rankone::samplers {

/// A sampler of dense designs with i.i.d. coordinates: `sample` sizes a dim × n matrix and `fill`
/// writes its dim·n values (column-major, i.e. design after design) in bulk.
class DenseSampler : public Sampler {
 public:
  DesignSide::Kind kind() const override { return DesignSide::Kind::dense; }
  void sample(Rng& rng, Index dim, Index n, DesignSide& out) const override;

 protected:
  /// Writes `count` independent draws of one coordinate into `values`.
  virtual void fill(Rng& rng, double* values, Index count) const = 0;
};

/// `gaussian`: coordinates N(mean, std²).
class GaussianSampler final : public DenseSampler {
 public:
  GaussianSampler(double mean, double std_dev);
  Moments moments(Index dim) const override;

 private:
  void fill(Rng& rng, double* values, Index count) const override;
  double mean_;
  double std_dev_;
};

/// `bernoulli`: two-point coordinates, either Rademacher ±1 or Bernoulli(p) standardised to mean 0
/// and variance 1, i.e. (1 − p)/σ with probability p and −p/σ otherwise, σ = √(p(1 − p)).
class BernoulliSampler final : public DenseSampler {
 public:
  enum class Mode { rademacher, standardized };
  BernoulliSampler(Mode mode, double p);
  Moments moments(Index dim) const override;

 private:
  void fill(Rng& rng, double* values, Index count) const override;
  Mode mode_;
  double p_;      ///< P(x = high_); 1/2 for Rademacher
  double high_;   ///< the value taken with probability p
  double low_;    ///< the value taken with probability 1 − p
};

/// `uniform`: coordinates uniform on [low, high).
class UniformSampler final : public DenseSampler {
 public:
  UniformSampler(double low, double high);
  Moments moments(Index dim) const override;

 private:
  void fill(Rng& rng, double* values, Index count) const override;
  double low_;
  double high_;
};

/// `exponential`: centred standard exponential coordinates scale·(E − 1), E ~ Exp(1): a skewed
/// law (κ = 2, φ = 9 at scale 1).
class ExponentialSampler final : public DenseSampler {
 public:
  explicit ExponentialSampler(double scale);
  Moments moments(Index dim) const override;

 private:
  void fill(Rng& rng, double* values, Index count) const override;
  double scale_;
};

/// `one_hot`: index designs scale·e_i with i uniform on [0, dim); never materialised densely.
class OneHotSampler final : public Sampler {
 public:
  explicit OneHotSampler(double scale);
  DesignSide::Kind kind() const override { return DesignSide::Kind::index; }
  void sample(Rng& rng, Index dim, Index n, DesignSide& out) const override;
  /// Moments of one coordinate of scale·e_i: scale with probability 1/dim, else 0.
  Moments moments(Index dim) const override;

 private:
  double scale_;
};

}  // namespace rankone::samplers
