// The planted truth of the `synthetic` source: rank, spectrum, signs and structure.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

#include "test_support.hpp"

using namespace rankone;

namespace {

std::unique_ptr<DataSource> opened_truth(Json params, std::uint64_t seed = 11) {
  params["name"] = "synthetic";
  auto source = test::make<DataSource>(params, Kind::data_source);
  source->open(seed);
  return source;
}

/// Eigenvalues of a symmetric matrix ordered by decreasing |value|.
Vector eigenvalues_by_magnitude(const Matrix& M) {
  Vector v = Eigen::SelfAdjointEigenSolver<Matrix>(M).eigenvalues();
  std::sort(v.data(), v.data() + v.size(), [](double a, double b) { return std::abs(a) > std::abs(b); });
  return v;
}

Vector singular_values(const Matrix& M) { return Eigen::BDCSVD<Matrix>(M).singularValues(); }

/// Sample standard deviation of all entries (mean known to be zero).
double entry_std(const Matrix& M) { return std::sqrt(M.squaredNorm() / static_cast<double>(M.size())); }

}  // namespace

TEST_CASE("symmetric truth: geometric spectrum with mixed, positive and negative signs", "[synthetic][truth]") {
  // scale 4, condition number 4, rank 3: |λ| = 4, 4·4^(−½) = 2, 1.
  for (const char* signs : {"mixed", "positive", "negative"}) {
    CAPTURE(signs);
    const auto s = opened_truth({{"d", 20}, {"rank", 3}, {"scale", 4.0}, {"condition_number", 4.0}, {"signs", signs}});
    const GroundTruth& t = *s->truth();
    REQUIRE(t.rank() == 3);
    const Matrix M = t.dense();
    CHECK((M - M.transpose()).norm() < 1e-12);
    const Vector lambda = eigenvalues_by_magnitude(M);
    Vector expected(3);
    if (std::string(signs) == "mixed") expected << 4.0, -2.0, 1.0;
    if (std::string(signs) == "positive") expected << 4.0, 2.0, 1.0;
    if (std::string(signs) == "negative") expected << -4.0, -2.0, -1.0;
    CHECK((lambda.head(3) - expected).norm() < 1e-12);
    CHECK(lambda.tail(17).norm() < 1e-12);
    // U is orthonormal: the left factor is U itself.
    CHECK((t.left.transpose() * t.left - Matrix::Identity(3, 3)).norm() < 1e-12);
  }
}

TEST_CASE("psd truth has positive eigenvalues whatever `signs` says", "[synthetic][truth]") {
  const auto s = opened_truth({{"d", 15}, {"rank", 3}, {"truth", "psd"}, {"condition_number", 100.0}, {"signs", "negative"}});
  const Vector lambda = eigenvalues_by_magnitude(s->truth()->dense());
  Vector expected(3);
  expected << 1.0, 0.1, 0.01;
  CHECK((lambda.head(3) - expected).norm() < 1e-12);
}

TEST_CASE("explicit eigenvalues and a tail beyond the rank", "[synthetic][truth]") {
  const auto s = opened_truth({{"d", 12},
                         {"rank", 3},
                         {"eigenvalues", {5.0, -1.0, 0.5}},
                         {"tail", {0.1, -0.05}}});
  const GroundTruth& t = *s->truth();
  CHECK(t.rank() == 5);
  const Vector lambda = eigenvalues_by_magnitude(t.dense());
  Vector expected(5);
  expected << 5.0, -1.0, 0.5, 0.1, -0.05;
  CHECK((lambda.head(5) - expected).norm() < 1e-12);
  CHECK(lambda.tail(7).norm() < 1e-12);
}

