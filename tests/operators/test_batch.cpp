// Design sides and batches (framework/src/batch.cpp): the products the operators are built on,
// checked against plain dense arithmetic for every storage kind, plus slicing, appending and misuse.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "test_support.hpp"

namespace {

using namespace rankone;
using DesignKind = DesignSide::Kind;

Matrix gaussian(Rng& rng, Index rows, Index cols) {
  Matrix m(rows, cols);
  rng.fill_normal(m.data(), m.size());
  return m;
}

DesignSide sparse_side(const Matrix& dense) {
  DesignSide s;
  s.kind = DesignKind::sparse;
  s.dim = dense.rows();
  s.sparse = dense.sparseView();
  return s;
}

/// A dense matrix with about half its entries zero (the sparse designs' content).
Matrix half_zero(Rng& rng, Index rows, Index cols) {
  Matrix m = gaussian(rng, rows, cols);
  for (Index i = 0; i < m.size(); ++i)
    if (rng.below(2) == 0) m(i) = 0.0;
  return m;
}

double max_diff(const Matrix& a, const Matrix& b) {
  REQUIRE(a.rows() == b.rows());
  REQUIRE(a.cols() == b.cols());
  return (a - b).cwiseAbs().maxCoeff();
}

}  // namespace

TEST_CASE("project and accumulate agree with dense products for every design kind", "[batch]") {
  Rng rng(3);
  const Index dim = 6, n = 10, k = 3;
  const Matrix F = gaussian(rng, dim, k);
  const Matrix W = gaussian(rng, n, k);

  SECTION("dense") {
    const Matrix X = gaussian(rng, dim, n);
    const DesignSide side = DesignSide::make_dense(X);
    CHECK(side.count() == n);
    CHECK(max_diff(side.project(F), X.transpose() * F) < 1e-12);
    CHECK(max_diff(side.accumulate(W), X * W) < 1e-12);
    CHECK(max_diff(side.to_dense(), X) == 0.0);
  }
  SECTION("sparse") {
    const Matrix X = half_zero(rng, dim, n);
    const DesignSide side = sparse_side(X);
    CHECK(side.count() == n);
    CHECK(max_diff(side.project(F), X.transpose() * F) < 1e-12);
    CHECK(max_diff(side.accumulate(W), X * W) < 1e-12);
    CHECK(max_diff(side.to_dense(), X) == 0.0);
  }
  SECTION("index, with a scale and repeated indices") {
    IndexVector index(n);
    index << 0, 5, 2, 2, 1, 0, 5, 5, 3, 2;
    const double scale = 2.5;
    Matrix X = Matrix::Zero(dim, n);
    for (Index i = 0; i < n; ++i) X(index(i), i) = scale;
    const DesignSide side = DesignSide::make_index(dim, index, scale);
    CHECK(side.count() == n);
    CHECK(max_diff(side.project(F), X.transpose() * F) < 1e-12);
    CHECK(max_diff(side.accumulate(W), X * W) < 1e-12);  // scatter-add sums repeated rows
    CHECK(max_diff(side.to_dense(), X) == 0.0);
  }
}

TEST_CASE("slice and append round-trip for every stored kind", "[batch]") {
  Rng rng(4);
  const Index dim = 5, n = 9;
  IndexVector index(n);
  for (Index i = 0; i < n; ++i) index(i) = static_cast<std::int32_t>(rng.below(dim));
  const Matrix X = half_zero(rng, dim, n);
  for (const DesignSide& side :
       {DesignSide::make_dense(gaussian(rng, dim, n)), sparse_side(X), DesignSide::make_index(dim, index, 0.5)}) {
    DesignSide joined = side.slice(0, 4);
    CHECK(joined.count() == 4);
    joined.append(side.slice(4, n - 4));
    CHECK(joined.kind == side.kind);
    CHECK(joined.count() == n);
    CHECK(joined.scale == side.scale);
    CHECK(max_diff(joined.to_dense(), side.to_dense()) == 0.0);
    CHECK(max_diff(side.slice(3, 2).to_dense(), side.to_dense().middleCols(3, 2)) == 0.0);

    DesignSide empty;  // a default side takes on the shape of what is appended
    empty.append(side);
    CHECK(max_diff(empty.to_dense(), side.to_dense()) == 0.0);
  }
}

TEST_CASE("batches slice and append instances together with their responses", "[batch]") {
  Rng rng(5);
  Batch b;
  b.left = DesignSide::make_dense(gaussian(rng, 4, 6));
  IndexVector labels(6);
  labels << 0, 1, 2, 0, 1, 2;
  b.right = DesignSide::make_index(3, labels);
  b.y = gaussian(rng, 6, 1);
  CHECK(b.instances() == 6);
  CHECK(b.size() == 6);

  Batch rebuilt;
  rebuilt.append(b.slice(0, 2));
  rebuilt.append(b.slice(2, 4));
  CHECK(rebuilt.instances() == 6);
  CHECK(max_diff(rebuilt.left.dense, b.left.dense) == 0.0);
  CHECK(rebuilt.right->index == b.right->index);
  CHECK(max_diff(rebuilt.y, b.y) == 0.0);

  Batch symmetric;
  symmetric.left = DesignSide::make_dense(gaussian(rng, 4, 2));
  symmetric.y = Vector::Zero(2);
  CHECK_THROWS_AS(rebuilt.append(symmetric), std::invalid_argument);  // right side present in one only

  Batch full;
  full.left = b.left;
  full.right = DesignSide::make_all(3);
  full.y = Vector::Zero(18);
  CHECK(full.instances() == 6);
  CHECK(full.size() == 18);
  CHECK_THROWS_AS(full.slice(0, 2), std::logic_error);
  CHECK_THROWS_AS(rebuilt.append(full), std::invalid_argument);  // full observation joins only its kind
}

