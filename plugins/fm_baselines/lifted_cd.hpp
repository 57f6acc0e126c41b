#pragma once
/// \file Coordinate descent on the lifted degree-2 polynomial network of Blondel, Ishihata, Fujino
/// & Ueda (ICML 2016), in the variant of polylearn's PolynomialNetworkRegressor:
///
///   ŷ(x̃) = Σ_s (p_s'x̃)(q_s'x̃),   J(P, Q) = (1/2n) Σ_i (ŷ_i − y_i)² + ½ reg_v (‖P‖² + ‖Q‖²),
///
/// with x̃ = [x; 1] when lower orders are fitted by augmentation (then x̃'P Q'x̃ holds M = sym(P Q'),
/// w and b). ŷ is linear in each single coordinate, so each update is the coordinate's exact
/// minimiser. An epoch sweeps P then Q, column by column, each coordinate of a column in turn.
#include "rankone/core/types.hpp"

namespace rankone::fm_baselines {

class LiftedCd {
 public:
  /// `Xt`: n × d̃, one (augmented) instance per row; P, Q: d̃ × k.
  LiftedCd(Matrix Xt, Vector y, Matrix P, Matrix Q, double reg_v);

  void epoch();

  const Matrix& P() const { return P_; }
  const Matrix& Q() const { return Q_; }
  /// ŷ − y on the training set, recomputed after every epoch.
  const Vector& residual() const { return e_; }
  void reset(Matrix P, Matrix Q);

 private:
  /// Coordinate descent over the columns of `side`; `other_projected` = X̃ times the other side, fixed
  /// while this side moves (column s is the slope scale ξ of side's column s).
  void sweep_side(Matrix& side, const Matrix& other_projected);
  /// Both projections and the residual from P and Q.
  void project();
  /// e = ŷ − y from the two projections.
  void refresh_residual();

  Matrix Xt_;
  Vector y_;
  Matrix P_, Q_;
  double reg_v_;
  Matrix XP_, XQ_;  ///< X̃P and X̃Q, each formed once per change of its side (one pass over X̃)
  Vector e_;
};

}  // namespace rankone::fm_baselines
