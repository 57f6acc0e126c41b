// `one_bit_mll` (Qiu et al. 2017, Algorithm 1): recovery on noise-free single-label data, the
// matrix-free dilation step against a dense reference, reproducibility, and error handling.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "one_bit_mll.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "test_support_one_bit.hpp"

using namespace rankone;
using test::one_bit::Run;

namespace {

/// A 10 × 4 rank-1 single-label problem of `size` training instances (the batch-rule tests).
Json finite_source(Index size) {
  Json source = test::one_bit::single_label_source(10, 4, 1, 0);
  source["size"] = size;
  return source;
}

Json one_bit_estimator(Index rank, Index batch_size, int iterations) {
  return Json{{"name", "one_bit_mll"}, {"rank", rank}, {"batch_size", batch_size}, {"max_iterations", iterations}};
}

/// One step of Algorithm 1 with the dense (d1 + d2)² dilation 𝓓: 𝓤 ← QR(𝓓 𝓤), 𝓥 = 𝓓 𝓤, and
/// W = the column-normalised top-right (d1 × d2) block of 𝓤 𝓥'. The reference implementation.
Matrix dense_step(Matrix& basis, const Matrix& dilation, Index d1, Index d2) {
  basis = orthonormalize(dilation * basis);
  const Matrix image = dilation * basis;
  Matrix W = basis.topRows(d1) * image.bottomRows(d2).transpose();
  for (Index j = 0; j < d2; ++j) W.col(j) /= W.col(j).norm();
  return W;
}

Matrix dilation_of(const Matrix& A) {
  const Index d1 = A.rows(), d2 = A.cols();
  Matrix D = Matrix::Zero(d1 + d2, d1 + d2);
  D.topRightCorner(d1, d2) = A;
  D.bottomLeftCorner(d2, d1) = A.transpose();
  return D;
}

}  // namespace

TEST_CASE("one_bit_mll recovers W* from noise-free single labels (d1 = 200, d2 = 50, k = 2, m = 50 000)",
          "[one_bit_mll]") {
  // Statistics: H − (W* − W) has entries of std ≈ √(d2/(mλ²)) ≈ 0.04, so ‖H − (W* − W)‖₂ ≈
  // 0.04·(√d1 + √d2) ≈ 0.9 against ‖W*‖₂ ≈ √(d2/k) = 5: every step shrinks the error (Theorem 1).
  Run run(test::one_bit::single_label_source(200, 50, 2, 2000), one_bit_estimator(2, 50000, 10), 20171);
  REQUIRE(run.estimator->summary().status == Status::running);
  std::vector<double> error{run.metric("recovery_error")};
  std::vector<double> auc{run.metric("auc")};
  while (run.estimator->step(*run.source)) {
    error.push_back(run.metric("recovery_error"));
    auc.push_back(run.metric("auc"));
  }
  error.push_back(run.metric("recovery_error"));
  auc.push_back(run.metric("auc"));
  INFO("recovery errors: " << Eigen::Map<const Vector>(error.data(), error.size()).transpose());
  INFO("average AUCs: " << Eigen::Map<const Vector>(auc.data(), auc.size()).transpose());
  CHECK(run.estimator->summary().status == Status::max_iterations);
  CHECK(run.estimator->summary().iterations == 10);
  CHECK(run.source->samples_drawn() == 11 * 50000);  // initialisation + 10 fresh batches
  // The error falls over the first iterations …
  CHECK(error[1] < error[0]);
  CHECK(error[2] < error[1]);
  CHECK(error[3] < error[2]);
  // … and the average AUC reaches 0.98 within 10 iterations (measured: see docs/plugins/one_bit_mll.md).
  CHECK(auc.back() >= 0.98);
  WARN("one_bit_mll recovery errors " << Eigen::Map<const Vector>(error.data(), error.size()).transpose()
                                      << "; AUCs " << Eigen::Map<const Vector>(auc.data(), auc.size()).transpose());
  CHECK(error.back() < 0.5 * error[0]);
}