TEST_CASE("fm truth: UU' − D(UU') with Gaussian factors of std 1/sqrt(d)", "[synthetic][truth]") {
  const Index d = 200, k = 5;
  const auto s = opened_truth({{"d", d}, {"rank", k}, {"truth", "fm"}});
  const GroundTruth& t = *s->truth();
  REQUIRE(t.rank() == k);
  CHECK(t.zero_diagonal);
  Matrix expected = t.left * t.left.transpose();
  expected.diagonal().setZero();
  CHECK((t.dense() - expected).norm() < 1e-12);
  CHECK(t.right == t.left);
  // 1000 entries: the sample std has relative standard error 1/sqrt(2·1000) ≈ 2.2%; allow 3 of them.
  const double sigma = 1.0 / std::sqrt(double(d));
  CHECK(std::abs(entry_std(t.left) - sigma) < 3.0 * sigma / std::sqrt(2.0 * d * k));

  const auto wide = opened_truth({{"d", d}, {"rank", k}, {"truth", "fm"}, {"factor_std", 0.5}});
  CHECK(std::abs(entry_std(wide->truth()->left) - 0.5) < 3.0 * 0.5 / std::sqrt(2.0 * d * k));
}

TEST_CASE("zero_diagonal truth: UV' − D(UV'), not symmetric", "[synthetic][truth]") {
  const auto s = opened_truth({{"d", 10}, {"rank", 2}, {"truth", "zero_diagonal"}});
  const GroundTruth& t = *s->truth();
  const Matrix M = t.dense();
  CHECK(M.diagonal().norm() == 0.0);
  Matrix expected = t.left * t.right.transpose();
  expected.diagonal().setZero();
  CHECK((M - expected).norm() < 1e-12);
  CHECK((M - M.transpose()).norm() > 0.1);
}

TEST_CASE("general truth: d1 × d2 with the requested singular values", "[synthetic][truth]") {
  // scale 3, condition number 9, rank 3: σ = 3, 1, 1/3.
  const auto s = opened_truth({{"operator", "asymmetric_rank_one"},
                         {"d", 12},
                         {"d2", 8},
                         {"rank", 3},
                         {"truth", "general"},
                         {"scale", 3.0},
                         {"condition_number", 9.0}});
  const Matrix M = s->truth()->dense();
  REQUIRE(M.rows() == 12);
  REQUIRE(M.cols() == 8);
  const Vector sigma = singular_values(M);
  CHECK(sigma(0) == Approx(3.0));
  CHECK(sigma(1) == Approx(1.0));
  CHECK(sigma(2) == Approx(1.0 / 3.0));
  CHECK(sigma(3) < 1e-12);
}

TEST_CASE("unit_columns truth: rank k with unit-norm columns (the one-bit model)", "[synthetic][truth]") {
  const auto s = opened_truth({{"operator", "single_label"}, {"d", 30}, {"d2", 10}, {"rank", 3}, {"truth", "unit_columns"},
                         {"condition_number", 5.0}});
  const Matrix W = s->truth()->dense();
  REQUIRE(W.cols() == 10);
  CHECK((W.colwise().norm().transpose() - Vector::Ones(10)).norm() < 1e-12);
  const Vector sigma = singular_values(W);
  CHECK(sigma(2) > 1e-3);
  CHECK(sigma(3) < 1e-12);
}

TEST_CASE("truth_sign −1 negates M* and nothing else", "[synthetic][truth]") {
  const Json params = {{"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
                       {"d", 10}, {"rank", 2}, {"truth", "fm"}, {"w_norm", 1.0}};
  Json flipped = params;
  flipped["truth_sign"] = -1;
  const auto a = opened_truth(params);
  const auto b = opened_truth(flipped);
  CHECK((a->truth()->dense() + b->truth()->dense()).norm() < 1e-12);
  CHECK(a->truth()->w == b->truth()->w);
}

TEST_CASE("first-order truth: w_norm fixes the norm, w_std the entry spread; bias is kept", "[synthetic][truth]") {
  const Json op = {{"name", "symmetric_rank_one"}, {"first_order", true}};
  const auto by_norm = opened_truth({{"operator", op}, {"d", 50}, {"w_norm", 2.5}, {"bias", -0.7}});
  REQUIRE(by_norm->truth()->has_first_order());
  CHECK(by_norm->truth()->w.norm() == Approx(2.5));
  CHECK(by_norm->truth()->bias == -0.7);

  const Index d = 400;
  const auto by_std = opened_truth({{"operator", op}, {"d", d}, {"w_std", 0.1}});
  CHECK(std::abs(entry_std(by_std->truth()->w) - 0.1) < 3.0 * 0.1 / std::sqrt(2.0 * d));

  const auto none = opened_truth({{"d", 5}});
  CHECK_FALSE(none->truth()->has_first_order());
}
