// Comparative-study plumbing below the CLI: two runs writing one results folder, and the success
// threshold of summarize (and report, which shares it).
#include <catch2/catch.hpp>

#include <fstream>

#include "rankone/experiment/experiment.hpp"
#include "rankone/runner/runner.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

namespace {

const char* kStudy = R"({
  "name": "two_writers", "seed": 4, "repetitions": 2,
  "data": {"name": "synthetic", "d": 8, "rank": 1, "w_norm": 1,
           "operator": {"name": "symmetric_rank_one", "first_order": true}},
  "estimators": [{"name": "spectral", "label": "n400", "rank": 1, "batch_size": 400},
                 {"name": "spectral", "label": "n4000", "rank": 1, "batch_size": 4000}],
  "metrics": ["combined_error", "samples"],
  "success": {"metric": "combined_error", "below": 0.5}
})";

}  // namespace

TEST_CASE("a trial another run stored first is kept once, not an error", "[report][store]") {
  test::ScratchDir s("two_writers");
  const auto exp = compose_experiment(s.write("study.json", kStudy), {});
  const Plan plan = plan_experiment(exp, test::registry());
  REQUIRE(plan.trials.size() == 4);
  const fs::path out = s.path() / "out";

  // Another `rankone run` into the same folder (e.g. a resume started while the first run still
  // went on) stores every trial just before this run finishes it.
  TrialExecutor racing = [&](const std::vector<const TrialSpec*>& todo, const Registry& registry, const TrialEvents& events) {
    ResultsStore other(out);
    const std::int64_t other_run = other.begin_run(RunInfo{plan.resolved, "study.json", "the other run"});
    for (const TrialSpec* spec : todo) {
      events.started(*spec);
      TrialRecord rec = run_trial(*spec, registry);
      REQUIRE(other.write_trial(other_run, rec));
      events.finished(std::move(rec));
    }
  };
  RunOptions options;
  options.out = out;
  const RunReport report = run_plan(plan, exp, test::registry(), options, racing);
  CHECK(report.total == 4);
  CHECK(report.completed == 0);
  CHECK(report.written_elsewhere == 4);
  CHECK(report.skipped == 4);

  ResultsStore store(out);
  const auto trials = store.trials(true);
  CHECK(trials.size() == 4);  // each trial exactly once, with its points once
  for (const auto& t : trials) CHECK(t.points.size() == 2);

  // The store itself: a second write of a stored key changes nothing.
  TrialRecord again = trials.front();
  again.points.push_back(Point{1, 1, 0.0, "combined_error", 42.0});
  CHECK_FALSE(store.write_trial(1, again));
  CHECK(store.trials(true).front().points.size() == 2);

  // A rerun finds nothing left to do.
  const RunReport rerun = run_plan(plan, exp, test::registry(), options);
  CHECK(rerun.skipped == 4);
  CHECK(rerun.completed == 0);
}

TEST_CASE("summarize: the success threshold is a pair, and its metric must have been recorded", "[report][summary]") {
  test::ScratchDir s("threshold");
  const auto exp = compose_experiment(s.write("study.json", kStudy), {});
  const Plan plan = plan_experiment(exp, test::registry());
  RunOptions options;
  options.out = s.path() / "out";
  REQUIRE(run_plan(plan, exp, test::registry(), options).completed == 4);
  ResultsStore store(options.out);

  auto success_rows = [](const std::vector<SummaryRow>& rows) {
    std::vector<const SummaryRow*> out;
    for (const auto& r : rows)
      if (r.success_rate) out.push_back(&r);
    return out;
  };
  // Neither given: the experiment's section (combined_error < 0.5).
  const auto from_experiment = summarize(store, SummaryOptions{});
  REQUIRE(success_rows(from_experiment).size() == 2);
  for (const auto* r : success_rows(from_experiment)) CHECK(r->metric == "combined_error");

  // Both given: they replace it. samples < 1000 holds for n400 (400 samples) and not for n4000.
  SummaryOptions samples_below;
  samples_below.success_metric = "samples";
  samples_below.success_below = 1000.0;
  const auto rows = summarize(store, samples_below);
  REQUIRE(success_rows(rows).size() == 2);
  for (const auto* r : success_rows(rows)) {
    CHECK(r->metric == "samples");
    CHECK(*r->success_rate == (r->label == "n400" ? 1.0 : 0.0));
  }

  // Half a threshold is refused, even when the experiment could supply the other half.
  SummaryOptions metric_only;
  metric_only.success_metric = "samples";
  CHECK_THROWS_AS(summarize(store, metric_only), UsageError);
  SummaryOptions value_only;
  value_only.success_below = 0.1;
  CHECK_THROWS_AS(summarize(store, value_only), UsageError);

  // A metric no trial recorded (a typo) is an error that lists the recorded ones.
  SummaryOptions typo;
  typo.success_metric = "combined_eror";
  typo.success_below = 0.1;
  CHECK_THROWS_WITH(summarize(store, typo),
                    Contains("--metric combined_eror: no trial recorded this metric (recorded: combined_error, samples)"));
}

TEST_CASE("under mpirun, an error on rank 0 ends every rank with its exit code", "[report][mpi]") {
  test::ScratchDir s("mpi_error");
  const auto file = s.write("study.json", kStudy);
  // Rank 0 cannot create the output folder (a regular file is in the way); the worker, already
  // waiting for work, must be ended with it. `timeout` turns a hang into a failure, not a stuck suite.
  const auto blocker = s.write("blocker", "a file, not a folder\n");
  const auto mpi = test::run_command("timeout 120 mpirun --allow-run-as-root --oversubscribe -np 2 " + test::rankone_binary() +
                                     " run " + file.string() + " --out " + (blocker / "out").string() + " 2>&1");
  INFO(mpi.text);
  CHECK(mpi.code == 2);
  CHECK_THAT(mpi.text, Contains("cannot create output folder " + (blocker / "out").string()));
}
