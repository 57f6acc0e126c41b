// The Gaussian ensemble y_i = <A_i, M>: products against sums written from the definition, the
// symmetric form's symmetrisation, its isotropic inverse (Monte Carlo), the synthetic source's
// matrix designs (responses, a stream independent of batch sizes, footprint) and its refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "test_support.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;

std::unique_ptr<SensingOperator> ensemble(bool symmetric) {
  return test::make<SensingOperator>(Json{{"name", "gaussian_ensemble"}, {"symmetric", symmetric}},
                                     Kind::sensing_operator);
}

/// n design matrices d1 × d2, each kept apart for the reference sums.
struct Ensemble {
  std::vector<Matrix> A;
  Batch batch;
};

Ensemble draw(Rng& rng, Index d1, Index d2, Index n) {
  Ensemble e;
  Matrix blocks(d1, n * d2);
  for (Index i = 0; i < n; ++i) {
    Matrix a(d1, d2);
    rng.fill_normal(a.data(), a.size());
    blocks.middleCols(i * d2, d2) = a;
    e.A.push_back(a);
  }
  e.batch.left = DesignSide::make_matrix(d2, blocks);
  e.batch.y = Vector::Zero(n);
  return e;
}

LowRankModel random_model(Rng& rng, Index d1, Index d2, Index k) {
  LowRankModel m;
  m.left = Matrix(d1, k);
  m.right = Matrix(d2, k);
  rng.fill_normal(m.left.data(), m.left.size());
  rng.fill_normal(m.right.data(), m.right.size());
  return m;
}

/// Σ_ab A(a, b) M(a, b) by loops, with M spelled out from the factors.
double inner(const Matrix& A, const LowRankModel& m) {
  double sum = m.bias;
  for (Index a = 0; a < A.rows(); ++a)
    for (Index b = 0; b < A.cols(); ++b) {
      double entry = m.left.row(a).dot(m.right.row(b));
      if (m.symmetrize) entry = 0.5 * (entry + m.left.row(b).dot(m.right.row(a)));
      if (m.zero_diagonal && a == b) entry = 0.0;
      sum += A(a, b) * entry;
    }
  return sum;
}

Matrix sym(const Matrix& A) { return 0.5 * (A + A.transpose()); }

}  // namespace

TEST_CASE("gaussian_ensemble: forward and adjoint products as sums over the design matrices", "[operators][ensemble]") {
  Rng rng(5);
  SECTION("asymmetric, 7 × 4") {
    const auto op = ensemble(false);
    CHECK_FALSE(op->symmetric());
    CHECK_FALSE(op->has_first_order());
    const Ensemble e = draw(rng, 7, 4, 30);
    LowRankModel m = random_model(rng, 7, 4, 2);
    m.bias = 0.3;
    const Vector y = op->forward(e.batch, m);
    const Vector z = y.unaryExpr([](double v) { return std::sin(v); });
    Matrix adjoint = Matrix::Zero(7, 4);
    for (Index i = 0; i < 30; ++i) {
      CHECK(y(i) == Approx(inner(e.A[static_cast<std::size_t>(i)], m)).epsilon(1e-12));
      adjoint += z(i) * e.A[static_cast<std::size_t>(i)];
    }
    CHECK((op->adjoint_dense(e.batch, z) - adjoint).norm() <= 1e-12 * adjoint.norm());
    const Matrix Z = random_model(rng, 4, 7, 3).left, W = random_model(rng, 7, 4, 3).left;
    CHECK((op->adjoint_times(e.batch, z, Z) - adjoint * Z).norm() <= 1e-12 * (adjoint * Z).norm());
    CHECK((op->adjoint_transpose_times(e.batch, z, W) - adjoint.transpose() * W).norm() <=
          1e-12 * (adjoint.transpose() * W).norm());
    CHECK(op->first_order_adjoint(e.batch, z) == Vector::Zero(7));
  }
  SECTION("symmetric, 5 × 5: <sym(A_i), M> and a symmetric adjoint, for every model form") {
    const auto op = ensemble(true);
    CHECK(op->symmetric());
    const Ensemble e = draw(rng, 5, 5, 25);
    for (const auto& [symmetrize, zero_diagonal] : {std::pair{false, false}, {true, false}, {true, true}}) {
      LowRankModel m = random_model(rng, 5, 5, 2);
      m.symmetrize = symmetrize;
      m.zero_diagonal = zero_diagonal;
      const Vector y = op->forward(e.batch, m);
      for (Index i = 0; i < 25; ++i) CHECK(y(i) == Approx(inner(sym(e.A[static_cast<std::size_t>(i)]), m)).epsilon(1e-12));
    }
    Vector z(25);
    rng.fill_normal(z.data(), z.size());
    Matrix adjoint = Matrix::Zero(5, 5);
    for (Index i = 0; i < 25; ++i) adjoint += z(i) * sym(e.A[static_cast<std::size_t>(i)]);
    const Matrix dense = op->adjoint_dense(e.batch, z);
    CHECK((dense - adjoint).norm() <= 1e-12 * adjoint.norm());
    CHECK((dense - dense.transpose()).norm() == 0.0);
    // A symmetric truth is measured as the asymmetric form measures it.
    LowRankModel psd = random_model(rng, 5, 5, 2);
    psd.right = psd.left;
    CHECK((op->forward(e.batch, psd) - ensemble(false)->forward(e.batch, psd)).norm() <= 1e-12 * op->forward(e.batch, psd).norm());
  }
}

