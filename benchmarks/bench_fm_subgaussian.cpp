// Speed of the estimators of plugins/fm_subgaussian: one iteration of fm_moment_elimination and of
// ifm on an in-memory batch (O(n d k)), and one epoch of fm with SGD and with ALS (O(N d k)).
//
//   cmake --build build --target bench_fm_subgaussian && build/bin/bench_fm_subgaussian
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

using namespace rankone;

namespace {

constexpr Index kD = 200;  // n = 10 kd: above the measured sample threshold (docs/fm_subgaussian_sample_complexity.md)
constexpr Index kRank = 5;
constexpr Index kBatch = 10000;

Json source_ref(const std::string& truth, bool finite) {
  Json s{{"name", "synthetic"},
         {"d", kD},
         {"rank", kRank},
         {"truth", truth},
         {"w_norm", 1.0},
         {"noise_std", 0.1},
         {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
  if (finite) s["size"] = kBatch;
  return s;
}

/// One alternating iteration (residual, two 𝓜 products, QR, w update, intercept refit off).
void alternating_iteration(benchmark::State& state, const std::string& name) {
  bench::ReplaySource source(bench::make<DataSource>(source_ref("symmetric", false), Kind::data_source), kBatch);
  source.open(1);
  // One batch replayed: restarted every 50 steps, so that any number of steps stays finite.
  bench::RestartedEstimator runs(
      [&name] {
        return bench::make<Estimator>(
            Json{{"name", name}, {"rank", kRank}, {"batch_size", kBatch}, {"max_iterations", 1 << 30}, {"tolerance", 0.0}},
            Kind::estimator);
      },
      source, 50);
  for (auto _ : state) {
    state.PauseTiming();
    Estimator& estimator = runs.next();
    state.ResumeTiming();
    if (!estimator.step(source)) {
      state.SkipWithError(("estimator stopped: " + estimator.summary().message).c_str());
      break;
    }
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_MomentEliminationIteration(benchmark::State& state) { alternating_iteration(state, "fm_moment_elimination"); }
void BM_IfmIteration(benchmark::State& state) { alternating_iteration(state, "ifm"); }

/// One epoch of the conventional FM over N = 10 000 instances.
void fm_epoch(benchmark::State& state, const std::string& solver) {
  auto source = bench::make<DataSource>(source_ref("fm", true), Kind::data_source);
  source->open(3);
  auto estimator = bench::make<Estimator>(Json{{"name", "fm"},
                                               {"rank", kRank},
                                               {"solver", solver},
                                               {"learning_rate", 1e-5},
                                               {"max_iterations", 1 << 30},
                                               {"tolerance", 0.0}},
                                          Kind::estimator);
  Rng rng(4);
  estimator->start(*source, rng);
  for (auto _ : state)
    if (!estimator->step(*source)) {
      state.SkipWithError(("estimator stopped: " + estimator->summary().message).c_str());
      break;
    }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

void BM_FmSgdEpoch(benchmark::State& state) { fm_epoch(state, "sgd"); }
void BM_FmAlsEpoch(benchmark::State& state) { fm_epoch(state, "als"); }

}  // namespace

BENCHMARK(BM_MomentEliminationIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_IfmIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_FmSgdEpoch)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_FmAlsEpoch)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
