// Every metric of plugins/metrics against values computed by hand on tiny cases.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>

#include "test_support.hpp"

using namespace rankone;

namespace {

/// A test double: its forward map returns preset scores, so prediction metrics can be checked
/// against hand-computed values without depending on any real operator's arithmetic.
class ScoresOperator final : public SensingOperator {
 public:
  explicit ScoresOperator(Vector scores, bool symmetric = false) : scores_(std::move(scores)), symmetric_(symmetric) {}
  bool symmetric() const override { return symmetric_; }
  bool has_first_order() const override { return false; }
  std::vector<DesignSide::Kind> accepted_left() const override { return {DesignSide::Kind::dense}; }
  std::vector<DesignSide::Kind> accepted_right() const override { return {DesignSide::Kind::index}; }
  MomentInverse isotropic_inverse(const ProblemShape&) const override { return {}; }
  Vector forward(const Batch& batch, const LowRankModel&) const override {
    REQUIRE(batch.size() == scores_.size());
    return scores_;
  }
  Matrix adjoint_times(const Batch&, const Vector&, const Matrix&) const override { throw unused(); }
  Matrix adjoint_transpose_times(const Batch&, const Vector&, const Matrix&) const override { throw unused(); }
  Matrix adjoint_dense(const Batch&, const Vector&) const override { throw unused(); }
  Vector first_order_adjoint(const Batch&, const Vector&) const override { throw unused(); }

 private:
  static std::logic_error unused() { return std::logic_error("ScoresOperator: only forward() is available"); }
  Vector scores_;
  bool symmetric_;
};

Vector vec(std::initializer_list<double> values) {
  Vector v(static_cast<Index>(values.size()));
  Index i = 0;
  for (double x : values) v(i++) = x;
  return v;
}

std::unique_ptr<Metric> metric(const Json& ref) { return test::make<Metric>(ref, Kind::metric); }

double value_of(const MetricValues& values, const std::string& name) {
  for (const auto& [n, v] : values)
    if (n == name) return v;
  FAIL("metric value '" << name << "' missing");
  return 0.0;
}

/// A batch of `n` dense 1-d left designs (unused by ScoresOperator) with index labels on the right.
Batch labelled_batch(const Vector& y, const IndexVector& labels, Index label_count) {
  Batch b;
  b.left = DesignSide::make_dense(Matrix::Zero(1, y.size()));
  b.right = DesignSide::make_index(label_count, labels);
  b.y = y;
  return b;
}

MetricValues evaluate(const Metric& m, const Estimate& estimate, const GroundTruth* truth, const Batch* test,
                      const SensingOperator& op) {
  const MetricContext ctx{estimate, truth, test, op, Link::sign, 1234, 5.5, 3};
  return m.evaluate(ctx);
}

/// diag(values) as a symmetric model on R^3.
LowRankModel diagonal(std::initializer_list<double> values) {
  const Vector v = vec(values);
  return LowRankModel::symmetric_from_eigen(Matrix::Identity(3, v.size()), v);
}

}  // namespace

TEST_CASE("auc: 6-point example with a tie, and skipped one-class labels", "[metrics][auc]") {
  // Label 0: positives score 0.4, 0.35, 0.8; negatives 0.1, 0.4, 0.2. Pairs won: 0.4 → 2.5 (tie
  // counts ½), 0.35 → 2, 0.8 → 3; AUC = 7.5 / 9. Label 1 has positives only and label 2 no
  // measurements: both skipped.
  const Vector scores = vec({0.1, 0.4, 0.4, 0.35, 0.8, 0.2, 0.9, -0.3});
  const Vector y = vec({-1, 1, -1, 1, 1, -1, 1, 1});
  IndexVector labels(8);
  labels << 0, 0, 0, 0, 0, 0, 1, 1;
  const Batch test = labelled_batch(y, labels, 3);
  const ScoresOperator op(scores);
  const auto m = metric("auc");
  CHECK(m->needs_test_set());
  CHECK_FALSE(m->needs_truth());
  const MetricValues v = evaluate(*m, Estimate{}, nullptr, &test, op);
  CHECK(value_of(v, "auc") == Approx(7.5 / 9.0).epsilon(1e-14));
  CHECK(value_of(v, "auc_skipped_labels") == 2.0);
}

