#pragma once
/// \file The Gaussian ensemble: `y_i = <A_i, M>` with a whole sensing matrix A_i per measurement.
///
/// The batch holds A_i as a matrix design (DesignSide::Kind::matrix), drawn by the source from the
/// batch's stream and dropped with the batch. The symmetric form measures `<sym(A_i), M>`,
/// `sym(A) = (A + A')/2`, so its adjoint is symmetric and, for a symmetric M, its measurements are
/// those of the asymmetric form. Every product is one pass over the stored A_i: the forward map
/// is `vec(A_i)' vec(M)` with M formed densely (d1 × d2, the size of one design), and the adjoint
/// products are `(Σ z_i A_i) Z`.
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone::operators {

class GaussianEnsemble final : public SensingOperator {
 public:
  explicit GaussianEnsemble(bool symmetric) : symmetric_(symmetric) {}
  ~GaussianEnsemble() override;

  bool symmetric() const override { return symmetric_; }
  bool has_first_order() const override { return false; }
  std::vector<DesignSide::Kind> accepted_left() const override { return {DesignSide::Kind::matrix}; }
  /// No right side: a matrix design is the whole A_i.
  std::vector<DesignSide::Kind> accepted_right() const override { return {}; }
  /// E[<A, M> A] = M for i.i.d. standard normal entries, and = sym(M) = M for the symmetric form
  /// on a symmetric M: scale 1, no trace shift.
  MomentInverse isotropic_inverse(const ProblemShape&) const override { return MomentInverse{1.0, 0.0}; }

  Vector forward(const Batch& batch, const LowRankModel& model) const override;
  Matrix adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const override;
  Matrix adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const override;
  Matrix adjoint_dense(const Batch& batch, const Vector& z) const override;
  /// Σ z_i A_i formed once (one pass over the designs) and applied to both factors.
  std::pair<Matrix, Matrix> adjoint_pair(const Batch& batch, const Vector& z, const Matrix& R,
                                         const Matrix& L) const override;
  /// There is no first-order term: its adjoint is the zero vector.
  Vector first_order_adjoint(const Batch& batch, const Vector& z) const override;

 private:
  /// The batch's design matrices, checked: d1 × n·d2.
  const DesignSide& designs(const Batch& batch, const char* caller) const;
  void check_responses(const DesignSide& side, const Vector& z, const char* caller) const;

  bool symmetric_;
};

}  // namespace rankone::operators
