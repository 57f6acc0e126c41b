// LowRankModel: dense form, finiteness, and the exact factor-based norms and subspaces the metrics use.
#include "rankone/core/model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace rankone {

namespace {

/// Factors (A, B) with M = A B' exactly, where M is the model's matrix before any diagonal removal.
/// A symmetrised model (L R' + R L')/2 is written as [L, R]/√2 · [R, L]'/√2.
struct Factors {
  Matrix left;
  Matrix right;
};

Factors effective_factors(const LowRankModel& m) {
  if (!m.symmetrize) return {m.left, m.right};
  if (m.rows() != m.cols())
    throw std::invalid_argument("LowRankModel: symmetrize needs a square matrix, got " + std::to_string(m.rows()) +
                                " x " + std::to_string(m.cols()));
  const double s = std::sqrt(0.5);
  Factors f{Matrix(m.rows(), 2 * m.rank()), Matrix(m.cols(), 2 * m.rank())};
  f.left << s * m.left, s * m.right;
  f.right << s * m.right, s * m.left;
  return f;
}

/// Thin QR of a d × m matrix: Q (d × p, orthonormal columns) and R (p × m), p = min(d, m), X = Q R.
struct ThinQr {
  Matrix Q;
  Matrix R;
};

ThinQr thin_qr(const Matrix& X) {
  const Index p = std::min(X.rows(), X.cols());
  Eigen::HouseholderQR<Matrix> qr(X);
  ThinQr out;
  out.Q = qr.householderQ() * Matrix::Identity(X.rows(), p);
  out.R = qr.matrixQR().topRows(p).triangularView<Eigen::Upper>();
  return out;
}

/// M = A B' as Q_A · core · Q_B', with a small core (at most (columns of A) × (columns of B)).
struct CompressedProduct {
  Matrix left_basis;  // Q_A
  Matrix core;        // R_A R_B'
};

CompressedProduct compress(const Matrix& A, const Matrix& B) {
  ThinQr qa = thin_qr(A);
  ThinQr qb = thin_qr(B);
  return {std::move(qa.Q), qa.R * qb.R.transpose()};
}

void check_same_shape(const LowRankModel& a, const LowRankModel& b) {
  if (a.rows() != b.rows() || a.cols() != b.cols())
    throw std::invalid_argument("difference_norms: models of different shapes (" + std::to_string(a.rows()) + " x " +
                                std::to_string(a.cols()) + " and " + std::to_string(b.rows()) + " x " +
                                std::to_string(b.cols()) + ")");
}

/// Singular values of a dense matrix. The small cores of factored models go through JacobiSVD:
/// Eigen 3.4.0's BDCSVD returned NaN or wrong values for such cores with a zero block (a model
/// with V = 0 beside the truth) in AVX2/FMA builds (measured: relative_error_M of the zero model
/// 0.949 or NaN instead of 1); large dense matrices keep the divide-and-conquer solver.
Vector singular_values_of(const Matrix& M) {
  if (std::min(M.rows(), M.cols()) <= 200) return Eigen::JacobiSVD<Matrix>(M).singularValues();
  return Eigen::BDCSVD<Matrix>(M).singularValues();
}

/// Above this smaller dimension a dense matrix's norms skip the SVD (the small cores keep it).
constexpr Index kGramNormsAbove = 64;

DifferenceNorms norms_of_dense(const Matrix& M) {
  if (M.size() == 0) return {};
  if (std::min(M.rows(), M.cols()) > kGramNormsAbove) {
    // ‖M‖_F directly, ‖M‖₂ = √λ_max of the smaller Gram matrix: eigenvalues of a symmetric matrix
    // cost a fraction of a Jacobi SVD (the zero-diagonal models' dense differences at d = 200), and
    // λ_max is accurate to rounding relative to ‖M‖₂².
    const Matrix G = M.rows() <= M.cols() ? Matrix(M * M.transpose()) : Matrix(M.transpose() * M);
    const double top = Eigen::SelfAdjointEigenSolver<Matrix>(G, Eigen::EigenvaluesOnly).eigenvalues().maxCoeff();
    return {std::sqrt(std::max(top, 0.0)), M.norm()};
  }
  const Vector s = singular_values_of(M);
  return {s.size() ? s(0) : 0.0, s.norm()};
}

/// Extends an orthonormal d × p basis to d × k columns (k ≤ d) with orthonormal complement
/// vectors, so callers always get k columns even when M has rank below k.
Matrix complete_basis(const Matrix& Q, Index k) {
  if (Q.cols() >= k) return Q.leftCols(k);
  if (Q.cols() == 0) return Matrix::Identity(Q.rows(), k);
  Matrix full = Eigen::HouseholderQR<Matrix>(Q).householderQ();
  full.leftCols(Q.cols()) = Q;
  return full.leftCols(k);
}

}  // namespace

