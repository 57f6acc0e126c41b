#pragma once
/// \file Estimators of the matrix-sensing literature's setting: one fixed training set, the whole
/// of a finite source read once, fitted by minimising (unless the estimator says another loss:
/// nuclear_norm's logistic) the least-squares loss
///
///   f(M) = (c / 2n) Σ_i (<A_i, M> − y_i)²,   c = the operator's isotropic scale
///
/// (`SensingOperator::isotropic_inverse`: 1 for Gaussian designs and the Gaussian ensemble, ½ for
/// symmetric rank-one sensing, d1·d2 for entries), so that `(c/n) 𝒜'𝒜 ≈ I` on the isotropic part
/// and one step size means the same on every operator. The base holds the policy every such
/// estimator shares: reading the set, the residual and its fit, the divergence rule, best-iterate
/// keeping, the start's reader, the final fit on the held-out set (on a sign link every fit is a
/// sign error rate). A subclass is its update rule
/// (`advance`) and its state (`estimate`, `snapshot`, `restore`).
#include <functional>
#include <memory>
#include <string>

#include "rankone/core/options_table.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/footprint.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone {

/// The largest count an int setting takes (iterations, steps): the schema refuses more by name.
inline constexpr double kMaxCount = 2147483647.0;

/// The settings every fixed-sample estimator has, a base of its Options (bind_fixed_sample_settings).
struct FixedSampleSettings {
  int max_iterations;
  double tolerance;          ///< converged when ‖M_{t+1} − M_t‖_F / ‖M_t‖_F falls below it
  double divergence_factor;  ///< the training residual's RMS over the responses' RMS
};

/// Declares and binds `max_iterations` (default `iterations`, each one `what`), `tolerance` (its
/// default and text) and `divergence_factor` in an Options table whose struct derives from
/// FixedSampleSettings.
template <class Options>
void bind_fixed_sample_settings(OptionsTable<Options>& t, std::int64_t iterations, const std::string& what,
                                double tolerance = 1e-10,
                                const std::string& tolerance_doc = "converged when ‖M_{t+1} − M_t‖_F / ‖M_t‖_F falls below this; 0: never") {
  Schema& s = t.schema();
  t.bind(&FixedSampleSettings::max_iterations,
         s.integer("max_iterations", iterations, "iteration budget (" + what + ")").at_least(0).at_most(kMaxCount));
  t.bind(&FixedSampleSettings::tolerance, s.number("tolerance", tolerance, tolerance_doc).at_least(0));
  IterativeEstimator::declare_divergence_factor(s, "on the training set", "the responses' RMS");
  t.bind(&FixedSampleSettings::divergence_factor, "divergence_factor");
}

class FixedSampleEstimator : public IterativeEstimator {
 public:
  /// The example data of their registrations (conformance): a finite Gaussian-ensemble source.
  static Json example_data();
  /// What every fixed-sample estimator holds beside its own state: the training set, the copy a
  /// data-driven start reads, the residuals. Its registration's footprint adds its own parts.
  static Footprint training_footprint(const FootprintContext& context);

 protected:
  explicit FixedSampleEstimator(const FixedSampleSettings& settings);

  /// Reads the training set, the loss scale and the link; false, the run ended `failed` with the reason,
  /// when the source is endless or empty. Call first in `start`.
  bool read_training_set(DataSource& data, const std::string& estimator_name);
  /// False, the run ended `failed` naming `rank`, when rank k exceeds min(d1, d2): no start can
  /// have that rank (spectral_init refuses it, the other starts do not).
  bool rank_fits(Index rank);
  /// A start request (interfaces/initializer.hpp) whose reader hands out the training set: a
  /// data-driven start (spectral_init) reads it whole by default.
  StartRequest start_request(Index rank) const;

