// Honest outcomes of the FM moment estimators on unstandardised features: the fit on fresh data, the
// best estimate after divergence, and the standardisation hint. Fixed seeds.
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

Summary run(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  return test::run_stepwise(source_ref, estimator_ref, seed).summary;
}

}  // namespace

TEST_CASE("ifm / fm_moment_elimination on raw features of std 2 diverge, return the start and say standardize",
          "[fm_subgaussian][outcomes]") {
  // Measured: residual RMS 7e6 – 7e7 × RMS(y) at iteration 6 – 7; the best estimate on fresh data
  // is the start (relative residual 1 of ŷ = 0); with standardize the same data reach 1e-15.
  for (const std::string name : {"ifm", "fm_moment_elimination"}) {
    CAPTURE(name);
    const Summary raw = run(raw_source(2.0), estimator(name, false), 1);
    CAPTURE(raw.message);
    CHECK(raw.status == Status::diverged);
    CHECK_THAT(raw.message, Contains("the estimate returned is the best seen on fresh data (after iteration 0"));
    CHECK_THAT(raw.message, Contains("Hint: features are not standardised (column variances from 3."));
    CHECK_THAT(raw.message, Contains("set standardize"));
    CHECK(raw.fit == Approx(1.0).epsilon(1e-6));
  }
  const Summary standardized = run(raw_source(2.0), estimator("ifm", true), 1);
  CHECK(standardized.status == Status::max_iterations);
  CHECK(standardized.fit < 1e-9);
  CHECK_THAT(standardized.fit_measure, Contains("fresh batch"));
}

TEST_CASE("fm and ridge report their training fit", "[fm_subgaussian][outcomes]") {
  Json src = raw_source(1.0);
  src["size"] = 3000;
  const Summary ridge = run(src, Json{{"name", "ridge"}}, 2);
  CHECK(ridge.status == Status::converged);
  CHECK(ridge.fit > 0.0);
  CHECK(ridge.fit < 1.0);  // an intercept and x'w explain part of y
  CHECK_THAT(ridge.fit_measure, Contains("training"));
  const Summary fm = run(src, Json{{"name", "fm"}, {"solver", "als"}, {"max_iterations", 5}}, 2);
  CHECK(std::isfinite(fm.fit));
  CHECK_THAT(fm.fit_measure, Contains("training"));
}

TEST_CASE("ifm / fm_moment_elimination on raw features of std 0.5: below the no-skill fit, stalled by the noise floor",
          "[fm_subgaussian][outcomes][floor]") {
  // Measured (30 iterations, noiseless, truth's own residual 0): ifm fit 0.146 – 0.154 (below the
  // no-skill 1: only the floor rule catches it); fm_moment_elimination 0.62 – 1.37 (seed-dependent:
  // one rule or the other). ifm with standardize reaches 1e-15 on the same data.
  for (const std::string name : {"ifm", "fm_moment_elimination"}) {
    CAPTURE(name);
    const Summary raw = run(raw_source(0.5), estimator(name, false), 1);
    CAPTURE(raw.message);
    REQUIRE(raw.status == Status::stalled);
    CHECK(raw.fit_floor == Approx(0.0).margin(1e-12));
    if (name == "ifm") {
      CHECK(raw.fit < 1.0);
      CHECK_THAT(raw.message, Contains("stopped far from a fit"));
    }
    CHECK_THAT(raw.message, Contains("features are not standardised"));
    CHECK_THAT(raw.message, Contains("set standardize"));
  }
  const Summary standardized = run(raw_source(0.5), estimator("ifm", true), 1);
  CHECK(standardized.status == Status::max_iterations);
  CHECK(standardized.fit < 1e-9);
}
