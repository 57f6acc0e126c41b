// The sampler plugins (plugins/samplers), created through the real registry. Each dense sampler's
// empirical mean, variance, E x³ and E x⁴ over 2·10⁶ pooled coordinates must match moments()
// within 6 standard errors, the errors computed from the law's exact higher moments (written out
// here independently of the plugin). Fixed seeds throughout.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <thread>
#include <vector>

#include <catch2/catch.hpp>

#include "rankone/core/portable_math.hpp"
#include "rankone/interfaces/sampler.hpp"
#include "test_support.hpp"

using namespace rankone;
using rankone::test::make;

namespace {

/// Raw moments E x^k, k = 0..8, of one coordinate.
using RawMoments = std::array<double, 9>;

RawMoments gaussian_raw(double mean, double sd) {
  RawMoments m{};
  m[0] = 1.0;
  m[1] = mean;
  for (int k = 2; k <= 8; ++k) m[k] = mean * m[k - 1] + (k - 1) * sd * sd * m[k - 2];
  return m;
}

RawMoments two_point_raw(double p, double high, double low) {
  RawMoments m{};
  for (int k = 0; k <= 8; ++k) m[k] = p * std::pow(high, k) + (1.0 - p) * std::pow(low, k);
  return m;
}

RawMoments uniform_raw(double a, double b) {
  RawMoments m{};
  for (int k = 0; k <= 8; ++k) m[k] = (std::pow(b, k + 1) - std::pow(a, k + 1)) / ((k + 1) * (b - a));
  return m;
}

RawMoments centred_exponential_raw(double scale) {
  // E (E − 1)^k for E ~ Exp(1) is the k-th derangement number.
  constexpr std::array<double, 9> derangements{1, 0, 1, 2, 9, 44, 265, 1854, 14833};
  RawMoments m{};
  for (int k = 0; k <= 8; ++k) m[k] = derangements[k] * std::pow(scale, k);
  return m;
}

void check_close(double got, double want) { CHECK(got == Approx(want).epsilon(1e-12).margin(1e-12)); }

/// moments() must equal the independent formulas.
void check_declared_moments(const Moments& declared, const RawMoments& m) {
  check_close(declared.mean, m[1]);
  check_close(declared.variance, m[2] - m[1] * m[1]);
  check_close(declared.kappa, m[3]);
  check_close(declared.phi, m[4]);
}

/// Empirical mean, variance, E x³, E x⁴ of `values` against `declared`, within 6 standard errors.
void check_empirical_moments(const Eigen::Ref<const Vector>& values, const Moments& declared, const RawMoments& m) {
  const double n = static_cast<double>(values.size());
  double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
  for (Index i = 0; i < values.size(); ++i) {
    const double x = values(i), x2 = x * x;
    s1 += x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
  }
  const double mean = s1 / n, variance = s2 / n - mean * mean;
  const double sigma2 = m[2] - m[1] * m[1];
  const double central4 = m[4] - 4 * m[1] * m[3] + 6 * m[1] * m[1] * m[2] - 3 * std::pow(m[1], 4);
  // Rounding slack for sums of 2·10⁶ terms; the statistical terms dominate except for laws where
  // x^k is constant (Rademacher: x² = x⁴ = 1), whose standard error is zero.
  const auto slack = [](double target) { return 1e-9 * std::max(1.0, std::abs(target)); };
  CHECK(std::abs(mean - declared.mean) <= 6 * std::sqrt(sigma2 / n) + slack(declared.mean));
  // The sample variance also carries the O(1/n) term mean², bounded by 36 σ²/n at 6 errors.
  CHECK(std::abs(variance - declared.variance) <=
        6 * std::sqrt((central4 - sigma2 * sigma2) / n) + 36 * sigma2 / n + slack(declared.variance));
  CHECK(std::abs(s3 / n - declared.kappa) <= 6 * std::sqrt((m[6] - m[3] * m[3]) / n) + slack(declared.kappa));
  CHECK(std::abs(s4 / n - declared.phi) <= 6 * std::sqrt((m[8] - m[4] * m[4]) / n) + slack(declared.phi));
}

/// Lag-`lag` correlation of the values, which must vanish for independent coordinates.
void check_uncorrelated(const Eigen::Ref<const Vector>& values, const Moments& declared, Index lag) {
  double sum = 0.0;
  for (Index i = 0; i + lag < values.size(); ++i)
    sum += (values(i) - declared.mean) * (values(i + lag) - declared.mean);
  const double n = static_cast<double>(values.size() - lag);
  CHECK(std::abs(sum / n / declared.variance) < 6.0 / std::sqrt(n));
}

struct DenseCase {
  Json config;
  RawMoments raw;
  double tau;
};

}  // namespace

