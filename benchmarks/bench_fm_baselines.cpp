// The FM baselines' speed (plugins/fm_baselines): one iteration of the registered estimator (the
// shared fixed-sample policy: fit, best iterate, divergence; fm_mcmc's random numbers and posterior
// mean) beside the solver step alone on the same training set, timed right after each step
// (docs/PERFORMANCE.md): fm_mcmc's Gibbs sweep (GibbsFm::sweep on a chain of its own), polynomial_network's
// coordinate-descent epoch (LiftedCd::epoch). gfm-vs-fm's scale: d = 100, k = 5, n = 30 000.
//
//   cmake --build build --target bench_fm_baselines && build/bin/bench_fm_baselines
#include <benchmark/benchmark.h>

#include "bench_support.hpp"
#include "features.hpp"
#include "gibbs_fm.hpp"
#include "lifted_cd.hpp"

using namespace rankone;

namespace {

constexpr Index kD = 100;
constexpr Index kRank = 5;
constexpr Index kSize = 30000;

Json source_ref() {
  return Json{{"name", "synthetic"}, {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
              {"d", kD}, {"rank", kRank}, {"truth", "symmetric"}, {"w_norm", 1.0}, {"noise_std", 0.1}, {"size", kSize}};
}

/// Steps `estimator_ref` on the training set and, after each step (untimed), runs `solver_step`
/// once, recording its mean CPU time in the counter solver_cpu_seconds.
template <class SolverStep>
void iterations(benchmark::State& state, Json estimator_ref, SolverStep solver_step) {
  estimator_ref["max_iterations"] = 1000000;
  estimator_ref["tolerance"] = 0.0;
  estimator_ref["rank"] = kRank;
  auto data = bench::make<DataSource>(source_ref(), Kind::data_source);
  data->open(1);
  auto estimator = bench::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(2);
  estimator->start(*data, rng);
  if (estimator->summary().status != Status::running) state.SkipWithError(estimator->summary().message.c_str());
  bench::steps_beside(state, *estimator, *data, "solver_cpu_seconds", solver_step);
  state.SetItemsProcessed(state.iterations() * kSize);
}

Batch training_set() {
  auto data = bench::make<DataSource>(source_ref(), Kind::data_source);
  data->open(1);
  return data->next(kSize);
}

void BM_FmMcmcIteration(benchmark::State& state) {
  const Batch train = training_set();
  fm_baselines::GibbsState start;
  start.mu_v = Vector::Zero(kRank);
  start.lambda_v = Vector::Zero(kRank);
  start.w = Vector::Zero(kD);
  start.V = 0.1 * Matrix::Random(kD, kRank);
  fm_baselines::GibbsFm sampler(fm_baselines::instances_by_features(train, false), train.y, start);
  Rng chain(3);
  Vector variates = sampler.draw_variates(chain);
  iterations(state, Json{{"name", "fm_mcmc"}}, [&] {
    sampler.sweep(variates);
    benchmark::DoNotOptimize(sampler.state().V.data());
  });
}

void BM_PolynomialNetworkIteration(benchmark::State& state) {
  const Batch train = training_set();
  fm_baselines::LiftedCd solver(fm_baselines::instances_by_features(train, true), train.y,
                                0.1 * Matrix::Random(kD + 1, kRank), 0.1 * Matrix::Random(kD + 1, kRank), 0.0);
  iterations(state, Json{{"name", "polynomial_network"}}, [&] {
    solver.epoch();
    benchmark::DoNotOptimize(solver.P().data());
  });
}

}  // namespace

BENCHMARK(BM_FmMcmcIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_PolynomialNetworkIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
