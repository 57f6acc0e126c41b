// The fixed-sample sensing baselines' speed (plugins/factored_gd, svp, altmin_sensing, nuclear_norm):
// one iteration of the estimator on its training set beside the work that iteration cannot avoid,
// timed right after each step on the same data (docs/PERFORMANCE.md): for factored_gd the forward
// product and the two adjoint products of its gradient, for svp the forward product, the dense
// adjoint and the SVD of its projection, for altmin_sensing the forward and adjoint products of its
// conjugate-gradient steps (as many as its summary reports per solve) and the two right-hand sides,
// for nuclear_norm one trial step's dense adjoint, SVD and forward product.
//
//   cmake --build build --target bench_sensing_baselines && build/bin/bench_sensing_baselines
#include <benchmark/benchmark.h>

#include <Eigen/SVD>
#include <cmath>
#include <cstdio>

#include "bench_support.hpp"

using namespace rankone;

namespace {

constexpr Index kD = 200;
constexpr Index kRank = 5;
constexpr Index kSize = 10 * kRank * 2 * kD;  // 20 000 measurements: 10 per degree of freedom

Json source_ref() {
  return Json{{"name", "synthetic"}, {"operator", "asymmetric_rank_one"}, {"d", kD}, {"rank", kRank},
              {"truth", "general"},  {"condition_number", 2.0},           {"size", kSize}};
}

/// Steps `estimator_ref` on the training set, and after each step (untimed) runs `products` on the
/// same data and model, recording their mean CPU time in the counter products_cpu_seconds.
template <class Products>
void iterations(benchmark::State& state, const Json& estimator_ref, Products products) {
  auto data = bench::make<DataSource>(source_ref(), Kind::data_source);
  data->open(1);
  auto training = bench::make<DataSource>(source_ref(), Kind::data_source);
  training->open(1);
  const Batch batch = training->next(kSize);  // the estimator's training set, bit for bit
  auto estimator = bench::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(2);
  estimator->start(*data, rng);
  if (estimator->summary().status != Status::running) state.SkipWithError(estimator->summary().message.c_str());
  bench::steps_beside(state, *estimator, *data, "products_cpu_seconds",
                      [&] { products(data->sensing_operator(), batch, estimator->estimate()); });
  state.SetItemsProcessed(state.iterations() * kSize);
}

Json estimator(const char* name, Json extra) {
  extra["name"] = name;
  extra["max_iterations"] = 1000000;
  extra["tolerance"] = 0.0;
  extra["divergence_factor"] = 1e300;
  return extra;
}

/// factored_gd's products: r = 𝒜(L R') − y, 𝒜'(r) R and 𝒜'(r)' L.
void gradient_products(const SensingOperator& op, const Batch& b, const Estimate& m) {
  const Vector r = op.forward(b, m) - b.y;
  const Matrix SR = op.adjoint_times(b, r, m.right), SL = op.adjoint_transpose_times(b, r, m.left);
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

/// nuclear_norm's trial step: the residual from the iterate's thin factors, the dense gradient and
/// the SVD of the d × d step.
void proximal_products(const SensingOperator& op, const Batch& b, const Estimate& m) {
  const Vector r = op.forward(b, m) - b.y;
  const Matrix G = op.adjoint_dense(b, r);
  const Eigen::BDCSVD<Matrix> svd(m.left * m.right.transpose() - G, Eigen::ComputeThinU | Eigen::ComputeThinV);
  benchmark::DoNotOptimize(svd.singularValues().data());
}

void BM_ScaledGdIteration(benchmark::State& state) {
  iterations(state, estimator("factored_gd", Json{{"rank", kRank}}), gradient_products);
}
void BM_VanillaGdIteration(benchmark::State& state) {
  iterations(state, estimator("factored_gd", Json{{"rank", kRank}, {"preconditioner", "none"}}), gradient_products);
}
void BM_SvpIteration(benchmark::State& state) {
  iterations(state, estimator("svp", Json{{"rank", kRank}}), projection_products);
}

void BM_AltMinIteration(benchmark::State& state) {
  // The estimator's summary is read after each step for the number of CG steps (a copy, counted
  // in the reference's time: it only lowers the ratio).
  auto data = bench::make<DataSource>(source_ref(), Kind::data_source);
  data->open(1);
  auto training = bench::make<DataSource>(source_ref(), Kind::data_source);
  training->open(1);
  const Batch batch = training->next(kSize);
  auto e = bench::make<Estimator>(estimator("altmin_sensing", Json{{"rank", kRank}}), Kind::estimator);
  Rng rng(2);
  e->start(*data, rng);
  if (e->summary().status != Status::running) state.SkipWithError(e->summary().message.c_str());
  bench::steps_beside(state, *e, *data, "products_cpu_seconds", [&] {
    conjugate_gradient_products(data->sensing_operator(), batch, e->estimate(), e->summary());
  });
  state.SetItemsProcessed(state.iterations() * kSize);
}
void BM_NuclearNormIteration(benchmark::State& state) {
  // One λ (no path), Ji & Ye's accelerated steps: past the first steps one trial per step.
  iterations(state, estimator("nuclear_norm", Json{{"lambda", 0.05}, {"stage_iterations", 1000000}}), proximal_products);
}

}  // namespace

BENCHMARK(BM_ScaledGdIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_VanillaGdIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_SvpIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_AltMinIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);
BENCHMARK(BM_NuclearNormIteration)->Unit(benchmark::kMillisecond)->MinTime(2.0);

BENCHMARK_MAIN();