Matrix LowRankModel::dense() const {
  Matrix M = left * right.transpose();
  if (symmetrize) {
    const Matrix Mt = M.transpose();
    M = 0.5 * (M + Mt);
  }
  if (zero_diagonal) M.diagonal().setZero();
  return M;
}

bool LowRankModel::all_finite() const {
  return left.allFinite() && right.allFinite() && w.allFinite() && std::isfinite(bias);
}

LowRankModel LowRankModel::symmetric_from_eigen(const Matrix& U, const Vector& values) {
  if (U.cols() != values.size())
    throw std::invalid_argument("symmetric_from_eigen: " + std::to_string(U.cols()) + " vectors but " +
                                std::to_string(values.size()) + " values");
  LowRankModel m;
  m.left = U;
  m.right = U * values.asDiagonal();
  m.symmetrize = true;  // U diag(values) U' is already symmetric; the flag tells consumers so
  return m;
}

DifferenceNorms difference_norms(const LowRankModel& a, const LowRankModel* b) {
  if (b) check_same_shape(a, *b);
  if (a.zero_diagonal || (b && b->zero_diagonal)) {
    // M − D(M) is not low-rank in general: no small factorisation exists.
    return norms_of_dense(b ? Matrix(a.dense() - b->dense()) : a.dense());
  }
  Factors fa = effective_factors(a);
  Matrix A = std::move(fa.left);
  Matrix B = std::move(fa.right);
  if (b) {
    const Factors fb = effective_factors(*b);
    Matrix stacked_left(A.rows(), A.cols() + fb.left.cols());
    Matrix stacked_right(B.rows(), B.cols() + fb.right.cols());
    stacked_left << A, -fb.left;
    stacked_right << B, fb.right;
    A = std::move(stacked_left);
    B = std::move(stacked_right);
  }
  if (A.cols() == 0 || A.rows() == 0 || B.rows() == 0) return {};
  // A B' = Q_A (R_A R_B') Q_B' with orthonormal Q's: the norms are those of the small core.
  return norms_of_dense(compress(A, B).core);
}

Vector singular_values(const LowRankModel& m) {
  const Index k = m.rank();
  if (k == 0 || m.rows() == 0 || m.cols() == 0) return Vector();
  Vector all;
  if (m.zero_diagonal) {
    all = Eigen::BDCSVD<Matrix>(m.dense()).singularValues();
  } else {
    const Factors f = effective_factors(m);
    all = singular_values_of(compress(f.left, f.right).core);
  }
  return all.head(std::min<Index>(k, all.size()));
}

Matrix dominant_subspace(const LowRankModel& m, Index k) {
  if (k < 0 || k > m.rows())
    throw std::invalid_argument("dominant_subspace: k = " + std::to_string(k) + " outside [0, " +
                                std::to_string(m.rows()) + "]");
  // For a symmetric M the left singular vectors are the eigenvectors ordered by |eigenvalue|, so
  // one SVD-based construction serves both cases.
  if (m.zero_diagonal) {
    const Eigen::BDCSVD<Matrix> svd(m.dense(), Eigen::ComputeThinU);
    return complete_basis(svd.matrixU(), k);
  }
  const Factors f = effective_factors(m);
  if (f.left.cols() == 0) return complete_basis(Matrix(m.rows(), 0), k);
  const CompressedProduct c = compress(f.left, f.right);
  const Eigen::JacobiSVD<Matrix> svd(c.core, Eigen::ComputeThinU);  // small core: see singular_values_of
  return complete_basis(c.left_basis * svd.matrixU(), k);
}

}  // namespace rankone
