// The `spectral` estimator on synthetic Gaussian data, through the real registry (synthetic source,
// rank-one operators, gaussian sampler).
//
// Statistics (symmetric case, d = 50, M* = U diag(1, −0.5) U', ‖w*‖ = 1): the moment matrix
// M̂ = ½(Σ y x x'/n − mean(y) I) has nearly independent entry errors of std ≈ ½·√(Var y)/√n with
// Var y = 2‖M*‖_F² + ‖w*‖² = 3.5, so ‖M̂ − M*‖₂ ≈ ½·2√d·√3.5/√n ≈ 13.2/√n, and the rank-2
// truncation at most doubles it: 0.30–0.6 at n = 2 000 and 0.06–0.12 at n = 50 000 (measured
// means: 0.36 and 0.066). ŵ = Σ y x/n has error ≈ √(d·E[y²]/n)/‖w*‖, the same order. The bounds
// below are the worst single run over 100 seeds measured by the hidden "[.calibration]" test plus
// about 40 %; the checks use the mean of 3 seeds (see docs/plugins/spectral.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

Json symmetric_source(Index d) {
  return Json{{"name", "synthetic"},
              {"d", d},
              {"rank", 2},
              {"eigenvalues", {1.0, -0.5}},  // mixed signs and tr M* ≠ 0, so the trace shift matters
              {"w_norm", 1.0},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

Json asymmetric_source(Index d1 = 40, Index d2 = 30) {
  return Json{{"name", "synthetic"},
              {"d", d1},
              {"d2", d2},
              {"rank", 2},
              {"truth", "general"},
              {"w_norm", 1.0},
              {"operator", {{"name", "asymmetric_rank_one"}, {"first_order", true}}}};
}

Json spectral(Index batch_size, bool first_order = true) {
  return Json{{"name", "spectral"}, {"rank", 2}, {"batch_size", batch_size}, {"first_order", first_order}};
}

struct Errors {
  double m = 0.0;  ///< ‖M − M*‖₂ / ‖M*‖₂
  double w = 0.0;  ///< ‖w − w*‖ / ‖w*‖
};

/// Runs the estimator once on a freshly opened source and returns its relative errors.
Errors run_once(const Json& source_ref, Index batch_size, std::uint64_t seed) {
  auto source = test::make<DataSource>(source_ref, Kind::data_source);
  source->open(seed);
  auto estimator = test::make<Estimator>(spectral(batch_size), Kind::estimator);
  Rng rng(derive_seed(seed, "estimator"));
  estimator->start(*source, rng);
  const Summary summary = estimator->summary();
  REQUIRE(summary.status == Status::converged);
  CHECK(summary.message == "one-shot spectral estimate from " + std::to_string(batch_size) + " samples");
  CHECK_FALSE(estimator->step(*source));

  const GroundTruth& truth = *source->truth();
  const Estimate estimate = estimator->estimate();
  REQUIRE(estimate.rank() == 2);
  REQUIRE(estimate.has_first_order());
  Errors e;
  e.m = difference_norms(estimate, &truth).spectral / difference_norms(truth, nullptr).spectral;
  e.w = (estimate.w - truth.w).norm() / truth.w.norm();
  return e;
}

/// Mean relative errors over seeds 1..repetitions.
Errors mean_errors(const Json& source_ref, Index batch_size, int repetitions) {
  Errors sum;
  for (int s = 1; s <= repetitions; ++s) {
    const Errors e = run_once(source_ref, batch_size, static_cast<std::uint64_t>(s));
    sum.m += e.m / repetitions;
    sum.w += e.w / repetitions;
  }
  return sum;
}

/// The dense moment matrix M̂ of a batch, formed with the operator's dense adjoint.
Matrix dense_moment_matrix(const Batch& batch, const SensingOperator& op, const ProblemShape& shape) {
  const MomentInverse inverse = op.isotropic_inverse(shape);
  Matrix m = op.adjoint_dense(batch, batch.y) / static_cast<double>(batch.size());
  if (inverse.trace_shift != 0.0) m.diagonal().array() -= inverse.trace_shift * batch.y.mean();
  return inverse.scale * m;
}

}  // namespace

TEST_CASE("spectral: symmetric Gaussian sensing — error falls like 1/sqrt(n)", "[spectral]") {
  const Json source = symmetric_source(50);
  const Errors small = mean_errors(source, 2000, 3);
  const Errors large = mean_errors(source, 50000, 3);
  CAPTURE(small.m, large.m, small.w, large.w);
  // Worst single runs over 100 other seeds (the calibration test): M 0.536 / 0.099, w 0.395 / 0.084
  // at n = 2 000 / 50 000; the bounds add about 40 %.
  CHECK(small.m < 0.75);
  CHECK(large.m < 0.14);
  CHECK(small.w < 0.55);
  CHECK(large.w < 0.12);
  // 25 times the samples: the error should shrink by about √25 = 5.
  CHECK(small.m / large.m > 3.0);
  CHECK(small.m / large.m < 8.0);
  CHECK(small.w / large.w > 3.0);
  CHECK(small.w / large.w < 8.0);
}

TEST_CASE("spectral: asymmetric Gaussian sensing", "[spectral]") {
  const Json source = asymmetric_source();
  const Errors small = mean_errors(source, 2000, 3);
  const Errors large = mean_errors(source, 50000, 3);
  CAPTURE(small.m, large.m, small.w, large.w);
  // Worst single runs over 100 other seeds: M 0.555 / 0.093, w 0.321 / 0.064; bounds add about 40 %.
  CHECK(small.m < 0.8);
  CHECK(large.m < 0.135);
  CHECK(small.w < 0.45);
  CHECK(large.w < 0.09);
  CHECK(small.m / large.m > 3.0);
  CHECK(small.m / large.m < 8.0);
  CHECK(small.w / large.w > 3.0);
  CHECK(small.w / large.w < 8.0);
}

TEST_CASE("spectral: the model is the exact rank-k truncation of the moment matrix", "[spectral]") {
  // Independent of statistics: compare with a dense eigen/singular decomposition of M̂ formed
  // through the operator's dense adjoint. Dimensions above dense_below (200) run the matrix-free
  // Krylov path.
  const bool symmetric = GENERATE(true, false);
  CAPTURE(symmetric);
  const Json source_ref = symmetric ? symmetric_source(240) : asymmetric_source(260, 230);
  const Index n = 4000;

  // The same stream twice: one copy feeds the estimator, the other gives the batch it saw.
  auto source = test::make<DataSource>(source_ref, Kind::data_source);
  auto replay = test::make<DataSource>(source_ref, Kind::data_source);
  source->open(11);
  replay->open(11);
  auto estimator = test::make<Estimator>(spectral(n), Kind::estimator);
  Rng rng(12);
  estimator->start(*source, rng);
  REQUIRE(estimator->summary().status == Status::converged);
  const Estimate estimate = estimator->estimate();

  const Batch batch = replay->next(n);
  const Matrix mhat = dense_moment_matrix(batch, replay->sensing_operator(), replay->shape());
  Matrix best;  // best rank-2 approximation of M̂
  if (symmetric) {
    const Eigen::SelfAdjointEigenSolver<Matrix> es(mhat);
    // Eigenvalues ascending: the two of largest magnitude are among the two ends.
    const Vector& l = es.eigenvalues();
    const Index d = l.size();
    Index ends[4] = {0, 1, d - 2, d - 1};
    std::sort(ends, ends + 4, [&](Index a, Index b) { return std::abs(l(a)) > std::abs(l(b)); });
    best = Matrix::Zero(d, d);
    for (Index i = 0; i < 2; ++i) best += l(ends[i]) * es.eigenvectors().col(ends[i]) * es.eigenvectors().col(ends[i]).transpose();
    CHECK(estimate.symmetrize);
  } else {
    const Eigen::BDCSVD<Matrix> svd(mhat, Eigen::ComputeThinU | Eigen::ComputeThinV);
    best = svd.matrixU().leftCols(2) * svd.singularValues().head(2).asDiagonal() * svd.matrixV().leftCols(2).transpose();
  }
  CHECK((estimate.dense() - best).cwiseAbs().maxCoeff() < 1e-8 * best.cwiseAbs().maxCoeff());
  // w = Σ y x / n exactly.
  const Vector w = replay->sensing_operator().first_order_adjoint(batch, batch.y) / static_cast<double>(n);
  CHECK((estimate.w - w).cwiseAbs().maxCoeff() < 1e-12 * w.cwiseAbs().maxCoeff());
}

TEST_CASE("spectral: intercept leaves M and w unchanged and fits b as the batch's mean residual", "[spectral]") {
  // y = 1.5 + x'w* + x'M*x: the trace shift cancels b in M̂, so M and w are those of the same batch
  // without the intercept option, and b is mean(y − x'Mx − x'w) of that batch.
  Json source_ref = symmetric_source(30);
  source_ref["bias"] = 1.5;
  const Index n = 20000;
  auto estimate_of = [&](bool intercept) {
    auto source = test::make<DataSource>(source_ref, Kind::data_source);
    source->open(21);
    Json ref = spectral(n);
    ref["intercept"] = intercept;
    auto estimator = test::make<Estimator>(ref, Kind::estimator);
    Rng rng(22);
    estimator->start(*source, rng);
    REQUIRE(estimator->summary().status == Status::converged);
    return estimator->estimate();
  };
  const Estimate plain = estimate_of(false);
  const Estimate with_b = estimate_of(true);
  CHECK(plain.bias == 0.0);
  CHECK(with_b.dense() == plain.dense());
  CHECK(with_b.w == plain.w);
  auto replay = test::make<DataSource>(source_ref, Kind::data_source);
  replay->open(21);
  const Batch batch = replay->next(n);
  const double mean_residual = (batch.y - replay->sensing_operator().forward(batch, plain)).mean();
  CHECK(with_b.bias == Approx(mean_residual).epsilon(1e-12));
  // Its error is the batch mean of x'(M* − M)x + x'(w* − w), about tr(M* − M) (M's rank-2
  // truncation error): measured −0.054 (seed 21); 0.2 leaves almost 4×.
  CHECK(std::abs(with_b.bias - 1.5) < 0.2);
}

TEST_CASE("spectral: first_order = false leaves w empty", "[spectral]") {
  auto source = test::make<DataSource>(symmetric_source(20), Kind::data_source);
  source->open(3);
  auto estimator = test::make<Estimator>(spectral(500, false), Kind::estimator);
  Rng rng(4);
  estimator->start(*source, rng);
  CHECK(estimator->summary().status == Status::converged);
  CHECK_FALSE(estimator->estimate().has_first_order());
}

TEST_CASE("spectral: unusable inputs end the run as failed with a reason", "[spectral]") {
  Rng rng(5);
  SECTION("an exhausted finite source gives an empty batch") {
    Json ref = symmetric_source(20);
    ref["size"] = 100;
    auto source = test::make<DataSource>(ref, Kind::data_source);
    source->open(6);
    source->next(100);  // use up the pass
    auto estimator = test::make<Estimator>(spectral(500), Kind::estimator);
    estimator->start(*source, rng);
    CHECK(estimator->summary().status == Status::failed);
    CHECK(estimator->summary().message == "spectral estimate failed: the data source returned an empty batch");
    CHECK(estimator->estimate().rank() == 2);  // a zero model of the right shape
    CHECK(estimator->estimate().left.isZero());
  }
  SECTION("a rank above the dimension") {
    auto source = test::make<DataSource>(symmetric_source(3), Kind::data_source);
    source->open(7);
    auto estimator = test::make<Estimator>(Json{{"name", "spectral"}, {"rank", 4}, {"batch_size", 100}}, Kind::estimator);
    estimator->start(*source, rng);
    CHECK(estimator->summary().status == Status::failed);
    CHECK_THAT(estimator->summary().message, Catch::Contains("rank 4 exceeds"));
  }
}

TEST_CASE("spectral: the schema rejects bad parameters", "[spectral]") {
  CHECK_THROWS_AS(test::make<Estimator>(Json{{"name", "spectral"}, {"rank", 0}}, Kind::estimator), ConfigError);
  CHECK_THROWS_AS(test::make<Estimator>(Json{{"name", "spectral"}, {"batch_size", 0}}, Kind::estimator), ConfigError);
  CHECK_THROWS_AS(test::make<Estimator>(Json{{"name", "spectral"}, {"iterations", 3}}, Kind::estimator), ConfigError);
}

// Measures the error distribution over 100 seeds (the numbers quoted above and in the docs):
//   /work/build-spectral/bin/test_spectral "[.calibration]" -s
TEST_CASE("spectral: error distribution over 100 seeds", "[.calibration]") {
  for (const bool symmetric : {true, false}) {
    const Json source = symmetric ? symmetric_source(50) : asymmetric_source();
    for (const Index n : {Index{2000}, Index{50000}}) {
      double mean_m = 0, max_m = 0, mean_w = 0, max_w = 0;
      const int seeds = 100;
      for (int s = 1; s <= seeds; ++s) {
        const Errors e = run_once(source, n, static_cast<std::uint64_t>(1000 + s));
        mean_m += e.m / seeds;
        mean_w += e.w / seeds;
        max_m = std::max(max_m, e.m);
        max_w = std::max(max_w, e.w);
      }
      WARN((symmetric ? "symmetric d=50" : "asymmetric 40x30") << " n=" << n << ": M rel. error mean " << mean_m
                                                               << " max " << max_m << "; w rel. error mean " << mean_w
                                                               << " max " << max_w);
    }
  }
}

TEST_CASE("spectral: a noise-dominated batch (n < d) still gives a converged estimate", "[spectral]") {
  // Phase-transition studies run the estimator far below the sample size it needs; the eigensolver
  // must still converge there (the moment matrix then has a gapless, GOE-like spectrum).
  auto source = test::make<DataSource>(symmetric_source(400), Kind::data_source);
  source->open(21);
  auto estimator = test::make<Estimator>(spectral(300), Kind::estimator);
  Rng rng(22);
  estimator->start(*source, rng);
  CHECK(estimator->summary().status == Status::converged);
  CHECK(estimator->estimate().all_finite());
}
