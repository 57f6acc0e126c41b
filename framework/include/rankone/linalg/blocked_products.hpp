#pragma once
/// \file The products of a dense design matrix that matrix-free estimators spend their time in, for
/// X of d × n (one design per column, n ≫ d): P = X'F, then weights W computed row by row from P,
/// then X W — in one pass over X, split over the designs into fixed blocks and run on several threads.
///
/// One pass, because X (160 MB at d = 1 000, n = 20 000) does not fit in any cache while F and W
/// have a few dozen columns: Eigen's GEMM spends more time packing such an X than multiplying it
/// (docs/PERFORMANCE.md). Here each cache-sized slice of designs is read from memory once, for
/// both products, by register-tiled kernels that use the widest SIMD instructions of the build.
///
/// The blocks do not depend on the thread count and partial sums are added in block order, so the
/// result is bitwise the same on 1, 2 or 16 threads (RankOne's results must not depend on how a
/// study is scheduled). Within a block, every entry of X W is summed over the designs in order and
/// every entry of P is one dot product, whatever the slice or tile it falls in.
///
/// \code
///   // G = X·diag(r)·X'U: the weights of design i are r_i times its row of P = X'U.
///   const Matrix G = rankone::blocked_fused_products(X, U, U.cols(),
///       [&](Index first, const auto& P, auto& W) { W = r.segment(first, P.rows()).asDiagonal() * P; },
///       /*threads=*/2);
/// \endcode
#include <functional>

#include "rankone/core/threads.hpp"  // resolve_threads
#include "rankone/core/types.hpp"

namespace rankone {

/// Designs per block: 2 048 columns of d = 1 000 doubles are 16 MB, so a batch of 20 000 gives 10
/// blocks to share between threads.
inline constexpr Index kDesignBlock = 2048;

/// Fills W (the slice's rows of the weights, s × weight_cols) from P = X_s'F (s × F.cols()) for
/// the designs first … first + s − 1. Called once per slice, concurrently for different blocks.
using SliceWeights = std::function<void(Index first, const Eigen::Ref<const Matrix>& P, Eigen::Ref<Matrix> W)>;

/// X W (d × weight_cols) where row i of W is weights(i, x_i'F), for X (d × n) and F (d × m).
Matrix blocked_fused_products(const Matrix& X, const Matrix& F, Index weight_cols, const SliceWeights& weights,
                              int threads);

/// X'F (n × m) by the first kernel alone: entry (i, c) is the same dot product x_i'f_c as in
/// blocked_fused_products, whatever the other columns of F.
Matrix blocked_transpose_times(const Matrix& X, const Matrix& F, int threads);

/// X W (d × m) by the second kernel alone, W of n × m: the same sums as blocked_fused_products
/// with these weights.
Matrix blocked_times(const Matrix& X, const Eigen::Ref<const Matrix>& W, int threads);

}  // namespace rankone