TEST_CASE("gaussian_ensemble: the isotropic inverse recovers M from A'(A(M))/n (Monte Carlo)", "[operators][ensemble][statistics]") {
  for (const bool symmetric : {false, true}) {
    INFO((symmetric ? "symmetric" : "asymmetric"));
    Rng rng(symmetric ? 71 : 72);
    const Index d1 = 4, d2 = symmetric ? 4 : 3, n = 20000;
    const auto op = ensemble(symmetric);
    const Ensemble e = draw(rng, d1, d2, n);
    LowRankModel m = random_model(rng, d1, d2, 2);
    if (symmetric) {
      m.right = m.left;
      m.right.col(1) *= -0.5;  // indefinite, trace ≠ 0: a wrong trace shift would show
      m.symmetrize = true;
    }
    const Vector y = op->forward(e.batch, m);
    const MomentInverse inv = op->isotropic_inverse(ProblemShape{d1, d2, symmetric});
    CHECK(inv.scale == 1.0);
    CHECK(inv.trace_shift == 0.0);
    const Matrix estimate = op->adjoint_dense(e.batch, y) / static_cast<double>(n);
    Matrix second = Matrix::Zero(d1, d2);  // Σ_i H_i², H_i = y_i A_i (or y_i sym(A_i))
    for (Index i = 0; i < n; ++i) {
      const Matrix& A = e.A[static_cast<std::size_t>(i)];
      second += (y(i) * (symmetric ? sym(A) : A)).cwiseAbs2();
    }
    const Matrix variance = second / static_cast<double>(n) - estimate.cwiseAbs2();
    const Matrix standard_error = (variance / static_cast<double>(n)).cwiseSqrt();
    const Matrix M = m.dense();
    for (Index a = 0; a < d1; ++a)
      for (Index b = 0; b < d2; ++b) CHECK(std::abs(estimate(a, b) - M(a, b)) <= 4.0 * standard_error(a, b));
    CHECK((estimate - M).norm() < 0.1 * M.norm());
  }
}

TEST_CASE("gaussian_ensemble: refuses batches it cannot measure, naming what it expected", "[operators][ensemble][errors]") {
  Rng rng(3);
  const auto op = ensemble(false);
  Ensemble e = draw(rng, 4, 3, 6);
  const LowRankModel m = random_model(rng, 4, 3, 1);
  Batch vectors;
  vectors.left = DesignSide::make_dense(Matrix::Ones(4, 6));
  CHECK_THROWS_WITH(op->forward(vectors, m), Contains("designs must be matrix designs, got dense"));
  Batch with_right = e.batch;
  with_right.right = DesignSide::make_dense(Matrix::Ones(3, 6));
  CHECK_THROWS_WITH(op->forward(with_right, m), Contains("the batch must have no right side"));
  CHECK_THROWS_WITH(op->forward(e.batch, random_model(rng, 3, 3, 1)), Contains("expected 4 × k and 3 × k"));
  CHECK_THROWS_WITH(op->adjoint_dense(e.batch, Vector::Zero(5)), Contains("z has 5 entries, the batch has 6"));
  CHECK_THROWS_WITH(op->adjoint_times(e.batch, Vector::Zero(6), Matrix::Zero(4, 1)), Contains("expected d2 = 3"));
  CHECK_THROWS_WITH(op->adjoint_transpose_times(e.batch, Vector::Zero(6), Matrix::Zero(3, 1)), Contains("expected d1 = 4"));
  CHECK_THROWS_WITH(ensemble(true)->forward(e.batch, m), Contains("the symmetric form needs square designs, got 4 × 3"));
}

