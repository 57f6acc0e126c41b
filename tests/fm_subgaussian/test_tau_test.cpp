// The τ-MIP test of fm_moment_elimination: the delta-method standard error of T̂_j = φ̂_j − 1 − κ̂_j²
// against Monte Carlo, two-point laws at exactly 0, and the estimator's refusal of τ = 0 laws at any d
// while τ > 0 laws pass at the batch sizes of the experiments (docs/plugins/fm_moment_elimination.md,
// "The τ test"). Fixed seeds throughout; each row of a matrix is an independent replicate.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../../plugins/fm_subgaussian/moments.hpp"
#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;
using namespace rankone::fm_subgaussian;

namespace {

enum class Law { gaussian, uniform, exponential };

/// rows × n draws of a standardised law (mean 0, variance 1).
Matrix draws(Law law, Index rows, Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix X(rows, n);
  if (law == Law::gaussian) {
    rng.fill_normal(X.data(), X.size());
    return X;
  }
  rng.fill_uniform(X.data(), X.size());
  if (law == Law::uniform) return (X.array() * 2.0 * std::sqrt(3.0) - std::sqrt(3.0)).matrix();
  return (-(1.0 - X.array()).log() - 1.0).matrix();  // centred Exp(1)
}

/// Standardised Bernoulli(p): (B − p)/√(p(1 − p)), the sampler's "standardized" mode.
Matrix two_point(double p, Index rows, Index n, std::uint64_t seed) {
  Rng rng(seed);
  Matrix U(rows, n);
  rng.fill_uniform(U.data(), U.size());
  const double s = std::sqrt(p * (1.0 - p));
  return U.unaryExpr([&](double u) { return ((u < p ? 1.0 : 0.0) - p) / s; });
}

double sd(const Vector& v) { return std::sqrt((v.array() - v.mean()).square().mean()); }

Json bernoulli_source(Index d, double p) {
  return Json{{"name", "synthetic"}, {"d", d}, {"rank", 2}, {"truth", "symmetric"}, {"signs", "mixed"}, {"w_norm", 1.0},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
              {"sampler", {{"name", "bernoulli"}, {"mode", "standardized"}, {"p", p}}}};
}

}  // namespace

TEST_CASE("normal_quantile inverts the normal distribution", "[fm_subgaussian][tau]") {
  CHECK(normal_quantile(0.5) == Approx(0.0).margin(1e-14));
  CHECK(normal_quantile(0.99) == Approx(2.326347874040841).epsilon(1e-12));
  CHECK(normal_quantile(0.975) == Approx(1.959963984540054).epsilon(1e-12));
  CHECK(normal_quantile(1e-6) == Approx(-4.753424308822899).epsilon(1e-10));
}

TEST_CASE("tau_bound: the delta-method standard error matches the spread of T over replicates",
          "[fm_subgaussian][tau]") {
  // Exact values: T = 2 (Gaussian), 0.8 (uniform), 4 (centred exponential); n·Var T̂ → Var ψ with
  // ψ = r² − T(2u² − 1): 24, 1.3166, 3456 (from the moments of each law). 1000 replicates (rows)
  // of n draws; the 99% bounds should miss T in at most about 1% of the rows.
  struct Case {
    Law law;
    double tau, n_var;
    Index n;
  };
  for (const Case c : {Case{Law::gaussian, 2.0, 24.0, 4000}, Case{Law::uniform, 0.8, 1.3165714, 4000},
                       Case{Law::exponential, 4.0, 3456.0, 20000}}) {
    const Index rows = c.law == Law::exponential ? 300 : 1000;
    CAPTURE(static_cast<int>(c.law), c.n);
    const TauBound b = tau_bound(draws(c.law, rows, c.n, 40 + static_cast<int>(c.law)), 0.99);
    const double predicted = std::sqrt(c.n_var / static_cast<double>(c.n));
    const double spread = sd(b.estimate);
    const double mean_se = b.std_error.mean();
    CAPTURE(spread, mean_se, predicted, b.estimate.mean());
    // The sd of 1000 (300) replicates is within ~5% (~20%, heavy tails) of its expectation.
    const double tolerance = c.law == Law::exponential ? 0.25 : 0.08;
    CHECK(std::abs(spread / predicted - 1.0) < tolerance);
    CHECK(std::abs(mean_se / predicted - 1.0) < tolerance);
    CHECK(std::abs(b.estimate.mean() - c.tau) < 4.0 * predicted / std::sqrt(static_cast<double>(rows)) + 3.0 / c.n);
    const Index misses = (b.lower.array() > c.tau).count();
    CAPTURE(misses);
    if (c.law != Law::exponential) CHECK(misses <= 25);  // expected 10 of 1000
  }
}