TEST_CASE("dense samplers match their declared moments", "[samplers]") {
  const double sqrt3 = std::sqrt(3.0);
  const double p = 0.2, sigma = std::sqrt(p * (1 - p));
  const std::vector<DenseCase> cases = {
      {{{"name", "gaussian"}}, gaussian_raw(0.0, 1.0), 2.0},
      {{{"name", "gaussian"}, {"mean", 0.5}, {"std", 2.0}}, gaussian_raw(0.5, 2.0),
       std::abs(gaussian_raw(0.5, 2.0)[4] - 1 - std::pow(gaussian_raw(0.5, 2.0)[3], 2))},
      {{{"name", "bernoulli"}}, two_point_raw(0.5, 1.0, -1.0), 0.0},
      {{{"name", "bernoulli"}, {"mode", "standardized"}, {"p", p}}, two_point_raw(p, (1 - p) / sigma, -p / sigma), 0.0},
      {{{"name", "uniform"}}, uniform_raw(-sqrt3, sqrt3), 0.8},
      {{{"name", "uniform"}, {"low", 1.0}, {"high", 4.0}}, uniform_raw(1.0, 4.0),
       std::abs(uniform_raw(1.0, 4.0)[4] - 1 - std::pow(uniform_raw(1.0, 4.0)[3], 2))},
      {{{"name", "exponential"}}, centred_exponential_raw(1.0), 4.0},
      {{{"name", "exponential"}, {"scale", 0.5}}, centred_exponential_raw(0.5),
       std::abs(9.0 / 16 - 1 - 0.25 * 0.25)},
  };
  constexpr Index kDim = 20, kDesigns = 100'000;  // 2·10⁶ coordinates
  std::uint64_t seed = 1000;
  for (const DenseCase& c : cases) {
    INFO(c.config.dump());
    auto sampler = make<Sampler>(c.config, Kind::sampler);
    REQUIRE(sampler->kind() == DesignSide::Kind::dense);
    const Moments declared = sampler->moments(kDim);
    check_declared_moments(declared, c.raw);
    CHECK(declared.tau() == Approx(c.tau).margin(1e-12));

    Rng rng(++seed);
    DesignSide side;
    sampler->sample(rng, kDim, kDesigns, side);
    REQUIRE(side.kind == DesignSide::Kind::dense);
    REQUIRE(side.dim == kDim);
    REQUIRE(side.dense.rows() == kDim);
    REQUIRE(side.dense.cols() == kDesigns);
    const Eigen::Map<const Vector> pooled(side.dense.data(), side.dense.size());
    check_empirical_moments(pooled, declared, c.raw);
    check_uncorrelated(pooled, declared, 1);     // neighbouring coordinates of a design
    check_uncorrelated(pooled, declared, kDim);  // one coordinate across consecutive designs
  }
}

TEST_CASE("dense samplers take values in their support", "[samplers]") {
  Rng rng(8);
  DesignSide side;
  make<Sampler>({{"name", "bernoulli"}}, Kind::sampler)->sample(rng, 7, 1000, side);
  CHECK((side.dense.array().abs() == 1.0).all());

  const double p = 0.3, sigma = std::sqrt(p * (1 - p));
  make<Sampler>({{"name", "bernoulli"}, {"mode", "standardized"}, {"p", p}}, Kind::sampler)->sample(rng, 7, 1000, side);
  CHECK(((side.dense.array() == (1 - p) / sigma) || (side.dense.array() == -p / sigma)).all());

  make<Sampler>({{"name", "uniform"}, {"low", -2.0}, {"high", 5.0}}, Kind::sampler)->sample(rng, 7, 1000, side);
  CHECK(side.dense.minCoeff() >= -2.0);
  CHECK(side.dense.maxCoeff() < 5.0);

  make<Sampler>({{"name", "exponential"}, {"scale", 3.0}}, Kind::sampler)->sample(rng, 7, 1000, side);
  CHECK(side.dense.minCoeff() >= -3.0);
}

