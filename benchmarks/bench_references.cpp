// Reference rates of the machine and the building blocks every estimator uses (docs/PERFORMANCE.md):
// - the machine: its peak for the instruction set built (a register-only loop in the build's widest vectors,
//   with FMA where the build has it: AVX-512, AVX or AVX2, SSE2), Eigen GEMM on large square matrices (FLOP/s) and a
//   STREAM-style triad (bytes/s);
// - the generators: Rng::fill_normal beside the naive std::normal_distribution + std::mt19937_64,
//   and every registered sampler's generation rate (coordinates per second);
// - the sensing operators: forward and adjoint products on dense Gaussian designs (d = 1000,
//   n = 20 000, k = 10) and on one-hot entry designs (d = 10 000, n = 10⁶, k = 10).
//
//   cmake --build build --target bench_references && build/bin/bench_references
#include <benchmark/benchmark.h>

#include <immintrin.h>

#include <cstring>
#include <random>
#include <vector>

#include "bench_support.hpp"

using namespace rankone;

namespace {

/// Independent FMA chains in registers: 12 accumulators cover the FMA latency (4 cycles) on two
/// FMA ports. Each width is compiled by a target attribute; BM_PeakFma runs the one of the instruction set
/// built, which is what the build's kernels can reach. `rounds` × 12 × lanes × 2 FLOPs per call.
#define RANKONE_FMA_CHAINS(VEC, SET1, FMA)                                  \
  VEC acc[12];                                                             \
  for (int c = 0; c < 12; ++c) acc[c] = SET1(start + 1e-3 * c);            \
  const VEC a = SET1(factor), b = SET1(1e-9);                              \
  for (long r = 0; r < rounds; ++r)                                        \
    for (int c = 0; c < 12; ++c) acc[c] = FMA(acc[c], a, b);               \
  double lanes[sizeof(VEC) / sizeof(double)];                              \
  double sum = 0.0;                                                        \
  for (int c = 0; c < 12; ++c) {                                           \
    std::memcpy(lanes, &acc[c], sizeof(VEC));                              \
    sum += lanes[0];                                                       \
  }                                                                        \
  return sum;

[[maybe_unused]] __attribute__((target("avx512f"))) double fma_peak_512(long rounds, double start, double factor) {
  RANKONE_FMA_CHAINS(__m512d, _mm512_set1_pd, _mm512_fmadd_pd)
}
[[maybe_unused]] __attribute__((target("avx,fma"))) double fma_peak_256(long rounds, double start, double factor) {
  RANKONE_FMA_CHAINS(__m256d, _mm256_set1_pd, _mm256_fmadd_pd)
}
/// Without FMA (SSE2, AVX): a multiply and an add, the two FLOPs such a build's kernels do.
inline __m128d mul_add_128(__m128d x, __m128d a, __m128d b) { return _mm_add_pd(_mm_mul_pd(x, a), b); }
[[maybe_unused]] double mul_add_peak_128(long rounds, double start, double factor) {
  RANKONE_FMA_CHAINS(__m128d, _mm_set1_pd, mul_add_128)
}
__attribute__((target("avx"))) inline __m256d mul_add_256(__m256d x, __m256d a, __m256d b) {
  return _mm256_add_pd(_mm256_mul_pd(x, a), b);
}
[[maybe_unused]] __attribute__((target("avx"))) double mul_add_peak_256(long rounds, double start, double factor) {
  RANKONE_FMA_CHAINS(__m256d, _mm256_set1_pd, mul_add_256)
}
#undef RANKONE_FMA_CHAINS

/// The instruction set built, as BM_PeakFma measures it.
struct PeakKernel {
  double (*run)(long, double, double);
  double lanes;
  const char* label;
};
#if defined(__AVX512F__)
constexpr PeakKernel kPeak{fma_peak_512, 8.0, "avx512f"};
#elif defined(__AVX__) && defined(__FMA__) && defined(__AVX2__)
constexpr PeakKernel kPeak{fma_peak_256, 4.0, "avx2+fma"};
#elif defined(__AVX__) && defined(__FMA__)
constexpr PeakKernel kPeak{fma_peak_256, 4.0, "avx+fma"};
#elif defined(__AVX__)
constexpr PeakKernel kPeak{mul_add_peak_256, 4.0, "avx, multiply and add"};
#else
constexpr PeakKernel kPeak{mul_add_peak_128, 2.0, "sse2, multiply and add"};
#endif

/// The core's double-precision peak (FLOP/s per core) for the instruction set built: the bound of the build's
/// kernels (BM_GfmProducts against it in docs/PERFORMANCE.md).
void BM_PeakFma(benchmark::State& state) {
  constexpr long kRounds = 1 << 20;
  // Opaque inputs, re-read every time: the compiler would fold constant chains away, or hoist a
  // call with the same arguments out of the loop.
  double start = 1.0, factor = 0.999999999;
  long rounds = kRounds;
  for (auto _ : state) {
    benchmark::DoNotOptimize(start);
    benchmark::DoNotOptimize(factor);
    benchmark::DoNotOptimize(rounds);
    benchmark::DoNotOptimize(kPeak.run(rounds, start, factor));
  }
  state.counters["flops"] = benchmark::Counter(static_cast<double>(state.iterations()) * kRounds * 12 * kPeak.lanes * 2,
                                               benchmark::Counter::kIsRate);
  state.SetLabel(kPeak.label);
}

/// Eigen's GEMM on n × n matrices: the machine's dense FLOP rate (2n³ per product).
void BM_Gemm(benchmark::State& state) {
  const Index n = state.range(0);
  Rng rng(1);
  Matrix A(n, n), B(n, n), C(n, n);
  rng.fill_normal(A.data(), A.size());
  rng.fill_normal(B.data(), B.size());
  for (auto _ : state) {
    C.noalias() = A * B;
    benchmark::DoNotOptimize(C.data());
  }
  state.counters["flops"] = benchmark::Counter(2.0 * n * n * n * static_cast<double>(state.iterations()),
                                               benchmark::Counter::kIsRate);
}

/// STREAM triad a = b + s·c on three arrays of 2²³ doubles (64 MiB each, far beyond the caches):
/// the memory bandwidth, counted as STREAM does (24 bytes per element).
void BM_StreamTriad(benchmark::State& state) {
  const Index n = Index{1} << 23;
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double s = 3.0;
  for (auto _ : state) {
    double* __restrict pa = a.data();
    const double* __restrict pb = b.data();
    const double* __restrict pc = c.data();
    for (Index i = 0; i < n; ++i) pa[i] = pb[i] + s * pc[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * n * 24);
}

constexpr Index kNormals = Index{1} << 21;  // 16 MiB of output: the generator, not the cache, is timed

/// The naive sampler: std::normal_distribution with std::mt19937_64.
void BM_NaiveNormal(benchmark::State& state) {
  std::mt19937_64 engine(7);
  std::normal_distribution<double> normal;
  std::vector<double> out(kNormals);
  for (auto _ : state) {
    for (double& v : out) v = normal(engine);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kNormals);
}

/// Rng::fill_normal: xoshiro256++ words and a vectorised Box–Muller transform.
void BM_FillNormal(benchmark::State& state) {
  Rng rng(7);
  std::vector<double> out(kNormals);
  for (auto _ : state) {
    rng.fill_normal(out.data(), kNormals);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kNormals);
}

#ifdef RANKONE_BASELINE_RNG  // x86-64 only (benchmarks/CMakeLists.txt)
extern "C" void rankone_baseline_fill_normal(rankone::Rng* state, double* out, std::int64_t n);

/// The same generator as the portable build compiles it (benchmarks/baseline_rng.cpp): the
/// reference of "the generator compiled for this machine", with a check that the stream is the same.
void BM_FillNormalPortable(benchmark::State& state) {
  Rng rng(7), check(7);
  std::vector<double> out(kNormals), expected(kNormals);
  rankone_baseline_fill_normal(&rng, out.data(), kNormals);
  check.fill_normal(expected.data(), kNormals);
  if (out != expected) state.SkipWithError("the portable build's fill_normal draws another stream");
  for (auto _ : state) {
    rankone_baseline_fill_normal(&rng, out.data(), kNormals);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(state.iterations() * kNormals);
}
#endif

/// One registered sampler drawing n = 2000 designs of dimension 1000 (items: coordinates, or
/// designs for index samplers, whose designs are one number each).
void sampler_rate(benchmark::State& state, const Json& ref) {
  const auto sampler = bench::make<Sampler>(ref, Kind::sampler);
  const Index dim = 1000, n = 2000;
  Rng rng(11);
  DesignSide side;
  for (auto _ : state) {
    sampler->sample(rng, dim, n, side);
    benchmark::DoNotOptimize(&side);
  }
  const bool dense = side.kind == DesignSide::Kind::dense;
  state.SetItemsProcessed(state.iterations() * n * (dense ? dim : 1));
}

/// Operator products on one in-memory batch of a synthetic source.
struct OperatorCase {
  Batch batch;
  std::unique_ptr<DataSource> source;
  LowRankModel model;
  Vector z;
  Matrix Z;
};

OperatorCase operator_case(const Json& source_ref, Index n, Index k) {
  OperatorCase c;
  c.source = bench::make<DataSource>(source_ref, Kind::data_source);
  c.source->open(3);
  c.batch = c.source->next(n);
  const ProblemShape shape = c.source->shape();
  Rng rng(5);
  c.model.left = Matrix(shape.d1, k);
  c.model.right = Matrix(shape.d2, k);
  rng.fill_normal(c.model.left.data(), c.model.left.size());
  rng.fill_normal(c.model.right.data(), c.model.right.size());
  c.model.symmetrize = c.source->sensing_operator().symmetric();
  c.z = Vector(c.batch.size());
  rng.fill_normal(c.z.data(), c.z.size());
  c.Z = c.model.right;
  return c;
}

Json dense_source() {
  return Json{{"name", "synthetic"}, {"d", 1000}, {"rank", 10}, {"operator", "symmetric_rank_one"}};
}

Json entry_source() {
  return Json{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 10000},
              {"rank", 10},          {"truth", "psd"}};
}

constexpr Index kDenseN = 20000;
constexpr Index kEntryN = 1000000;

void operator_forward(benchmark::State& state, const Json& ref, Index n) {
  const OperatorCase c = operator_case(ref, n, 10);
  const SensingOperator& op = c.source->sensing_operator();
  for (auto _ : state) {
    Vector y = op.forward(c.batch, c.model);
    benchmark::DoNotOptimize(y.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void operator_adjoint(benchmark::State& state, const Json& ref, Index n) {
  const OperatorCase c = operator_case(ref, n, 10);
  const SensingOperator& op = c.source->sensing_operator();
  for (auto _ : state) {
    Matrix G = op.adjoint_times(c.batch, c.z, c.Z);
    benchmark::DoNotOptimize(G.data());
  }
  state.SetItemsProcessed(state.iterations() * n);
}

void BM_OperatorForwardDense(benchmark::State& s) { operator_forward(s, dense_source(), kDenseN); }
void BM_OperatorAdjointDense(benchmark::State& s) { operator_adjoint(s, dense_source(), kDenseN); }
void BM_OperatorForwardOneHot(benchmark::State& s) { operator_forward(s, entry_source(), kEntryN); }
void BM_OperatorAdjointOneHot(benchmark::State& s) { operator_adjoint(s, entry_source(), kEntryN); }

}  // namespace

BENCHMARK(BM_PeakFma)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_Gemm)->Arg(2000)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_StreamTriad)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_NaiveNormal)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_FillNormal)->Unit(benchmark::kMillisecond)->MinTime(2.0);
#ifdef RANKONE_BASELINE_RNG
BENCHMARK(BM_FillNormalPortable)->Unit(benchmark::kMillisecond)->MinTime(2.0);
#endif
BENCHMARK_CAPTURE(sampler_rate, gaussian, Json{{"name", "gaussian"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sampler_rate, bernoulli, Json{{"name", "bernoulli"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sampler_rate, uniform, Json{{"name", "uniform"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sampler_rate, exponential, Json{{"name", "exponential"}})->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(sampler_rate, one_hot, Json{{"name", "one_hot"}})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OperatorForwardDense)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_OperatorAdjointDense)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_OperatorForwardOneHot)->Unit(benchmark::kMillisecond)->MinTime(1.0);
BENCHMARK(BM_OperatorAdjointOneHot)->Unit(benchmark::kMillisecond)->MinTime(1.0);

BENCHMARK_MAIN();
