#include "gibbs_fm.hpp"

#include <cmath>

#include "coordinate_passes.hpp"

namespace rankone::fm_baselines {

using H = GibbsHyperprior;

GibbsFm::GibbsFm(Matrix Xt, Vector y, GibbsState start) : Xt_(std::move(Xt)), y_(std::move(y)), state_(std::move(start)) {
  squares_ = Xt_.array().square().colwise().sum().transpose();
  e_ = recomputed_residual();
}

Index GibbsFm::variate_count() const {
  const Index d = Xt_.cols(), k = state_.V.cols();
  return 4 + 2 * k + d + d * k;
}

Vector GibbsFm::draw_variates(Rng& rng) const {
  const Index n = Xt_.rows(), d = Xt_.cols(), k = state_.V.cols();
  const double group_shape = (H::alpha0 + static_cast<double>(d) + 1.0) / 2.0;
  Vector v(variate_count());
  Index at = 0;
  v(at++) = rng.gamma((H::alpha0 + static_cast<double>(n)) / 2.0);
  v(at++) = rng.normal();
  v(at++) = rng.gamma(group_shape);
  v(at++) = rng.normal();
  for (Index f = 0; f < k; ++f) v(at++) = rng.gamma(group_shape);
  for (Index f = 0; f < k; ++f) v(at++) = rng.normal();
  rng.fill_normal(v.data() + at, d + d * k);
  return v;
}

Vector GibbsFm::recomputed_residual() const { return residual_from(Xt_ * state_.V); }

Vector GibbsFm::residual_from(const Matrix& projected) const {
  const GibbsState& s = state_;
  // ŷ = w0 + Σ_j x_j (w_j − ½ x_j Σ_f v_jf²) + ½ Σ_f (X v_f)²: the feature sum is one pass over X.
  Vector yhat = 0.5 * projected.array().square().rowwise().sum().matrix();
  const Vector half_squares = 0.5 * s.V.array().square().rowwise().sum().matrix();
  for (Index j = 0; j < Xt_.cols(); ++j) {
    const double w = first_order() ? s.w(j) : 0.0;
    yhat.array() += Xt_.col(j).array() * (w - half_squares(j) * Xt_.col(j).array());
  }
  yhat.array() += s.w0 - y_.array();
  return yhat;
}

double GibbsFm::draw_precision(const Eigen::Ref<const Vector>& theta, double mu, double g) const {
  const double rate = (H::beta0 * (mu - H::mu0) * (mu - H::mu0) + H::gamma0 + (theta.array() - mu).square().sum()) / 2.0;
  return scaled(g, rate);
}

double GibbsFm::draw_mean(const Eigen::Ref<const Vector>& theta, double lambda, double z) const {
  const double count = static_cast<double>(theta.size()) + H::beta0;
  return (theta.sum() + H::beta0 * H::mu0) / count + z / std::sqrt(count * lambda);
}

void GibbsFm::sweep(const Vector& variates) {
  GibbsState& s = state_;
  const Index n = Xt_.rows(), d = Xt_.cols(), k = s.V.cols();
  Index at = 0;
  const double g_alpha = variates(at++), z_w0 = variates(at++), g_lambda_w = variates(at++), z_mu_w = variates(at++);
  const auto g_lambda_v = variates.segment(at, k);
  const auto z_mu_v = variates.segment(at + k, k);
  at += 2 * k;
  const auto z_w = variates.segment(at, d);
  const auto z_v = variates.segment(at + d, d * k);
  // From the state, as libFM does each sweep: the in-place updates below cannot drift over a long chain.
  projected_.noalias() = Xt_ * s.V;
  e_ = residual_from(projected_);

  // α | e: Gamma((α0 + n)/2, (γ0 + Σe²)/2).
  s.alpha = scaled(g_alpha, (H::gamma0 + e_.squaredNorm()) / 2.0);

  // w0 under a flat prior: N(w0 − mean(e), 1/(α n)).
  {
    const double variance = 1.0 / (s.alpha * static_cast<double>(n));
    const double drawn = s.w0 - e_.mean() + std::sqrt(variance) * z_w0;
    e_.array() += drawn - s.w0;
    s.w0 = drawn;
  }

  if (first_order()) {
    s.lambda_w = draw_precision(s.w, s.mu_w, g_lambda_w);
    s.mu_w = draw_mean(s.w, s.lambda_w, z_mu_w);
    // Σ x_j·e of the coordinate being drawn, summed in the previous coordinate's update pass.
    double he = d > 0 ? ColumnSlope::of(column(0), e_.data(), n) : 0.0;
    for (Index j = 0; j < d; ++j) {
      const double old = s.w(j);
      const double variance = 1.0 / (s.lambda_w + s.alpha * squares_(j));
      const double mean = -variance * (s.alpha * (he - old * squares_(j)) - s.mu_w * s.lambda_w);
      const double drawn = mean + std::sqrt(variance) * z_w(j);
      he = ColumnSlope::apply(column(j), drawn - old, j + 1 < d ? column(j + 1) : nullptr, e_.data(), n);
      s.w(j) = drawn;
    }
  }

  for (Index f = 0; f < k; ++f) s.lambda_v(f) = draw_precision(s.V.col(f), s.mu_v(f), g_lambda_v(f));
  for (Index f = 0; f < k; ++f) s.mu_v(f) = draw_mean(s.V.col(f), s.lambda_v(f), z_mu_v(f));

  for (Index f = 0; f < k && d > 0; ++f) {
    double* q = projected_.col(f).data();
    // ∂ŷ/∂v_jf = x_j ∘ (q − x_j v_jf): ŷ is linear in v_jf with this slope (coordinate_passes.hpp).
    Slope slope = FactorSlope::of(column(0), q, e_.data(), s.V(0, f), n);
    for (Index j = 0; j < d; ++j) {
      const double old = s.V(j, f);
      const double variance = 1.0 / (s.lambda_v(f) + s.alpha * slope.hh);
      const double mean = -variance * (s.alpha * (slope.he - old * slope.hh) - s.mu_v(f) * s.lambda_v(f));
      const double drawn = mean + std::sqrt(variance) * z_v(f * d + j);
      const bool last = j + 1 == d;
      slope = FactorSlope::apply(column(j), old, drawn - old, last ? nullptr : column(j + 1),
                                 last ? 0.0 : s.V(j + 1, f), q, e_.data(), n);
      s.V(j, f) = drawn;
    }
  }
}

}  // namespace rankone::fm_baselines
