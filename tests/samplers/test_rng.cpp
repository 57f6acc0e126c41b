// Rng (framework/src/rng.cpp): determinism, seed derivation, unbiased integers and the normal
// generator's accuracy and distribution. Fixed seeds; statistical bounds are 6 standard errors
// (or the matching chi-square / Kolmogorov–Smirnov quantiles), so a pass is deterministic and a
// real bias of that size fails.
#include <algorithm>
#include <bit>
#include <cmath>
#include <concepts>
#include <numbers>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "rankone/core/rng.hpp"

using rankone::Index;
using rankone::Rng;

namespace {

/// Pearson's chi-square statistic of observed counts against equal expected counts.
double chi_square_uniform(const std::vector<double>& counts) {
  double total = 0.0;
  for (double c : counts) total += c;
  const double expected = total / static_cast<double>(counts.size());
  double statistic = 0.0;
  for (double c : counts) statistic += (c - expected) * (c - expected) / expected;
  return statistic;
}

/// A chi-square bound 6 standard deviations above the mean (dof, sd √(2 dof)).
double chi_square_bound(double dof) { return dof + 6.0 * std::sqrt(2.0 * dof); }

double standard_normal_cdf(double x) { return 0.5 * std::erfc(-x / std::numbers::sqrt2); }

/// Kolmogorov–Smirnov distance between the empirical distribution of `values` and Φ.
double ks_distance_to_normal(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const double n = static_cast<double>(values.size());
  double distance = 0.0;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double cdf = standard_normal_cdf(values[i]);
    distance = std::max({distance, static_cast<double>(i + 1) / n - cdf, cdf - static_cast<double>(i) / n});
  }
  return distance;
}

/// √n·D exceeds 1.95 with probability ≈ 0.001 under the null (Kolmogorov's limit law).
constexpr double kKolmogorovBound = 1.95;

/// Checks mean, variance, E x³ and E x⁴ of standard normal samples within 6 standard errors
/// (the standard errors use E x⁶ = 15 and E x⁸ = 105).
void check_standard_normal_moments(const std::vector<double>& values) {
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (double x : values) {
    const double x2 = x * x;
    s1 += x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
  }
  const double n = static_cast<double>(values.size());
  CHECK(std::abs(s1 / n) < 6.0 * std::sqrt(1.0 / n));
  CHECK(std::abs(s2 / n - 1.0) < 6.0 * std::sqrt(2.0 / n));           // E x⁴ − 1
  CHECK(std::abs(s3 / n) < 6.0 * std::sqrt(15.0 / n));                 // E x⁶ − 0
  CHECK(std::abs(s4 / n - 3.0) < 6.0 * std::sqrt((105.0 - 9.0) / n));  // E x⁸ − 9
}

}  // namespace

static_assert(std::uniform_random_bit_generator<Rng>, "Rng must work with <random> distributions");

TEST_CASE("Rng is deterministic for a seed and differs between seeds", "[rng]") {
  Rng a(123), b(123), c(124);
  int equal_to_other_seed = 0;
  int equal_to_same_seed = 0;
  for (int i = 0; i < 1000; ++i) {
    const auto word = a();
    equal_to_same_seed += (word == b());
    equal_to_other_seed += (word == c());
  }
  CHECK(equal_to_same_seed == 1000);
  CHECK(equal_to_other_seed == 0);

  std::vector<double> first(1001), second(1001);
  Rng d(9), e(9);
  d.fill_normal(first.data(), 1001);
  e.fill_normal(second.data(), 1001);
  CHECK(first == second);
  d.fill_uniform(first.data(), 1001);
  e.fill_uniform(second.data(), 1001);
  CHECK(first == second);
}

TEST_CASE("Rng seeded with 0 produces a varied stream", "[rng]") {
  Rng zero(0);
  std::set<std::uint64_t> words;
  for (int i = 0; i < 100; ++i) words.insert(zero());
  CHECK(words.size() == 100);
  CHECK(words.count(0) == 0);
}

TEST_CASE("derive_seed depends on label and parent, with full avalanche", "[rng]") {
  using rankone::derive_seed;
  CHECK(derive_seed(42, "trial/1") == derive_seed(42, "trial/1"));
  CHECK(derive_seed(42, "trial/1") != derive_seed(42, "trial/2"));
  CHECK(derive_seed(42, "ab") != derive_seed(42, "ba"));
  CHECK(derive_seed(42, "") != derive_seed(43, ""));
  CHECK(derive_seed(42, "x") != derive_seed(43, "x"));

  // Neighbouring labels and neighbouring parents must give unrelated seeds: the Hamming distance
  // between them is Binomial(64, 1/2), mean 32 and variance 16.
  constexpr int kPairs = 2000;
  const double bound = 6.0 * 4.0 / std::sqrt(double(kPairs));
  std::set<std::uint64_t> seen;
  double label_flips = 0.0, parent_flips = 0.0;
  for (int i = 0; i < kPairs; ++i) {
    const std::string label = "trial/" + std::to_string(i);
    const std::uint64_t seed = derive_seed(7, label);
    seen.insert(seed);
    label_flips += std::popcount(seed ^ derive_seed(7, "trial/" + std::to_string(i + 1)));
    parent_flips += std::popcount(seed ^ derive_seed(8, label));
  }
  CHECK(seen.size() == kPairs);
  CHECK(std::abs(label_flips / kPairs - 32.0) < bound);
  CHECK(std::abs(parent_flips / kPairs - 32.0) < bound);
}

