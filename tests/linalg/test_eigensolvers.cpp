// Top-k eigensolvers against Eigen's dense solvers, on matrices with planted spectra.
// Both paths are exercised: d = 300 (above the default dense_below = 200: Spectra's Lanczos) and
// d = 50 (dense). Tolerances: values to 1e-8 relative, residuals ‖AU − UΛ‖∞ ≤ 1e-8·|λ1|, which the
// solver's own stopping rule (Ritz residuals ≤ 1e-10 · |θ_i|) implies with margin.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "rankone/linalg/eigensolvers.hpp"

#include <Eigen/SVD>  // after RankOne's headers: Eigen first comes through rankone/core/types.hpp

using namespace rankone;

namespace {

/// Q diag(spectrum) Q' with a Haar-like random orthonormal Q.
Matrix planted_symmetric(const Vector& spectrum, Rng& rng) {
  const Index d = spectrum.size();
  Matrix G(d, d);
  rng.fill_normal(G.data(), G.size());
  const Matrix Q = orthonormalize(G);
  return Q * spectrum.asDiagonal() * Q.transpose();
}

/// Top-k eigenvalues of A by decreasing magnitude, from the dense reference solver.
Vector reference_top_k(const Matrix& A, Index k) {
  const Eigen::SelfAdjointEigenSolver<Matrix> es(A);
  std::vector<double> values(es.eigenvalues().data(), es.eigenvalues().data() + A.rows());
  std::stable_sort(values.begin(), values.end(), [](double a, double b) { return std::abs(a) > std::abs(b); });
  return Eigen::Map<const Vector>(values.data(), k);
}

LinearMap counting_map(const Matrix& A, Index& columns_applied) {
  return [&A, &columns_applied](const Matrix& X) {
    columns_applied += X.cols();
    return Matrix(A * X);
  };
}

double max_relative_error(const Vector& got, const Vector& want) {
  return ((got - want).array().abs() / want.array().abs()).maxCoeff();
}

/// Checks the eigen result against the dense reference: values, residuals and orthonormality.
void check_eigen(const Matrix& A, const EigenResult& r, Index k) {
  REQUIRE(r.converged);
  REQUIRE(r.values.size() == k);
  REQUIRE(r.vectors.rows() == A.rows());
  REQUIRE(r.vectors.cols() == k);
  const Vector want = reference_top_k(A, k);
  // Compare magnitudes first (ordering), then signs where |λ| is not tied with another value.
  CHECK(max_relative_error(r.values.cwiseAbs(), want.cwiseAbs()) < 1e-8);
  const double lambda1 = std::abs(want(0));
  const double residual = (A * r.vectors - r.vectors * r.values.asDiagonal()).cwiseAbs().maxCoeff();
  CHECK(residual <= 1e-8 * lambda1);
  CHECK((r.vectors.transpose() * r.vectors - Matrix::Identity(k, k)).cwiseAbs().maxCoeff() < 1e-12);
}

}  // namespace

TEST_CASE("top_k_symmetric: planted mixed-sign spectrum — iterative path (d = 300)", "[linalg][eigen]") {
  Rng rng(101);
  const Index d = 300;
  const Index k = 5;
  // Five planted eigenvalues of both signs above a bulk of small ones (|λ| ≤ 0.5).
  Vector spectrum(d);
  spectrum.head(k) << 10.0, -7.0, 5.0, -3.0, 2.0;
  for (Index i = k; i < d; ++i) spectrum(i) = 0.5 * (2.0 * rng.uniform() - 1.0);
  const Matrix A = planted_symmetric(spectrum, rng);

  Index applied = 0;
  const EigenResult r = top_k_symmetric(counting_map(A, applied), d, k, rng);
  check_eigen(A, r, k);
  CHECK(max_relative_error(r.values, spectrum.head(k)) < 1e-8);  // signs too
  CHECK(r.iterations > 0);        // the Lanczos path ran, not the dense one
  CHECK(applied < d);             // and cost less than forming A
  CHECK(applied == r.products);   // one column per product, as counted
}

