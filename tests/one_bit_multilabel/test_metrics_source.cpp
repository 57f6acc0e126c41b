// The plugin's metrics (recovery_error, precision_at_k) and the synthetic source's `full_labels`
// option that the full-observation experiments (Table 2) rely on.
#include <catch2/catch.hpp>

#include "label_metrics.hpp"
#include "test_support_one_bit.hpp"

using namespace rankone;

namespace {

MetricValues evaluate(const Json& metric, const Estimate& e, const GroundTruth* truth, const Batch* test,
                      const SensingOperator& op) {
  auto m = test::make<Metric>(metric, Kind::metric);
  const MetricContext ctx{e, truth, test, op, Link::sign, 0, 0.0, 0};
  return m->evaluate(ctx);
}

}  // namespace

TEST_CASE("recovery_error is ‖W − W*‖₂, with optional column normalisation", "[metrics]") {
  auto op = test::make<SensingOperator>(Json("single_label"), Kind::sensing_operator);
  Rng rng(2);
  LowRankModel truth, estimate;
  truth.left = Matrix(8, 2);
  truth.right = Matrix(5, 2);
  rng.fill_normal(truth.left.data(), truth.left.size());
  rng.fill_normal(truth.right.data(), truth.right.size());
  estimate.left = truth.left;
  estimate.right = 3.0 * truth.right;  // the same directions, every column 3 times too long
  const Matrix diff = estimate.dense() - truth.dense();
  const double spectral = Eigen::JacobiSVD<Matrix>(diff).singularValues()(0);
  CHECK(evaluate(Json("recovery_error"), estimate, &truth, nullptr, *op).front().second ==
        Approx(spectral).epsilon(1e-10));

  const LowRankModel unit_truth = one_bit::with_unit_columns(truth);
  const Matrix W = unit_truth.dense();
  for (Index j = 0; j < 5; ++j) CHECK(W.col(j).norm() == Approx(1.0).epsilon(1e-12));
  CHECK(evaluate(Json{{"name", "recovery_error"}, {"normalize_columns", true}}, estimate, &unit_truth, nullptr, *op)
            .front()
            .second == Approx(0.0).margin(1e-10));
}

TEST_CASE("precision_at_k counts positive labels among each instance's k best scores", "[metrics]") {
  auto op = test::make<SensingOperator>(Json("single_label"), Kind::sensing_operator);
  // 2 instances (x = e_1, e_2), 3 labels; W rows give the scores directly (times √3).
  Batch test;
  test.left = DesignSide::make_dense(Matrix::Identity(2, 2));
  test.right = DesignSide::make_all(3);
  Matrix Y(2, 3);
  Y << 1, -1, 1,   // instance 0: labels 0 and 2 positive
      1, -1, 1;    // instance 1: labels 0 and 2 positive
  test.y = Eigen::Map<const Vector>(Y.data(), 6);
  LowRankModel e;
  e.left = Matrix(2, 3);
  e.left << 0.9, 0.5, 0.1,  // instance 0 ranks labels 0, 1, 2
      0.2, 0.8, 0.7;        // instance 1 ranks labels 1, 2, 0
  e.right = Matrix::Identity(3, 3);
  // k = 1: instance 0 hits (label 0), instance 1 misses (label 1) → 1/2.
  CHECK(evaluate(Json{{"name", "precision_at_k"}, {"k", 1}}, e, nullptr, &test, *op).front().second == Approx(0.5));
  // k = 2: instance 0 {0, 1} → 1 hit, instance 1 {1, 2} → 1 hit → 2/4.
  CHECK(evaluate(Json{{"name", "precision_at_k"}, {"k", 2}}, e, nullptr, &test, *op).front().second == Approx(0.5));
  // k = 3: every positive label counted: (2 + 2)/6.
  CHECK(evaluate(Json{{"name", "precision_at_k"}, {"k", 3}}, e, nullptr, &test, *op).front().second ==
        Approx(2.0 / 3.0));
  // A single-label test set is refused with a message.
  Batch single = test;
  single.right = DesignSide::make_index(3, IndexVector::Zero(2));
  single.y = Vector::Ones(2);
  CHECK_THROWS_WITH(evaluate(Json("precision_at_k"), e, nullptr, &single, *op), Catch::Contains("test_full_labels"));
}

TEST_CASE("synthetic full_labels: every label of the same instances, label-major, across chunks", "[source]") {
  Json single = test::one_bit::single_label_source(12, 5, 2, 0);
  Json full = single;
  full["full_labels"] = true;
  auto a = test::make<DataSource>(single, Kind::data_source);
  auto b = test::make<DataSource>(full, Kind::data_source);
  a->open(77);
  b->open(77);
  // 300 + 400 instances cross the source's 256-instance chunks.
  for (Index n : {300, 400}) {
    const Batch s = a->next(n);
    const Batch f = b->next(n);
    REQUIRE(f.right->kind == DesignSide::Kind::all);
    REQUIRE(f.size() == n * 5);
    CHECK(f.left.dense == s.left.dense);  // the same instances as without the option
    // Labels are sign(x_i' W* ē_j) for every j, at y(i + n·j).
    const Matrix scores = s.left.dense.transpose() * b->truth()->dense() * std::sqrt(5.0);
    const Matrix Y = Eigen::Map<const Matrix>(f.y.data(), n, 5);
    CHECK(Y == scores.unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; }));
    // The single-label stream's label is one of them.
    for (Index i = 0; i < n; ++i) CHECK(s.y(i) == Y(i, s.right->index(i)));
  }
  CHECK(b->samples_drawn() == 700 * 5);

  SECTION("a finite source ends after `size` instances") {
    full["size"] = 260;
    auto c = test::make<DataSource>(full, Kind::data_source);
    c->open(1);
    CHECK(c->next(1000).size() == 260 * 5);
    CHECK(c->next(10).empty());
  }
  SECTION("an operator without an `all` right side is refused") {
    Json bad{{"name", "synthetic"}, {"d", 6}, {"full_labels", true}};
    CHECK_THROWS_WITH(test::make<DataSource>(bad, Kind::data_source), Catch::Contains("full_labels"));
  }
}
