// The fixed-sample sensing baselines' speed (plugins/factored_gd, svp, altmin_sensing, nuclear_norm):
// one iteration of the estimator on its training set beside the work that iteration cannot avoid,
// timed right after each step on the same data (docs/PERFORMANCE.md): for factored_gd the forward
// product and the two adjoint products of its gradient, for svp the forward product, the dense
// adjoint and the SVD of its projection, for altmin_sensing the forward and adjoint products of its
// conjugate-gradient steps (as many as its summary reports per solve) and the two right-hand sides,
// for nuclear_norm its dense adjoint and, per trial (backtracking adds some), an SVD and a forward product.
// Each on asymmetric rank-one sensing (d = 200) and, the *Ensemble* cases, on the Gaussian ensemble
// (d = 50: its products draw every A_i's d² entries from the batch's stream, n d² per product); the
// phase-retrieval flows (plugins/phase_retrieval) on phase retrieval, d = 200, m = 20 000, against their
// forward product u = A z and adjoint Σ h_i a_i.
//
//   cmake --build build --target bench_sensing_baselines && build/bin/bench_sensing_baselines
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>

#include "bench_support.hpp"

#include <Eigen/SVD>  // after RankOne's headers: Eigen first comes through rankone/core/types.hpp

using namespace rankone;

