#include "lifted_cd.hpp"

namespace rankone::fm_baselines {

LiftedCd::LiftedCd(Matrix Xt, Vector y, Matrix P, Matrix Q, double reg_v)
    : Xt_(std::move(Xt)), y_(std::move(y)), P_(std::move(P)), Q_(std::move(Q)), reg_v_(reg_v) {
  refresh();
}

void LiftedCd::reset(Matrix P, Matrix Q) {
  P_ = std::move(P);
  Q_ = std::move(Q);
  refresh();
}

void LiftedCd::refresh() {
  e_ = (Xt_ * P_).cwiseProduct(Xt_ * Q_).rowwise().sum() - y_;
}

void LiftedCd::sweep_side(Matrix& side, const Matrix& other) {
  const double n_reg = static_cast<double>(Xt_.rows()) * reg_v_;  // the penalty on J's summed scale
  for (Index s = 0; s < side.cols(); ++s) {
    xi_.noalias() = Xt_ * other.col(s);
    for (Index j = 0; j < side.rows(); ++j) {
      // ∂ŷ_i/∂p_js = x̃_ij ξ_i; the coordinate's minimiser of n·J is a Newton step on a quadratic.
      h_ = Xt_.col(j).cwiseProduct(xi_);
      const double curvature = h_.squaredNorm() + n_reg;
      if (!(curvature > 0.0)) continue;
      const double old = side(j, s);
      const double updated = old - (h_.dot(e_) + n_reg * old) / curvature;
      e_ += (updated - old) * h_;
      side(j, s) = updated;
    }
  }
}

void LiftedCd::epoch() {
  sweep_side(P_, Q_);
  sweep_side(Q_, P_);
  refresh();  // so that rounding in the in-place updates cannot accumulate
}

}  // namespace rankone::fm_baselines
