// Outcomes through the runner and summarize: a failure declared in start is the record's status and
// message with no points; stalled trials are no success and are counted; a rank above the true rank
// is flagged from the stored spectrum.
#include <catch2/catch.hpp>

#include "rankone/experiment/experiment.hpp"
#include "rankone/runner/runner.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

/// The single trial of a one-estimator study, run by the runner's own run_trial.
TrialRecord single_trial(const test::ScratchDir& s, const std::string& study) {
  const auto exp = compose_experiment(s.write("study.json", study), {});
  const Plan plan = plan_experiment(exp, test::registry());
  REQUIRE(plan.trials.size() == 1);
  return run_trial(plan.trials.front(), test::registry());
}

}  // namespace

TEST_CASE("run_trial: omc_psd on a non-square matrix fails in start with its own message and no points", "[report][outcomes]") {
  test::ScratchDir s("omc_psd_square");
  const TrialRecord rec = single_trial(s, R"({
    "name": "psd_not_square", "seed": 1,
    "data": {"name": "synthetic", "operator": "entry", "sampler": "one_hot", "d": 30, "d2": 20, "rank": 2, "truth": "general"},
    "estimators": [{"name": "omc_psd", "rank": 2}],
    "metrics": [{"name": "relative_error_M", "norm": "frobenius"}]})");
  CHECK(rec.status == "failed");
  CHECK_THAT(rec.message, Contains("square"));
  CHECK(rec.points.empty());
  CHECK(rec.iterations == 0);
}

TEST_CASE("run_trial: one_bit_mll with a batch below the rank fails in start with its own message and no points",
          "[report][outcomes]") {
  test::ScratchDir s("one_bit_small");
  const TrialRecord rec = single_trial(s, R"({
    "name": "one_bit_small_batch", "seed": 1,
    "data": {"name": "synthetic", "d": 20, "d2": 5, "rank": 3, "truth": "unit_columns", "link": "sign",
             "operator": "single_label"},
    "estimators": [{"name": "one_bit_mll", "rank": 3, "batch_size": 2}],
    "metrics": ["samples"]})");
  CHECK(rec.status == "failed");
  CHECK_THAT(rec.message, Contains("the initialisation batch of 2 instances cannot span rank 3"));
  CHECK(rec.points.empty());
}

TEST_CASE("summarize: stalled trials are counted and are no success; a rank above the true rank is flagged",
          "[report][summary][outcomes]") {
  test::ScratchDir s("stalled_summary");
  // gfm_one_pass at n = 1.5·k·d stalls (fit above 1 on fresh data); omc_psd at rank 4 on a rank-2
  // PSD matrix keeps two singular values near 0 (measured σ_4/σ_1 = 0.0078), at rank 2 none.
  const auto gfm = compose_experiment(s.write("gfm.json", R"({
    "name": "stall", "seed": 3, "repetitions": 2,
    "data": {"name": "synthetic", "d": 100, "rank": 5, "w_norm": 1, "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "gfm_one_pass", "label": "small", "rank": 5, "batch_size": 750, "max_iterations": 30, "tolerance": 0},
                   {"name": "gfm_one_pass", "label": "large", "rank": 5, "batch_size": 5000, "max_iterations": 10, "tolerance": 0}],
    "metrics": ["combined_error"],
    "success": {"metric": "combined_error", "below": 1e6}})"),
                                       {});
  RunOptions options;
  options.out = s.path() / "gfm";
  run_plan(plan_experiment(gfm, test::registry()), gfm, test::registry(), options);
  const auto rows = summarize(ResultsStore(options.out), SummaryOptions{});
  REQUIRE(rows.size() == 2);
  for (const auto& r : rows) {
    CAPTURE(r.label);
    if (r.label == "small") {
      CHECK(r.stalled == 2);
      CHECK(r.failures == 0);
      CHECK(*r.success_rate == 0.0);  // a stalled trial is no success, whatever its final value
    } else {
      CHECK(r.stalled == 0);
      CHECK(*r.success_rate == 1.0);
    }
    CHECK(r.flags.empty());
  }
  std::ostringstream csv;
  write_summary(rows, "csv", csv);
  CHECK_THAT(csv.str(), Contains("n,failed,stalled,mean"));
  // Columns no row fills are left out (no flags here), unless every column is asked for.
  std::ostringstream table, full;
  write_summary(rows, "table", table);
  write_summary(rows, "table", full, true);
  CHECK(table.str().find("flags") == std::string::npos);
  CHECK(full.str().find("flags") != std::string::npos);
  CHECK_THAT(table.str(), Contains("metric") && Contains("mean") && Contains("success_rate"));

  const auto omc = compose_experiment(s.write("omc.json", R"({
    "name": "rank", "seed": 7, "repetitions": 2,
    "data": {"name": "synthetic", "operator": "entry", "sampler": "one_hot", "d": 200, "rank": 2, "truth": "psd"},
    "estimators": [{"name": "omc_psd", "label": "rank2", "rank": 2, "batch_size": 1000, "max_iterations": 100},
                   {"name": "omc_psd", "label": "rank4", "rank": 4, "batch_size": 1000, "max_iterations": 100}],
    "metrics": [{"name": "relative_error_M", "norm": "frobenius"}]})"),
                                       {});
  options.out = s.path() / "omc";
  run_plan(plan_experiment(omc, test::registry()), omc, test::registry(), options);
  const auto omc_rows = summarize(ResultsStore(options.out), SummaryOptions{});
  REQUIRE(omc_rows.size() == 2);
  for (const auto& r : omc_rows) {
    CAPTURE(r.label, r.flags);
    if (r.label == "rank4") CHECK_THAT(r.flags, Contains("rank over-specified? σ_k/σ_1 = 0.0"));
    else CHECK(r.flags.empty());
  }
  std::ostringstream json;
  write_summary(omc_rows, "json", json);
  CHECK_THAT(json.str(), Contains("\"flags\": \"rank over-specified?"));
}
