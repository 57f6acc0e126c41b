// Scale of a comparative study: plan, summarize, export and report over 10 000 trials and 10⁶
// points (the comparative-studies issue asks for seconds). The store is written once, directly.
#include <benchmark/benchmark.h>

#include <cmath>
#include <fstream>
#include <sstream>

#include "bench_support.hpp"
#include "rankone/experiment/experiment.hpp"
#include "rankone/report/report.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"

namespace fs = std::filesystem;
using namespace rankone;

namespace {

const fs::path kFolder = fs::temp_directory_path() / "rankone_bench_study_scale";

/// 100 cells × 50 repetitions × 2 estimators = 10 000 trials of 100 points each.
const fs::path& study() {
  static const fs::path dir = [] {
    fs::remove_all(kFolder);
    fs::create_directories(kFolder);
    std::ofstream(kFolder / "study.json") << R"({
      "name": "scale", "seed": 1, "repetitions": 50,
      "data": {"name": "synthetic", "d": 10, "rank": 1},
      "estimators": [{"name": "spectral", "label": "a"}, {"name": "spectral", "label": "b"}],
      "metrics": ["combined_error"],
      "success": {"metric": "combined_error", "below": 0.01},
      "sweep": {"grid": {"data.d": [10, 20, 30, 40, 50, 60, 70, 80, 90, 100],
                         "estimators.0.batch_size": [100, 200, 300, 400, 500, 600, 700, 800, 900, 1000]}}})";
    const Plan plan = plan_experiment(compose_experiment(kFolder / "study.json", {}), bench::registry());
    ResultsStore store(kFolder / "results");
    const std::int64_t run = store.begin_run(RunInfo{plan.resolved, "study.json", "bench_study_scale"});
    for (const TrialSpec& spec : plan.trials) {
      TrialRecord t;
      t.key = spec.key;
      t.cell = spec.cell;
      t.coordinates = spec.coordinates;
      t.repetition = spec.repetition;
      t.estimator = "spectral";
      t.label = spec.label;
      t.status = "converged";
      t.iterations = 99;
      const double rate = 0.05 * (1.0 + static_cast<double>(spec.cell % 7));
      for (int it = 0; it < 100; ++it)
        t.points.push_back(Point{it, 100 * static_cast<Index>(it + 1), 1e-3 * it, "combined_error",
                                 std::exp(-rate * it) * (1.0 + 0.01 * spec.repetition)});
      store.write_trial(run, t);
    }
    store.end_run(run, "completed");
    return kFolder;
  }();
  return dir;
}

void BM_plan_10000_trials(benchmark::State& state) {
  study();
  for (auto _ : state) {
    const Plan plan = plan_experiment(compose_experiment(kFolder / "study.json", {}), bench::registry());
    const auto done = ResultsStore(kFolder / "results").completed();
    benchmark::DoNotOptimize(done.size() + plan.trials.size());
  }
}
BENCHMARK(BM_plan_10000_trials)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_summarize_1e6_points(benchmark::State& state) {
  study();
  for (auto _ : state) {
    ResultsStore store(kFolder / "results");
    std::ostringstream out;
    write_summary(summarize(store, {}), "csv", out);
    benchmark::DoNotOptimize(out.str().size());
  }
}
BENCHMARK(BM_summarize_1e6_points)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_export_csv_1e6_points(benchmark::State& state) {
  study();
  for (auto _ : state) {
    ResultsStore store(kFolder / "results");
    std::ostringstream out;
    export_results(store, "csv", out);
    benchmark::DoNotOptimize(out.str().size());
  }
}
BENCHMARK(BM_export_csv_1e6_points)->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_report_1e6_points(benchmark::State& state) {
  study();
  for (auto _ : state) write_report(kFolder / "results", kFolder / "report.html", ReportOptions{});
  state.counters["store_MB"] = static_cast<double>(fs::file_size(ResultsStore::database_path(kFolder / "results"))) / 1e6;
}
BENCHMARK(BM_report_1e6_points)->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
