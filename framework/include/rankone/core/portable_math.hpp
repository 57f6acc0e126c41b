#pragma once
/// \file Elementary functions computed by RankOne's own code, so that a synthetic stream is the same bits on
/// every x86-64 CPU and build: glibc picks variants of log, exp and pow by the CPU's features (its FMA variants
/// round differently in the last bit), and a portable CLI pins the baseline ones (docs/PERFORMANCE.md
/// #instruction-set). Plain arithmetic compiled with -ffp-contract=off rounds the same whatever the SIMD width, so
/// these are also vectorised where a loop calls them. Inline: a file that includes this must be compiled with
/// -ffp-contract=off too (every RankOne target is, and RankOne::core passes it on), or its copies fuse
/// multiply-adds and round otherwise.
#include <bit>
#include <cstdint>

namespace rankone {

/// ln u for a normal (not subnormal) double u > 0, branch-free: u = 2^e · m with m ∈ [≈√½, ≈√2), and
/// ln m = 2 atanh(s) = 2 (s + s³/3 + s⁵/5 + …) with s = (m − 1)/(m + 1), |s| ≤ 0.172; ten terms
/// leave a truncation error below 1e-17.
inline double log_positive(double u) {
  // Integer arithmetic on the bits (musl's trick) instead of comparisons keeps the loop
  // vectorisable: adding bits(1) − bits(√½) raises the exponent by one exactly when the mantissa
  // is ≥ √2, and the low 52 bits plus bits(√½) rebuild m in [√½, √2).
  constexpr std::uint64_t sqrt_half_bits = 0x3FE6A09E00000000ULL;  // ≈ √½, low word cleared
  const std::uint64_t shifted = std::bit_cast<std::uint64_t>(u) + (0x3FF0000000000000ULL - sqrt_half_bits);
  const double mantissa = std::bit_cast<double>((shifted & 0x000FFFFFFFFFFFFFULL) + sqrt_half_bits);
  // e as an exact double: the biased exponent placed in the low bits of 2⁵², minus 2⁵² + 1023.
  const double exponent = std::bit_cast<double>((shifted >> 52) | 0x4330000000000000ULL) - (0x1p52 + 1023.0);

  const double s = (mantissa - 1.0) / (mantissa + 1.0);
  const double z = s * s;
  double series = 1.0 / 19.0;
  series = series * z + 1.0 / 17.0;
  series = series * z + 1.0 / 15.0;
  series = series * z + 1.0 / 13.0;
  series = series * z + 1.0 / 11.0;
  series = series * z + 1.0 / 9.0;
  series = series * z + 1.0 / 7.0;
  series = series * z + 1.0 / 5.0;
  series = series * z + 1.0 / 3.0;
  series = series * z;  // the leading 1 is added after the multiplication by 2s, for accuracy
  // ln 2 split into a part with trailing zero bits (so exponent·ln2_high is exact) and the rest.
  constexpr double ln2_high = 6.93147180369123816490e-01;
  constexpr double ln2_low = 1.90821492927058770002e-10;
  const double two_s = 2.0 * s;
  return exponent * ln2_high + (two_s + (two_s * series + exponent * ln2_low));
}

}  // namespace rankone