TEST_CASE("synthetic: the Gaussian ensemble's batches hold one matrix A_i per measurement", "[synthetic][ensemble]") {
  const Json ref{{"name", "synthetic"}, {"operator", "gaussian_ensemble"}, {"sampler", "gaussian"}, {"d", 6},
                 {"d2", 5},             {"truth", "general"},             {"rank", 2},            {"test_size", 40}};
  auto source = test::make<DataSource>(ref, Kind::data_source);
  source->open(17);
  CHECK(source->shape().d1 == 6);
  CHECK(source->shape().d2 == 5);
  const Batch first = source->next(300);  // crosses a chunk boundary
  REQUIRE(first.left.kind == DesignSide::Kind::matrix);
  CHECK(first.left.cols == 5);
  CHECK(first.instances() == 300);
  CHECK_FALSE(first.right.has_value());
  CHECK(first.d2() == 5);
  const Matrix M = source->truth()->dense();
  for (Index i = 0; i < 300; i += 37) {
    const Matrix A = first.left.dense.middleCols(i * 5, 5);
    CHECK(first.y(i) == Approx((A.array() * M.array()).sum()).epsilon(1e-12));
  }
  // The stream does not depend on how it is cut into batches.
  source->open(17);
  Batch pieces = source->next(100);
  pieces.append(source->next(200));
  CHECK(pieces.left.dense == first.left.dense);
  CHECK(pieces.y == first.y);
  CHECK(source->test_set()->left.kind == DesignSide::Kind::matrix);

  // The footprint counts d2 design vectors per measurement.
  const auto resolve = [](const Json& r) {
    return validate_plugin_ref(r, Kind::data_source, ValidationContext(test::registry(), nullptr), "");
  };
  const Json resolved = resolve(ref);
  Json rank_one_ref = ref;
  rank_one_ref["operator"] = "asymmetric_rank_one";
  const Json rank_one = resolve(rank_one_ref);
  const auto bytes = [](const Json& r) {
    return test::registry().footprint(r, Kind::data_source, FootprintContext{test::registry(), {}}).data.instance_bytes;
  };
  CHECK(bytes(resolved) == Approx(6.0 * 5.0 * 8.0 + 8.0));
  CHECK(bytes(resolved) > bytes(rank_one));

  // Its symmetric form on a symmetric truth; a right sampler has nothing to draw.
  auto symmetric = test::make<DataSource>(
      Json{{"name", "synthetic"}, {"operator", {{"name", "gaussian_ensemble"}, {"symmetric", true}}}, {"d", 6}, {"rank", 2}},
      Kind::data_source);
  symmetric->open(3);
  const Batch b = symmetric->next(10);
  CHECK(b.left.cols == 6);
  const Matrix S = symmetric->truth()->dense();  // symmetric: <sym(A_i), M> = <A_i, M>, a sum by entries
  for (Index i = 0; i < 10; ++i) CHECK(b.y(i) == Approx((b.left.dense.middleCols(i * 6, 6).array() * S.array()).sum()).epsilon(1e-12));
  try {
    test::make<DataSource>(Json{{"name", "synthetic"}, {"operator", "gaussian_ensemble"}, {"d", 4}, {"rank", 1},
                                {"right_sampler", "gaussian"}},
                           Kind::data_source);
    FAIL("a right sampler was accepted");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Contains("at /right_sampler: operator 'gaussian_ensemble' takes one matrix A_i"));
  }
  try {
    test::make<DataSource>(Json{{"name", "synthetic"}, {"operator", "gaussian_ensemble"}, {"sampler", "one_hot"}, {"d", 4},
                                {"rank", 1}},
                           Kind::data_source);
    FAIL("a one-hot sampler was accepted");
  } catch (const ConfigError& e) {
    CHECK_THAT(std::string(e.what()), Contains("takes matrix left designs, but sampler 'one_hot' makes index designs"));
  }
}
