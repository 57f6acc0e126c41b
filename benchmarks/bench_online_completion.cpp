// Speed of the online matrix-completion updates (docs/online-completion-performance.md):
// observations per second of omc_psd (Algorithm 1, O(k)) and omc_general (Algorithm 3, O(k³)) at
// d = 10 000, of a bare loop doing omc_psd's arithmetic on the same rows (the reference), and of
// one sgd_mf epoch, and an sgd_mf epoch and an als_completion sweep on 1 and 2 threads. The estimators run through the registry on a source that replays one batch of
// entries, so the time is the estimator's, not the sampler's.
#include <benchmark/benchmark.h>

#include <string>
#include <vector>

#include "bench_support.hpp"

using namespace rankone;

namespace {

constexpr Index kDim = 10000;
constexpr Index kBatch = 1000000;  ///< entries the replay source holds (and the warm start uses)

Json entry_source(Index rank, std::optional<Index> size = std::nullopt) {
  Json s{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", kDim},
         {"rank", rank},        {"truth", "psd"},      {"condition_number", 2}};
  if (size) s["size"] = *size;
  return s;
}

/// Hands out the same batch of observed entries again and again (entries of a planted PSD matrix).
class ReplaySource final : public DataSource {
 public:
  explicit ReplaySource(Index rank) : inner_(bench::make<DataSource>(entry_source(rank), Kind::data_source)) {
    inner_->open(1);
    batch_ = inner_->next(kBatch);
  }
  void open(std::uint64_t) override {}
  ProblemShape shape() const override { return inner_->shape(); }
  const SensingOperator& sensing_operator() const override { return inner_->sensing_operator(); }
  bool finite() const override { return false; }
  const Batch& batch() const { return batch_; }

 protected:
  /// The next n of the held entries, cycling through them (so the iterates keep seeing fresh rows).
  Batch produce(Index n) override {
    n = std::min(n, kBatch);
    if (position_ + n > kBatch) position_ = 0;
    Batch out = n == kBatch ? batch_ : batch_.slice(position_, n);
    position_ += n;
    return out;
  }

 private:
  std::unique_ptr<DataSource> inner_;
  Batch batch_;
  Index position_ = 0;
};

/// Times `step` with batches of `batch` entries (the first `batch` of the replayed ones).
void run_online(benchmark::State& state, const char* name, Index batch) {
  const Index k = state.range(0);
  ReplaySource source(k);
  auto estimator = bench::make<Estimator>(
      Json{{"name", name}, {"rank", k}, {"init", {{"name", "spectral_init"}, {"batch_size", kBatch}}}, {"batch_size", batch},
           {"max_iterations", 1000000}},
      Kind::estimator);
  Rng rng(7);
  estimator->start(source, rng);
  for (auto _ : state) {
    if (!estimator->step(source)) state.SkipWithError(estimator->summary().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

// The default batch size (1 000): the undo log (2 rows per observation) stays in L1/L2, and the
// batch's buffers (24 KB) are recycled by malloc instead of being mapped and zeroed by the kernel
// afresh each step, as buffers above glibc's 128 KB mmap threshold are (10 000 entries: 0.29 × the
// bare loop at load 1, against 0.44 at 1 000; docs/PERFORMANCE.md).
void BM_omc_psd(benchmark::State& state) { run_online(state, "omc_psd", 1000); }
void BM_omc_general(benchmark::State& state) { run_online(state, "omc_general", state.range(0) <= 10 ? 20000 : 2000); }

/// The reference: Algorithm 1's arithmetic on the same rows with nothing else (no undo log, no
/// residual bookkeeping, no batch handling).
void BM_bare_two_row_loop(benchmark::State& state) {
  const Index k = state.range(0);
  ReplaySource source(k);
  const Batch& b = source.batch();
  Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> U =
      Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>::Constant(kDim, k, 0.01);
  const double gain = 1e-3;
  for (auto _ : state) {
    for (Index t = 0; t < kBatch; ++t) {
      double* ui = U.row(b.left.index(t)).data();
      double* uj = U.row(b.right->index(t)).data();
      double inner = 0.0;
      for (Index a = 0; a < k; ++a) inner += ui[a] * uj[a];
      const double g = gain * (inner - b.y(t));
      for (Index a = 0; a < k; ++a) {
        const double old = ui[a];
        ui[a] -= g * uj[a];
        uj[a] -= g * old;
      }
    }
    benchmark::DoNotOptimize(U.data());
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}

/// One sgd_mf epoch over 200 000 entries of a 10 000 × 10 000 matrix.
void BM_sgd_mf_epoch(benchmark::State& state) {
  const Index k = state.range(0);
  const Index size = 200000;
  auto source = bench::make<DataSource>(entry_source(k, size), Kind::data_source);
  source->open(1);
  auto estimator = bench::make<Estimator>(
      Json{{"name", "sgd_mf"}, {"rank", k}, {"max_iterations", 1000000}, {"tolerance", 0.0}}, Kind::estimator);
  Rng rng(7);
  estimator->start(*source, rng);
  for (auto _ : state) {
    if (!estimator->step(*source)) state.SkipWithError(estimator->summary().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * size);
}

/// One pass of an offline estimator over 200 000 entries of a 1000 × 1000 matrix of rank 10 (LIBMF's
/// problem size in docs/online-completion-performance.md) on state.range(0) threads, wall time:
/// sgd_mf on 8 × 8 blocks, als_completion's row and column solves.
void run_offline_pass(benchmark::State& state, const std::string& name) {
  const Index size = 200000;
  Json source{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 1000},
              {"rank", 10},          {"truth", "general"},  {"size", size}};
  auto data = bench::make<DataSource>(source, Kind::data_source);
  data->open(1);
  Json estimator{{"name", name}, {"rank", 10}, {"max_iterations", 1000000}, {"tolerance", 0.0},
                 {"threads", state.range(0)}, {"init", "random_init"}};
  if (name == "sgd_mf") estimator["blocks"] = 8;
  auto offline = bench::make<Estimator>(estimator, Kind::estimator);
  Rng rng(7);
  offline->start(*data, rng);
  for (auto _ : state) {
    if (!offline->step(*data)) state.SkipWithError(offline->summary().message.c_str());
  }
  state.SetItemsProcessed(state.iterations() * size);
}
void BM_sgd_mf_threads(benchmark::State& state) { run_offline_pass(state, "sgd_mf"); }
void BM_als_completion_threads(benchmark::State& state) { run_offline_pass(state, "als_completion"); }

}  // namespace

BENCHMARK(BM_sgd_mf_threads)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_als_completion_threads)->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_omc_psd)->Arg(2)->Arg(5)->Arg(8)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_bare_two_row_loop)->Arg(2)->Arg(5)->Arg(8)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_omc_general)->Arg(2)->Arg(5)->Arg(10)->Arg(20)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_sgd_mf_epoch)->Arg(5)->Arg(10)->Unit(benchmark::kMillisecond);
BENCHMARK_MAIN();
