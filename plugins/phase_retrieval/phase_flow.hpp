#pragma once
/// \file What every phase-retrieval estimator shares: the signal z of y_i = (a_i'z)² (the symmetric rank-one
/// operator at rank 1, M = z z'), its start, its measurements u = A z kept between iterations (the training
/// residual u² − y comes from them), and the best iterate. An estimator is its next signal (`PhaseFlow`); a
/// gradient flow (`GradientFlow`) is more narrowly the step
///
///   z_{t+1} = z_t − η_t · P((1/m) Σ_i h_i(u) a_i),
///
/// its weights h (the derivative of its loss in u_i, truncated or reweighted), its step η_t and a
/// preconditioner P (the identity but for Gerchberg–Saxton). One forward product (u) and one adjoint product
/// (Σ h_i a_i) per iteration; a backtracking line search adds one forward product per step it shrinks.
#include <cmath>
#include <string>

#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::phase_retrieval {

class PhaseFlow : public FixedSampleEstimator {
 public:
  void start(DataSource& data, Rng& rng) final;
  Estimate estimate() const final;

 protected:
  PhaseFlow(const FixedSampleSettings& settings, std::string name);

  /// The next signal, and whether its change measures convergence: not in a continuation's stages before the
  /// last, whose solutions are not the method's (the run's tolerance then cannot end it).
  struct Next {
    Vector z;
    bool measures_convergence = true;
    Vector u;  ///< A z when the method already has it (a line search's accepted trial); empty: computed
  };
  /// The next signal from the current one (`signal`, `measurements`) at iteration t = 1, 2, …
  virtual Next next_signal(int t) = 0;
  /// Called once the training set is read, before the start: the method's setup on it (a factorisation).
  /// False ends the run failed with `why` set.
  virtual bool prepare(const Batch&, Rng&, std::string&) { return true; }
  /// Called once the start is set: the method's state from it.
  virtual void started() {}

  const Vector& signal() const { return z_; }
  const Vector& measurements() const { return u_; }  ///< a_i'z for every training measurement
  const Vector& amplitudes() const { return psi_; }  ///< √max(y_i, 0)
  /// ‖z_0‖², the start's squared norm (Wirtinger flow's step scale).
  double start_norm_squared() const { return start_norm_squared_; }

 private:
  double advance(const Vector& r) final;
  Vector training_residual() const final;
  std::any snapshot() const final;
  void restore(const std::any& state) final;
  std::string stall_hint() const final;

  std::string name_;
  Vector z_;    ///< the signal estimate
  Vector u_;    ///< A z_
  Vector psi_;  ///< amplitudes
  double start_norm_squared_ = 1.0;
};

/// A gradient flow: z − η_t P((1/m) Σ h_i a_i), its step η_t from a schedule or from a backtracking line search.
class GradientFlow : public PhaseFlow {
 protected:
  /// `backtracking`: the steps come from the line search (which then needs `search_loss` and `first_trial_step`)
  /// instead of `step_size`.
  GradientFlow(const FixedSampleSettings& settings, std::string name, bool backtracking = false)
      : PhaseFlow(settings, std::move(name)), backtracking_(backtracking) {}

  /// What a flow reads of the current iterate.
  struct Iterate {
    const Vector& u;    ///< a_i'z for every training measurement
    const Vector& y;    ///< the responses (a_i'x)² (+ noise)
    const Vector& psi;  ///< the amplitudes √max(y_i, 0)
    double z_norm;      ///< ‖z‖
  };
  /// h with gradient (1/m) Σ h_i a_i.
  virtual Vector weights(const Iterate& it) const = 0;
  /// The step size η_t of iteration t = 1, 2, …
  virtual double step_size(int t) const = 0;
  /// The direction (1/m) Σ h_i a_i turned into the step's: itself by default; Gerchberg–Saxton's
  /// (A'A/m)⁻¹ times it, which makes the step a least-squares solve.
  virtual Vector precondition(const Vector& gradient) const { return gradient; }
  /// The loss the line search decreases, at measurements `u` (a trial point's A z'), its weights and
  /// truncation frozen at the iterate `at`: the function whose gradient at `at` is (1/m) Σ h_i a_i. The
  /// search's Armijo slope is ‖g‖², so it serves flows without a preconditioner only.
  virtual double search_loss(const Iterate& at, const Vector& u) const;
  /// The line search's trial step at the first iteration (later ones are Barzilai–Borwein steps).
  virtual double first_trial_step() const;

 private:
  Next next_signal(int t) final;
  /// PhasePack's steepest-descent line search: a Barzilai–Borwein trial step, shrunk by 0.2 until the Armijo
  /// condition f(z − τg) ≤ f(z) − 0.1 τ ‖g‖² holds; after 20 shrinks the first iteration's trial is searched
  /// the same way, and when that fails too its 20th shrink is taken as it is.
  Next backtrack(const Iterate& it, Vector g, int t);

  bool backtracking_;
  Vector previous_z_, previous_g_;  ///< the line search's last iterate and gradient (for the BB step)
  double previous_step_ = 0.0;      ///< the line search's last accepted step
};

/// Why `batch` of `data` is not phase retrieval (y_i = (a_i'x)²: the symmetric rank-one operator on design
/// vectors, without a first-order term, an identity link, and a truth, when planted, with its diagonal),
/// naming `who`; "" when it is.
std::string not_phase_retrieval(const DataSource& data, const Batch& batch, const std::string& who);

/// The amplitudes √max(y_i, 0) of intensities y (negative noisy ones clipped at zero).
inline Vector amplitudes_of(const Vector& y) { return y.cwiseMax(0.0).cwiseSqrt(); }

/// √mean(max(y, 0)), the papers' estimate of ‖x‖ (E y = ‖x‖² on designs with E aa' = I).
inline double norm_estimate(const Vector& y) { return std::sqrt(y.cwiseMax(0.0).mean()); }

/// sign(v) with sign(0) = 0.
inline double sign_of(double v) { return static_cast<double>((v > 0.0) - (v < 0.0)); }

}  // namespace rankone::phase_retrieval
