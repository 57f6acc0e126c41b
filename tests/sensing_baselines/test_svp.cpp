// svp (SVP's fixed step and NIHT's normalised one): step-by-step agreement with the numpy
// reference tests/references/svp.py on the C++ run's own data, for every operator it claims;
// planted truths recovered; the refusal of delta with the normalised step.
#include <catch2/catch.hpp>

#include <string>

#include "agreement.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;
using test::baseline_source;
using test::relative_error;

void check_svp_agreement(const std::string& label, const Json& source_ref, const std::string& step, double c) {
  test::check_agreement(label, source_ref, Json{{"name", "svp"}, {"rank", 2}, {"step", step}}, 8, c,
                        Json{{"rank", 2}, {"step", step}, {"delta", 1.0 / 3.0}});
}

}  // namespace

TEST_CASE("svp agrees step by step with its numpy reference on every operator", "[svp][reference]") {
  for (const std::string step : {"fixed", "normalized"}) {
    check_svp_agreement("asymmetric_" + step, baseline_source("asymmetric_rank_one", 12, 9, 600, "general"), step, 1.0);
    check_svp_agreement("symmetric_" + step, baseline_source("symmetric_rank_one", 10, 10, 800, "symmetric"), step, 0.5);
    check_svp_agreement("entry_" + step, baseline_source("entry", 20, 16, 200, "general"), step, 20.0 * 16.0);
    check_svp_agreement("ensemble_" + step, baseline_source("gaussian_ensemble", 8, 6, 150, "general"), step, 1.0);
  }
  const Json symmetric_ensemble = test::symmetric_ensemble_source(7, 120);
  check_svp_agreement("symmetric_ensemble_normalized", symmetric_ensemble, "normalized", 1.0);
}

TEST_CASE("svp recovers planted truths", "[svp][recovery]") {
  struct Case {
    const char* label;
    Json source;
    std::string step;
  };
  const std::vector<Case> cases{
      {"Gaussian ensemble, SVP", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "fixed"},
      {"Gaussian ensemble, NIHT", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "normalized"},
      {"asymmetric rank-one, NIHT", baseline_source("asymmetric_rank_one", 20, 15, 700, "general"), "normalized"},
      {"symmetric rank-one, NIHT", baseline_source("symmetric_rank_one", 20, 20, 1200, "symmetric"), "normalized"},
      {"symmetric Gaussian ensemble, SVP", test::symmetric_ensemble_source(20, 320), "fixed"},
      {"symmetric Gaussian ensemble, NIHT", test::symmetric_ensemble_source(20, 320), "normalized"},
      {"entries, SVP", baseline_source("entry", 50, 50, 1000, "general"), "fixed"},
      {"entries, NIHT", baseline_source("entry", 50, 50, 1000, "general"), "normalized"},
  };
  for (const auto& c : cases) {
    INFO(c.label);
    const test::FinishedRun run =
        test::run_to_end(c.source, Json{{"name", "svp"}, {"rank", 2}, {"step", c.step}, {"max_iterations", 3000}}, 41);
    INFO(run.estimator->summary().message);
    CHECK(run.estimator->summary().status == Status::converged);
    CHECK(relative_error(run.estimator->estimate(), *run.data->truth()) < 1e-6);
  }
}

TEST_CASE("svp from zero_init is SVP's Algorithm 1: its first iterate is the spectral start over 1 + δ", "[svp][init]") {
  const Json source = baseline_source("gaussian_ensemble", 20, 20, 320, "general");
  const Json svp{{"name", "svp"}, {"rank", 2}, {"max_iterations", 3000}};
  Json from_zero = svp;
  from_zero["init"] = "zero_init";
  Json spectral = svp;
  spectral["init"] = Json{{"name", "spectral_init"}, {"tolerance", 1e-13}};
  spectral["max_iterations"] = 0;
  const test::SteppedRun zero = test::run_stepwise(source, from_zero, 41);
  const Matrix start = test::run_to_end(source, spectral, 41).estimator->estimate().dense();
  REQUIRE(zero.start_estimate.dense().isZero(0.0));
  REQUIRE(!zero.estimates.empty());
  CHECK((zero.estimates.front().dense() - start / (1.0 + 1.0 / 3.0)).norm() < 1e-9 * start.norm());
  CHECK(zero.summary.status == Status::converged);
  const test::FinishedRun run = test::run_to_end(source, from_zero, 41);
  CHECK(relative_error(run.estimator->estimate(), *run.data->truth()) < 1e-6);
}

TEST_CASE("svp: delta belongs to the fixed step", "[svp][errors]") {
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "svp"}, {"step", "normalized"}, {"delta", 0.2}}, Kind::estimator),
                    Contains("violated constraint on /delta and /step"));
}
