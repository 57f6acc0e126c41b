// Honest outcomes of the FM moment estimators on unstandardised features: the standardisation check
// (refusal of features far from E x x' = I), the fit on fresh data, the training fit of fm and ridge.
// Fixed seeds.
#include <catch2/catch.hpp>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

/// FM data y = x'w + x'Mx, d = 50, Gaussian features of standard deviation `std`.
Json raw_source(double std) {
  return Json{{"name", "synthetic"}, {"d", 50}, {"rank", 2}, {"truth", "fm"}, {"w_std", 0.1},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
              {"sampler", {{"name", "gaussian"}, {"std", std}}}};
}

Json estimator(const std::string& name, bool standardize) {
  return Json{{"name", name}, {"rank", 2}, {"batch_size", 5000}, {"max_iterations", 30}, {"tolerance", 0.0},
              {"standardize", standardize}};
}

Summary run_summary(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  return test::run_stepwise(source_ref, estimator_ref, seed).summary;
}

}  // namespace

TEST_CASE("ifm / fm_moment_elimination refuse raw features of std 2 and 0.5, and standardize learns them",
          "[fm_subgaussian][outcomes][standardisation]") {
  // Before the standardisation check these runs diverged (std 2: residual RMS 7e6 – 7e7 × RMS(y) at
  // iteration 6 – 7) or stalled (std 0.5: fit 0.15 for ifm, 0.6 – 1.4 for fm_moment_elimination).
  // Now the first batch's mean of x_j² (0.25 or 4, standard error ≈ 0.005 – 0.08 at n = 5000) is
  // outside [0.8, 1.25] and the run ends failed at once, saying what to do.
  for (const double std : {2.0, 0.5}) {
    for (const std::string name : {"ifm", "fm_moment_elimination"}) {
      CAPTURE(std, name);
      const Summary raw = run_summary(raw_source(std), estimator(name, false), 1);
      CAPTURE(raw.message);
      CHECK(raw.status == Status::failed);
      CHECK(raw.iterations == 0);
      CHECK_THAT(raw.message, Contains(name + ": features not standardised: the mean of x_j^2 over the first batch of "
                                              "5000 instances is ") &&
                                  Contains(std == 2.0 ? "(from 3." : "(from 0.2"));
      CHECK_THAT(raw.message, Contains("outside [0.8, 1.25] by more than 3 standard errors") &&
                                  Contains("Set standardize: true"));
    }
    const Summary standardized = run_summary(raw_source(std), estimator("ifm", true), 1);
    CHECK(standardized.status == Status::max_iterations);
    CHECK(standardized.fit < 1e-9);
    CHECK_THAT(standardized.fit_measure, Contains("fresh batch"));
  }
}

TEST_CASE("the standardisation check refuses features far from mean zero", "[fm_subgaussian][outcomes][standardisation]") {
  // Mean 0.1 on each of 50 coordinates: |E x|² = 0.5, measured to stall (fit 47 – 1.6e5 for ifm);
  // mean 0.02 (|E x|² = 0.02) was measured to converge and passes.
  Json shifted = raw_source(1.0);
  shifted["sampler"]["mean"] = 0.1;
  const Summary refused = run_summary(shifted, estimator("ifm", false), 1);
  CAPTURE(refused.message);
  CHECK(refused.status == Status::failed);
  CHECK_THAT(refused.message, Contains("ifm: features not standardised: |E x|^2 estimated on the first batch of 5000 "
                                       "instances is 0.") && Contains("Set standardize: true"));
  shifted["sampler"]["mean"] = 0.02;
  CHECK(run_summary(shifted, estimator("ifm", false), 1).status == Status::max_iterations);
}

TEST_CASE("the standardisation check leaves unit-variance data alone", "[fm_subgaussian][outcomes][standardisation]") {
  // Unit-variance Gaussian features: the check passes (it only reads the first batch).
  const Summary ifm = run_summary(raw_source(1.0), estimator("ifm", false), 1);
  CHECK(ifm.status == Status::max_iterations);
  CHECK(ifm.fit < 1e-9);
  // Heavy-tailed unit-variance features with a small batch are not refused: exponential, n = 250.
  Json exponential = raw_source(1.0);
  exponential["sampler"] = "exponential";
  Json small = estimator("ifm", false);
  small["batch_size"] = 250;
  small["max_iterations"] = 1;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    const Summary s = run_summary(exponential, small, seed);
    CAPTURE(seed, s.message);
    CHECK(s.status != Status::failed);
  }
}

TEST_CASE("fm and ridge report their training fit", "[fm_subgaussian][outcomes]") {
  Json src = raw_source(1.0);
  src["size"] = 3000;
  const Summary ridge = run_summary(src, Json{{"name", "ridge"}}, 2);
  CHECK(ridge.status == Status::converged);
  CHECK(ridge.fit > 0.0);
  CHECK(ridge.fit < 1.0);  // an intercept and x'w explain part of y
  CHECK_THAT(ridge.fit_measure, Contains("training"));
  const Summary fm = run_summary(src, Json{{"name", "fm"}, {"solver", "als"}, {"max_iterations", 5}}, 2);
  CHECK(std::isfinite(fm.fit));
  CHECK_THAT(fm.fit_measure, Contains("training"));
}