TEST_CASE("auc: averages over labels of an 'all' right side", "[metrics][auc]") {
  // 3 instances × 2 labels, label-major: measurement i + 3j belongs to label j.
  // Label 0: scores (0.2, 0.5, 0.9), y (−, +, +) → AUC 1. Label 1: scores (0.7, 0.1, 0.3),
  // y (−, +, −) → the positive beats no negative → AUC 0. Average ½.
  const Vector scores = vec({0.2, 0.5, 0.9, 0.7, 0.1, 0.3});
  Batch test;
  test.left = DesignSide::make_dense(Matrix::Zero(1, 3));
  test.right = DesignSide::make_all(2);
  test.y = vec({-1, 1, 1, -1, 1, -1});
  const ScoresOperator op(scores);
  const MetricValues v = evaluate(*metric("auc"), Estimate{}, nullptr, &test, op);
  CHECK(value_of(v, "auc") == Approx(0.5).epsilon(1e-14));
  CHECK(value_of(v, "auc_skipped_labels") == 0.0);
}

TEST_CASE("auc: one AUC over all measurements without label indices", "[metrics][auc]") {
  const Vector scores = vec({3, 1, 2, 4});
  Batch test;
  test.left = DesignSide::make_dense(Matrix::Zero(1, 4));
  test.y = vec({1, -1, -1, 1});
  const ScoresOperator op(scores, /*symmetric=*/true);
  const MetricValues v = evaluate(*metric("auc"), Estimate{}, nullptr, &test, op);
  CHECK(value_of(v, "auc") == 1.0);
  CHECK(value_of(v, "auc_skipped_labels") == 0.0);
}

TEST_CASE("hamming_loss counts sign disagreements with sign(0) = +1", "[metrics]") {
  const Vector scores = vec({0.5, -0.2, 0.0, -1.0});
  const Vector y = vec({1, 1, -1, -1});  // wrong at 1 (− vs +) and 2 (sign(0) = + vs −)
  IndexVector labels = IndexVector::Zero(4);
  const Batch test = labelled_batch(y, labels, 1);
  const ScoresOperator op(scores);
  const auto m = metric("hamming_loss");
  CHECK(m->needs_test_set());
  CHECK(value_of(evaluate(*m, Estimate{}, nullptr, &test, op), "hamming_loss") == 0.5);
}

TEST_CASE("test_rmse: hand example and the real symmetric operator", "[metrics]") {
  {
    const Vector scores = vec({1, 2, 3});
    const Batch test = labelled_batch(vec({1, 0, 0}), IndexVector::Zero(3), 1);
    const ScoresOperator op(scores);
    const auto m = metric("test_rmse");
    CHECK(m->needs_test_set());
    CHECK(value_of(evaluate(*m, Estimate{}, nullptr, &test, op), "test_rmse") == Approx(std::sqrt(13.0 / 3.0)));
  }
  {
    const auto op = test::make<SensingOperator>(Json{{"name", "symmetric_rank_one"}}, Kind::sensing_operator);
    Rng rng(5);
    Matrix X(3, 50);
    rng.fill_normal(X.data(), X.size());
    const GroundTruth truth = diagonal({2.0, -1.0});
    Batch test;
    test.left = DesignSide::make_dense(X);
    test.y = op->forward(test, truth);
    const auto m = metric("test_rmse");
    CHECK(value_of(evaluate(*m, truth, &truth, &test, *op), "test_rmse") < 1e-12);
    const LowRankModel zero = diagonal({0.0});
    const double rms = std::sqrt(test.y.squaredNorm() / 50.0);
    CHECK(value_of(evaluate(*m, zero, &truth, &test, *op), "test_rmse") == Approx(rms).epsilon(1e-12));
  }
}