TEST_CASE("tau_bound: a two-point sample has T = 0 and standard error 0, whatever p and scale",
          "[fm_subgaussian][tau]") {
  for (const double p : {0.03, 0.2, 0.5}) {
    CAPTURE(p);
    const Matrix X = two_point(p, 30, 2001, 7);
    for (const double scale : {1.0, 0.5, 3.0}) {
      const TauBound b = tau_bound((scale * X.array() + 0.25).matrix(), 0.99);
      CHECK(b.estimate.maxCoeff() < 1e-12);
      CHECK(b.std_error.maxCoeff() < 1e-12);
      CHECK(b.lower_bound() < 1e-12);
    }
  }
}

TEST_CASE("tau_bound: a law just below tau_threshold clears it in at most about 1% of batches", "[fm_subgaussian][tau]") {
  // x = e + s g (e = ±1, g standard Gaussian), standardised: κ = 0, φ = (1 + 6s² + 3s⁴)/(1 + s²)², so
  // T = (4s² + 2s⁴)/(1 + s²)² = 0.0986 at s = 0.16, just below the default threshold 0.1. The bound is
  // a 99% one: it may clear 0.1 in about 1% of the coordinates (2000 of them, n = 2001 each).
  const double s = 0.16, tau = (4 * s * s + 2 * std::pow(s, 4)) / std::pow(1 + s * s, 2);
  REQUIRE(tau == Approx(0.0986).epsilon(1e-3));
  Matrix X = two_point(0.5, 2000, 2001, 9);
  Matrix G(2000, 2001);
  Rng rng(10);
  rng.fill_normal(G.data(), G.size());
  X += s * G;
  const TauBound b = tau_bound(X, 0.99);
  const Index cleared = (b.lower.array() >= 0.1).count();
  CAPTURE(cleared, b.estimate.mean());
  CHECK(cleared <= 35);  // binomial(2000, 0.01): mean 20, sd 4.5
  CHECK(std::abs(b.estimate.mean() - tau) < 0.002);
}

TEST_CASE("tau_bound passes tau > 0 laws at the batch sizes of the experiments", "[fm_subgaussian][tau]") {
  // τ-MIP experiment: d = 100, n = 10 000 (Gaussian, uniform, exponential); sample complexity:
  // uniform, d = 50, n from 250. 50 seeds each; the lower bound must clear tau_threshold 0.1.
  struct Case {
    Law law;
    Index d, n;
  };
  for (const Case c : {Case{Law::gaussian, 100, 10000}, Case{Law::uniform, 100, 10000}, Case{Law::exponential, 100, 10000},
                       Case{Law::uniform, 50, 250}, Case{Law::gaussian, 10, 2001}}) {
    CAPTURE(static_cast<int>(c.law), c.d, c.n);
    double smallest = std::numeric_limits<double>::infinity(), smallest_plain = smallest;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      const TauBound b = tau_bound(draws(c.law, c.d, c.n, seed), 0.99);
      smallest = std::min(smallest, b.lower_bound());
      smallest_plain = std::min(smallest_plain, (b.estimate - b.z * b.std_error).minCoeff());
    }
    CAPTURE(smallest, smallest_plain);
    CHECK(smallest >= 0.1);
    // Without the truncated term one extreme value of the exponential law drags the bound below 0.
    if (c.law == Law::exponential) CHECK(smallest_plain < 0.0);
  }
}