TEST_CASE("one_bit_mll's matrix-free step equals Algorithm 1 with the dense (d1 + d2)² dilation", "[one_bit_mll]") {
  const Index d1 = 14, d2 = 6, k = 2, m = 4000;
  const Json source_json = test::one_bit::single_label_source(d1, d2, k, 0);
  Run run(source_json, one_bit_estimator(k, m, 2), 5);

  // Replay the same batches from a second source opened with the same seed.
  auto replay = test::make<DataSource>(source_json, Kind::data_source);
  replay->open(5);
  const SensingOperator& op = replay->sensing_operator();
  const double lambda = std::sqrt(2.0 / M_PI);
  const double gain = std::sqrt(static_cast<double>(d2)) / (static_cast<double>(m) * lambda);

  // Initialisation: top-k singular subspaces of H⁽⁰⁾ = gain·𝒜'(y), then one step with W = 0.
  const Batch first = replay->next(m);
  const Matrix H0 = gain * op.adjoint_dense(first, first.y);
  Eigen::JacobiSVD<Matrix> svd(H0, Eigen::ComputeFullU | Eigen::ComputeFullV);
  Matrix basis = Matrix::Zero(d1 + d2, 2 * k);
  basis.topLeftCorner(d1, k) = svd.matrixU().leftCols(k);
  basis.bottomRightCorner(d2, k) = svd.matrixV().leftCols(k);
  Matrix W = dense_step(basis, dilation_of(H0), d1, d2);
  CHECK((run.estimator->estimate().dense() - W).norm() < 1e-8 * W.norm());

  for (int t = 1; t <= 2; ++t) {
    // H = gain·𝒜'(y − sign(𝒜(W))) on a fresh batch, 𝓓 = dilation(H + W).
    const Batch batch = replay->next(m);
    LowRankModel current;
    current.left = W;
    current.right = Matrix::Identity(d2, d2);
    const Vector predicted = op.forward(batch, current).unaryExpr([](double v) { return v >= 0 ? 1.0 : -1.0; });
    const Vector residual = batch.y - predicted;
    W = dense_step(basis, dilation_of(gain * op.adjoint_dense(batch, residual) + W), d1, d2);
    CHECK(run.estimator->step(*run.source) == (t == 1));  // the budget of 2 ends the run at t = 2
    INFO("iteration " << t);
    CHECK((run.estimator->estimate().dense() - W).norm() < 1e-8 * W.norm());
  }
}

TEST_CASE("one_bit_mll: the same seed gives identical scores, another seed different ones", "[one_bit_mll]") {
  const Json source = test::one_bit::single_label_source(60, 20, 2, 200);
  auto scores = [&](std::uint64_t seed) {
    Run run(source, one_bit_estimator(2, 5000, 3), seed);
    while (run.estimator->step(*run.source)) {
    }
    return Vector(run.source->sensing_operator().forward(*run.source->test_set(), run.estimator->estimate()));
  };
  const Vector a = scores(11), b = scores(11), c = scores(12);
  CHECK(a == b);
  CHECK(a != c);
}

