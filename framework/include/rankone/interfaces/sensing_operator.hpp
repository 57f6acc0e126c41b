#pragma once
/// \file SensingOperator: the measurement map 𝒜 and its adjoint, matrix-free.
///
/// Measurement i is `𝒜(M)_i = <A_i, M>` with `A_i = a_i b_i'` (a rank-one sensing matrix built
/// from the batch's left and right designs; a symmetric operator uses `b_i = a_i`), plus the
/// first-order term `a_i' w` when the operator has one and the model carries `w`.
/// The adjoint is `𝒜'(z) = Σ_i z_i A_i`, a d1 × d2 matrix that is never formed on the hot path:
/// `adjoint_times(batch, z, Z) = 𝒜'(z) Z` costs O(n d k).
///
/// Example (Gaussian symmetric sensing, d = 3, n = 2):
/// \code
///   Batch b; b.left = DesignSide::make_dense(X);           // X: 3 × 2
///   Vector y = op.forward(b, model);                      // y_i = x_i' M x_i (+ x_i' w)
///   Matrix G = op.adjoint_times(b, r, U);                 // Σ_i r_i x_i x_i' U
/// \endcode
#include <utility>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/interfaces/component.hpp"

namespace rankone {

/// Sizes of a problem: M is d1 × d2; `symmetric` when one design serves both sides (x'Mx).
struct ProblemShape {
  Index d1 = 0;
  Index d2 = 0;
  bool symmetric = false;
};

/// How to invert the expected adjoint for isotropic designs (standard Gaussian dense designs, or
/// uniform index designs): `scale·(𝒜'(y)/n − trace_shift·mean(y)·I)` is an unbiased estimate of M
/// when `y = 𝒜(M)`. Symmetric Gaussian sensing has `E 𝒜'(𝒜(M))/n = 2M + tr(M)·I`, hence
/// scale ½ and trace_shift 1; asymmetric Gaussian sensing has scale 1, shift 0; uniform entries of
/// a d1 × d2 matrix have scale d1·d2. Spectral initialisers use it.
struct MomentInverse {
  double scale = 1.0;
  double trace_shift = 0.0;
};

class SensingOperator : public Component {
 public:
  ~SensingOperator() override;

  /// True when the right design is the left design (x'Mx).
  virtual bool symmetric() const = 0;
  /// True when measurements include the first-order term a_i'w.
  virtual bool has_first_order() const = 0;
  /// The design shape each side expects (for validation against samplers).
  virtual std::vector<DesignSide::Kind> accepted_left() const = 0;
  virtual std::vector<DesignSide::Kind> accepted_right() const = 0;
  /// Moment inversion for isotropic designs of this operator at the given shape.
  virtual MomentInverse isotropic_inverse(const ProblemShape& shape) const = 0;

  /// 𝒜(M) (+ first-order term and bias) for every measurement of the batch.
  virtual Vector forward(const Batch& batch, const LowRankModel& model) const = 0;
  /// 𝒜'(z) Z: Z is d2 × k, the result d1 × k.
  virtual Matrix adjoint_times(const Batch& batch, const Vector& z, const Matrix& Z) const = 0;
  /// 𝒜'(z)' Z: Z is d1 × k, the result d2 × k.
  virtual Matrix adjoint_transpose_times(const Batch& batch, const Vector& z, const Matrix& Z) const = 0;
  /// (𝒜'(z) R, 𝒜'(z)' L) together, the two products of a gradient step on both factors. By default
  /// the two calls above; an operator that forms 𝒜'(z) once in one pass (dense designs) does so.
  virtual std::pair<Matrix, Matrix> adjoint_pair(const Batch& batch, const Vector& z, const Matrix& R,
                                                 const Matrix& L) const;
  /// 𝒜'(z) formed densely (d1 × d2): small problems and tests only.
  virtual Matrix adjoint_dense(const Batch& batch, const Vector& z) const = 0;
  /// Adjoint of the first-order term: Σ_i z_i a_i (size d1).
  virtual Vector first_order_adjoint(const Batch& batch, const Vector& z) const = 0;
};

}  // namespace rankone