TEST_CASE("fm_moment_elimination refuses standardised Bernoulli(0.03) at d = 10 and 30 on every seed",
          "[fm_subgaussian][tau]") {
  // The law of the issue: τ = 0, but its raw moments scatter so much at n = 2001 that |φ̂ − 1 − κ̂²|
  // exceeded 0.1 on every coordinate in two runs of six. The test standardises each coordinate by
  // the batch's own moments, which makes T̂ exactly 0 for any two-point sample.
  for (const Index d : {10, 30}) {
    int refused = 0, old_rule_passed = 0;
    for (std::uint64_t seed = 1; seed <= 50; ++seed) {
      // The rule this test replaced, min_j |φ̂_j − 1 − κ̂_j²| ≥ 0.1 on the raw moments of the same first batch.
      auto data = test::make<DataSource>(bernoulli_source(d, 0.03), Kind::data_source);
      data->open(seed);
      old_rule_passed += estimate_moments(data->next(2001).left.dense).tau() >= 0.1;

      const Json estimator{{"name", "fm_moment_elimination"}, {"rank", 2}, {"batch_size", 2001}, {"max_iterations", 30}};
      const test::SteppedRun run = test::run_stepwise(bernoulli_source(d, 0.03), estimator, seed);
      CAPTURE(d, seed, run.summary.message);
      CHECK(run.summary.status == Status::failed);
      CHECK(run.summary.iterations == 0);
      CHECK_THAT(run.summary.message, Catch::Contains("below tau_threshold = 0.1") &&
                                          Catch::Contains("lower confidence bound") && Catch::Contains("Use ifm"));
      refused += run.summary.status == Status::failed;
    }
    CHECK(refused == 50);
    // Measured: the old rule let 29 of 50 (d = 10) and 11 of 50 (d = 30) of these batches through.
    CAPTURE(d, old_rule_passed);
    CHECK(old_rule_passed == (d == 10 ? 29 : 11));
  }
}

TEST_CASE("fm_moment_elimination: the refusal states the estimate, its bound and what to do", "[fm_subgaussian][tau]") {
  // Uniform features (τ = 0.8), d = 20, at n = 12: the smallest estimate is near 0.3 and the standard
  // errors (≈ 0.3) leave a 99% lower bound below 0 (measured −0.5 to −0.1 over 8 draws), so the run is
  // refused with both numbers; at confidence 0.5 (bound 0.19 – 0.26) or with n = 2000 it runs.
  // Standardised, so only the τ test can refuse.
  Json data = bernoulli_source(20, 0.5);
  data["sampler"] = "uniform";
  const Json small{{"name", "fm_moment_elimination"}, {"rank", 2}, {"batch_size", 12}, {"max_iterations", 2},
                   {"standardize", true}};
  const test::SteppedRun refused = test::run_stepwise(data, small, 3);
  CAPTURE(refused.summary.message);
  CHECK(refused.summary.status == Status::failed);
  CHECK_THAT(refused.summary.message, Catch::StartsWith("estimated tau-MIP constant tau = min_j (phi_j - 1 - kappa_j^2) = 0.") &&
                                          Catch::Contains("from 12 instances") && Catch::Contains("99% lower confidence bound = ") &&
                                          Catch::Contains("standard error 0.") && Catch::Contains("z = 2.576") &&
                                          Catch::Contains("larger batch_size"));
  Json lenient = small;
  lenient["tau_confidence"] = 0.5;
  CHECK(test::run_stepwise(data, lenient, 3).summary.status != Status::failed);
  Json large = small;
  large["batch_size"] = 2000;
  CHECK(test::run_stepwise(data, large, 3).summary.status != Status::failed);
}
