#include "gaussian_ensemble.hpp"

#include <stdexcept>
#include <string>

namespace rankone::operators {
namespace {

using ConstMatrixMap = Eigen::Map<const Matrix>;

std::string where(bool symmetric, const char* caller) {
  return std::string("operator 'gaussian_ensemble'") + (symmetric ? " (symmetric)" : "") + ", " + caller + ": ";
}

/// The n design matrices as a (d1·d2) × n matrix: column i is vec(A_i).
ConstMatrixMap vectorised(const DesignSide& side) {
  return ConstMatrixMap(side.dense.data(), side.dim * side.cols, side.count());
}

}  // namespace

GaussianEnsemble::~GaussianEnsemble() = default;

const DesignSide& GaussianEnsemble::designs(const Batch& batch, const char* caller) const {
  const DesignSide& side = batch.left;
  if (side.kind != DesignSide::Kind::matrix)
    throw std::invalid_argument(where(symmetric_, caller) + "designs must be matrix designs, got " + kind_name(side.kind));
  if (batch.right) throw std::invalid_argument(where(symmetric_, caller) + "a matrix design is the whole A_i; the batch must have no right side");
  if (side.dim <= 0 || side.cols <= 0) throw std::invalid_argument(where(symmetric_, caller) + "design matrices are empty");
  if (side.dense.rows() != side.dim || side.dense.cols() % side.cols != 0)
    throw std::invalid_argument(where(symmetric_, caller) + "the stored designs are " + std::to_string(side.dense.rows()) +
                                " × " + std::to_string(side.dense.cols()) + ", not " + std::to_string(side.dim) +
                                " × n·" + std::to_string(side.cols));
  if (symmetric_ && side.dim != side.cols)
    throw std::invalid_argument(where(symmetric_, caller) + "the symmetric form needs square designs, got " +
                                std::to_string(side.dim) + " × " + std::to_string(side.cols));
  return side;
}

void GaussianEnsemble::check_responses(const DesignSide& side, const Vector& z, const char* caller) const {
  if (z.size() != side.count())
    throw std::invalid_argument(where(symmetric_, caller) + "z has " + std::to_string(z.size()) + " entries, the batch has " +
                                std::to_string(side.count()) + " measurements");
}

Vector GaussianEnsemble::forward(const Batch& batch, const LowRankModel& model) const {
  const DesignSide& side = designs(batch, "forward");
  if (model.rows() != side.dim || model.cols() != side.cols || model.left.cols() != model.right.cols())
    throw std::invalid_argument(where(symmetric_, "forward") + "model factors are " + std::to_string(model.left.rows()) +
                                " × " + std::to_string(model.left.cols()) + " and " + std::to_string(model.right.rows()) +
                                " × " + std::to_string(model.right.cols()) + ", expected " + std::to_string(side.dim) +
                                " × k and " + std::to_string(side.cols) + " × k");
  Matrix M = model.dense();  // symmetrisation and diagonal removal as the model states them
  if (symmetric_) M = 0.5 * (M + M.transpose()).eval();  // <sym(A), M> = <A, sym(M)>
  Vector y(side.count());
  y.noalias() = vectorised(side).transpose() * Eigen::Map<const Vector>(M.data(), M.size());
  y.array() += model.bias;
  return y;
}

Matrix GaussianEnsemble::adjoint_dense(const Batch& batch, const Vector& z) const {
  const DesignSide& side = designs(batch, "adjoint_dense");
  check_responses(side, z, "adjoint_dense");
  Matrix out(side.dim, side.cols);
  Eigen::Map<Vector>(out.data(), out.size()).noalias() = vectorised(side) * z;
  if (symmetric_) out = 0.5 * (out + out.transpose()).eval();
  return out;
}

Matrix GaussianEnsemble::adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const {
  const DesignSide& side = designs(batch, "adjoint_times");
  if (Z.rows() != side.cols)
    throw std::invalid_argument(where(symmetric_, "adjoint_times") + "Z has " + std::to_string(Z.rows()) +
                                " rows, expected d2 = " + std::to_string(side.cols));
  return adjoint_dense(batch, z) * Z;  // Σ z_i A_i is one d1 × d2 matrix: forming it is the cheap way
}

Matrix GaussianEnsemble::adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const {
  const DesignSide& side = designs(batch, "adjoint_transpose_times");
  if (Z.rows() != side.dim)
    throw std::invalid_argument(where(symmetric_, "adjoint_transpose_times") + "Z has " + std::to_string(Z.rows()) +
                                " rows, expected d1 = " + std::to_string(side.dim));
  return adjoint_dense(batch, z).transpose() * Z;
}

std::pair<Matrix, Matrix> GaussianEnsemble::adjoint_pair(const Batch& batch, const Vector& z, const Matrix& R,
                                                         const Matrix& L) const {
  const DesignSide& side = designs(batch, "adjoint_pair");
  if (R.rows() != side.cols || L.rows() != side.dim)
    throw std::invalid_argument(where(symmetric_, "adjoint_pair") + "R has " + std::to_string(R.rows()) + " rows and L " +
                                std::to_string(L.rows()) + ", expected d2 = " + std::to_string(side.cols) +
                                " and d1 = " + std::to_string(side.dim));
  const Matrix S = adjoint_dense(batch, z);
  return {S * R, S.transpose() * L};
}

Vector GaussianEnsemble::first_order_adjoint(const Batch& batch, const Vector& z) const {
  const DesignSide& side = designs(batch, "first_order_adjoint");
  check_responses(side, z, "first_order_adjoint");
  return Vector::Zero(side.dim);
}

}  // namespace rankone::operators