TEST_CASE("exponential is scale·(−ln(1 − u) − 1) of fill_uniform, with a log within 2 ulp", "[samplers]") {
  // Its log is RankOne's own (rankone/core/portable_math.hpp), the same bits on every CPU. The reference
  // for its accuracy is the x87 logl (one variant on every x86-64 CPU, unlike libm's double log), over
  // 2¹⁸ draws of 1 − u, the ends of its grid (0, 1] and both sides of the mantissa's switch at ≈ √½.
  const Index dim = 8, n = 1 << 15;
  Rng rng(9), again(9);
  DesignSide side;
  make<Sampler>({{"name", "exponential"}, {"scale", 3.0}}, Kind::sampler)->sample(rng, dim, n, side);
  std::vector<double> x(static_cast<std::size_t>(dim * n));
  again.fill_uniform(x.data(), dim * n);
  for (double& v : x) v = 1.0 - v;
  const double switch_point = std::bit_cast<double>(0x3FE6A09E00000000ULL);
  for (const double end : {0x1p-53, 0x1p-52, 0.5, std::nextafter(switch_point, 0.0), switch_point,
                           0.70710678118654746, 0.70710678118654757, 1.0 - 0x1p-53, 1.0})
    x.push_back(end);
  double worst_ulps = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double own = log_positive(x[i]);
    REQUIRE(std::isfinite(own));
    const long double exact = std::log(static_cast<long double>(x[i]));
    const double nearest = static_cast<double>(exact);
    const double ulp = nearest == 0.0 ? 0x1p-1074 : std::abs(std::nextafter(nearest, 0.0) - nearest);
    const double ulps = static_cast<double>(std::abs(static_cast<long double>(own) - exact)) / ulp;
    if (!(ulps <= 2.0)) FAIL_CHECK("log_positive(" << x[i] << ") is " << ulps << " ulp from the x87 log");
    worst_ulps = std::max(worst_ulps, ulps);
    if (i < static_cast<std::size_t>(dim * n)) REQUIRE(side.dense.data()[i] == 3.0 * (-own - 1.0));
  }
  INFO("worst distance to the x87 log, in ulp: " << worst_ulps);
  CHECK(worst_ulps <= 2.0);
}

TEST_CASE("sample() overwrites a design side of another shape and kind", "[samplers]") {
  Rng rng(4);
  DesignSide side;
  make<Sampler>({{"name", "one_hot"}}, Kind::sampler)->sample(rng, 10, 6, side);
  make<Sampler>({{"name", "gaussian"}}, Kind::sampler)->sample(rng, 3, 4, side);
  CHECK(side.kind == DesignSide::Kind::dense);
  CHECK(side.count() == 4);
  CHECK(side.index.size() == 0);
  make<Sampler>({{"name", "one_hot"}, {"scale", 2.0}}, Kind::sampler)->sample(rng, 9, 5, side);
  CHECK(side.kind == DesignSide::Kind::index);
  CHECK(side.dim == 9);
  CHECK(side.count() == 5);
  CHECK(side.scale == 2.0);
  CHECK(side.dense.size() == 0);
}

TEST_CASE("one_hot draws uniform indices and declares the moments of scale·e_i", "[samplers]") {
  constexpr Index kDim = 50, kDraws = 500'000;
  const double scale = 1.5;
  auto sampler = make<Sampler>({{"name", "one_hot"}, {"scale", scale}}, Kind::sampler);
  REQUIRE(sampler->kind() == DesignSide::Kind::index);

  Rng rng(606);
  DesignSide side;
  sampler->sample(rng, kDim, kDraws, side);
  REQUIRE(side.kind == DesignSide::Kind::index);
  REQUIRE(side.index.size() == kDraws);
  CHECK(side.scale == scale);

  REQUIRE(side.index.minCoeff() >= 0);
  REQUIRE(side.index.maxCoeff() < kDim);
  std::vector<double> counts(kDim, 0.0);
  for (Index i = 0; i < kDraws; ++i) counts[side.index(i)] += 1.0;
  const double expected = double(kDraws) / kDim;
  double chi_square = 0.0;
  for (double c : counts) chi_square += (c - expected) * (c - expected) / expected;
  const double dof = kDim - 1;
  CHECK(chi_square < dof + 6.0 * std::sqrt(2.0 * dof));

  // A coordinate of scale·e_i is scale with probability 1/d and 0 otherwise.
  const double q = 1.0 / kDim;
  const Moments declared = sampler->moments(kDim);
  check_close(declared.mean, scale * q);
  check_close(declared.variance, scale * scale * q * (1 - q));
  check_close(declared.kappa, std::pow(scale, 3) * q);
  check_close(declared.phi, std::pow(scale, 4) * q);

  // Coordinate 0 over all draws: its empirical moments against the declared ones.
  const double hot = counts[0] / kDraws;
  CHECK(std::abs(scale * hot - declared.mean) < 6 * std::sqrt(declared.variance / kDraws));
  CHECK(std::abs(scale * scale * hot - (declared.variance + declared.mean * declared.mean)) <
        6 * scale * scale * std::sqrt(q * (1 - q) / kDraws));

  sampler->sample(rng, 1, 10, side);
  CHECK((side.index.array() == 0).all());
  CHECK_THROWS_AS(sampler->sample(rng, 0, 10, side), InputError);
}