TEST_CASE("amplitude_error: phase retrieval's measurement error, free of the sign", "[metrics]") {
  const auto op = test::make<SensingOperator>(Json{{"name", "symmetric_rank_one"}}, Kind::sensing_operator);
  Rng rng(7);
  Matrix X(4, 60);
  rng.fill_normal(X.data(), X.size());
  LowRankModel truth;  // M* = x x'
  truth.left = Matrix(4, 1);
  rng.fill_normal(truth.left.data(), truth.left.size());
  truth.right = truth.left;
  Batch test;
  test.left = DesignSide::make_dense(X);
  test.y = op->forward(test, truth);
  const auto m = metric("amplitude_error");
  CHECK(m->needs_test_set());
  CHECK(value_of(evaluate(*m, truth, nullptr, &test, *op), "amplitude_error") < 1e-12);
  LowRankModel flipped = truth;  // −x gives the same amplitudes
  flipped.left = -truth.left;
  flipped.right = -truth.right;
  CHECK(value_of(evaluate(*m, flipped, nullptr, &test, *op), "amplitude_error") < 1e-12);
  LowRankModel doubled = truth;  // 2x: every amplitude doubled, a relative error of exactly 1
  doubled.left = 2.0 * truth.left;
  doubled.right = 2.0 * truth.right;
  CHECK(value_of(evaluate(*m, doubled, nullptr, &test, *op), "amplitude_error") == Approx(1.0).epsilon(1e-12));
  // Negative (noisy) responses count as amplitude 0, as the flows clip them.
  Batch noisy = test;
  noisy.y(0) = -1.0;
  const double expected =
      std::sqrt(test.y(0)) / noisy.y.cwiseMax(0.0).cwiseSqrt().norm();  // only the first amplitude differs
  CHECK(value_of(evaluate(*m, truth, nullptr, &noisy, *op), "amplitude_error") == Approx(expected).epsilon(1e-12));
}

TEST_CASE("relative_error_M in the spectral and Frobenius norms", "[metrics]") {
  // M* = diag(2, −1, 0), M = diag(2, 0, 0): M − M* = diag(0, 1, 0).
  const GroundTruth truth = diagonal({2.0, -1.0});
  const Estimate estimate = diagonal({2.0});
  const ScoresOperator op(Vector{}, /*symmetric=*/true);
  const auto spectral = metric("relative_error_M");
  CHECK(spectral->needs_truth());
  CHECK(value_of(evaluate(*spectral, estimate, &truth, nullptr, op), "relative_error_M") == Approx(0.5));
  const auto frobenius = metric(Json{{"name", "relative_error_M"}, {"norm", "frobenius"}});
  CHECK(value_of(evaluate(*frobenius, estimate, &truth, nullptr, op), "relative_error_M") ==
        Approx(1.0 / std::sqrt(5.0)));
}

TEST_CASE("relative_error_M compares symmetric parts under a symmetric operator", "[metrics]") {
  // M = e1 e2' and M* = (e1 e2' + e2 e1')/2 give the same x'Mx for every x.
  LowRankModel estimate;
  estimate.left = Matrix::Identity(3, 1);
  estimate.right = Matrix::Zero(3, 1);
  estimate.right(1, 0) = 1.0;
  GroundTruth truth = estimate;
  truth.symmetrize = true;
  const auto m = metric("relative_error_M");
  const ScoresOperator symmetric_op(Vector{}, true);
  CHECK(value_of(evaluate(*m, estimate, &truth, nullptr, symmetric_op), "relative_error_M") < 1e-12);
  // Seen by u'Mv the two differ: M − M* = (e1 e2' − e2 e1')/2 has spectral norm ½, ‖M*‖₂ = ½.
  const ScoresOperator asymmetric_op(Vector{}, false);
  CHECK(value_of(evaluate(*m, estimate, &truth, nullptr, asymmetric_op), "relative_error_M") == Approx(1.0));
}

