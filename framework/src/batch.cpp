// Designs and batches: the products every sensing operator is built from. One-hot (index) designs
// are handled as row gathers and scatter-adds; `e_i` is never formed.
#include "rankone/core/batch.hpp"

#include <stdexcept>
#include <string>

#include "rankone/linalg/blocked_products.hpp"

namespace rankone {

std::string kind_name(DesignSide::Kind kind) {
  switch (kind) {
    case DesignSide::Kind::dense: return "dense";
    case DesignSide::Kind::sparse: return "sparse";
    case DesignSide::Kind::index: return "index";
    case DesignSide::Kind::all: return "all";
    case DesignSide::Kind::matrix: return "matrix";
  }
  return "unknown";
}

namespace {

/// Throws when an index design points outside [0, dim): a gather would read out of bounds.
void check_indices(const IndexVector& index, Index dim) {
  for (Index i = 0; i < index.size(); ++i) {
    if (index(i) < 0 || index(i) >= dim) {
      throw std::out_of_range("index design " + std::to_string(i) + " is " + std::to_string(index(i)) +
                              ", outside [0, " + std::to_string(dim) + ")");
    }
  }
}

/// Columns of `a` followed by columns of `b` (same number of rows), without a triplet round trip.
SparseMatrix concatenate_columns(const SparseMatrix& a, const SparseMatrix& b) {
  SparseMatrix out(a.rows(), a.cols() + b.cols());
  out.reserve(a.nonZeros() + b.nonZeros());
  Index column = 0;
  for (const SparseMatrix* part : {&a, &b}) {
    for (Index c = 0; c < part->cols(); ++c, ++column) {
      out.startVec(column);
      for (SparseMatrix::InnerIterator it(*part, c); it; ++it) out.insertBack(it.row(), column) = it.value();
    }
  }
  out.finalize();
  return out;
}

}  // namespace

Index DesignSide::count() const {
  switch (kind) {
    case Kind::dense: return dense.cols();
    case Kind::sparse: return sparse.cols();
    case Kind::index: return index.size();
    case Kind::all: return 0;
    case Kind::matrix: return cols > 0 ? dense.cols() / cols : 0;
  }
  return 0;
}

Matrix DesignSide::project(const Matrix& F) const {
  if (kind == Kind::all) throw std::logic_error("DesignSide::project: an 'all' design has no per-instance rows");
  if (kind == Kind::matrix) throw std::logic_error("DesignSide::project: a matrix design is not a vector");
  if (F.rows() != dim) {
    throw std::invalid_argument("DesignSide::project: factor has " + std::to_string(F.rows()) +
                                " rows, the designs have dimension " + std::to_string(dim));
  }
  Matrix out(count(), F.cols());
  switch (kind) {
    case Kind::dense: out = blocked_transpose_times(dense, F, /*threads=*/1); break;  // X is not packed
    case Kind::sparse: out.noalias() = sparse.transpose() * F; break;
    case Kind::index:
      check_indices(index, dim);
      for (Index c = 0; c < F.cols(); ++c)
        for (Index i = 0; i < index.size(); ++i) out(i, c) = scale * F(index(i), c);
      break;
    case Kind::all:
    case Kind::matrix: break;  // rejected above
  }
  return out;
}

Matrix DesignSide::accumulate(const Matrix& W) const {
  if (kind == Kind::all) throw std::logic_error("DesignSide::accumulate: an 'all' design has no per-instance rows");
  if (kind == Kind::matrix) throw std::logic_error("DesignSide::accumulate: a matrix design is not a vector");
  if (W.rows() != count()) {
    throw std::invalid_argument("DesignSide::accumulate: weights have " + std::to_string(W.rows()) +
                                " rows, there are " + std::to_string(count()) + " designs");
  }
  Matrix out(dim, W.cols());
  switch (kind) {
    case Kind::dense: out = blocked_times(dense, W, /*threads=*/1); break;
    case Kind::sparse: out.noalias() = sparse * W; break;
    case Kind::index:
      check_indices(index, dim);
      out.setZero();
      for (Index c = 0; c < W.cols(); ++c)
        for (Index i = 0; i < index.size(); ++i) out(index(i), c) += scale * W(i, c);
      break;
    case Kind::all:
    case Kind::matrix: break;  // rejected above
  }
  return out;
}

Matrix DesignSide::to_dense() const {
  switch (kind) {
    case Kind::dense: return dense;
    case Kind::sparse: return Matrix(sparse);
    case Kind::index: {
      check_indices(index, dim);
      Matrix out = Matrix::Zero(dim, index.size());
      for (Index i = 0; i < index.size(); ++i) out(index(i), i) = scale;
      return out;
    }
    case Kind::all: break;
    case Kind::matrix: throw std::logic_error("DesignSide::to_dense: a matrix design is not a vector");
  }
  throw std::logic_error("DesignSide::to_dense: an 'all' design pairs with the other side; it has no columns");
}

DesignSide DesignSide::slice(Index first, Index n) const {
  if (kind == Kind::all) throw std::logic_error("DesignSide::slice: an 'all' design has no per-instance rows");
  if (first < 0 || n < 0 || first + n > count()) {
    throw std::out_of_range("DesignSide::slice: [" + std::to_string(first) + ", " + std::to_string(first + n) +
                            ") is outside the " + std::to_string(count()) + " designs");
  }
  DesignSide out;
  out.kind = kind;
  out.dim = dim;
  out.scale = scale;
  out.cols = cols;
  switch (kind) {
    case Kind::dense: out.dense = dense.middleCols(first, n); break;
    case Kind::sparse: out.sparse = sparse.middleCols(first, n); break;
    case Kind::index: out.index = index.segment(first, n); break;
    case Kind::matrix: out.dense = dense.middleCols(first * cols, n * cols); break;
    case Kind::all: break;  // rejected above
  }
  return out;
}

void DesignSide::append(const DesignSide& other) {
  // An empty side (e.g. a default-constructed batch being filled) takes on the other's shape.
  if (kind != Kind::all && count() == 0 && (dim == 0 || dim == other.dim)) {
    *this = other;
    return;
  }
  if (other.kind != kind || other.dim != dim || other.cols != cols) {
    throw std::invalid_argument("DesignSide::append: cannot append " + kind_name(other.kind) + " designs of dimension " +
                                std::to_string(other.dim) + " to " + kind_name(kind) + " designs of dimension " +
                                std::to_string(dim));
  }
  if ((kind == Kind::index || kind == Kind::all) && other.scale != scale) {
    throw std::invalid_argument("DesignSide::append: index designs of scale " + std::to_string(other.scale) +
                                " cannot join designs of scale " + std::to_string(scale));
  }
  switch (kind) {
    case Kind::dense:
    case Kind::matrix: {
      const Index old = dense.cols();
      dense.conservativeResize(dim, old + other.dense.cols());
      dense.rightCols(other.dense.cols()) = other.dense;
      break;
    }
    case Kind::sparse: sparse = concatenate_columns(sparse, other.sparse); break;
    case Kind::index: {
      const Index old = index.size();
      index.conservativeResize(old + other.index.size());
      index.tail(other.index.size()) = other.index;
      break;
    }
    case Kind::all: break;  // nothing per instance to append
  }
}

DesignSide DesignSide::make_dense(Matrix x) {
  DesignSide d;
  d.kind = Kind::dense;
  d.dim = x.rows();
  d.dense = std::move(x);
  return d;
}

DesignSide DesignSide::make_index(Index dim, IndexVector index, double scale) {
  if (dim <= 0) throw std::invalid_argument("DesignSide::make_index: dimension must be positive");
  check_indices(index, dim);
  DesignSide d;
  d.kind = Kind::index;
  d.dim = dim;
  d.index = std::move(index);
  d.scale = scale;
  return d;
}

DesignSide DesignSide::make_matrix(Index cols, Matrix blocks) {
  if (cols <= 0 || blocks.rows() <= 0) throw std::invalid_argument("DesignSide::make_matrix: dimensions must be positive");
  if (blocks.cols() % cols != 0) {
    throw std::invalid_argument("DesignSide::make_matrix: " + std::to_string(blocks.cols()) +
                                " columns are not whole design matrices of " + std::to_string(cols) + " columns");
  }
  DesignSide d;
  d.kind = Kind::matrix;
  d.dim = blocks.rows();
  d.cols = cols;
  d.dense = std::move(blocks);
  return d;
}

DesignSide DesignSide::make_all(Index dim, double scale) {
  if (dim <= 0) throw std::invalid_argument("DesignSide::make_all: dimension must be positive");
  DesignSide d;
  d.kind = Kind::all;
  d.dim = dim;
  d.scale = scale;
  return d;
}

Batch Batch::slice(Index first, Index n) const {
  if (right && right->kind == DesignSide::Kind::all) {
    throw std::logic_error("Batch::slice: not available for a batch whose right side is 'all'");
  }
  if (y.size() != instances()) {
    throw std::logic_error("Batch::slice: the batch has " + std::to_string(y.size()) + " responses for " +
                           std::to_string(instances()) + " instances");
  }
  Batch out;
  out.left = left.slice(first, n);
  if (right) out.right = right->slice(first, n);
  out.y = y.segment(first, n);
  return out;
}

void Batch::append(const Batch& other) {
  const auto is_all = [](const std::optional<DesignSide>& side) {
    return side && side->kind == DesignSide::Kind::all;
  };
  if (instances() == 0 && y.size() == 0) {
    *this = other;
    return;
  }
  if (right.has_value() != other.right.has_value()) {
    throw std::invalid_argument("Batch::append: cannot mix batches with and without a right design side");
  }
  if (is_all(right) != is_all(other.right)) {
    throw std::invalid_argument("Batch::append: cannot mix full-observation ('all') batches with others");
  }
  if (is_all(right)) {
    // Label-major responses, y(i + n·j): the instances of label j are interleaved, not concatenated.
    const Index n1 = instances(), n2 = other.instances(), labels = right->dim;
    if (y.size() != n1 * labels || other.y.size() != n2 * other.right->dim)
      throw std::invalid_argument("Batch::append: a full-observation batch needs instances × labels responses (" +
                                  std::to_string(y.size()) + " for " + std::to_string(n1) + " × " +
                                  std::to_string(labels) + ", " + std::to_string(other.y.size()) + " for " +
                                  std::to_string(n2) + " × " + std::to_string(other.right->dim) + ")");
    right->append(*other.right);  // checks the dimension and scale; nothing per instance to copy
    Vector joined(y.size() + other.y.size());
    for (Index j = 0; j < labels; ++j) {
      joined.segment(j * (n1 + n2), n1) = y.segment(j * n1, n1);
      joined.segment(j * (n1 + n2) + n1, n2) = other.y.segment(j * n2, n2);
    }
    left.append(other.left);
    y = std::move(joined);
    return;
  }
  left.append(other.left);
  if (right) right->append(*other.right);
  const Index old = y.size();
  y.conservativeResize(old + other.y.size());
  y.tail(other.y.size()) = other.y;
}

}  // namespace rankone
