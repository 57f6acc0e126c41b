// One-pass gFM (plugins/gfm_one_pass) speed: one iteration on an in-memory batch beside the dense
// products that iteration cannot avoid (and on two threads), the spectral start, and the samples per
// second of a whole one-pass run beside the raw rate of the data generator and of a naive sampler.
// docs/gfm-performance.md and docs/PERFORMANCE.md record the numbers.
//
//   cmake --build build --target bench_gfm && build/bin/bench_gfm
#include <benchmark/benchmark.h>

#include <memory>

#include <ctime>
#include <random>

#include <Spectra/SymEigsSolver.h>

#include "bench_support.hpp"
#include "rankone/linalg/blocked_products.hpp"

using namespace rankone;

namespace {

constexpr Index kD = 1000;
constexpr Index kRank = 10;
constexpr Index kBatch = 20000;
/// The FLOPs of the four products of one fused iteration (docs/PERFORMANCE.md): X'[U V w] (2k + 1
/// columns), X·[diag(r) X'U, r] (k + 1), X'U_new (k) and X·diag(r) X'U_new (k), 2·d·n each column.
constexpr double kIterationFlops = 2.0 * kD * kBatch * (2 * kRank + 1 + kRank + 1 + kRank + kRank);

/// `prefetch`: instances the source draws ahead on a second thread (0: none).
Json source_ref(Index prefetch = 0) {
  return Json{{"name", "synthetic"},
              {"d", kD},
              {"rank", kRank},
              {"w_norm", 1.0},
              {"condition_number", 2.0},
              {"prefetch", prefetch},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

Json estimator_ref(int iterations, int threads = 1) {
  return Json{{"name", "gfm_one_pass"}, {"rank", kRank},           {"batch_size", kBatch},
              {"max_iterations", iterations}, {"tolerance", 0.0},       {"divergence_factor", 1e300},
              {"threads", threads}};
}

/// The four products of one iteration in its two fused passes over X (rankone/linalg/blocked_products.hpp,
/// one thread): X·[diag(r) P_U, r] with P = X'[U V w], then X·diag(r) X'U_new.
struct IterationProducts {
  Matrix UVw{kD, 2 * kRank + 1}, U_new{kD, kRank};
  Vector r{kBatch};
  IterationProducts() {
    Rng rng(3);
    rng.fill_normal(UVw.data(), UVw.size());
    rng.fill_normal(U_new.data(), U_new.size());
    rng.fill_normal(r.data(), r.size());
  }
  void run(const Matrix& X) const {
    using Slice = Eigen::Ref<const Matrix>;
    const Matrix A = blocked_fused_products(  // d × (k + 1): G U and X r
        X, UVw, kRank + 1,
        [&](Index first, const Slice& P, Eigen::Ref<Matrix> W) {
          W.leftCols(kRank).noalias() = r.segment(first, P.rows()).asDiagonal() * P.leftCols(kRank);
          W.col(kRank) = r.segment(first, P.rows());
        },
        1);
    const Matrix B = blocked_fused_products(  // d × k: G U_new
        X, U_new, kRank,
        [&](Index first, const Slice& Q, Eigen::Ref<Matrix> W) {
          W.noalias() = r.segment(first, Q.rows()).asDiagonal() * Q;
        },
        1);
    benchmark::DoNotOptimize(A.data());
    benchmark::DoNotOptimize(B.data());
  }
};

/// Steps from one start (bench::RestartedEstimator): the one batch replayed drove the estimate off
/// at step 106 on an AVX-512 core.
constexpr int kStepsPerStart = 50;

/// Iterations of gfm_one_pass on `threads` threads, the batch held in memory, restarted every
/// kStepsPerStart steps. With `paired_products`, the
/// iteration's four products on the same batch are timed after each step, timer paused, as the counter
/// `products_cpu_seconds` (per iteration): the step and its reference measured in the same seconds of the
/// machine, whose memory bandwidth other tenants move by ±20 % from minute to minute (docs/PERFORMANCE.md).
void gfm_iterations(benchmark::State& state, int threads, bool paired_products) {
  bench::ReplaySource source(bench::make<DataSource>(source_ref(), Kind::data_source), kBatch);
  source.open(1);
  bench::RestartedEstimator runs([threads] { return bench::make<Estimator>(estimator_ref(1 << 30, threads), Kind::estimator); },
                                 source, kStepsPerStart);
  const IterationProducts products;
  double products_seconds = 0;
  for (auto _ : state) {
    state.PauseTiming();
    Estimator* estimator = &runs.next();
    source.stage();  // the batch copy a replayed stream needs is not the iteration's
    state.ResumeTiming();
    if (!estimator->step(source)) {
      state.SkipWithError(("estimator stopped: " + estimator->summary().message).c_str());
      break;
    }
    if (!paired_products) continue;
    state.PauseTiming();
    const double before = bench::thread_cpu_seconds();
    products.run(source.replayed().left.dense);
    products_seconds += bench::thread_cpu_seconds() - before;
    state.ResumeTiming();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["flops"] = benchmark::Counter(kIterationFlops * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
  if (paired_products)
    state.counters["products_cpu_seconds"] = benchmark::Counter(products_seconds, benchmark::Counter::kAvgIterations);
}

/// One gfm_one_pass iteration (residual, G U, QR, G U_new, w update) on a d = 1000, n = 20 000 batch, and
/// its four products on the same batch after each step (the counter products_cpu_seconds).
void BM_GfmIteration(benchmark::State& state) { gfm_iterations(state, 1, /*paired_products=*/true); }

/// The same on 1 or 2 threads, timed on the wall clock (the CPU time of the process grows with threads).
void BM_GfmIterationThreads(benchmark::State& state) {
  gfm_iterations(state, static_cast<int>(state.range(0)), /*paired_products=*/false);
}

/// The spectral start alone (Lanczos, Spectra, on the moment estimate of one in-memory batch).
void BM_GfmStart(benchmark::State& state) {
  bench::ReplaySource source(bench::make<DataSource>(source_ref(), Kind::data_source), kBatch);
  source.open(1);
  for (auto _ : state) {
    state.PauseTiming();
    source.stage();  // the replayed batch's copy is not the start's
    auto estimator = bench::make<Estimator>(estimator_ref(1), Kind::estimator);
    state.ResumeTiming();
    Rng rng(2);
    estimator->start(source, rng);
    if (estimator->summary().status != Status::running) state.SkipWithError(estimator->summary().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

/// Spectra's SymEigsSolver called directly on the operator of the start (the moment estimate of
/// the same batch, one vector per product), with gfm_one_pass's default start tolerance (1e-3),
/// Krylov dimension 2k + 1 and the same start vector (so the same number of products): the
/// reference BM_GfmStart must not be slower than.
void BM_SpectraStart(benchmark::State& state) {
  auto source = bench::make<DataSource>(source_ref(), Kind::data_source);
  source->open(1);
  const Batch batch = source->next(kBatch);
  const MomentMaps maps = moment_maps(batch, source->sensing_operator(), source->shape(), batch.y);
  struct Op {
    using Scalar = double;
    const LinearMap* map;
    Index rows() const { return kD; }
    Index cols() const { return kD; }
    void perform_op(const double* x, double* y) const {
      Eigen::Map<Vector>(y, kD) = (*map)(Eigen::Map<const Matrix>(x, kD, 1)).col(0);
    }
  } op{&maps.times};
  Rng rng(2);  // the start vector BM_GfmStart's estimator draws from the same seed
  Vector start(kD);
  rng.fill_normal(start.data(), kD);
  for (auto _ : state) {
    Spectra::SymEigsSolver<Op> solver(op, kRank, 2 * kRank + 1);
    solver.init(start.data());
    solver.compute(Spectra::SortRule::LargestMagn, 300, 1e-3, Spectra::SortRule::LargestMagn);
    if (solver.info() != Spectra::CompInfo::Successful) state.SkipWithError("Spectra did not converge");
    benchmark::DoNotOptimize(solver.eigenvalues().data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

/// The iteration's four products (IterationProducts) on a batch of their own: their FLOP rate against the
/// machine's (BM_PeakFma). The step's reference is the same products timed inside BM_GfmIteration.
void BM_GfmProducts(benchmark::State& state) {
  Rng rng(3);
  Matrix X(kD, kBatch);
  rng.fill_normal(X.data(), X.size());
  const IterationProducts products;
  for (auto _ : state) products.run(X);
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["flops"] = benchmark::Counter(kIterationFlops * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

/// The products an iteration cannot avoid, with Eigen on the same shapes: P = Xᵀ[U V] (for the
/// residual), X·diag(r)·(XᵀU) reusing P, X r (the w update), then Xᵀ U_new and X·diag(r)·(Xᵀ U_new).
void BM_DenseProducts(benchmark::State& state) {
  Rng rng(3);
  Matrix X(kD, kBatch);
  rng.fill_normal(X.data(), X.size());
  Matrix UV(kD, 2 * kRank);
  rng.fill_normal(UV.data(), UV.size());
  Matrix U_new(kD, kRank);
  rng.fill_normal(U_new.data(), U_new.size());
  Vector r(kBatch);
  rng.fill_normal(r.data(), r.size());
  for (auto _ : state) {
    const Matrix P = X.transpose() * UV;                                // n × 2k
    const Matrix GU = X * (r.asDiagonal() * P.leftCols(kRank));         // d × k
    const Vector w = X * r;                                             // d
    const Matrix Q = X.transpose() * U_new;                             // n × k
    const Matrix GV = X * (r.asDiagonal() * Q);                         // d × k
    benchmark::DoNotOptimize(GU.data());
    benchmark::DoNotOptimize(w.data());
    benchmark::DoNotOptimize(GV.data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  // Five products (X r on its own): 2·d·n·(2k + k + 1 + k + k).
  state.counters["flops"] = benchmark::Counter(2.0 * kD * kBatch * (2 * kRank + kRank + 1 + kRank + kRank) *
                                                   static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

/// The synthetic generator alone: 20 000 Gaussian designs of dimension 1000 and their responses.
void BM_GeneratorRate(benchmark::State& state) {
  auto source = bench::make<DataSource>(source_ref(), Kind::data_source);
  source->open(4);
  for (auto _ : state) {
    Batch b = source->next(kBatch);
    benchmark::DoNotOptimize(b.y.data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

/// The naive sampler on the generator's designs: std::normal_distribution with std::mt19937_64
/// filling the same d × n matrix (no responses: a lower bound on a naive generator's cost).
void BM_NaiveDesign(benchmark::State& state) {
  std::mt19937_64 engine(4);
  std::normal_distribution<double> normal;
  Matrix X(kD, kBatch);
  for (auto _ : state) {
    for (Index i = 0; i < X.size(); ++i) X.data()[i] = normal(engine);
    benchmark::DoNotOptimize(X.data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

/// A whole one-pass run on the synthetic stream: spectral start from its own batch, then T
/// iterations (the argument; 30 is the estimator's default budget), each drawing a fresh batch;
/// items = samples consumed ((T + 1) × 20 000), so items per second compare with BM_GeneratorRate.
void one_pass_run(benchmark::State& state, Index prefetch) {
  const int iterations = static_cast<int>(state.range(0));
  std::uint64_t seed = 5;
  Index samples = 0;
  for (auto _ : state) {
    auto source = bench::make<DataSource>(source_ref(prefetch), Kind::data_source);
    source->open(seed++);
    auto estimator = bench::make<Estimator>(estimator_ref(iterations), Kind::estimator);
    Rng rng(seed);
    estimator->start(*source, rng);
    while (estimator->step(*source)) {
    }
    samples += source->samples_drawn();
  }
  state.SetItemsProcessed(samples);
}

void BM_OnePassRun(benchmark::State& state) { one_pass_run(state, 0); }

/// The same run with the source drawing the next batch on a second thread (`prefetch`: one batch
/// ahead), timed on the wall clock: what the second core buys.
void BM_OnePassRunPrefetch(benchmark::State& state) { one_pass_run(state, kBatch); }

}  // namespace

BENCHMARK(BM_GfmIteration)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_GfmIterationThreads)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MinTime(3.0)->UseRealTime()->MeasureProcessCPUTime();
BENCHMARK(BM_GfmStart)->Unit(benchmark::kMillisecond)->Iterations(4);
BENCHMARK(BM_SpectraStart)->Unit(benchmark::kMillisecond)->Iterations(4);
BENCHMARK(BM_GfmProducts)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_DenseProducts)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_GeneratorRate)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_NaiveDesign)->Unit(benchmark::kMillisecond)->MinTime(3.0);
BENCHMARK(BM_OnePassRun)->Arg(5)->Arg(30)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_OnePassRunPrefetch)->Arg(30)->Unit(benchmark::kMillisecond)->Iterations(1)->UseRealTime();

BENCHMARK_MAIN();