namespace {

/// A sensing problem with 10 measurements per degree of freedom, n = 10 · k · 2d, unless it gives its own count.
struct Problem {
  const char* op;
  Index d;
  Index rank;
  const char* truth = "general";
  Index measurements = 0;
  Index size() const { return measurements > 0 ? measurements : 10 * rank * 2 * d; }
};
constexpr Problem kRankOne{"asymmetric_rank_one", 200, 5};  // 20 000 measurements
constexpr Problem kEnsemble{"gaussian_ensemble", 50, 2};     // 2 000 measurements of 2 500 entries each
constexpr Problem kPhase{"symmetric_rank_one", 200, 1, "psd", 20000};  // phase retrieval, m/n = 100

Json source_ref(const Problem& p) {
  return Json{{"name", "synthetic"}, {"operator", p.op},       {"d", p.d},          {"rank", p.rank},
              {"truth", p.truth},    {"condition_number", 2.0}, {"size", p.size()}};
}

/// Steps `estimator_ref` on the training set, and after each step (untimed) runs `products` on the
/// same data and the stepped estimator (its estimate; its summary, for the work the step reports),
/// recording their mean CPU time in the counter products_cpu_seconds.
template <class Products>
void iterations(benchmark::State& state, const Problem& problem, const Json& estimator_ref, Products products) {
  auto data = bench::make<DataSource>(source_ref(problem), Kind::data_source);
  data->open(1);
  auto training = bench::make<DataSource>(source_ref(problem), Kind::data_source);
  training->open(1);
  const Batch batch = training->next(problem.size());  // the estimator's training set, bit for bit
  auto estimator = bench::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(2);
  estimator->start(*data, rng);
  if (estimator->summary().status != Status::running) state.SkipWithError(estimator->summary().message.c_str());
  bench::steps_beside(state, *estimator, *data, "products_cpu_seconds",
                      [&] { products(data->sensing_operator(), batch, *estimator); });
  state.SetItemsProcessed(state.iterations() * problem.size());
}

Json estimator(const char* name, Json extra) {
  extra["name"] = name;
  extra["max_iterations"] = 1000000;
  extra["tolerance"] = 0.0;
  extra["divergence_factor"] = 1e300;
  return extra;
}

/// factored_gd's products: r = 𝒜(L R') − y, and 𝒜'(r) R with 𝒜'(r)' L in the one call that may
/// share their work (SensingOperator::adjoint_pair: the Gaussian ensemble draws each A_i once).
void gradient_products(const SensingOperator& op, const Batch& b, const Estimate& m) {
  const Vector r = op.forward(b, m) - b.y;
  const auto [SR, SL] = op.adjoint_pair(b, r, m.right, m.left);
  benchmark::DoNotOptimize(SR.data());
  benchmark::DoNotOptimize(SL.data());
}

/// svp's products and projection: r, 𝒜'(r) formed densely, and the SVD of the d × d step.
void projection_products(const SensingOperator& op, const Batch& b, const Estimate& m) {
  const Vector r = op.forward(b, m) - b.y;
  const Matrix S = op.adjoint_dense(b, r);
  const Eigen::BDCSVD<Matrix> svd(m.left * m.right.transpose() - S, Eigen::ComputeThinU | Eigen::ComputeThinV);
  benchmark::DoNotOptimize(svd.singularValues().data());
}

/// altmin_sensing's products: per solve, one forward and one adjoint product per conjugate-gradient
/// step (the average its summary reports) and the right-hand side's adjoint; a U and a V solve.
void conjugate_gradient_products(const SensingOperator& op, const Batch& b, const Estimate& m, const Summary& summary) {
  double steps = 0.0;
  for (const std::string& note : summary.notes)
    if (std::sscanf(note.c_str(), "conjugate gradients: %lf steps", &steps) == 1) break;
  const int per_solve = static_cast<int>(std::lround(steps));
  Matrix sum = Matrix::Zero(m.left.rows(), m.left.cols());
  sum += op.adjoint_times(b, b.y, m.right);
  for (int t = 0; t < per_solve; ++t) sum += op.adjoint_times(b, op.forward(b, m), m.right);
  Matrix right = op.adjoint_transpose_times(b, b.y, m.left);
  for (int t = 0; t < per_solve; ++t) right += op.adjoint_transpose_times(b, op.forward(b, m), m.left);
  benchmark::DoNotOptimize(sum.data());
  benchmark::DoNotOptimize(right.data());
}

/// nuclear_norm's step: the dense gradient, and per trial (one, and one more per backtracking
/// step) the SVD of the d × d step and the residual from the trial's thin factors.
void proximal_products(const SensingOperator& op, const Batch& b, const Estimate& m, long trials) {
  // The gradient's residual comes combined from the trials' (the accelerated step forms no other).
  const Matrix G = op.adjoint_dense(b, b.y);
  for (long t = 0; t < trials; ++t) {
    const Eigen::BDCSVD<Matrix> svd(m.left * m.right.transpose() - G, Eigen::ComputeThinU | Eigen::ComputeThinV);
    const Vector r = op.forward(b, m) - b.y;
    benchmark::DoNotOptimize(svd.singularValues().data());
    benchmark::DoNotOptimize(r.data());
  }
}

/// The backtracking steps so far, from nuclear_norm's summary note ("…; N backtracking step(s), …").
long backtracks(const Summary& summary) {
  for (const std::string& note : summary.notes) {
    const auto at = note.find(" backtracking step");
    if (at == std::string::npos) continue;
    const auto start = note.rfind(' ', at - 1);
    return std::stol(note.substr(start + 1, at - start - 1));
  }
  return 0;
}

/// A phase-retrieval flow's products (plugins/phase_retrieval): the measurements u = A z and the adjoint
/// Σ h_i a_i of weights as long as them (their formula is the flow's own, O(m), and left out).
void phase_products(const SensingOperator&, const Batch& b, const Estimate& m) {
  const Matrix u = b.left.project(m.left);
  const Matrix g = b.left.accumulate(u);
  benchmark::DoNotOptimize(g.data());
}

/// The products of an estimator whose work does not vary from step to step.
template <void (*Products)(const SensingOperator&, const Batch&, const Estimate&)>
void of_estimate(const SensingOperator& op, const Batch& b, const Estimator& e) {
  Products(op, b, e.estimate());
}

void scaled_gd(benchmark::State& state, const Problem& p) {
  iterations(state, p, estimator("factored_gd", Json{{"rank", p.rank}}), of_estimate<gradient_products>);
}
void vanilla_gd(benchmark::State& state, const Problem& p) {
  iterations(state, p, estimator("factored_gd", Json{{"rank", p.rank}, {"preconditioner", "none"}}),
             of_estimate<gradient_products>);
}
void svp(benchmark::State& state, const Problem& p) {
  iterations(state, p, estimator("svp", Json{{"rank", p.rank}}), of_estimate<projection_products>);
}
void altmin(benchmark::State& state, const Problem& p) {
  // The CG steps per solve come from the summary, read after each step (a copy, counted in the
  // reference's time: it only lowers the ratio).
  iterations(state, p, estimator("altmin_sensing", Json{{"rank", p.rank}}),
             [](const SensingOperator& op, const Batch& b, const Estimator& e) {
               conjugate_gradient_products(op, b, e.estimate(), e.summary());
             });
}
void nuclear(benchmark::State& state, const Problem& p) {
  // One λ (no path), Ji & Ye's accelerated steps; the reference makes as many trials as the step
  // did (the summary's backtracking count, read after the step and counted in the reference).
  long seen = 0;
  iterations(state, p, estimator("nuclear_norm", Json{{"lambda", 0.05}, {"stage_iterations", 1000000}}),
             [&seen](const SensingOperator& op, const Batch& b, const Estimator& e) {
               const long now = backtracks(e.summary());
               proximal_products(op, b, e.estimate(), 1 + now - seen);
               seen = now;
             });
}

void phase_flow(benchmark::State& state, const char* name, Json extra) {
  iterations(state, kPhase, estimator(name, std::move(extra)), of_estimate<phase_products>);
}

void BM_ScaledGdIteration(benchmark::State& state) { scaled_gd(state, kRankOne); }
void BM_VanillaGdIteration(benchmark::State& state) { vanilla_gd(state, kRankOne); }
void BM_SvpIteration(benchmark::State& state) { svp(state, kRankOne); }
void BM_AltMinIteration(benchmark::State& state) { altmin(state, kRankOne); }
void BM_NuclearNormIteration(benchmark::State& state) { nuclear(state, kRankOne); }
void BM_ScaledGdEnsembleIteration(benchmark::State& state) { scaled_gd(state, kEnsemble); }
void BM_SvpEnsembleIteration(benchmark::State& state) { svp(state, kEnsemble); }
void BM_AltMinEnsembleIteration(benchmark::State& state) { altmin(state, kEnsemble); }
void BM_NuclearNormEnsembleIteration(benchmark::State& state) { nuclear(state, kEnsemble); }

}  // namespace

void BM_WirtingerFlowIteration(benchmark::State& state) { phase_flow(state, "wirtinger_flow", Json{{"variant", "wf"}}); }
void BM_TruncatedWirtingerFlowIteration(benchmark::State& state) {
  phase_flow(state, "wirtinger_flow", Json{{"variant", "twf"}});
}
void BM_TruncatedAmplitudeFlowIteration(benchmark::State& state) {
  phase_flow(state, "amplitude_flow", Json{{"variant", "taf"}});
}
void BM_ReweightedAmplitudeFlowIteration(benchmark::State& state) {
  phase_flow(state, "amplitude_flow", Json{{"variant", "raf"}});
}

BENCHMARK(BM_ScaledGdIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_VanillaGdIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SvpIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_AltMinIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_NuclearNormIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ScaledGdEnsembleIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SvpEnsembleIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_AltMinEnsembleIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_NuclearNormEnsembleIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_WirtingerFlowIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TruncatedWirtingerFlowIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_TruncatedAmplitudeFlowIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_ReweightedAmplitudeFlowIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
