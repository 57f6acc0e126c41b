// Dense design products split into fixed blocks of designs (rankone/linalg/blocked_products.hpp).
#include "rankone/linalg/blocked_products.hpp"

#include "rankone/core/threads.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>
#include <vector>

namespace rankone {

namespace {

Index block_count(Index n) { return (n + kDesignBlock - 1) / kDesignBlock; }

/// Designs per cache-sized slice of a block: about 2 MB of X (256 designs at d = 1000), which keeps
/// the slice in cache while Eigen packs and multiplies it. X'F on slices runs 1.7× faster than on
/// the whole 16 MB block (measured, d = 1000, 21 columns). Depends on d only, not on threads.
Index slice_size(Index d) { return std::clamp<Index>((Index{1} << 18) / std::max<Index>(d, 1), 16, kDesignBlock); }

}  // namespace

Matrix blocked_transpose_times(const Matrix& X, const Matrix& F, int threads) {
  if (F.rows() != X.rows()) {
    throw std::invalid_argument("blocked_transpose_times: F has " + std::to_string(F.rows()) +
                                " rows, X has " + std::to_string(X.rows()));
  }
  const Index n = X.cols();
  Matrix out(n, F.cols());
  // Every block writes its own rows of the result: no reduction, no ordering question.
  const Index slice = slice_size(X.rows());
  for_each_unit(block_count(n), threads, [&](Index b) {
    const Index end = std::min(n, (b + 1) * kDesignBlock);
    for (Index first = b * kDesignBlock; first < end; first += slice) {
      const Index size = std::min(slice, end - first);
      out.middleRows(first, size).noalias() = X.middleCols(first, size).transpose() * F;
    }
  });
  return out;
}

Matrix blocked_times(const Matrix& X, const Matrix& W, int threads) {
  if (W.rows() != X.cols()) {
    throw std::invalid_argument("blocked_times: W has " + std::to_string(W.rows()) + " rows, X has " +
                                std::to_string(X.cols()) + " columns");
  }
  const Index n = X.cols();
  const Index blocks = block_count(n);
  const Index slice = slice_size(X.rows());
  std::vector<Matrix> partial(blocks);
  for_each_unit(blocks, threads, [&](Index b) {
    partial[b] = Matrix::Zero(X.rows(), W.cols());
    const Index end = std::min(n, (b + 1) * kDesignBlock);
    for (Index first = b * kDesignBlock; first < end; first += slice) {  // slices in order within the block
      const Index size = std::min(slice, end - first);
      partial[b].noalias() += X.middleCols(first, size) * W.middleRows(first, size);
    }
  });
  Matrix out = Matrix::Zero(X.rows(), W.cols());
  for (const Matrix& p : partial) out += p;  // block order: the same sums whatever the thread count
  return out;
}

}  // namespace rankone
