#pragma once
/// \file The Gibbs sampler of a Bayesian factorization machine (Freudenthaler, Schmidt-Thieme &
/// Rendle 2011; Rendle 2012, Section 4.3 "MCMC inference"), with libFM's hyperprior values:
///
///   ŷ(x) = w0 + w'x + ½ Σ_f [(v_f'x)² − Σ_j v_jf² x_j²],   y ~ N(ŷ, 1/α),
///   w_j ~ N(μ_w, 1/λ_w),  v_jf ~ N(μ_f, 1/λ_f),  μ ~ N(μ0, 1/(β0 λ)),  λ, α ~ Gamma, w0 flat.
///
/// A sweep draws every parameter from its conditional in libFM's order (α, w0, λ_w, μ_w, w, then
/// λ_f and μ_f for every factor, then V factor by factor). Its random numbers are drawn first, as one
/// vector (`draw_variates`), so that the sweep itself is a deterministic function of the state and
/// that vector: tests/references/fm_mcmc.py replays it from the same numbers.
#include "rankone/core/rng.hpp"
#include "rankone/core/types.hpp"

namespace rankone::fm_baselines {

/// libFM's fixed hyperprior values (its MCMC takes no hyperparameter but the initial scale).
struct GibbsHyperprior {
  static constexpr double alpha0 = 1.0;
  static constexpr double beta0 = 1.0;
  static constexpr double gamma0 = 1.0;
  static constexpr double mu0 = 0.0;
};

/// One sample of every parameter and hyperparameter. libFM starts from α = 1, λ = μ = 0, w0 = w = 0.
struct GibbsState {
  double alpha = 1.0;
  double w0 = 0.0;
  double mu_w = 0.0;
  double lambda_w = 0.0;
  Vector mu_v;      ///< k
  Vector lambda_v;  ///< k
  Vector w;         ///< d; empty without a first-order term
  Matrix V;         ///< d × k
};

class GibbsFm {
 public:
  /// `Xt`: n × d, one instance per row. `start.w` empty: the model has no first-order term.
  GibbsFm(Matrix Xt, Vector y, GibbsState start);

  /// The number of random numbers of one sweep: 4 + 2k + d + dk.
  Index variate_count() const;
  /// One sweep's random numbers in the layout [g_α, z_w0, g_λw, z_μw, g_λf (k), z_μf (k), z_w (d),
  /// z_V factor-major (dk)]: each g ~ Gamma(shape, 1) of its conditional's shape, each z ~ N(0, 1).
  /// The layout does not depend on the data: without a first-order term the w entries are unused.
  Vector draw_variates(Rng& rng) const;
  /// One Gibbs sweep with the given random numbers.
  void sweep(const Vector& variates);

  const GibbsState& state() const { return state_; }
  /// ŷ − y of the current sample on the training set (recomputed at the start of every sweep, kept
  /// up to date by every draw).
  const Vector& residual() const { return e_; }
  /// ŷ − y recomputed from the state: what `residual` tracks.
  Vector recomputed_residual() const;
  /// Back to an earlier sample and its residual (the best-iterate copy holds no data).
  void reset(GibbsState state, Vector residual) {
    state_ = std::move(state);
    e_ = std::move(residual);
  }

 private:
  bool first_order() const { return state_.w.size() > 0; }
  const double* column(Index j) const { return Xt_.col(j).data(); }
  /// ŷ − y from the state with its projections X V at hand (one more pass over X).
  Vector residual_from(const Matrix& projected) const;
  /// Gamma(shape, rate) from its Gamma(shape, 1) variate.
  static double scaled(double g, double rate) { return g / rate; }
  /// λ | θ, μ of a group of d parameters θ.
  double draw_precision(const Eigen::Ref<const Vector>& theta, double mu, double g) const;
  /// μ | θ, λ.
  double draw_mean(const Eigen::Ref<const Vector>& theta, double lambda, double z) const;

  Matrix Xt_;
  Vector y_;
  Vector squares_;  ///< Σ_i x_ij² per feature (the w_j conditionals' curvature)
  GibbsState state_;
  Vector e_;
  /// Xt V at the sweep's start; column f is q = X v_f while factor f is drawn (no draw before it
  /// changes v_f), kept up to date by its draws.
  Matrix projected_;
};

}  // namespace rankone::fm_baselines
