// Seeded random numbers: SplitMix64 seeding, seed derivation, xoshiro256++ helpers and a fast
// exact normal generator.
//
// fill_normal is Box–Muller over blocks. A scalar pass draws the 64-bit words (the generator is a
// sequential recurrence); a second, branch-free pass turns them into normals with polynomial log,
// sin and cos written so that the compiler vectorises it (glibc's std::log/std::sin are not
// vectorised without -ffast-math). The polynomials are accurate to a few ulp, so the output is
// Box–Muller up to rounding: exact in distribution, tails included.
//
// Layout (pinned by tests/samplers/test_rng.cpp): normal pair i of a call consumes two words,
// `a` then `b`. The radius is r = sqrt(-2 ln u) with u = ((a >> 11) + 1) · 2⁻⁵³ ∈ (0, 1]; the angle
// comes from `b`: φ = (b >> 11) · 2⁻⁵³ · π/4 ∈ [0, π/4), and bits 8, 9, 10 of `b` reflect the point
// (cos φ, sin φ) into one of the eight octants (bit 8: swap the coordinates, bit 9: negate the
// first, bit 10: negate the second). The pair is (r·x, r·y); an odd `n` drops the last y.
#include "rankone/core/rng.hpp"

#include "rankone/core/portable_math.hpp"  // log_positive

#include <algorithm>
#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>

