// Blocked dense design products (rankone/linalg/blocked_products.hpp) against Eigen's plain
// products, and bitwise independence of the thread count. Sizes straddle the block size (2 048
// designs) so that full, partial and single blocks all occur; d = 600 also splits each block into
// cache slices (436 designs).
#include <catch2/catch.hpp>

#include "rankone/core/rng.hpp"
#include "rankone/linalg/blocked_products.hpp"

using namespace rankone;

namespace {

Matrix normal_matrix(Index rows, Index cols, Rng& rng) {
  Matrix M(rows, cols);
  rng.fill_normal(M.data(), M.size());
  return M;
}

}  // namespace

TEST_CASE("blocked_transpose_times and blocked_times equal the plain products", "[linalg][blocked]") {
  Rng rng(41);
  for (const Index d : {Index{37}, Index{600}})
  for (const Index n : {Index{1}, Index{2047}, Index{2048}, Index{5000}}) {
    CAPTURE(d, n);
    const Matrix X = normal_matrix(d, n, rng);
    const Matrix F = normal_matrix(d, 5, rng);
    const Matrix W = normal_matrix(n, 4, rng);
    const Matrix P = blocked_transpose_times(X, F, 1);
    const Matrix G = blocked_times(X, W, 1);
    const Matrix P_ref = X.transpose() * F;
    const Matrix G_ref = X * W;
    // Only the summation order differs: entries of size O(√d) and O(√n), rounding O(n·ε) at most.
    CHECK((P - P_ref).cwiseAbs().maxCoeff() <= 1e-12 * (1.0 + P_ref.cwiseAbs().maxCoeff()));
    CHECK((G - G_ref).cwiseAbs().maxCoeff() <= 1e-12 * static_cast<double>(n) * (1.0 + G_ref.cwiseAbs().maxCoeff()));
  }
}

TEST_CASE("blocked products are bitwise the same on any number of threads", "[linalg][blocked][threads]") {
  Rng rng(43);
  const Index n = 3 * kDesignBlock + 17;
  const Matrix X = normal_matrix(600, n, rng);
  const Matrix F = normal_matrix(600, 3, rng);
  const Matrix W = normal_matrix(n, 3, rng);
  const Matrix P1 = blocked_transpose_times(X, F, 1);
  const Matrix G1 = blocked_times(X, W, 1);
  for (const int threads : {2, 3, 8, 0}) {
    INFO("threads = " << threads);
    CHECK(blocked_transpose_times(X, F, threads) == P1);
    CHECK(blocked_times(X, W, threads) == G1);
  }
}

TEST_CASE("blocked products reject mismatched shapes", "[linalg][blocked]") {
  const Matrix X = Matrix::Zero(4, 10);
  CHECK_THROWS_WITH(blocked_transpose_times(X, Matrix::Zero(3, 2), 1), Catch::Contains("F has 3 rows, X has 4"));
  CHECK_THROWS_WITH(blocked_times(X, Matrix::Zero(9, 2), 1), Catch::Contains("W has 9 rows, X has 10 columns"));
  CHECK(resolve_threads(3) == 3);
  CHECK(resolve_threads(0) >= 1);
}
