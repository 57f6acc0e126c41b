// The experiment's `stop` section (runner/stopping_rules.hpp), through the runner's own run_trial:
// a metric target and no progress end a trial `converged`, budgets end it `budget`, each with its
// curve kept up to the evaluation that decided it; bad sections are refused naming the key.
#include <catch2/catch.hpp>

#include <algorithm>

#include "rankone/experiment/experiment.hpp"
#include "rankone/runner/runner.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

/// A noiseless rank-2 gFM problem that one_pass gFM solves to machine precision in ~20 iterations.
std::string study(const std::string& stop, const std::string& extra = "") {
  return R"({"name": "stop_rules", "seed": 5,
    "data": {"name": "synthetic", "d": 20, "rank": 2, "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "gfm_one_pass", "rank": 2, "batch_size": 1500, "max_iterations": 40, "tolerance": 0}],
    "metrics": ["combined_error"])" +
         extra + (stop.empty() ? std::string() : ", \"stop\": " + stop) + "}";
}

TrialRecord single_trial(const test::ScratchDir& s, const std::string& text) {
  const auto exp = compose_experiment(s.write("study.json", text), {});
  const Plan plan = plan_experiment(exp, test::registry());
  REQUIRE(plan.trials.size() == 1);
  return run_trial(plan.trials.front(), test::registry());
}

/// The recorded values of `metric`, by iteration.
std::vector<double> curve(const TrialRecord& rec, const std::string& metric = "combined_error") {
  std::vector<double> values;
  for (const Point& p : rec.points)
    if (p.metric == metric) values.push_back(p.value);
  return values;
}