TEST_CASE("Rng::below is unbiased", "[rng]") {
  Rng rng(2024);
  SECTION("small range: chi-square over 7 values") {
    std::vector<double> counts(7, 0.0);
    std::uint64_t largest = 0;
    for (int i = 0; i < 700000; ++i) {
      const auto v = rng.below(7);
      largest = std::max(largest, v);
      counts[std::min<std::uint64_t>(v, 6)] += 1.0;
    }
    REQUIRE(largest < 7);
    CHECK(chi_square_uniform(counts) < chi_square_bound(6.0));
  }
  SECTION("range 3·2⁶², where taking x mod n would double the first third") {
    const std::uint64_t n = 3ULL << 62;
    const std::uint64_t bin_width = n / 8;
    std::vector<double> counts(8, 0.0);
    std::uint64_t largest = 0;
    for (int i = 0; i < 400000; ++i) {
      const auto v = rng.below(n);
      largest = std::max(largest, v);
      counts[std::min<std::uint64_t>(v / bin_width, 7)] += 1.0;
    }
    REQUIRE(largest < n);
    CHECK(chi_square_uniform(counts) < chi_square_bound(7.0));
  }
  SECTION("edge ranges") {
    std::uint64_t sum_of_below_one = 0;
    for (int i = 0; i < 100; ++i) sum_of_below_one += rng.below(1);
    CHECK(sum_of_below_one == 0);
    CHECK_THROWS_AS(rng.below(0), std::invalid_argument);
    const std::uint64_t full = ~std::uint64_t{0};
    std::uint64_t largest = 0;
    for (int i = 0; i < 100; ++i) largest = std::max(largest, rng.below(full));
    CHECK(largest < full);
  }
}

TEST_CASE("Rng::fill_uniform is uniform on [0, 1)", "[rng]") {
  Rng rng(5);
  std::vector<double> values(1 << 20);
  rng.fill_uniform(values.data(), Index(values.size()));
  REQUIRE(*std::min_element(values.begin(), values.end()) >= 0.0);
  REQUIRE(*std::max_element(values.begin(), values.end()) < 1.0);
  std::vector<double> counts(16, 0.0);
  for (double u : values) counts[static_cast<std::size_t>(u * 16.0)] += 1.0;
  CHECK(chi_square_uniform(counts) < chi_square_bound(15.0));
}

TEST_CASE("Rng::fill_normal matches textbook Box–Muller on the documented layout", "[rng]") {
  // Pins the layout described in rng.cpp and, through it, the accuracy of the polynomial log,
  // sin and cos (measured worst case 6e-16 relative over 4M values).
  constexpr Index kPairs = 50000;
  std::vector<double> fast(2 * kPairs);
  Rng generator(77), words(77);
  generator.fill_normal(fast.data(), 2 * kPairs);
  double worst = 0.0;
  for (Index i = 0; i < kPairs; ++i) {
    const std::uint64_t a = words(), b = words();
    const double u = static_cast<double>((a >> 11) + 1) * 0x1.0p-53;
    const double radius = std::sqrt(-2.0 * std::log(u));
    const double phi = static_cast<double>(b >> 11) * 0x1.0p-53 * std::numbers::pi / 4.0;
    double x = std::cos(phi), y = std::sin(phi);
    if ((b >> 8) & 1) std::swap(x, y);
    if ((b >> 9) & 1) x = -x;
    if ((b >> 10) & 1) y = -y;
    for (auto [got, want] : {std::pair{fast[2 * i], radius * x}, std::pair{fast[2 * i + 1], radius * y}})
      worst = std::max(worst, std::abs(got - want) / std::max(std::abs(want), 1e-300));
  }
  CHECK(worst < 1e-14);
}

