#pragma once
/// \file Sampler: design vectors from one distribution, with its per-coordinate moments.
#include <cmath>

#include "rankone/core/batch.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/component.hpp"

namespace rankone {

/// Per-coordinate moments of a design distribution (coordinates are i.i.d.).
/// κ = E x³ and φ = E x⁴ are what moment elimination needs; τ = |φ − 1 − κ²| is the τ-MIP
/// constant of the sub-gaussian FM paper (Gaussian 2, uniform 0.8, any two-point law 0).
struct Moments {
  double mean = 0.0;
  double variance = 1.0;
  double kappa = 0.0;  ///< E x³
  double phi = 3.0;    ///< E x⁴
  double tau() const { return std::abs(phi - 1.0 - kappa * kappa); }
};

class Sampler : public Component {
 public:
  ~Sampler() override;

  /// The shape of design this sampler produces (DesignSide::Kind::dense or ::index).
  virtual DesignSide::Kind kind() const = 0;
  /// Draws n designs of dimension `dim` into `out` (overwriting it). Must be thread-safe for
  /// distinct `rng`s: all randomness comes from `rng`.
  virtual void sample(Rng& rng, Index dim, Index n, DesignSide& out) const = 0;
  /// Exact per-coordinate moments of the distribution at dimension `dim`.
  virtual Moments moments(Index dim) const = 0;
};

}  // namespace rankone
