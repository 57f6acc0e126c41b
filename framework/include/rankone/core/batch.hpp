#pragma once
/// \file Designs and batches.
///
/// A measurement is `y_i = a_i' M b_i` (+ `a_i' w` for a first-order term), with a left design
/// `a_i ∈ R^{d1}` and a right design `b_i ∈ R^{d2}`. Each side of a batch is stored in one of five
/// shapes, so that a one-hot design is never materialised as a dense vector:
///
/// | kind    | storage                      | the i-th design                     |
/// |---------|------------------------------|-------------------------------------|
/// | dense   | `dense` (dim × n)            | column i                            |
/// | sparse  | `sparse` (dim × n, CSC)      | column i                            |
/// | index   | `index` (n)                  | `scale · e_{index(i)}`              |
/// | all     | nothing                      | every `scale · e_j`, j ∈ [dim] (full observation) |
/// | matrix  | `dense` (dim × n·cols)       | the dim × cols matrix in columns [i·cols, (i+1)·cols) |
///
/// `all` pairs each left design with every right index: the batch then has `n · dim` measurements,
/// ordered label-major (`y(i + n·j)` belongs to left design i and right index j). A `matrix` side
/// is a whole sensing matrix `A_i` per measurement (`y_i = <A_i, M>`, the Gaussian ensemble): the
/// batch has no right side, and A_i is stored contiguously, so `vec(A_i)` is one column of a
/// (dim·cols) × n view.
#include "rankone/core/types.hpp"  // first: Eigen's first inclusion is the one behind its warning fix

#include <optional>
#include <string>

#include <Eigen/SparseCore>

namespace rankone {

using SparseMatrix = Eigen::SparseMatrix<double, Eigen::ColMajor, std::int64_t>;

struct DesignSide {
  enum class Kind { dense, sparse, index, all, matrix };

  Kind kind = Kind::dense;
  Index dim = 0;          ///< dimension of the design vectors (d1 or d2); rows of a matrix design
  Index cols = 0;         ///< columns of each design matrix (d2), for Kind::matrix
  Matrix dense;           ///< dim × n, for Kind::dense; dim × n·cols, for Kind::matrix
  SparseMatrix sparse;    ///< dim × n, for Kind::sparse
  IndexVector index;      ///< n entries in [0, dim), for Kind::index
  double scale = 1.0;     ///< index and all designs are `scale · e_j`

  /// Number of design vectors held (for Kind::all: 0, it pairs with the other side).
  Index count() const;

  /// Rows `a_i' F` for every design: an n × k matrix (F is dim × k). Not for Kind::all or ::matrix.
  Matrix project(const Matrix& F) const;
  /// `Σ_i a_i W(i, :)`: a dim × k matrix (W is n × k). Not for Kind::all or ::matrix.
  Matrix accumulate(const Matrix& W) const;
  /// The designs as a dense dim × n matrix (small problems and tests only). Not for Kind::all or ::matrix.
  Matrix to_dense() const;
  /// Designs i in [first, first + n).
  DesignSide slice(Index first, Index n) const;
  /// Appends the designs of `other` (same kind and dimension).
  void append(const DesignSide& other);

  static DesignSide make_dense(Matrix x);
  static DesignSide make_index(Index dim, IndexVector index, double scale = 1.0);
  static DesignSide make_all(Index dim, double scale = 1.0);
  /// Design matrices of `cols` columns each, side by side in `blocks` (dim × n·cols).
  static DesignSide make_matrix(Index cols, Matrix blocks);
};

/// "dense", "sparse", "index", "all" or "matrix": the name messages and schemas use.
std::string kind_name(DesignSide::Kind kind);

/// A batch of measurements: designs and responses. For a symmetric operator (`x'Mx`) the right
/// side is empty and the left side serves both.
struct Batch {
  DesignSide left;
  std::optional<DesignSide> right;
  Vector y;

  /// Number of left designs (instances).
  Index instances() const { return left.count(); }
  /// Number of measurements (`y.size()`), which is instances × d2 for a Kind::all right side.
  Index size() const { return y.size(); }
  bool empty() const { return y.size() == 0; }
  const DesignSide& right_side() const { return right ? *right : left; }
  /// Columns of M the batch measures: the right designs' dimension, or a matrix design's columns.
  Index d2() const { return right ? right->dim : left.kind == DesignSide::Kind::matrix ? left.cols : left.dim; }

  Batch slice(Index first, Index n) const;  ///< instances [first, first + n); not for Kind::all
  void append(const Batch& other);          ///< concatenates instances (Kind::all: keeps y label-major)
};

}  // namespace rankone