std::string refusal(const test::ScratchDir& s, const std::string& text) {
  try {
    const auto exp = compose_experiment(s.write("bad.json", text), {});
    plan_experiment(exp, test::registry());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("stop: a metric target ends the trial converged at the first evaluation that reaches it", "[stop]") {
  test::ScratchDir s("stop_target");
  const TrialRecord free_run = single_trial(s, study(""));
  const TrialRecord stopped = single_trial(s, study(R"({"metric": "combined_error", "target": 1e-4})"));
  const std::vector<double> all = curve(free_run), kept = curve(stopped);
  INFO(stopped.message);
  CHECK(stopped.status == "converged");
  CHECK_THAT(stopped.message, Contains("reached the target 0.0001"));
  REQUIRE(kept.size() >= 2);
  CHECK(kept.back() <= 1e-4);
  CHECK(kept[kept.size() - 2] > 1e-4);
  // The same iterates as the run without rules, up to the stop: the rule reads, it never changes them.
  REQUIRE(all.size() > kept.size());
  for (std::size_t i = 0; i < kept.size(); ++i) CHECK(kept[i] == all[i]);
  CHECK(stopped.iterations == static_cast<int>(kept.size()) - 1);
}

TEST_CASE("stop: no progress for patience evaluations ends the trial converged", "[stop]") {
  test::ScratchDir s("stop_patience");
  // With noise the error stops falling at its floor; demanding a halving per evaluation stops it there.
  std::string noisy = study(R"({"metric": "combined_error", "patience": 2, "min_improvement": 0.5})");
  noisy.replace(noisy.find("\"rank\": 2, \"operator\""), 11, "\"rank\": 2, \"noise_std\": 0.1, ");
  const TrialRecord rec = single_trial(s, noisy);
  INFO(rec.message);
  CHECK(rec.status == "converged");
  CHECK_THAT(rec.message, Contains("did not improve on its best"));
  const std::vector<double> c = curve(rec);
  REQUIRE(c.size() >= 3);
  // The last two evaluations did not halve the best before them.
  const double best = *std::min_element(c.begin(), c.end() - 2);
  CHECK(c[c.size() - 1] > 0.5 * best);
  CHECK(c[c.size() - 2] > 0.5 * best);
}

TEST_CASE("stop: budgets end the trial 'budget' with its curve", "[stop]") {
  test::ScratchDir s("stop_budget");
  SECTION("samples") {
    const TrialRecord rec = single_trial(s, study(R"({"samples": 6000})"));
    INFO(rec.message);
    CHECK(rec.status == "budget");
    CHECK_THAT(rec.message, Contains("reached the budget /stop/samples = 6000"));
    CHECK(rec.samples >= 6000);
    CHECK(rec.samples < 6000 + 1500);  // the first step that reached it
    CHECK(curve(rec).size() == static_cast<std::size_t>(rec.iterations) + 1);
  }
  SECTION("wall time: the first step passes a nanosecond") {
    const TrialRecord rec = single_trial(s, study(R"({"seconds": 1e-9})"));
    INFO(rec.message);
    CHECK(rec.status == "budget");
    CHECK(rec.iterations == 1);
    CHECK_THAT(rec.message, Contains("wall time"));
    CHECK(curve(rec).size() == 2);
  }
  SECTION("CPU time") {
    const TrialRecord rec = single_trial(s, study(R"({"cpu_seconds": 1e-9})"));
    CHECK(rec.status == "budget");
    CHECK_THAT(rec.message, Contains("CPU time"));
  }
}

TEST_CASE("stop: the trials of a study without rules keep their keys; rules are part of a trial's identity", "[stop]") {
  test::ScratchDir s("stop_keys");
  auto key_of = [&](const std::string& text) {
    const Plan plan = plan_experiment(compose_experiment(s.write("k.json", text), {}), test::registry());
    return plan.trials.front().key;
  };
  const std::string none = key_of(study(""));
  CHECK(key_of(study(R"({"samples": 6000})")) != none);
  CHECK(key_of(study(R"({"samples": 6000})")) != key_of(study(R"({"samples": 7000})")));
  // The key without rules is the key the store held before the stop section existed.
  const Plan plan = plan_experiment(compose_experiment(s.write("k.json", study("")), {}), test::registry());
  CHECK_FALSE(trial_spec_to_json(plan.trials.front()).at("stop").is_object());
}

TEST_CASE("stop: bad sections are refused naming the key and what was expected", "[stop]") {
  test::ScratchDir s("stop_refusals");
  CHECK_THAT(refusal(s, study(R"({"target": 1e-6})")), Contains("at /stop/target: target needs /stop/metric"));
  CHECK_THAT(refusal(s, study(R"({"metric": "combined_error"})")), Contains("at /stop/metric: metric is read by target or patience"));
  CHECK_THAT(refusal(s, study(R"({"metric": "combined_error", "target": 1, "patiense": 3})")),
             Contains("at /stop/patiense: unknown parameter 'patiense' (did you mean 'patience'?)"));
  CHECK_THAT(refusal(s, study(R"({})")), Contains("at /stop: an empty stop section"));
  CHECK_THAT(refusal(s, study(R"({"seconds": 0})")), Contains("at /stop/seconds"));
  CHECK_THAT(refusal(s, study(R"({"samples": 6000, "min_improvement": 0.1})")),
             Contains("at /stop/min_improvement: min_improvement belongs to the no-progress rule"));
  CHECK_THAT(refusal(s, study(R"({"samples": 6000, "name": "x"})")), Contains("at /stop/name"));
  CHECK_THAT(refusal(s, study(R"(3)")), Contains("at /stop: expected an object of stopping rules"));
  CHECK_THAT(refusal(s, study(R"({"metric": "combined_error", "direction": "up", "target": 1})")),
             Contains("at /stop/direction"));
  // A metric name the metrics never record is refused at the first evaluation, naming what they record.
  const auto exp = compose_experiment(s.write("unknown.json", study(R"({"metric": "rmse", "target": 1})")), {});
  const Plan plan = plan_experiment(exp, test::registry());
  CHECK_THROWS_WITH(run_trial(plan.trials.front(), test::registry()),
                    Contains("at /stop/metric: the metrics of the experiment record no value named 'rmse'; they record: "
                             "combined_error"));
}

TEST_CASE("stop: a budget and a target through the CLI, stored with their statuses", "[stop][cli]") {
  test::ScratchDir s("stop_cli");
  const auto file = s.write("cli.json", study(R"({"metric": "combined_error", "target": 1e-4, "samples": 100000})"));
  const auto out = test::rankone_cli("run " + file.string() + " --out " + (s / "results").string());
  INFO(out.text);
  REQUIRE(out.code == 0);
  const auto exported = test::rankone_cli("export " + (s / "results").string() + " --format json", true);
  CHECK_THAT(exported.text, Contains("converged"));
  const auto bad = test::rankone_cli("run " + s.write("bad.json", study(R"({"target": 1})")).string() + " --out " +
                                     (s / "bad").string());
  CHECK(bad.code == 2);
  CHECK_THAT(bad.text, Contains("bad.json: at /stop/target"));
}
