// One iteration of `one_bit_mll` at the size of Qiu et al. 2017, Table 1 (d1 = 500, d2 = 200,
// k = 3, m = 100 000 single labels) beside the dense products it cannot avoid, measured in the
// same run (docs/one-bit-performance.md).
//
// An iteration applies the dilation twice and predicts once: five passes over the m × d1 features,
// each a product with a thin (2k = 6 column) matrix — one forward X'P, two X'A (adjoint
// transpose) and two X·G (adjoint) — plus O((d1 + d2) k²) QR and normalisation. The lower bound
// is therefore 3 × "X' times 6 columns" + 2 × "X times m × 6".
#include <benchmark/benchmark.h>

#include "bench_support.hpp"

using namespace rankone;

namespace {

constexpr Index kD1 = 500, kD2 = 200, kRank = 3, kBatch = 100000;

Json table1_source() {
  return Json{{"name", "synthetic"}, {"operator", "single_label"}, {"d", kD1}, {"d2", kD2}, {"rank", kRank},
              {"truth", "unit_columns"}, {"link", "sign"}};
}

/// Hands out the same pre-drawn batch on every call: the estimator's own work, without data generation.
class ReplaySource final : public DataSource {
 public:
  explicit ReplaySource(DataSource& inner) : inner_(inner), batch_(inner.next(kBatch)) {}
  void open(std::uint64_t) override {}
  ProblemShape shape() const override { return inner_.shape(); }
  const SensingOperator& sensing_operator() const override { return inner_.sensing_operator(); }
  Link link() const override { return inner_.link(); }
  bool finite() const override { return false; }

 protected:
  Batch produce(Index) override { return batch_; }

 private:
  DataSource& inner_;
  Batch batch_;
};

struct Fixture {
  std::unique_ptr<DataSource> source = bench::make<DataSource>(table1_source(), Kind::data_source);
  Fixture() { source->open(1); }
};

void BM_OneBitIteration(benchmark::State& state) {
  Fixture f;
  ReplaySource replay(*f.source);
  auto estimator = bench::make<Estimator>(
      Json{{"name", "one_bit_mll"}, {"rank", kRank}, {"batch_size", kBatch}, {"max_iterations", 1000000}},
      Kind::estimator);
  Rng rng(2);
  estimator->start(replay, rng);
  for (auto _ : state) benchmark::DoNotOptimize(estimator->step(replay));
  state.counters["instances/s"] = benchmark::Counter(static_cast<double>(kBatch), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_OneBitIteration)->Unit(benchmark::kMillisecond)->UseRealTime();

/// The batch copy the replay source makes on every call (part of BM_OneBitIteration, subtract it).
void BM_BatchCopy(benchmark::State& state) {
  Fixture f;
  const Batch batch = f.source->next(kBatch);
  for (auto _ : state) {
    Batch copy = batch;
    benchmark::DoNotOptimize(copy.left.dense.data());
  }
}
BENCHMARK(BM_BatchCopy)->Unit(benchmark::kMillisecond)->UseRealTime();

/// X' P: the m × d1 features times a d1 × 2k matrix (forward and adjoint-transpose products).
void BM_DenseProjectTransposed(benchmark::State& state) {
  Fixture f;
  const Batch batch = f.source->next(kBatch);
  Rng rng(3);
  Matrix P(kD1, 2 * kRank);
  rng.fill_normal(P.data(), P.size());
  Matrix out(kBatch, 2 * kRank);
  for (auto _ : state) {
    out.noalias() = batch.left.dense.transpose() * P;
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_DenseProjectTransposed)->Unit(benchmark::kMillisecond)->UseRealTime();

/// X G: the d1 × m features times an m × 2k matrix (adjoint products).
void BM_DenseAccumulate(benchmark::State& state) {
  Fixture f;
  const Batch batch = f.source->next(kBatch);
  Rng rng(4);
  Matrix G(kBatch, 2 * kRank);
  rng.fill_normal(G.data(), G.size());
  Matrix out(kD1, 2 * kRank);
  for (auto _ : state) {
    out.noalias() = batch.left.dense * G;
    benchmark::DoNotOptimize(out.data());
  }
}
BENCHMARK(BM_DenseAccumulate)->Unit(benchmark::kMillisecond)->UseRealTime();

/// Drawing a batch of 100 000 single labels from the synthetic source (what a real run adds).
void BM_SourceDraw(benchmark::State& state) {
  Fixture f;
  for (auto _ : state) {
    Batch b = f.source->next(kBatch);
    benchmark::DoNotOptimize(b.y.data());
  }
}
BENCHMARK(BM_SourceDraw)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
