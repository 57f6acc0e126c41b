#include "lifted_cd.hpp"

#include "coordinate_passes.hpp"

namespace rankone::fm_baselines {

LiftedCd::LiftedCd(Matrix Xt, Vector y, Matrix P, Matrix Q, double reg_v)
    : Xt_(std::move(Xt)), y_(std::move(y)), P_(std::move(P)), Q_(std::move(Q)), reg_v_(reg_v) {
  project();
}

void LiftedCd::reset(Matrix P, Matrix Q) {
  P_ = std::move(P);
  Q_ = std::move(Q);
  project();
}

void LiftedCd::project() {
  XP_.noalias() = Xt_ * P_;
  XQ_.noalias() = Xt_ * Q_;
  refresh_residual();
}

void LiftedCd::refresh_residual() { e_ = XP_.cwiseProduct(XQ_).rowwise().sum() - y_; }

void LiftedCd::sweep_side(Matrix& side, const Matrix& other_projected) {
  const Index n = Xt_.rows(), d = side.rows();
  const double n_reg = static_cast<double>(n) * reg_v_;  // the penalty on J's summed scale
  const auto column = [&](Index j) { return j < d ? Xt_.col(j).data() : nullptr; };
  for (Index s = 0; s < side.cols() && d > 0; ++s) {
    const double* xi = other_projected.col(s).data();
    // ∂ŷ_i/∂p_js = x̃_ij ξ_i: the slope of every coordinate of this column (coordinate_passes.hpp).
    Slope slope = ScaledColumnSlope::of(column(0), xi, e_.data(), n);
    for (Index j = 0; j < d; ++j) {
      // The coordinate's minimiser of n·J is a Newton step on a quadratic; none without curvature.
      const double curvature = slope.hh + n_reg;
      const double old = side(j, s);
      const double updated = curvature > 0.0 ? old - (slope.he + n_reg * old) / curvature : old;
      const double delta = updated - old;
      slope = delta == 0.0 ? (j + 1 < d ? ScaledColumnSlope::of(column(j + 1), xi, e_.data(), n) : Slope{})
                           : ScaledColumnSlope::apply(column(j), delta, column(j + 1), xi, e_.data(), n);
      side(j, s) = updated;
    }
  }
}

void LiftedCd::epoch() {
  sweep_side(P_, XQ_);
  XP_.noalias() = Xt_ * P_;
  sweep_side(Q_, XP_);
  XQ_.noalias() = Xt_ * Q_;
  refresh_residual();  // from the state, so that rounding in the in-place updates cannot accumulate
}

}  // namespace rankone::fm_baselines