TEST_CASE("Rng::fill_normal fills exactly n values and is consistent across calls", "[rng]") {
  for (Index n : {Index(1), Index(2), Index(3), Index(255), Index(256), Index(257), Index(1001)}) {
    CAPTURE(n);
    std::vector<double> values(n + 1, 12345.0);
    Rng rng(3);
    rng.fill_normal(values.data(), n);
    CHECK(values[n] == 12345.0);  // nothing written past the end
    CHECK(std::none_of(values.begin(), values.end() - 1, [](double v) { return v == 12345.0 || !std::isfinite(v); }));
  }
  // Every pair uses two words, so even-sized calls concatenate to one call, across block borders.
  std::vector<double> whole(1000), parts(1000);
  Rng one(11), two(11);
  one.fill_normal(whole.data(), 1000);
  two.fill_normal(parts.data(), 300);
  two.fill_normal(parts.data() + 300, 700);
  CHECK(whole == parts);
}

TEST_CASE("Rng::fill_normal is standard normal: moments, Kolmogorov–Smirnov, tails", "[rng]") {
  Rng rng(31337);
  std::vector<double> values(4'000'000);
  rng.fill_normal(values.data(), Index(values.size()));
  check_standard_normal_moments(values);

  const std::vector<double> head(values.begin(), values.begin() + 400'000);
  CHECK(std::sqrt(double(head.size())) * ks_distance_to_normal(head) < kKolmogorovBound);

  // Tail frequencies against the exact normal tail, 6 binomial standard errors.
  for (double threshold : {3.0, 4.0, 4.5}) {
    CAPTURE(threshold);
    const double n = static_cast<double>(values.size());
    const double p = std::erfc(threshold / std::numbers::sqrt2);  // P(|Z| > t)
    const auto beyond = std::count_if(values.begin(), values.end(), [&](double x) { return std::abs(x) > threshold; });
    CHECK(std::abs(double(beyond) - n * p) < 6.0 * std::sqrt(n * p * (1.0 - p)));
  }
  // Neighbours (the two members of a Box–Muller pair, and across pairs) are uncorrelated.
  for (std::size_t lag : {1u, 2u}) {
    CAPTURE(lag);
    double sum = 0.0;
    for (std::size_t i = 0; i + lag < values.size(); ++i) sum += values[i] * values[i + lag];
    CHECK(std::abs(sum / double(values.size())) < 6.0 / std::sqrt(double(values.size())));
  }
}

TEST_CASE("Rng::normal is standard normal", "[rng]") {
  Rng rng(99);
  std::vector<double> values(400'000);
  for (double& v : values) v = rng.normal();
  check_standard_normal_moments(values);
  CHECK(std::sqrt(double(values.size())) * ks_distance_to_normal(values) < kKolmogorovBound);
}

// Rng::gamma against the Gamma(a, 1) moments: mean a, variance a, third central moment 2a, over
// 200 000 draws per shape, each within 5 standard errors (fixed seed: the bounds are deterministic).
TEST_CASE("Rng::gamma has the moments of Gamma(shape, 1) for small, unit and large shapes", "[rng]") {
  const int n = 200000;
  for (const double shape : {0.3, 1.0, 3.7, 15000.5}) {
    INFO("shape " << shape);
    Rng rng(17);
    std::vector<double> g(n);
    for (double& x : g) x = rng.gamma(shape);
    double mean = 0.0;
    for (const double x : g) mean += x;
    mean /= n;
    double m2 = 0.0, m3 = 0.0, m4 = 0.0;
    for (const double x : g) {
      const double c = x - mean;
      m2 += c * c;
      m3 += c * c * c;
      m4 += c * c * c * c;
    }
    m2 /= n;
    m3 /= n;
    m4 /= n;
    // Standard errors from Gamma's own central moments μ2 = a, μ3 = 2a, μ4 = 3a² + 6a, μ6 = 15a³ + 130a² + 120a:
    // Var(m2) ≈ (μ4 − μ2²)/n, Var(m3) ≈ (μ6 − μ3² − 6μ4μ2 + 9μ2³)/n = (6a³ + 90a² + 120a)/n.
    const double a = shape;
    CHECK(std::abs(mean - a) < 5.0 * std::sqrt(a / n));
    CHECK(std::abs(m2 - a) < 5.0 * std::sqrt((3 * a * a + 6 * a - a * a) / n));
    CHECK(std::abs(m3 - 2 * a) < 5.0 * std::sqrt((6 * a * a * a + 90 * a * a + 120 * a) / n));
    for (const double x : g) REQUIRE(x > 0.0);
  }
}

TEST_CASE("Rng::gamma is a function of the stream, and refuses a shape outside (0, ∞)", "[rng]") {
  Rng a(5), b(5);
  for (int i = 0; i < 1000; ++i) REQUIRE(a.gamma(2.5) == b.gamma(2.5));
  for (const double bad : {0.0, -1.0, std::nan(""), HUGE_VAL}) CHECK_THROWS_AS(a.gamma(bad), std::invalid_argument);
}
