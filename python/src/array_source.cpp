#include "array_source.hpp"

#include <algorithm>
#include <vector>

#include "rankone/core/errors.hpp"

namespace rankone::python {

namespace {

template <class I>
DesignSide sparse_rows(const FeatureArrays& x, std::int64_t first, std::int64_t count) {
  const auto* indptr = static_cast<const I*>(x.indptr);
  const auto* indices = static_cast<const I*>(x.indices);
  // CSR rows are the columns of the d × n design: its CSC form, copied for the batch's slice.
  SparseMatrix m(x.d, count);
  const std::int64_t begin = indptr[first], end = indptr[first + count];
  m.resizeNonZeros(end - begin);
  for (std::int64_t i = 0; i <= count; ++i) m.outerIndexPtr()[i] = static_cast<std::int64_t>(indptr[first + i]) - begin;
  for (std::int64_t k = begin; k < end; ++k) {
    m.innerIndexPtr()[k - begin] = static_cast<std::int64_t>(indices[k]);
    m.valuePtr()[k - begin] = x.values[k];
  }
  DesignSide side;
  side.kind = DesignSide::Kind::sparse;
  side.dim = x.d;
  side.sparse = std::move(m);
  return side;
}

}  // namespace

DesignSide feature_rows(const FeatureArrays& x, std::int64_t first, std::int64_t count) {
  if (!x.dense()) return x.wide_indices ? sparse_rows<std::int64_t>(x, first, count) : sparse_rows<std::int32_t>(x, first, count);
  // Row-major n × d rows are the column-major d × n design: one copy of the slice, as a file's batch.
  return DesignSide::make_dense(Eigen::Map<const Matrix>(x.values + first * x.d, x.d, count));
}

ArraySource::ArraySource(FeatureArrays x, const double* y, std::unique_ptr<SensingOperator> op)
    : features_(x), y_(y), op_(std::move(op)), n_(x.n) {}

ArraySource::ArraySource(EntryArrays entries, const double* y, std::unique_ptr<SensingOperator> op)
    : entries_(entries), y_(y), op_(std::move(op)), n_(entries.n) {}

ArraySource::ArraySource(FeatureArrays x, const double* labels, Index classes, std::unique_ptr<SensingOperator> op)
    : features_(x), y_(labels), classes_(classes), op_(std::move(op)), n_(x.n) {}

void ArraySource::open(std::uint64_t) { position_ = 0; }

ProblemShape ArraySource::shape() const {
  if (entries_) return {entries_->d1, entries_->d2, false};
  return {features_->d, classes_ > 0 ? classes_ : features_->d, op_->symmetric()};
}

void check_finite(const Batch& b, Index first) {
  const bool left_ok = b.left.kind == DesignSide::Kind::sparse
                           ? Eigen::Map<const Vector>(b.left.sparse.valuePtr(), b.left.sparse.nonZeros()).allFinite()
                           : b.left.dense.allFinite();
  if (left_ok && b.y.allFinite()) return;
  const Index rows = b.left.count();
  for (Index i = 0; i < rows; ++i) {
    const bool row_ok = b.left.kind == DesignSide::Kind::sparse ? Vector(b.left.sparse.col(i)).allFinite() : b.left.dense.col(i).allFinite();
    if (!row_ok) throw DataError("Input X contains NaN or infinity (row " + std::to_string(first + i) + ")");
  }
  throw DataError("Input y contains NaN or infinity (rows " + std::to_string(first) + " to " + std::to_string(first + rows - 1) + ")");
}

Batch ArraySource::produce(Index n) {
  const Index count = std::min(n, n_ - position_);
  Batch b;
  if (classes_ > 0) {
    b.left = feature_rows(*features_, position_, count);
    b.right = DesignSide::make_all(classes_);
    // Row-major n × classes labels of the slice are its label-major y: y(i + count·j) = labels(i, j).
    b.y = Eigen::Map<const Matrix, 0, Eigen::OuterStride<>>(y_ + position_ * classes_, classes_, count,
                                                              Eigen::OuterStride<>(classes_))
              .transpose()
              .reshaped();
    check_finite(b, position_);
    position_ += count;
    return b;
  }
  b.y = Eigen::Map<const Vector>(y_ + position_, count);
  if (entries_) {
    b.left = DesignSide::make_index(entries_->d1, Eigen::Map<const IndexVector>(entries_->rows + position_, count));
    b.right = DesignSide::make_index(entries_->d2, Eigen::Map<const IndexVector>(entries_->cols + position_, count));
  } else {
    b.left = feature_rows(*features_, position_, count);
    if (!op_->symmetric()) b.right = b.left;  // u = v = x, as a file source serves one feature vector
    check_finite(b, position_);
  }
  if (entries_ && !b.y.allFinite()) throw DataError("Input y contains NaN or infinity");
  position_ += count;
  return b;
}

}  // namespace rankone::python