TEST_CASE("top_k_symmetric: more pairs than the rank — the exact zeros count as converged", "[linalg][eigen]") {
  // Spectra's per-value test (residual ≤ tol·|θ_i|) can never accept θ = 0 computed in rounding;
  // the relative-to-|θ_1| test the solver falls back to does.
  Rng rng(515);
  const Index d = 300;
  Vector spectrum = Vector::Zero(d);
  spectrum.head(2) << 4.0, -3.0;
  const Matrix A = planted_symmetric(spectrum, rng);
  Index applied = 0;
  EigenOptions opts;
  opts.max_iterations = 20;
  const EigenResult r = top_k_symmetric(counting_map(A, applied), d, 4, rng, opts);
  REQUIRE(r.converged);
  CHECK(std::abs(r.values(0) - 4.0) < 1e-10);
  CHECK(std::abs(r.values(1) + 3.0) < 1e-10);
  CHECK(r.values.tail(2).cwiseAbs().maxCoeff() < 1e-9);
  CHECK((A * r.vectors - r.vectors * r.values.asDiagonal()).cwiseAbs().maxCoeff() < 1e-9);
  CHECK((r.vectors.transpose() * r.vectors - Matrix::Identity(4, 4)).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("top_k_symmetric: dense path (d = 50) matches SelfAdjointEigenSolver", "[linalg][eigen]") {
  Rng rng(202);
  const Index d = 50;
  const Index k = 4;
  Vector spectrum(d);
  spectrum.head(k) << -6.0, 4.0, -2.5, 1.5;
  for (Index i = k; i < d; ++i) spectrum(i) = 0.3 * (2.0 * rng.uniform() - 1.0);
  const Matrix A = planted_symmetric(spectrum, rng);

  Index applied = 0;
  const EigenResult r = top_k_symmetric(counting_map(A, applied), d, k, rng);
  check_eigen(A, r, k);
  CHECK(max_relative_error(r.values, spectrum.head(k)) < 1e-8);
  CHECK(r.iterations == 0);
  CHECK(applied == d);  // one product with the identity
}

TEST_CASE("top_k_symmetric: ±λ pairs inside the top k", "[linalg][eigen]") {
  Rng rng(303);
  const Index d = 300;
  Vector spectrum(d);
  spectrum.head(4) << 8.0, -8.0, 3.0, -3.0;
  for (Index i = 4; i < d; ++i) spectrum(i) = 0.5 * (2.0 * rng.uniform() - 1.0);
  const Matrix A = planted_symmetric(spectrum, rng);
  Index applied = 0;

  SECTION("k = 4 takes both members of each pair") {
    const EigenResult r = top_k_symmetric(counting_map(A, applied), d, 4, rng);
    check_eigen(A, r, 4);
    CHECK(r.iterations > 0);
    CHECK(std::abs(r.values(0) + r.values(1)) < 1e-8 * 8.0);
    CHECK(std::abs(r.values(2) + r.values(3)) < 1e-8 * 8.0);
  }
  SECTION("k = 3 cuts a pair: either member is a valid third eigenpair") {
    const EigenResult r = top_k_symmetric(counting_map(A, applied), d, 3, rng);
    check_eigen(A, r, 3);
    CHECK(std::abs(std::abs(r.values(2)) - 3.0) < 1e-8 * 8.0);
  }
}

TEST_CASE("top_k_symmetric: exactly low-rank operator (rank < block size)", "[linalg][eigen]") {
  // The Krylov basis is rank-deficient here; Householder QR must still keep it orthonormal.
  Rng rng(404);
  const Index d = 300;
  Vector spectrum = Vector::Zero(d);
  spectrum.head(2) << 1.0, -0.5;
  const Matrix A = planted_symmetric(spectrum, rng);
  Index applied = 0;
  const EigenResult r = top_k_symmetric(counting_map(A, applied), d, 2, rng);
  check_eigen(A, r, 2);
  CHECK(max_relative_error(r.values, spectrum.head(2)) < 1e-8);
}

TEST_CASE("top_k_symmetric: the same seed gives the same answer", "[linalg][eigen]") {
  Rng rng(505);
  const Index d = 300;
  Vector spectrum(d);
  for (Index i = 0; i < d; ++i) spectrum(i) = std::pow(0.9, static_cast<double>(i)) * (i % 2 ? -1.0 : 1.0);
  const Matrix A = planted_symmetric(spectrum, rng);
  Index applied = 0;
  Rng a(9), b(9);
  const EigenResult ra = top_k_symmetric(counting_map(A, applied), d, 3, a);
  const EigenResult rb = top_k_symmetric(counting_map(A, applied), d, 3, b);
  check_eigen(A, ra, 3);
  CHECK(ra.values == rb.values);
  CHECK(ra.vectors == rb.vectors);
}

TEST_CASE("top_k_symmetric: an exhausted budget is reported and not thrown", "[linalg][eigen]") {
  Rng rng(606);
  const Index d = 300;
  Matrix G(d, d);
  rng.fill_normal(G.data(), G.size());
  const Matrix A = (G + G.transpose()) / std::sqrt(2.0 * d);  // GOE: no gap at the edge
  Index applied = 0;
  EigenOptions opts;
  opts.max_iterations = 2;
  const EigenResult r = top_k_symmetric(counting_map(A, applied), d, 3, rng, opts);
  CHECK_FALSE(r.converged);
  CHECK(r.iterations == 3);  // Spectra counts the first factorisation and the two restarts
  CHECK(r.values.size() == 3);
}

TEST_CASE("top_k_symmetric: bad requests throw", "[linalg][eigen]") {
  Rng rng(1);
  const LinearMap identity = [](const Matrix& X) { return X; };
  CHECK_THROWS_AS(top_k_symmetric(identity, 10, 0, rng), std::invalid_argument);
  CHECK_THROWS_AS(top_k_symmetric(identity, 10, 11, rng), std::invalid_argument);
  const LinearMap wrong_shape = [](const Matrix& X) { return Matrix(X.topRows(1)); };
  CHECK_THROWS_AS(top_k_symmetric(wrong_shape, 10, 2, rng), std::invalid_argument);
}

TEST_CASE("top_k_singular: 400 × 300 low rank plus small noise — against BDCSVD", "[linalg][svd]") {
  Rng rng(707);
  const Index d1 = 400, d2 = 300, r = 5;
  Matrix L(d1, r), R(d2, r), N(d1, d2);
  rng.fill_normal(L.data(), L.size());
  rng.fill_normal(R.data(), R.size());
  rng.fill_normal(N.data(), N.size());
  const Matrix A = 10.0 * L * R.transpose() / std::sqrt(static_cast<double>(d1 * d2)) + 1e-3 * N / std::sqrt(400.0);
  const Eigen::BDCSVD<Matrix> reference(A, Eigen::ComputeThinU | Eigen::ComputeThinV);

  Index applied = 0;
  const LinearMap times = counting_map(A, applied);
  const Matrix At = A.transpose();
  const LinearMap transpose_times = counting_map(At, applied);
  for (const Index k : {Index{3}, Index{5}}) {
    CAPTURE(k);
    const SvdResult s = top_k_singular(times, transpose_times, d1, d2, k, rng);
    REQUIRE(s.converged);
    CHECK(s.iterations > 0);
    const Vector want = reference.singularValues().head(k);
    CHECK(max_relative_error(s.values, want) < 1e-8);
    const double sigma1 = want(0);
    CHECK((A * s.right - s.left * s.values.asDiagonal()).cwiseAbs().maxCoeff() <= 1e-8 * sigma1);
    CHECK((At * s.left - s.right * s.values.asDiagonal()).cwiseAbs().maxCoeff() <= 1e-8 * sigma1);
    CHECK((s.left.transpose() * s.left - Matrix::Identity(k, k)).cwiseAbs().maxCoeff() < 1e-12);
    CHECK((s.right.transpose() * s.right - Matrix::Identity(k, k)).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("top_k_singular: dense path when the smaller dimension is small", "[linalg][svd]") {
  Rng rng(808);
  const Index d1 = 60, d2 = 500;  // wide: formed through A' (60 columns), not A (500)
  Matrix A(d1, d2);
  rng.fill_normal(A.data(), A.size());
  const Matrix At = A.transpose();
  Index applied_a = 0, applied_at = 0;
  const SvdResult s = top_k_singular(counting_map(A, applied_a), counting_map(At, applied_at), d1, d2, 4, rng);
  REQUIRE(s.converged);
  CHECK(s.iterations == 0);
  CHECK(applied_a == 0);
  CHECK(applied_at == d1);
  const Eigen::BDCSVD<Matrix> reference(A);
  CHECK(max_relative_error(s.values, reference.singularValues().head(4)) < 1e-10);
  CHECK((A * s.right - s.left * s.values.asDiagonal()).cwiseAbs().maxCoeff() <= 1e-10 * s.values(0));
}

TEST_CASE("orthonormalize: QᵀQ = I and Q spans X with diag(R) ≥ 0", "[linalg][qr]") {
  Rng rng(909);
  const Index d = 40, k = 6;
  Matrix X(d, k);
  rng.fill_normal(X.data(), X.size());
  const Matrix Q = orthonormalize(X);
  REQUIRE(Q.rows() == d);
  REQUIRE(Q.cols() == k);
  CHECK((Q.transpose() * Q - Matrix::Identity(k, k)).cwiseAbs().maxCoeff() < 1e-13);
  CHECK((Q * (Q.transpose() * X) - X).cwiseAbs().maxCoeff() < 1e-12 * X.cwiseAbs().maxCoeff());
  // R = Q'X is upper triangular with a non-negative diagonal (the sign convention).
  const Matrix R = Q.transpose() * X;
  CHECK(R.triangularView<Eigen::StrictlyLower>().toDenseMatrix().cwiseAbs().maxCoeff() < 1e-12);
  CHECK(R.diagonal().minCoeff() > 0);
  // Idempotent: an orthonormal input comes back unchanged.
  CHECK((orthonormalize(Q) - Q).cwiseAbs().maxCoeff() < 1e-13);
  CHECK_THROWS_AS(orthonormalize(Matrix::Ones(3, 4)), std::invalid_argument);
}
