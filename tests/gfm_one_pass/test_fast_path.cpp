// gfm_one_pass's dense fast path (x'Mx + x'w with the designs stored densely: fused, blocked
// products, threads) against the operator-generic path, which the same data takes when its designs
// are stored as a sparse matrix; and the independence of the result from the thread count.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

/// y = b* + x'w* + x'M*x + noise, d = 120, rank 3 with eigenvalues of both signs, b* = 0.7.
Json source_ref() {
  return Json{{"name", "synthetic"},
              {"d", 120},
              {"rank", 3},
              {"eigenvalues", {1.0, -0.7, 0.5}},
              {"w_norm", 1.0},
              {"bias", 0.7},
              {"noise_std", 0.1},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

/// With `intercept` the fast path's last pass also computes X X'U and X 1.
Json estimator_ref(int threads, bool with_intercept) {
  // n = 7000: three full design blocks of 2 048 and a partial one.
  return Json{{"name", "gfm_one_pass"}, {"rank", 3},       {"batch_size", 7000},        {"max_iterations", 6},
              {"tolerance", 0.0},       {"threads", threads}, {"intercept", with_intercept}};
}

/// The synthetic stream with its dense designs re-stored as a sparse matrix: the same numbers, so the
/// estimator must give the same iterates, through the operator-generic path.
class SparseCopySource final : public DataSource {
 public:
  explicit SparseCopySource(std::unique_ptr<DataSource> inner) : inner_(std::move(inner)) {}
  void open(std::uint64_t seed) override { inner_->open(seed); }
  ProblemShape shape() const override { return inner_->shape(); }
  const SensingOperator& sensing_operator() const override { return inner_->sensing_operator(); }
  bool finite() const override { return false; }

 protected:
  Batch produce(Index n) override {
    Batch b = inner_->next(n);
    REQUIRE(b.left.kind == DesignSide::Kind::dense);
    b.left.sparse = b.left.dense.sparseView();
    b.left.dense.resize(0, 0);
    b.left.kind = DesignSide::Kind::sparse;
    return b;
  }

 private:
  std::unique_ptr<DataSource> inner_;
};

/// The estimate (U V' symmetrised, w) after each iteration.
std::vector<Estimate> iterates(DataSource& source, int threads, bool with_intercept) {
  source.open(5);
  auto estimator = test::make<Estimator>(estimator_ref(threads, with_intercept), Kind::estimator);
  Rng rng(9);
  estimator->start(source, rng);
  std::vector<Estimate> out{estimator->estimate()};
  for (bool more = true; more;) {
    more = estimator->step(source);
    out.push_back(estimator->estimate());
  }
  REQUIRE(estimator->summary().status == Status::max_iterations);
  REQUIRE(estimator->summary().iterations == 6);
  return out;
}

/// M of an estimate, formed densely (d = 120).
Matrix dense_model(const Estimate& e) {
  const Matrix M = e.left * e.right.transpose();
  return e.symmetrize ? Matrix(0.5 * (M + M.transpose())) : M;
}

}  // namespace

TEST_CASE("gfm_one_pass: the dense fast path gives the operator-generic iterates", "[gfm][fast_path]") {
  const bool with_intercept = GENERATE(false, true);
  CAPTURE(with_intercept);
  auto dense = test::make<DataSource>(source_ref(), Kind::data_source);
  SparseCopySource sparse(test::make<DataSource>(source_ref(), Kind::data_source));
  const std::vector<Estimate> fast = iterates(*dense, 1, with_intercept);
  const std::vector<Estimate> generic = iterates(sparse, 1, with_intercept);
  REQUIRE(fast.size() == generic.size());
  REQUIRE(fast.size() == 7);  // the start and six iterations
  for (std::size_t t = 0; t < fast.size(); ++t) {
    CAPTURE(t);
    const Matrix M_fast = dense_model(fast[t]);
    const Matrix M_generic = dense_model(generic[t]);
    // Only the summation order differs (fused and blocked products). Measured: at most 2.7e-15
    // relative (M) and 2.5e-15 (w) over the six iterations; 1e-12 leaves three decades.
    CHECK((M_fast - M_generic).norm() <= 1e-12 * M_generic.norm());
    CHECK((fast[t].w - generic[t].w).norm() <= 1e-12 * (1.0 + generic[t].w.norm()));
    CHECK(std::abs(fast[t].bias - generic[t].bias) <= 1e-12 * (1.0 + std::abs(generic[t].bias)));
    if (!with_intercept) CHECK(fast[t].bias == 0.0);
  }
  if (with_intercept) CHECK(std::abs(fast.back().bias - 0.7) < 0.05);  // on its way to b* (6 noisy iterations)
}

TEST_CASE("gfm_one_pass: the result does not depend on the number of threads", "[gfm][fast_path][threads]") {
  const bool with_intercept = GENERATE(false, true);
  CAPTURE(with_intercept);
  auto source = test::make<DataSource>(source_ref(), Kind::data_source);
  const std::vector<Estimate> one = iterates(*source, 1, with_intercept);
  for (const int threads : {2, 3}) {
    CAPTURE(threads);
    const std::vector<Estimate> many = iterates(*source, threads, with_intercept);
    REQUIRE(many.size() == one.size());
    for (std::size_t t = 0; t < one.size(); ++t) {
      CHECK(many[t].left == one[t].left);  // bitwise: fixed blocks, sums in block order
      CHECK(many[t].right == one[t].right);
      CHECK(many[t].w == one[t].w);
      CHECK(many[t].bias == one[t].bias);
    }
  }
}
