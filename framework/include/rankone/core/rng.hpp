#pragma once
/// \file Seeded random numbers. Every random number in RankOne comes from an `Rng` owned by one
/// trial; seeds derive from the experiment seed and the trial's coordinates (`derive_seed`), so
/// results do not depend on thread count, process count or order.
#include <cstdint>
#include <string_view>

#include "rankone/core/types.hpp"

namespace rankone {

/// SplitMix64 step: a bijective mixer used to expand and combine seeds.
std::uint64_t splitmix64(std::uint64_t& state);

/// Seed for a child stream: a hash of the parent seed and a label (e.g. a trial's coordinates).
std::uint64_t derive_seed(std::uint64_t parent, std::string_view label);

/// xoshiro256++ generator with bulk uniform and normal generation.
/// Satisfies UniformRandomBitGenerator, so it also works with <random> distributions.
class Rng {
 public:
  using result_type = std::uint64_t;
  explicit Rng(std::uint64_t seed = 0);

  static constexpr result_type min() { return 0; }
  static constexpr result_type max() { return ~result_type{0}; }
  result_type operator()() {
    const std::uint64_t result = rotl(s_[0] + s_[3], 23) + s_[0];
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }

  /// Uniform double in [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>((*this)() >> 11) * 0x1.0p-53; }
  /// Uniform integer in [0, n) (Lemire's nearly-divisionless method, unbiased).
  std::uint64_t below(std::uint64_t n);
  /// One standard normal deviate.
  double normal();
  /// One Gamma(shape, 1) deviate (divide by a rate for Gamma(shape, rate)), shape > 0: Marsaglia &
  /// Tsang's squeeze method on normal() and uniform(), so the stream is ours on every libstdc++.
  double gamma(double shape);
  /// Fills `out[0..n)` with independent standard normal deviates (vectorised Box–Muller).
  void fill_normal(double* out, Index n);
  /// Fills `out[0..n)` with independent uniform [0, 1) deviates.
  void fill_uniform(double* out, Index n);

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

}  // namespace rankone
