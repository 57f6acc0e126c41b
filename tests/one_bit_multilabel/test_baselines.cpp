// The baselines of Qiu et al. 2017: LEML, one-vs-all SVM, the Newton–CG solver under them, and the
// trace-norm baselines (configurations of nuclear_norm: tests/sensing_baselines) learning beside them.
#include <catch2/catch.hpp>

#include <cmath>

#include "baselines.hpp"
#include "solvers.hpp"
#include "test_support_one_bit.hpp"

using namespace rankone;
using namespace rankone::one_bit;
using test::one_bit::Run;

TEST_CASE("Newton–CG solves a ridge regression exactly (squared loss, one Newton step)", "[solvers]") {
  Rng rng(8);
  Matrix X(5, 400);  // θ is 5 × 1, scores X'θ
  rng.fill_normal(X.data(), X.size());
  Vector y(400);
  rng.fill_normal(y.data(), y.size());
  LinearScores map;
  map.scores = [&](const Matrix& t) { return Vector(X.transpose() * t); };
  map.adjoint = [&](const Vector& g) { return Matrix(X * g); };
  const double penalty = 0.3;
  NewtonOptions o;
  o.cg_tolerance = 1e-12;
  const Matrix theta = newton_cg(map, Loss{LossKind::squared}, y, penalty, Matrix::Zero(5, 1), o);
  // (2/n) X(X'θ − y) + 2λθ = 0  ⇔  (XX'/n + λI) θ = X y / n.
  const double n = 400.0;
  const Vector exact = (X * X.transpose() / n + penalty * Matrix::Identity(5, 5)).ldlt().solve(X * y / n);
  CHECK((theta - exact).norm() < 1e-9 * exact.norm());
}

TEST_CASE("leml reaches AUC ≥ 0.95 on the one_bit_mll test problem (squared loss, single labels)", "[leml]") {
  // The same data as one_bit_mll's test (d1 = 200, d2 = 50, k = 2), 50 000 single labels (one of
  // one_bit_mll's batches) for 500 unknowns in U and V.
  const Json leml{{"name", "leml"},          {"rank", 2},          {"training_size", 50000}, {"max_iterations", 6},
                  {"newton_steps", 1},       {"cg_iterations", 30}, {"cg_tolerance", 1e-4}};
  Run run(test::one_bit::single_label_source(200, 50, 2, 2000), leml, 20171);
  REQUIRE(run.estimator->summary().status == Status::running);
  while (run.estimator->step(*run.source)) {
  }
  const double auc = run.metric("auc");
  INFO("auc " << auc << ", " << run.estimator->summary().message);
  CHECK(auc >= 0.95);
  WARN("leml test AUC " << auc);
}

TEST_CASE("leml, ova_svm, trace_* learn from full observation (Table 2 setting, small)", "[leml][svm][trace]") {
  const Json source = test::one_bit::full_label_source(60, 20, 2, 1000, 500);
  for (Json est : {Json{{"name", "leml"}, {"rank", 2}, {"loss", "logistic"}, {"max_iterations", 10}},
                   Json{{"name", "leml"}, {"rank", 2}, {"max_iterations", 10}},
                   Json{{"name", "ova_svm"}},
                   Json{{"name", "trace_logistic"}, {"penalty", 0.005}},
                   Json{{"name", "trace_squared"}, {"penalty", 0.005}},
                   Json{{"name", "one_bit_mll"}, {"rank", 2}, {"batch_size", 250}, {"max_iterations", 12}, {"passes", 4}}}) {
    INFO(est.dump());
    Run run(source, est, 9);
    while (run.estimator->step(*run.source)) {
    }
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK((s.status == Status::converged || s.status == Status::max_iterations));
    CHECK(run.metric("auc") >= 0.9);
  }
}

TEST_CASE("batch baselines need a finite source or a training_size", "[leml]") {
  Run run(test::one_bit::single_label_source(20, 5, 1, 0), Json{{"name", "leml"}, {"rank", 1}}, 1);
  CHECK(run.estimator->summary().status == Status::failed);
  CHECK_THAT(run.estimator->summary().message, Catch::Contains("training_size"));
}

TEST_CASE("leml: the same seed gives identical scores", "[leml]") {
  const Json source = test::one_bit::single_label_source(40, 10, 2, 100);
  const Json leml{{"name", "leml"}, {"rank", 2}, {"training_size", 5000}, {"max_iterations", 3}};
  auto scores = [&](std::uint64_t seed) {
    Run run(source, leml, seed);
    while (run.estimator->step(*run.source)) {
    }
    return Vector(run.source->sensing_operator().forward(*run.source->test_set(), run.estimator->estimate()));
  };
  CHECK(scores(5) == scores(5));
}