TEST_CASE("samplers are deterministic and thread-safe given their Rng", "[samplers]") {
  auto sampler = make<Sampler>({{"name", "gaussian"}}, Kind::sampler);
  DesignSide serial_a, serial_b, threaded_a, threaded_b;
  Rng ra(1), rb(2);
  sampler->sample(ra, 30, 5000, serial_a);
  sampler->sample(rb, 30, 5000, serial_b);
  std::thread ta([&] { Rng r(1); sampler->sample(r, 30, 5000, threaded_a); });
  std::thread tb([&] { Rng r(2); sampler->sample(r, 30, 5000, threaded_b); });
  ta.join();
  tb.join();
  CHECK(threaded_a.dense == serial_a.dense);
  CHECK(threaded_b.dense == serial_b.dense);
  CHECK(serial_a.dense != serial_b.dense);
}

TEST_CASE("sampler parameters are validated", "[samplers]") {
  const auto rejects = [](const Json& config) {
    INFO(config.dump());
    CHECK_THROWS_AS(make<Sampler>(config, Kind::sampler), ConfigError);
  };
  rejects({{"name", "gaussian"}, {"std", 0.0}});
  rejects({{"name", "gaussian"}, {"std", -1.0}});
  rejects({{"name", "gaussian"}, {"variance", 1.0}});  // unknown key
  rejects({{"name", "bernoulli"}, {"mode", "coin"}});
  rejects({{"name", "bernoulli"}, {"mode", "standardized"}, {"p", 0.0}});
  rejects({{"name", "bernoulli"}, {"mode", "standardized"}, {"p", 1.0}});
  rejects({{"name", "bernoulli"}, {"mode", "rademacher"}, {"p", 0.3}});
  rejects({{"name", "uniform"}, {"low", 1.0}, {"high", 1.0}});
  rejects({{"name", "uniform"}, {"low", 2.0}, {"high", 1.0}});
  rejects({{"name", "exponential"}, {"scale", 0.0}});
  rejects({{"name", "one_hot"}, {"scale", -1.0}});

  CHECK_NOTHROW(make<Sampler>({{"name", "bernoulli"}, {"mode", "standardized"}, {"p", 0.999}}, Kind::sampler));
  // Ranges name the parameter and the value found; cross-field constraints name every field and its value.
  CHECK_THROWS_WITH(make<Sampler>({{"name", "bernoulli"}, {"mode", "standardized"}, {"p", 1.0}}, Kind::sampler),
                    Catch::Contains("at /p: expected a number") && Catch::Contains("found 1.0"));
  CHECK_THROWS_WITH(make<Sampler>({{"name", "uniform"}, {"low", 2.0}, {"high", 1.0}}, Kind::sampler),
                    Catch::Contains("at /low: violated constraint on /low and /high: low must be below high (low = 2.0, "
                                    "high = 1.0)"));
  CHECK_THROWS_WITH(make<Sampler>({{"name", "bernoulli"}, {"mode", "rademacher"}, {"p", 0.3}}, Kind::sampler),
                    Catch::Contains("at /p: violated constraint on /p and /mode: p applies to mode"));
}

TEST_CASE("the samplers library registers its five samplers with a documentation page", "[samplers]") {
  for (const char* name : {"gaussian", "bernoulli", "uniform", "exponential", "one_hot"}) {
    INFO(name);
    const Registration& r = rankone::test::registry().get(name, Kind::sampler);
    CHECK(r.kind == Kind::sampler);
    CHECK(r.doc_page == "docs/plugins/samplers.md");
    CHECK(!r.summary.empty());
  }
}