namespace rankone {

std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

namespace {

/// FNV-1a, 64 bit: a simple byte hash; splitmix64 afterwards supplies the avalanche it lacks.
std::uint64_t fnv1a64(std::string_view bytes) {
  std::uint64_t hash = 0xCBF29CE484222325ULL;
  for (unsigned char c : bytes) {
    hash ^= c;
    hash *= 0x100000001B3ULL;
  }
  return hash;
}

}  // namespace

std::uint64_t derive_seed(std::uint64_t parent, std::string_view label) {
  // Mix the parent first so that nearby parents (1, 2, 3, ...) are unrelated before combining.
  std::uint64_t state = parent;
  state = splitmix64(state) ^ fnv1a64(label);
  return splitmix64(state);
}

Rng::Rng(std::uint64_t seed) {
  // splitmix64 is a bijection of its counter, so at most one of four consecutive outputs is zero:
  // the state is never all zero.
  std::uint64_t state = seed;
  for (auto& word : s_) word = splitmix64(state);
}

std::uint64_t Rng::below(std::uint64_t n) {
  if (n == 0) throw std::invalid_argument("Rng::below(0): the range [0, 0) is empty");
  // Lemire (2019): the high word of x·n is uniform on [0, n) once the few x whose low word falls
  // below 2⁶⁴ mod n are rejected.
  unsigned __int128 product = static_cast<unsigned __int128>((*this)()) * n;
  auto low = static_cast<std::uint64_t>(product);
  if (low < n) {
    const std::uint64_t threshold = (0 - n) % n;  // 2⁶⁴ mod n
    while (low < threshold) {
      product = static_cast<unsigned __int128>((*this)()) * n;
      low = static_cast<std::uint64_t>(product);
    }
  }
  return static_cast<std::uint64_t>(product >> 64);
}

double Rng::normal() {
  // Marsaglia's polar method; the second deviate is dropped because Rng keeps no cache.
  double u, v, s;
  do {
    u = 2.0 * uniform() - 1.0;
    v = 2.0 * uniform() - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * std::sqrt(-2.0 * std::log(s) / s);
}

double Rng::gamma(double shape) {
  if (!(shape > 0.0) || !std::isfinite(shape))
    throw std::invalid_argument("Rng::gamma: the shape must be positive and finite, not " + std::to_string(shape));
  // Marsaglia & Tsang (2000), ACM TOMS 26(3): for shape < 1, Gamma(a) = Gamma(a + 1) · U^(1/a).
  if (shape < 1.0) {
    const double boosted = gamma(shape + 1.0);
    double u = uniform();
    while (u == 0.0) u = uniform();  // U^(1/a) = 0 would be a draw outside the support
    return boosted * std::pow(u, 1.0 / shape);
  }
  const double d = shape - 1.0 / 3.0;
  const double c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = normal();
    const double t = 1.0 + c * x;
    if (t <= 0.0) continue;
    const double v = t * t * t;
    const double u = uniform();
    if (u < 1.0 - 0.0331 * (x * x) * (x * x)) return d * v;
    if (std::log(u) < 0.5 * x * x + d * (1.0 - v + std::log(v))) return d * v;
  }
}

void Rng::fill_uniform(double* out, Index n) {
  for (Index i = 0; i < n; ++i) out[i] = uniform();
}

namespace {

/// sin φ and cos φ for φ ∈ [0, π/4] by Taylor polynomials (truncation error below 1e-16).
inline void sincos_first_octant(double phi, double& sine, double& cosine) {
  const double z = phi * phi;
  double sin_poly = -1.0 / 1307674368000.0;  // −1/15!
  sin_poly = sin_poly * z + 1.0 / 6227020800.0;
  sin_poly = sin_poly * z - 1.0 / 39916800.0;
  sin_poly = sin_poly * z + 1.0 / 362880.0;
  sin_poly = sin_poly * z - 1.0 / 5040.0;
  sin_poly = sin_poly * z + 1.0 / 120.0;
  sin_poly = sin_poly * z - 1.0 / 6.0;
  sine = phi + phi * z * sin_poly;

  double cos_poly = 1.0 / 20922789888000.0;  // 1/16!
  cos_poly = cos_poly * z - 1.0 / 87178291200.0;
  cos_poly = cos_poly * z + 1.0 / 479001600.0;
  cos_poly = cos_poly * z - 1.0 / 3628800.0;
  cos_poly = cos_poly * z + 1.0 / 40320.0;
  cos_poly = cos_poly * z - 1.0 / 720.0;
  cos_poly = cos_poly * z + 1.0 / 24.0;
  cosine = 1.0 + z * (cos_poly * z - 0.5);
}

constexpr Index kPairsPerBlock = 128;

}  // namespace

void Rng::fill_normal(double* out, Index n) {
  // Per block: scalar draws into plain arrays, then one vectorisable transform.
  alignas(64) double radius_uniform[kPairsPerBlock];
  alignas(64) double radius[kPairsPerBlock];
  alignas(64) double angle[kPairsPerBlock];
  alignas(64) std::uint64_t octant_word[kPairsPerBlock];
  alignas(64) double normals[2 * kPairsPerBlock];
  constexpr double quarter_pi = std::numbers::pi / 4.0;

  for (Index done = 0; done < n;) {
    const Index pairs = std::min<Index>(kPairsPerBlock, (n - done + 1) / 2);
    for (Index i = 0; i < pairs; ++i) {
      const std::uint64_t a = (*this)();
      const std::uint64_t b = (*this)();
      radius_uniform[i] = static_cast<double>((a >> 11) + 1) * 0x1.0p-53;  // (0, 1]: ln is finite
      angle[i] = static_cast<double>(b >> 11) * (0x1.0p-53 * quarter_pi);
      octant_word[i] = b;
    }
    for (Index i = 0; i < pairs; ++i) radius[i] = -2.0 * log_positive(radius_uniform[i]);
    // Eigen's packet sqrt: a plain std::sqrt loop is not vectorised because of errno handling.
    Eigen::Map<Eigen::ArrayXd> radius_map(radius, pairs);
    radius_map = radius_map.sqrt();
    for (Index i = 0; i < pairs; ++i) {
      double sine, cosine;
      sincos_first_octant(angle[i], sine, cosine);
      // The octant bits are applied with bit masks, not branches: random bits would mispredict,
      // and a branch stops the vectoriser.
      const std::uint64_t octant = octant_word[i];
      const std::uint64_t swap_mask = 0 - ((octant >> 8) & 1);  // all ones to swap
      const auto sine_bits = std::bit_cast<std::uint64_t>(sine);
      const auto cosine_bits = std::bit_cast<std::uint64_t>(cosine);
      const std::uint64_t x_bits = ((cosine_bits & ~swap_mask) | (sine_bits & swap_mask)) ^ (((octant >> 9) & 1) << 63);
      const std::uint64_t y_bits = ((sine_bits & ~swap_mask) | (cosine_bits & swap_mask)) ^ (((octant >> 10) & 1) << 63);
      normals[2 * i] = radius[i] * std::bit_cast<double>(x_bits);
      normals[2 * i + 1] = radius[i] * std::bit_cast<double>(y_bits);
    }
    const Index produced = std::min<Index>(2 * pairs, n - done);
    std::copy_n(normals, produced, out + done);
    done += produced;
  }
}

}  // namespace rankone
