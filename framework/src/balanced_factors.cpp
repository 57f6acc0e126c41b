#include "rankone/linalg/balanced_factors.hpp"

#include <Eigen/Eigenvalues>
#include <Eigen/QR>
#include <Eigen/SVD>
#include <stdexcept>

namespace rankone {
namespace {

/// M = P Q' with P, Q of as many columns as needed: (L R' + R L')/2 = [L R] ([R L] / 2)'.
std::pair<Matrix, Matrix> outer_factors(const LowRankModel& m) {
  if (m.zero_diagonal) throw std::invalid_argument("balanced_factors: a model without its diagonal has no low-rank factors");
  if (!m.symmetrize) return {m.left, m.right};
  Matrix P(m.left.rows(), 2 * m.left.cols()), Q(m.right.rows(), 2 * m.right.cols());
  P << m.left, m.right;
  Q << 0.5 * m.right, 0.5 * m.left;
  return {P, Q};
}

/// Thin QR: an orthonormal basis of X's columns and the triangular factor (X = basis · r).
std::pair<Matrix, Matrix> thin_qr(const Matrix& X) {
  const Eigen::HouseholderQR<Matrix> qr(X);
  const Matrix basis = qr.householderQ() * Matrix::Identity(X.rows(), X.cols());
  return {basis, basis.transpose() * X};
}

}  // namespace

BalancedFactors balanced_factors(const LowRankModel& m, Index k) {
  const auto [P, Q] = outer_factors(m);
  const auto [Qp, Rp] = thin_qr(P);
  const auto [Qq, Rq] = thin_qr(Q);
  const Eigen::JacobiSVD<Matrix> core(Rp * Rq.transpose(), Eigen::ComputeFullU | Eigen::ComputeFullV);
  BalancedFactors f{Matrix::Zero(P.rows(), k), Matrix::Zero(Q.rows(), k), Vector::Zero(k)};
  const Index shared = std::min(k, P.cols());
  f.values.head(shared) = core.singularValues().head(shared);
  const Vector root = f.values.head(shared).cwiseSqrt();
  f.left.leftCols(shared) = Qp * core.matrixU().leftCols(shared) * root.asDiagonal();
  f.right.leftCols(shared) = Qq * core.matrixV().leftCols(shared) * root.asDiagonal();
  return f;
}

BalancedFactors psd_factor(const LowRankModel& m, Index k, double floor) {
  if (m.rows() != m.cols()) throw std::invalid_argument("psd_factor: the model is not square");
  if (m.zero_diagonal) throw std::invalid_argument("psd_factor: a model without its diagonal has no low-rank factors");
  // sym(L R') = [L R] C [L R]' with C = [[0, I/2], [I/2, 0]]: the eigenpairs of the small core.
  const Index r = m.left.cols();
  Matrix P(m.left.rows(), 2 * r);
  P << m.left, m.right;
  const auto [basis, tri] = thin_qr(P);
  Matrix C = Matrix::Zero(2 * r, 2 * r);
  C.topRightCorner(r, r) = 0.5 * Matrix::Identity(r, r);
  C.bottomLeftCorner(r, r) = 0.5 * Matrix::Identity(r, r);
  const Matrix core = tri * C * tri.transpose();
  const Eigen::SelfAdjointEigenSolver<Matrix> eigen(0.5 * (core + core.transpose()));  // ascending
  BalancedFactors f{Matrix::Zero(P.rows(), k), Matrix(), Vector::Zero(k)};
  const Index shared = std::min(k, 2 * r);
  const double lowest = floor * std::max(eigen.eigenvalues()(2 * r - 1), 0.0);
  for (Index j = 0; j < shared; ++j) {
    const Index from = 2 * r - 1 - j;  // the largest first
    const double value = std::max(eigen.eigenvalues()(from), lowest);
    f.values(j) = value;
    f.left.col(j) = std::sqrt(value) * (basis * eigen.eigenvectors().col(from));
  }
  f.right = f.left;
  return f;
}

}  // namespace rankone