TEST_CASE("one_bit_mll reports unusable configurations as a failed status", "[one_bit_mll]") {
  SECTION("a symmetric operator") {
    Run run(Json{{"name", "synthetic"}, {"d", 10}, {"link", "sign"}}, one_bit_estimator(2, 100, 2), 1);
    CHECK(run.estimator->summary().status == Status::failed);
    CHECK_THAT(run.estimator->summary().message, Catch::Contains("asymmetric"));
  }
  SECTION("the shared batch rule: one pass over a finite source, a short last batch unused") {
    const Json source = finite_source(300);
    Run run(source, one_bit_estimator(1, 200, 5), 1);
    CHECK(run.estimator->summary().status == Status::running);
    CHECK_FALSE(run.estimator->step(*run.source));  // 100 instances left: not a full batch
    const Summary s = run.estimator->summary();
    CHECK(s.status == Status::max_iterations);
    CHECK_THAT(s.message, Catch::Contains("one pass over the data: the source ran out after 300 samples (0 iterations; "
                                          "the partial last batch of 100 instances is not used)"));
    REQUIRE(s.notes.size() == 1);
    CHECK_THAT(s.notes[0], Catch::Contains("one_bit_mll: the partial last batch of 100 instances was not used"));
  }
  SECTION("passes: a batch reaching the end of a pass is topped up from the next, up to passes") {
    const Json source = finite_source(300);
    Json est = one_bit_estimator(1, 200, 5);
    est["passes"] = 3;
    Run run(source, est, 1);
    int iterations = 0;
    while (run.estimator->step(*run.source)) ++iterations;
    // start [0, 200); [200, 300) + [0, 100); [100, 300); [0, 200) of pass 3; [200, 300) is short.
    CHECK(iterations == 3);
    CHECK(run.estimator->summary().iterations == 3);
    CHECK(run.source->samples_drawn() == 900);
    const Summary s = run.estimator->summary();
    CHECK(s.status == Status::max_iterations);
    CHECK_THAT(s.message, Catch::StartsWith("3 passes over the data (passes = 3)"));
    CHECK_THAT(s.message, Catch::EndsWith("re-used the finite training set (3 passes over 300 instances, as allowed by "
                                          "passes = 3)"));
  }
  SECTION("passes with full labels: a batch may straddle two passes (Batch::append keeps y label-major)") {
    Json est = one_bit_estimator(1, 200, 3);
    est["passes"] = 3;
    Run run(test::one_bit::full_label_source(10, 4, 1, 300, 0), est, 1);
    while (run.estimator->step(*run.source)) {
    }
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK(s.status == Status::max_iterations);
    CHECK(s.iterations == 3);
    CHECK(run.source->samples_drawn() == 4 * 800);  // start + 3 batches of 200 instances, 4 labels each
  }
  SECTION("batch_size null: the whole finite training set at every iteration") {
    const Json source = finite_source(300);
    Json est = one_bit_estimator(1, 0, 2);
    est["batch_size"] = nullptr;
    est["passes"] = 3;
    Run run(source, est, 1);
    while (run.estimator->step(*run.source)) {
    }
    const Summary s = run.estimator->summary();
    CHECK(s.status == Status::max_iterations);
    CHECK(s.iterations == 2);
    CHECK(run.source->samples_drawn() == 900);  // start + 2 iterations, one pass each
    CHECK(s.notes.empty());                     // every batch is full
  }
  SECTION("batch_size null with fewer passes than the start and the iterations need") {
    const Json source = finite_source(300);
    Json est = one_bit_estimator(1, 0, 2);
    est["batch_size"] = nullptr;
    est["passes"] = 2;
    Run run(source, est, 1);
    CHECK(run.estimator->summary().status == Status::failed);
    CHECK_THAT(run.estimator->summary().message, Catch::Contains("passes (2) must be at least max_iterations + 1 (3"));
  }
  SECTION("a batch larger than the finite set is refused, not filled twice from two passes") {
    const Json source = finite_source(300);
    Json est = one_bit_estimator(1, 500, 2);
    est["passes"] = 5;
    Run run(source, est, 1);
    CHECK(run.estimator->summary().status == Status::failed);
    CHECK_THAT(run.estimator->summary().message,
               Catch::Contains("batch_size 500 is larger than the finite training set of 300 instances"));
    // The start's own batch is refused in the same words, naming its parameter.
    est = one_bit_estimator(1, 100, 2);
    est["passes"] = 5;
    est["init"] = {{"name", "spectral_init"}, {"batch_size", 500}};
    Run start(source, est, 1);
    CHECK(start.estimator->summary().status == Status::failed);
    CHECK_THAT(start.estimator->summary().message,
               Catch::Contains("init/batch_size 500 is larger than the finite training set of 300 instances"));
  }
  SECTION("batch_size null on an endless source: 10 000 fresh instances per batch") {
    Json est = one_bit_estimator(1, 0, 1);
    est["batch_size"] = nullptr;
    Run run(test::one_bit::single_label_source(10, 4, 1, 0), est, 1);
    while (run.estimator->step(*run.source)) {
    }
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK(s.status == Status::max_iterations);
    CHECK(run.source->samples_drawn() == 2 * 10000);  // the start and one iteration
    CHECK(s.notes.empty());                           // nothing chosen from the data
  }
  SECTION("batch_size and passes unset on a finite source: the whole set at every iteration, printed") {
    Json est = one_bit_estimator(1, 0, 2);
    est.erase("batch_size");
    Run run(finite_source(300), est, 1);
    while (run.estimator->step(*run.source)) {
    }
    const Summary s = run.estimator->summary();
    INFO(s.message);
    CHECK(s.status == Status::max_iterations);
    CHECK(s.iterations == 2);
    CHECK(run.source->samples_drawn() == 900);  // start + 2 iterations, one whole pass each
    REQUIRE(s.notes.size() == 1);
    CHECK_THAT(s.notes[0], Catch::StartsWith("one_bit_mll: batch_size 300 (the whole training set) and passes 3 "
                                             "(max_iterations + 1"));
  }
}