TEST_CASE("relative_error_w and combined_error", "[metrics]") {
  GroundTruth truth = diagonal({2.0, -1.0});
  truth.w = vec({3, 4, 0});
  Estimate estimate = diagonal({2.0});
  estimate.w = vec({3, 0, 0});
  const ScoresOperator op(Vector{}, true);
  const auto w = metric("relative_error_w");
  CHECK(w->needs_truth());
  CHECK(value_of(evaluate(*w, estimate, &truth, nullptr, op), "relative_error_w") == Approx(0.8));
  // (‖w − w*‖ + ‖M − M*‖₂) / (‖w*‖ + ‖M*‖₂) = (4 + 1) / (5 + 2).
  const auto combined = metric("combined_error");
  CHECK(combined->needs_truth());
  CHECK(value_of(evaluate(*combined, estimate, &truth, nullptr, op), "combined_error") == Approx(5.0 / 7.0));

  SECTION("w* absent: the absolute norm of w") {
    truth.w = Vector();
    CHECK(value_of(evaluate(*w, estimate, &truth, nullptr, op), "relative_error_w") == Approx(3.0));
  }
  SECTION("w absent counts as zero") {
    estimate.w = Vector();
    CHECK(value_of(evaluate(*w, estimate, &truth, nullptr, op), "relative_error_w") == Approx(1.0));
  }
}

TEST_CASE("intercept_error is the absolute error of the intercept", "[metrics]") {
  GroundTruth truth = diagonal({2.0});
  truth.bias = 1.5;
  Estimate estimate = diagonal({2.0});
  estimate.bias = -0.25;
  const ScoresOperator op(Vector{}, true);
  const auto b = metric("intercept_error");
  CHECK(b->needs_truth());
  CHECK(value_of(evaluate(*b, estimate, &truth, nullptr, op), "intercept_error") == 1.75);
  truth.bias = 0.0;  // absolute, also against b* = 0
  CHECK(value_of(evaluate(*b, estimate, &truth, nullptr, op), "intercept_error") == 0.25);
}

TEST_CASE("subspace_angle recovers a planted rotation, small angles included", "[metrics]") {
  const ScoresOperator op(Vector{}, true);
  const auto m = metric("subspace_angle");
  CHECK(m->needs_truth());
  const GroundTruth truth = diagonal({1.0});  // span{e1}
  for (double theta : {0.3, 1.2, 1e-9}) {
    CAPTURE(theta);
    Matrix u = Matrix::Zero(3, 1);
    u(0, 0) = std::cos(theta);
    u(1, 0) = std::sin(theta);
    const Estimate estimate = LowRankModel::symmetric_from_eigen(u, vec({-3.0}));
    CHECK(value_of(evaluate(*m, estimate, &truth, nullptr, op), "subspace_angle") ==
          Approx(theta).epsilon(1e-6));  // acos(σ_min) would return 0 for θ = 1e-9
  }
  SECTION("rank parameter: the angle between 2-d dominant subspaces") {
    // Truth span{e1, e2}; estimate span{e1, cos t e2 + sin t e3}: largest angle t.
    const GroundTruth truth2 = diagonal({2.0, 1.0});
    const double t = 0.7;
    Matrix u = Matrix::Zero(3, 2);
    u(0, 0) = 1.0;
    u(1, 1) = std::cos(t);
    u(2, 1) = std::sin(t);
    const Estimate estimate = LowRankModel::symmetric_from_eigen(u, vec({5.0, 1.0}));
    CHECK(value_of(evaluate(*m, estimate, &truth2, nullptr, op), "subspace_angle") == Approx(t));
    const auto rank1 = metric(Json{{"name", "subspace_angle"}, {"rank", 1}});
    CHECK(value_of(evaluate(*rank1, estimate, &truth2, nullptr, op), "subspace_angle") < 1e-12);
  }
}

TEST_CASE("samples and seconds report the budget", "[metrics]") {
  const ScoresOperator op(Vector{});
  const auto samples = metric("samples");
  const auto seconds = metric("seconds");
  CHECK_FALSE(samples->needs_truth());
  CHECK_FALSE(seconds->needs_test_set());
  CHECK(value_of(evaluate(*samples, Estimate{}, nullptr, nullptr, op), "samples") == 1234.0);
  CHECK(value_of(evaluate(*seconds, Estimate{}, nullptr, nullptr, op), "seconds") == 5.5);
}
