#pragma once
/// \file `altmin_sensing`: alternating least squares over the factors of M = U V' on a fixed
/// training set (estimation/fixed_sample.hpp), each half-step solved matrix-free by conjugate
/// gradients on its normal equations. docs/plugins/altmin_sensing.md.
#include <optional>

#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::altmin {

struct AltMinOptions : FixedSampleSettings, DeclaredOptions<AltMinOptions> {
  Index rank;
  double solver_tolerance;                ///< CG: relative residual of the normal equations
  std::optional<int> solver_iterations;   ///< CG steps per solve; unset: the unknowns d·k

  static const OptionsTable<AltMinOptions>& table();
  AltMinOptions() { read_defaults(); }
  explicit AltMinOptions(const Params& params) { read(params); }
};

class AltMinSensing final : public FixedSampleEstimator {
 public:
  explicit AltMinSensing(AltMinOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;
  Summary summary() const override;

 protected:
  double advance(const Vector& r) override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;

 private:
  /// argmin over one factor of Σ_i (<A_i, U V'> − y_i)², the other `fixed`: V (d2 × k) for the fixed
  /// U when `for_right`, else U (d1 × k) for the fixed V; by CG from 0 (the minimum-norm solution when
  /// the problem is singular).
  Matrix solve(const Matrix& fixed, bool for_right);
  /// CG on N(X) = B, N symmetric positive semi-definite; counts its steps.
  Matrix conjugate_gradients(const std::function<Matrix(const Matrix&)>& N, const Matrix& B);

  AltMinOptions options_;
  Matrix U_;      ///< d1 × k, orthonormal
  Matrix V_hat_;  ///< d2 × k: M = U V_hat'
  bool symmetrize_ = false;
  long solver_steps_ = 0;  ///< CG steps over the run
  int solves_ = 0;
  int unconverged_solves_ = 0;
};

}  // namespace rankone::altmin
