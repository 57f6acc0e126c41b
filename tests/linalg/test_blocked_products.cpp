// The fused dense design products (rankone/linalg/blocked_products.hpp) and their two halves against
// Eigen's plain products, and bitwise independence of the thread count. Sizes straddle the block size (2 048
// designs) so that full, partial and single blocks occur; d = 37 and 1 001 leave rows past the last
// whole SIMD packet, d = 600 splits each block into slices of 108 designs, and the column counts
// (1, 5, 7, 13) exercise every tile width.
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

/// X W(X'F) with weights W = [diag(r) P, P²]: both P and the weights of every design matter.
Matrix fused(const Matrix& X, const Matrix& F, const Vector& r, int threads, Matrix* P_seen = nullptr) {
  const Index m = F.cols();
  return blocked_fused_products(
      X, F, 2 * m,
      [&](Index first, const Eigen::Ref<const Matrix>& P, Eigen::Ref<Matrix> W) {
        if (P_seen) P_seen->middleRows(first, P.rows()) = P;
        W.leftCols(m) = r.segment(first, P.rows()).asDiagonal() * P;
        W.rightCols(m) = P.array().square().matrix();
      },
      threads);
}

}  // namespace

TEST_CASE("blocked_fused_products equals the plain products", "[linalg][blocked]") {
  Rng rng(41);
  for (const Index d : {Index{1}, Index{37}, Index{600}, Index{1001}})
    for (const Index n : {Index{1}, Index{7}, Index{2047}, Index{2048}, Index{5000}})
      for (const Index m : {Index{1}, Index{5}, Index{7}, Index{13}}) {
        if (d * n > 3'000'000) continue;
        CAPTURE(d, n, m);
        const Matrix X = normal_matrix(d, n, rng);
        const Matrix F = normal_matrix(d, m, rng);
        const Vector r = normal_matrix(n, 1, rng);
        Matrix P(n, m);
        const Matrix G = fused(X, F, r, 1, &P);
        const Matrix P_ref = X.transpose() * F;
        Matrix W_ref(n, 2 * m);
        W_ref.leftCols(m) = r.asDiagonal() * P_ref;
        W_ref.rightCols(m) = P_ref.array().square().matrix();
        const Matrix G_ref = X * W_ref;
        // Only the summation order differs: P's entries are O(√d) with rounding O(d·ε); G's sums
        // of n terms of size O(d) round by O(n·d·ε) at most.
        CHECK((P - P_ref).cwiseAbs().maxCoeff() <=
              1e-13 * static_cast<double>(d) * (1.0 + P_ref.cwiseAbs().maxCoeff()));
        CHECK((G - G_ref).cwiseAbs().maxCoeff() <=
              1e-13 * static_cast<double>(n * d) * (1.0 + W_ref.cwiseAbs().maxCoeff()));
      }
}

TEST_CASE("blocked_fused_products sums each entry of X W over the designs in order", "[linalg][blocked]") {
  // Bitwise agreement with a plain loop over the designs (fused where the build has FMA) shows the
  // order: each entry is summed left to right, in whole packets and past them alike.
  Rng rng(42);
  // Rows in the widest tile (4 packets of 8 on AVX-512, 2 of 4 on AVX2), in single packets and past them;
  // 8 weight columns in two groups of 4.
  const Index d = 75;
  const Index n = 300;
  const Index m = 4;
  const Matrix X = normal_matrix(d, n, rng);
  const Matrix F = normal_matrix(d, m, rng);
  const Vector r = normal_matrix(n, 1, rng);
  Matrix P(n, m);
  const Matrix G = fused(X, F, r, 1, &P);
  Matrix W(n, 2 * m);
  W.leftCols(m) = r.asDiagonal() * P;
  W.rightCols(m) = P.array().square().matrix();
  Matrix G_loop = Matrix::Zero(d, 2 * m);
  for (Index i = 0; i < n; ++i)
    for (Index c = 0; c < 2 * m; ++c)
      for (Index j = 0; j < d; ++j) {
#ifdef __FMA__
        G_loop(j, c) = std::fma(X(j, i), W(i, c), G_loop(j, c));
#else
        G_loop(j, c) = X(j, i) * W(i, c) + G_loop(j, c);
#endif
      }
  CHECK(G == G_loop);
}

TEST_CASE("blocked_fused_products is bitwise the same on any number of threads", "[linalg][blocked][threads]") {
  Rng rng(43);
  const Index n = 3 * kDesignBlock + 17;
  const Matrix X = normal_matrix(600, n, rng);
  const Matrix F = normal_matrix(600, 3, rng);
  const Vector r = normal_matrix(n, 1, rng);
  Matrix P1(n, 3);
  const Matrix G1 = fused(X, F, r, 1, &P1);
  for (const int threads : {2, 3, 8, 0}) {
    INFO("threads = " << threads);
    Matrix P(n, 3);
    CHECK(fused(X, F, r, threads, &P) == G1);
    CHECK(P == P1);
  }
}

TEST_CASE("blocked_transpose_times and blocked_times are the fused products' two halves", "[linalg][blocked]") {
  // Each P entry is one dot product whatever F's other columns (so an operator may project onto [L R] at
  // once), and X W alone sums exactly as the fused pass with the same weights.
  Rng rng(44);
  for (const Index d : {Index{37}, Index{600}})
    for (const Index n : {Index{7}, Index{2048 + 300}}) {
      CAPTURE(d, n);
      const Matrix X = normal_matrix(d, n, rng);
      const Matrix F = normal_matrix(d, 7, rng);
      const Vector r = normal_matrix(n, 1, rng);
      const Matrix P = blocked_transpose_times(X, F, 1);
      CHECK((P - X.transpose() * F).cwiseAbs().maxCoeff() <= 1e-12 * static_cast<double>(d));
      for (Index c = 0; c < F.cols(); ++c) CHECK(blocked_transpose_times(X, F.col(c), 1) == P.col(c));
      CHECK(blocked_transpose_times(X, F.rightCols(4), 2) == P.rightCols(4));
      // Nor on where a design falls: without the first design, every other moves between the design tiles
      // and the single designs past the last whole tile.
      if (n > 1) CHECK(blocked_transpose_times(X.rightCols(n - 1), F, 1) == P.bottomRows(n - 1));
      Matrix P_fused(n, 7);
      const Matrix G = fused(X, F, r, 1, &P_fused);
      CHECK(P_fused == P);
      Matrix W(n, 14);
      W.leftCols(7) = r.asDiagonal() * P;
      W.rightCols(7) = P.array().square().matrix();
      CHECK(blocked_times(X, W, 1) == G);
      CHECK(blocked_times(X, W, 3) == G);
    }
}

TEST_CASE("blocked products reject mismatched shapes", "[linalg][blocked]") {
  const Matrix X = Matrix::Zero(4, 10);
  const auto none = [](Index, const Eigen::Ref<const Matrix>&, Eigen::Ref<Matrix>) {};
  CHECK_THROWS_WITH(blocked_fused_products(X, Matrix::Zero(3, 2), 1, none, 1),
                    Catch::Contains("F has 3 rows, X has 4"));
  CHECK_THROWS_WITH(blocked_times(X, Matrix::Zero(9, 2), 1), Catch::Contains("W has 9 rows, X has 10 columns"));
  CHECK(resolve_threads(3) == 3);
  CHECK(resolve_threads(0) >= 1);
}
