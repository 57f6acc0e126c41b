#pragma once
/// \file The two products of a dense design matrix that matrix-free estimators spend their time in,
/// X' F and X W for X of d × n (one design per column, n ≫ d), split over the designs into fixed
/// blocks and run on several threads.
///
/// The blocks do not depend on the thread count and partial sums are added in block order, so the
/// result is bitwise the same on 1, 2 or 16 threads (RankOne's results must not depend on how a
/// study is scheduled). `threads` ≤ 1 runs on the calling thread only.
///
/// \code
///   const Matrix P = rankone::blocked_transpose_times(X, F, /*threads=*/2);  // n × m: row i is x_i' F
///   const Matrix G = rankone::blocked_times(X, W, /*threads=*/2);            // d × m: Σ_i x_i W(i, :)
/// \endcode
#include "rankone/core/threads.hpp"  // resolve_threads
#include "rankone/core/types.hpp"

namespace rankone {

/// Designs per block: 2 048 columns of d = 1 000 doubles are 16 MB, so a block's product is one
/// large GEMM and a batch of 20 000 gives 10 blocks to share between threads.
inline constexpr Index kDesignBlock = 2048;

/// X' F (n × m) for X (d × n) and F (d × m), computed block by block of X's columns.
Matrix blocked_transpose_times(const Matrix& X, const Matrix& F, int threads);

/// X W (d × m) for X (d × n) and W (n × m): Σ over the blocks b of X_b W_b, added in block order.
Matrix blocked_times(const Matrix& X, const Matrix& W, int threads);

}  // namespace rankone