TEST_CASE("full-observation batches append instances with label-major responses", "[batch]") {
  // y(i + n·j) is instance i's response to label j: appending interleaves per label.
  Rng rng(6);
  const Index labels = 3;
  auto full_batch = [&](Index n, double first_value) {
    Batch b;
    b.left = DesignSide::make_dense(gaussian(rng, 4, n));
    b.right = DesignSide::make_all(labels, 2.0);
    b.y = Vector::LinSpaced(n * labels, first_value, first_value + static_cast<double>(n * labels - 1));
    return b;
  };
  const Batch a = full_batch(2, 0.0), b = full_batch(3, 100.0);
  Batch joined;
  joined.append(a);
  joined.append(b);
  REQUIRE(joined.instances() == 5);
  REQUIRE(joined.size() == 15);
  for (Index j = 0; j < labels; ++j) {
    for (Index i = 0; i < 2; ++i) CHECK(joined.y(i + 5 * j) == a.y(i + 2 * j));
    for (Index i = 0; i < 3; ++i) CHECK(joined.y(2 + i + 5 * j) == b.y(i + 3 * j));
  }
  CHECK(max_diff(joined.left.dense.leftCols(2), a.left.dense) == 0.0);
  CHECK(max_diff(joined.left.dense.rightCols(3), b.left.dense) == 0.0);
  CHECK(joined.right->kind == DesignSide::Kind::all);
  CHECK(joined.right->scale == 2.0);

  Batch other_labels = full_batch(2, 0.0);
  other_labels.right = DesignSide::make_all(labels + 1, 2.0);
  other_labels.y = Vector::Zero(2 * (labels + 1));
  CHECK_THROWS_AS(joined.append(other_labels), std::invalid_argument);
}

TEST_CASE("design sides reject misuse", "[batch][errors]") {
  Rng rng(6);
  const DesignSide all = DesignSide::make_all(4);
  CHECK(all.count() == 0);
  CHECK_THROWS_AS(all.project(Matrix::Ones(4, 1)), std::logic_error);
  CHECK_THROWS_AS(all.accumulate(Matrix::Ones(0, 1)), std::logic_error);
  CHECK_THROWS_AS(all.to_dense(), std::logic_error);
  CHECK_THROWS_AS(all.slice(0, 0), std::logic_error);

  const DesignSide dense = DesignSide::make_dense(gaussian(rng, 4, 3));
  CHECK_THROWS_AS(dense.project(Matrix::Ones(5, 1)), std::invalid_argument);
  CHECK_THROWS_AS(dense.accumulate(Matrix::Ones(2, 1)), std::invalid_argument);
  CHECK_THROWS_AS(dense.slice(2, 2), std::out_of_range);

  IndexVector bad(2);
  bad << 1, 4;
  CHECK_THROWS_AS(DesignSide::make_index(4, bad), std::out_of_range);

  DesignSide other_dim = DesignSide::make_dense(gaussian(rng, 5, 2));
  DesignSide copy = dense;
  CHECK_THROWS_WITH(copy.append(other_dim),
                    Catch::Matchers::Contains("dense designs of dimension 5 to dense designs of dimension 4"));
  IndexVector ok(2);
  ok << 1, 3;
  DesignSide scaled = DesignSide::make_index(4, ok, 2.0);
  CHECK_THROWS_AS(scaled.append(DesignSide::make_index(4, ok, 1.0)), std::invalid_argument);
}

TEST_CASE("matrix designs: count, slice and append keep whole design matrices", "[batch]") {
  Matrix blocks(3, 4 * 2);  // four 3 × 2 design matrices
  for (Index j = 0; j < blocks.cols(); ++j)
    for (Index i = 0; i < 3; ++i) blocks(i, j) = 10.0 * static_cast<double>(j) + static_cast<double>(i);
  Batch b;
  b.left = DesignSide::make_matrix(2, blocks);
  b.y = Vector::LinSpaced(4, 0.0, 3.0);
  CHECK(b.left.count() == 4);
  CHECK(b.instances() == 4);
  CHECK(b.d2() == 2);
  CHECK(kind_name(b.left.kind) == "matrix");
  const Batch middle = b.slice(1, 2);
  CHECK(middle.left.cols == 2);
  CHECK(middle.left.dense == blocks.middleCols(2, 4));
  Batch joined = b.slice(0, 1);
  joined.append(b.slice(1, 3));
  CHECK(joined.left.dense == blocks);
  CHECK(joined.y == b.y);
  DesignSide other = DesignSide::make_matrix(4, Matrix::Zero(3, 8));  // two 3 × 4 matrices: another shape
  CHECK_THROWS_AS(b.left.append(other), std::invalid_argument);
  CHECK_THROWS_AS(DesignSide::make_matrix(3, blocks), std::invalid_argument);  // 8 columns are not whole 3-column designs
  CHECK_THROWS_AS(b.left.project(Matrix::Zero(3, 1)), std::logic_error);
  CHECK_THROWS_AS(b.left.to_dense(), std::logic_error);
}