  const Batch& training() const { return training_; }
  const SensingOperator& sensing() const { return *op_; }
  ProblemShape problem() const { return shape_; }
  double loss_scale() const { return loss_scale_; }
  /// 𝒜(M) − y on the training set.
  Vector residual(const LowRankModel& model) const;
  /// S Z and S' Z with S = M̂(r) = c·(𝒜'(r)/n − shift·mean(r)·I), the operator's moment inverse of
  /// the residual r = 𝒜(M) − y (SensingOperator::isotropic_inverse), applied matrix-free. On every
  /// operator without a trace shift it is (c/n) 𝒜'(r), the gradient of f; on symmetric rank-one
  /// sensing, whose E 𝒜'𝒜(E)/n = 2E + tr(E)·I makes f steeper along the trace by 1 + k/2, it is that
  /// gradient with the trace bias removed, E[S] = M − M*, so one step size serves every operator.
  Matrix gradient_times(const Vector& r, const Matrix& Z) const;
  Matrix gradient_transpose_times(const Vector& r, const Matrix& Z) const;
  /// (S R, S' L) in one call: the operator may share their work (SensingOperator::adjoint_pair).
  std::pair<Matrix, Matrix> gradient_pair(const Vector& r, const Matrix& R, const Matrix& L) const;
  /// S itself, d1 × d2 (the projection methods, which hold M densely).
  Matrix gradient_dense(const Vector& r) const;
  /// ∇f = (c/n) 𝒜'(r) itself, d1 × d2, without the trace correction: what a method whose steps
  /// test the loss (backtracking) needs.
  Matrix loss_gradient_dense(const Vector& r) const;
  /// Whether the source's responses are signs (Link::sign): then every fit is a sign error rate.
  bool sign_link() const { return sign_link_; }
  /// f = (c/2n) ‖r‖².
  double loss(const Vector& r) const { return loss_scale_ / (2.0 * static_cast<double>(r.size())) * r.squaredNorm(); }
  /// <∇f, D> for a direction D, from `dot_with_S` = <S, D> and tr D: the trace part S leaves out,
  /// c·shift·mean(r)·tr D, added back (an exact line search needs the true gradient).
  double gradient_dot(const Vector& r, double dot_with_S, double trace_of_direction) const;

  /// 𝒜(estimate()) − y, the residual the iteration's fit and divergence rule read. An estimator
  /// that tracks it more cheaply than a forward product of its estimate overrides this (fm_mcmc's
  /// posterior mean, whose rank grows with the samples, averages its samples' residuals).
  virtual Vector training_residual() const { return residual(estimate()); }

  /// The update rule: the next iterate from the current one, whose training residual is `r`.
  /// Returns the relative change ‖M_{t+1} − M_t‖_F / ‖M_t‖_F, or a negative number after `finish`.
  virtual double advance(const Vector& r) = 0;

 private:
  /// One iteration: the residual of the current iterate, its fit (recorded, kept when the best:
  /// ‖r‖/‖y‖, or on a sign link the fraction of training signs it gets wrong), the divergence rule (a residual RMS above divergence_factor × the responses' RMS,
  /// or non-finite: the run ends `diverged` with the best iterate), then `advance`.
  double iterate(DataSource& data) final;
  /// The fit of the final estimate: on the held-out test set when the source has one, else the
  /// training residual.
  void measure_final_fit() final;
  /// The fit of the iterate with training residual r, and the text naming the measure (`where`: the
  /// set it was measured on).
  double training_fit(const Vector& r) const;
  /// On a sign link every fit is a sign error rate.
  Link fit_link() const final { return sign_link_ ? Link::sign : Link::identity; }
  std::string fit_measure(const std::string& where) const;

  double divergence_factor_;
  Batch training_;
  const SensingOperator* op_ = nullptr;
  ProblemShape shape_;
  double loss_scale_ = 1.0;
  double trace_shift_ = 0.0;
  double response_rms_ = 0.0;
  bool sign_link_ = false;
};

}  // namespace rankone
