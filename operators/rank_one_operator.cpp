#include "rank_one_operator.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "rankone/linalg/blocked_products.hpp"

namespace rankone::operators {
namespace {

using Kind = DesignSide::Kind;
using ConstMatrixMap = Eigen::Map<const Matrix>;
using MatrixMap = Eigen::Map<Matrix>;

std::string kind_list(const std::vector<Kind>& kinds) {
  std::string out;
  for (Kind k : kinds) out += (out.empty() ? "" : ", ") + kind_name(k);
  return out;
}

std::string shape(Index rows, Index cols) { return std::to_string(rows) + " × " + std::to_string(cols); }

/// Entry (row, col) of the designs of one side, i.e. coordinate `row` of design `col`.
double design_entry(const DesignSide& side, Index row, Index col) {
  switch (side.kind) {
    case Kind::dense: return side.dense(row, col);
    case Kind::sparse: return side.sparse.coeff(row, col);
    case Kind::index: return side.index(col) == row ? side.scale : 0.0;
    case Kind::all:
    case Kind::matrix: break;
  }
  throw std::logic_error("design_entry: only vector designs have coordinates");
}

/// Calls `visit(j, a_ij)` for every stored coordinate j < limit of sparse or index design i.
template <class Visit>
void for_each_nonzero(const DesignSide& side, Index i, Index limit, Visit visit) {
  if (side.kind == Kind::sparse) {
    for (SparseMatrix::InnerIterator it(side.sparse, i); it; ++it)
      if (it.row() < limit) visit(it.row(), it.value());
  } else if (side.kind == Kind::index) {
    if (side.index(i) < limit) visit(Index{side.index(i)}, side.scale);
  } else {
    throw std::logic_error("for_each_nonzero: only sparse and index designs have a stored support");
  }
}

/// `Σ_{j<p} a_ij b_ij m_j` for every instance i, where p = m.size(): the part of `a_i' M b_i` that
/// comes from the diagonal of M. Walks the support of the sparser side and reads the other.
Vector diagonal_terms(const DesignSide& a, const DesignSide& b, const Vector& m) {
  const Index p = m.size();
  Vector out = Vector::Zero(a.count());
  if (a.kind == Kind::dense && b.kind == Kind::dense) {
    out.noalias() = a.dense.topRows(p).cwiseProduct(b.dense.topRows(p)).transpose() * m;
    return out;
  }
  const bool walk_a = a.kind == Kind::index || (a.kind == Kind::sparse && b.kind != Kind::index);
  const DesignSide& walk = walk_a ? a : b;
  const DesignSide& other = walk_a ? b : a;
  for (Index i = 0; i < out.size(); ++i)
    for_each_nonzero(walk, i, p, [&](Index j, double value) { out(i) += value * design_entry(other, j, i) * m(j); });
  return out;
}

/// Throws when an index design of either side points outside [0, dim): a gather or scatter would
/// read or write out of bounds.
void check_index_range(const DesignSide& a, const DesignSide& b) {
  for (const DesignSide* side : {&a, &b}) {
    if (side->index.size() > 0 && (side->index.minCoeff() < 0 || side->index.maxCoeff() >= side->dim))
      throw std::out_of_range("an index design points outside [0, " + std::to_string(side->dim) + ")");
  }
}

/// Σ_t z_t (s_to e_{to_t}) ((s_from e_{from_t})' Z) for one-hot designs on both sides (the `entry`
/// operator): a gather and a scatter fused, so no n × k temporary is formed — the matrix-completion
/// warm start applies this to 10⁶ entries per product.
/// a_i'L R'b_i for index designs (one entry (i, j) an instance) without the two n × k gathered
/// copies `project` makes: gathered and summed a chunk of instances at a time by the same Eigen
/// expression, so the values are the same bit for bit (a chunk is a multiple of every packet size,
/// so each row keeps its place in the vectorised sum).
Vector dot_gathered_rows(const DesignSide& left, const Matrix& L, const DesignSide& right, const Matrix& R, double gain) {
  constexpr Index kChunk = 256;
  check_index_range(left, right);
  const Index n = left.index.size(), k = L.cols();
  Vector y(n);
  Matrix a(std::min(n, kChunk), k), b(std::min(n, kChunk), k);
  for (Index first = 0; first < n; first += kChunk) {
    const Index m = std::min(kChunk, n - first);
    if (m < a.rows()) {
      a.resize(m, k);
      b.resize(m, k);
    }
    for (Index c = 0; c < k; ++c)
      for (Index r = 0; r < m; ++r) {
        a(r, c) = left.scale * L(left.index(first + r), c);
        b(r, c) = right.scale * R(right.index(first + r), c);
      }
    y.segment(first, m) = (a.array() * b.array()).rowwise().sum() * gain;
  }
  return y;
}

Matrix scatter_gathered_rows(const DesignSide& to, const DesignSide& from, const Vector& z, const Matrix& Z,
                             double gain) {
  check_index_range(to, from);
  Matrix out = Matrix::Zero(to.dim, Z.cols());
  const double g = gain * to.scale * from.scale;
  for (Index c = 0; c < Z.cols(); ++c) {
    const double* column = Z.col(c).data();
    double* target = out.col(c).data();
    for (Index t = 0; t < z.size(); ++t) target[to.index(t)] += g * z(t) * column[from.index(t)];
  }
  return out;
}

bool accepts(const std::vector<Kind>& kinds, Kind kind) {
  return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

}  // namespace

RankOneOperator::RankOneOperator(RankOneSpec spec) : spec_(std::move(spec)) {
  if (!spec_.inverse) throw std::logic_error("RankOneOperator '" + spec_.name + "' needs a moment inversion rule");
}

RankOneOperator::~RankOneOperator() = default;

RankOneOperator::Sides RankOneOperator::sides(const Batch& batch, const char* caller) const {
  const std::string where = "operator '" + spec_.name + "', " + caller + ": ";
  const DesignSide& left = batch.left;
  if (!accepts(spec_.left_kinds, left.kind)) {
    throw std::invalid_argument(where + "left designs must be " + kind_list(spec_.left_kinds) + ", got " +
                                kind_name(left.kind));
  }
  if (left.dim <= 0) throw std::invalid_argument(where + "left designs have dimension 0");
  if (spec_.symmetric) {
    if (batch.right) {
      throw std::invalid_argument(where + "a symmetric operator uses the left designs on both sides; the batch " +
                                  "must have no right side");
    }
    return Sides{left, left, false, 1.0, left.count(), left.count()};
  }
  if (!batch.right) throw std::invalid_argument(where + "the batch has no right designs");
  const DesignSide& right = *batch.right;
  if (!accepts(spec_.right_kinds, right.kind)) {
    throw std::invalid_argument(where + "right designs must be " + kind_list(spec_.right_kinds) + ", got " +
                                kind_name(right.kind));
  }
  if (right.dim <= 0) throw std::invalid_argument(where + "right designs have dimension 0");
  const bool all = right.kind == Kind::all;
  if (!all && right.count() != left.count()) {
    throw std::invalid_argument(where + "the batch has " + std::to_string(left.count()) + " left and " +
                                std::to_string(right.count()) + " right designs");
  }
  const double gain = spec_.right_gain_sqrt_dim ? std::sqrt(static_cast<double>(right.dim)) : 1.0;
  const Index n = left.count();
  return Sides{left, right, all, gain, n, all ? n * right.dim : n};
}

void RankOneOperator::check_responses(const Sides& s, const Vector& z, const char* caller) const {
  if (z.size() != s.measurements) {
    throw std::invalid_argument("operator '" + spec_.name + "', " + caller + ": z has " + std::to_string(z.size()) +
                                " entries, the batch has " + std::to_string(s.measurements) + " measurements");
  }
}

void RankOneOperator::check_model(const Sides& s, const LowRankModel& model) const {
  const std::string where = "operator '" + spec_.name + "', forward: ";
  if (model.left.rows() != s.left.dim || model.right.rows() != s.right.dim || model.left.cols() != model.right.cols()) {
    throw std::invalid_argument(where + "model factors are " + shape(model.left.rows(), model.left.cols()) + " and " +
                                shape(model.right.rows(), model.right.cols()) + ", expected " +
                                std::to_string(s.left.dim) + " × k and " + std::to_string(s.right.dim) + " × k");
  }
  if (model.symmetrize && s.left.dim != s.right.dim) {
    throw std::invalid_argument(where + "a symmetrised model needs a square matrix, the designs give " +
                                shape(s.left.dim, s.right.dim));
  }
  if (spec_.first_order && model.has_first_order() && model.w.size() != s.left.dim) {
    throw std::invalid_argument(where + "first-order weights have " + std::to_string(model.w.size()) +
                                " entries, the left designs have dimension " + std::to_string(s.left.dim));
  }
}

Vector RankOneOperator::second_order(const Sides& s, const LowRankModel& model) const {
  const Matrix& L = model.left;
  const Matrix& R = model.right;
  // For x'Mx the symmetrisation changes nothing: x'LR'x = x'RL'x.
  const bool symmetrize = model.symmetrize && !spec_.symmetric;
  if (!s.right_all && !symmetrize && s.left.kind == Kind::index && s.right.kind == Kind::index)
    return dot_gathered_rows(s.left, L, s.right, R, s.gain);
  if (spec_.symmetric && s.left.kind == Kind::dense) {
    // One side (a symmetric operator): a_i'L and a_i'R from one pass over the designs, the same numbers as two.
    Matrix LR(L.rows(), L.cols() + R.cols());
    LR << L, R;
    const Matrix projected = s.left.project(LR);
    return (projected.leftCols(L.cols()).array() * projected.rightCols(R.cols()).array()).rowwise().sum() * s.gain;
  }
  const Matrix left_L = s.left.project(L);  // n × k: a_i' L

  if (s.right_all) {
    // Every right design s·e_j: the responses form the n × d2 matrix (A'L)(s R)'.
    const double right_scale = s.gain * s.right.scale;
    Matrix Y(s.instances, s.right.dim);
    Y.noalias() = left_L * R.transpose();
    if (symmetrize) {
      Y.noalias() += s.left.project(R) * L.transpose();
      Y *= 0.5;
    }
    Y *= right_scale;
    return Eigen::Map<const Vector>(Y.data(), Y.size());  // column-major: y(i + n·j) = Y(i, j)
  }

  Vector y = (left_L.array() * s.right.project(R).array()).rowwise().sum() * s.gain;
  if (symmetrize) {
    const Vector transposed = (s.left.project(R).array() * s.right.project(L).array()).rowwise().sum() * s.gain;
    y = 0.5 * (y + transposed);
  }
  return y;
}

void RankOneOperator::remove_diagonal(const Sides& s, const LowRankModel& model, Vector& values) const {
  const Index p = std::min(s.left.dim, s.right.dim);
  // diag(L R') equals diag of its symmetrisation, so one formula serves both.
  const Vector m = model.left.topRows(p).cwiseProduct(model.right.topRows(p)).rowwise().sum();
  const Index n = s.instances;

  if (s.right_all) {
    MatrixMap Y(values.data(), n, s.right.dim);
    const double right_scale = s.gain * s.right.scale;
    if (s.left.kind == Kind::dense) {
      Y.leftCols(p).noalias() -= right_scale * (s.left.dense.topRows(p).transpose() * m.asDiagonal());
    } else {
      for (Index i = 0; i < n; ++i)
        for_each_nonzero(s.left, i, p, [&](Index j, double a) { Y(i, j) -= right_scale * a * m(j); });
    }
    return;
  }

  if (s.left.kind == Kind::index && s.right.kind == Kind::index) {
    // One-hot on both sides: a diagonal entry is removed entirely, the others are untouched.
    for (Index i = 0; i < n; ++i)
      if (s.left.index(i) == s.right.index(i)) values(i) = 0.0;
    return;
  }
  values -= s.gain * diagonal_terms(s.left, s.right, m);
}

Vector RankOneOperator::forward(const Batch& batch, const LowRankModel& model) const {
  const Sides s = sides(batch, "forward");
  check_model(s, model);
  Vector y = second_order(s, model);
  if (model.zero_diagonal) remove_diagonal(s, model, y);
  if (spec_.first_order && model.has_first_order()) {
    const Vector linear = s.left.project(model.w);  // a_i' w, once per instance
    if (s.right_all) {
      MatrixMap(y.data(), s.instances, s.right.dim).colwise() += linear;
    } else {
      y += linear;
    }
  }
  y.array() += model.bias;
  return y;
}

Matrix RankOneOperator::adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const {
  const Sides s = sides(batch, "adjoint_times");
  check_responses(s, z, "adjoint_times");
  if (Z.rows() != s.right.dim) {
    throw std::invalid_argument("operator '" + spec_.name + "', adjoint_times: Z has " + std::to_string(Z.rows()) +
                                " rows, expected d2 = " + std::to_string(s.right.dim));
  }
  if (s.left.kind == Kind::index && s.right.kind == Kind::index) return scatter_gathered_rows(s.left, s.right, z, Z, s.gain);
  if (spec_.symmetric && s.left.kind == Kind::dense) {
    // One side (a symmetric operator): b_i'Z and the sum over a_i in one pass over the designs, with the
    // weights formed as below.
    return blocked_fused_products(
        s.left.dense, Z, Z.cols(),
        [&](Index first, const Eigen::Ref<const Matrix>& P, Eigen::Ref<Matrix> W) {
          W.noalias() = z.segment(first, P.rows()).asDiagonal() * P;
          W *= s.gain;
        },
        /*threads=*/1);
  }
  Matrix weights(s.instances, Z.cols());  // row i: Σ_j z_ij (b_ij' Z)
  if (s.right_all) {
    weights.noalias() = ConstMatrixMap(z.data(), s.instances, s.right.dim) * Z;
    weights *= s.gain * s.right.scale;
  } else {
    weights.noalias() = z.asDiagonal() * s.right.project(Z);
    weights *= s.gain;
  }
  return s.left.accumulate(weights);
}

Matrix RankOneOperator::adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const {
  const Sides s = sides(batch, "adjoint_transpose_times");
  check_responses(s, z, "adjoint_transpose_times");
  if (Z.rows() != s.left.dim) {
    throw std::invalid_argument("operator '" + spec_.name + "', adjoint_transpose_times: Z has " +
                                std::to_string(Z.rows()) + " rows, expected d1 = " + std::to_string(s.left.dim));
  }
  if (s.left.kind == Kind::index && s.right.kind == Kind::index) return scatter_gathered_rows(s.right, s.left, z, Z, s.gain);
  const Matrix left_Z = s.left.project(Z);  // n × k: a_i' Z
  if (s.right_all) {
    Matrix out(s.right.dim, Z.cols());
    out.noalias() = ConstMatrixMap(z.data(), s.instances, s.right.dim).transpose() * left_Z;
    return out * (s.gain * s.right.scale);
  }
  Matrix weights(s.instances, Z.cols());
  weights.noalias() = z.asDiagonal() * left_Z;
  return s.right.accumulate(weights) * s.gain;
}

Matrix RankOneOperator::adjoint_dense(const Batch& batch, const Vector& z) const {
  const Sides s = sides(batch, "adjoint_dense");
  check_responses(s, z, "adjoint_dense");
  if (!s.right_all && s.left.kind == Kind::index && s.right.kind == Kind::index) {
    // Entries: each z_t lands on its (row, column), O(n) rather than a d1 × n × d2 product.
    check_index_range(s.left, s.right);
    Matrix out = Matrix::Zero(s.left.dim, s.right.dim);
    const double g = s.gain * s.left.scale * s.right.scale;
    for (Index t = 0; t < z.size(); ++t) out(s.left.index(t), s.right.index(t)) += g * z(t);
    return out;
  }
  const Matrix A = s.left.to_dense();  // d1 × n
  Matrix out(s.left.dim, s.right.dim);
  if (s.right_all) {
    out.noalias() = A * ConstMatrixMap(z.data(), s.instances, s.right.dim);
    return out * (s.gain * s.right.scale);
  }
  const Matrix B = s.right.to_dense();  // d2 × n
  out.noalias() = (A * z.asDiagonal()) * B.transpose();
  return out * s.gain;
}

Vector RankOneOperator::first_order_adjoint(const Batch& batch, const Vector& z) const {
  const Sides s = sides(batch, "first_order_adjoint");
  check_responses(s, z, "first_order_adjoint");
  if (s.right_all) {
    // Every response of instance i shares its first-order term a_i' w.
    const Vector per_instance = ConstMatrixMap(z.data(), s.instances, s.right.dim).rowwise().sum();
    return s.left.accumulate(per_instance);
  }
  return s.left.accumulate(z);
}

}  // namespace rankone::operators
