#pragma once
/// \file `nuclear_norm`: min_X f(X) + λ‖X‖_* on a fixed training set (estimation/fixed_sample.hpp)
/// by proximal gradient steps X ← SVT_{λ/L}(Y − ∇f(Y)/L), plain or accelerated with Ji & Ye's
/// backtracking, or Soft-Impute's exact step on entries, over a decreasing path of λ with warm
/// starts; f the least-squares or the logistic loss. The one-bit baselines `trace_logistic` and
/// `trace_squared` (Qiu et al.'s LRT and SMT) are configurations of it. docs/plugins/nuclear_norm.md.
#include <optional>
#include <vector>

#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::nuclear_norm {

struct NuclearNormOptions : FixedSampleSettings, DeclaredOptions<NuclearNormOptions> {
  enum class Method { proximal, accelerated, soft_impute };
  enum class Loss { squared, logistic };
  enum class Objective { normalised, mean };

  Method method;
  Loss loss;
  Objective objective;  ///< the scale of f that λ and initial_step are given on
  std::optional<double> lambda;  ///< one λ; unset: the path
  double lambda_ratio;           ///< the path ends at λ_max · lambda_ratio
  Index path_length;             ///< values of λ after λ_max
  int stage_iterations;          ///< steps allowed per λ
  double initial_step;           ///< 1/L of the first trial step
  double step_growth;            ///< after an accepted step, L ← L / step_growth

  static const OptionsTable<NuclearNormOptions>& table();
  NuclearNormOptions() { read_defaults(); }
  explicit NuclearNormOptions(const Params& params) { read(params); }
};

/// After each accepted step the trace-norm presets grow the step by this (the one-bit baselines' rule).
inline constexpr double kPresetStepGrowth = 1.5;

/// `trace_logistic` / `trace_squared` (Qiu et al. 2017's LRT / SMT baselines): min mean ℓ + μ‖W‖_*
/// by proximal steps whose step grows by kPresetStepGrowth after each accepted one, as nuclear_norm configured.
template <NuclearNormOptions::Loss kLoss>
struct TraceNormOptions : FixedSampleSettings, DeclaredOptions<TraceNormOptions<kLoss>> {
  double penalty;
  double initial_step;

  static const OptionsTable<TraceNormOptions>& table();
  TraceNormOptions() { this->read_defaults(); }
  explicit TraceNormOptions(const Params& params) { this->read(params); }
  /// The nuclear_norm configuration these settings are.
  operator NuclearNormOptions() const;
};

class NuclearNorm final : public FixedSampleEstimator {
 public:
  explicit NuclearNorm(NuclearNormOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;
  Summary summary() const override;

 protected:
  double advance(const Vector& r) override;
  /// X's residual, kept from the step that accepted X (its trial's forward product) instead of a
  /// second forward product; recomputed after soft_impute's steps and a restore.
  Vector training_residual() const override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;

 private:
  /// A d1 × d2 matrix with its thin SVD's non-zero part (the iterates are low rank).
  struct Iterate {
    Matrix dense;
    Matrix left;   ///< U diag(s), d1 × r
    Matrix right;  ///< V, d2 × r
    double nuclear = 0.0;
  };
  /// SVT_τ(Y): singular values shrunk by τ, those at 0 dropped.
  Iterate threshold(const Matrix& Y, double tau) const;
  LowRankModel model_of(const Iterate& x) const;
  /// f at the iterate whose training residual is r, and ∇f there (d1 × d2).
  double smooth(const Vector& r) const;
  Matrix smooth_gradient(const Vector& r) const;
  std::string stall_hint() const override {
    return "the weight λ (lambda; penalty in trace_logistic and trace_squared) may be too large: it thresholds every "
           "singular value";
  }
  /// The most times one entry occurs in the training set (entries only).
  double largest_multiplicity() const;

  NuclearNormOptions options_;
  std::vector<double> lambdas_;
  std::size_t stage_ = 0;
  int stage_steps_ = 0;
  Iterate X_;
  Matrix Y_;          ///< the point the next step starts from (X_ without acceleration)
  Vector y_residual_;  ///< 𝒜(Y) − y, combined from the residuals of the iterates Y is made of
  std::optional<Vector> x_residual_;  ///< 𝒜(X) − y when a step computed it
  double momentum_ = 1.0;  ///< a_k of the accelerated method
  double L_ = 1.0;         ///< the step's Lipschitz estimate
  double units_ = 1.0;     ///< f in the options' objective = f normalised / units_ (λ and L given on it)
  long backtracks_ = 0;
  bool path_done_ = false;  ///< the last λ used its stage_iterations: the run ends at the next step
  bool symmetrize_ = false;
};

}  // namespace rankone::nuclear_norm
