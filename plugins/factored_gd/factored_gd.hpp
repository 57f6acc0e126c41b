#pragma once
/// \file `factored_gd`: gradient descent on the factors of M = L R' (or X X') for the least-squares
/// loss of a fixed training set (estimation/fixed_sample.hpp), vanilla or preconditioned by
/// (R'R)^{-1}, (L'L)^{-1} (ScaledGD). docs/plugins/factored_gd.md.
#include <optional>

#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::factored_gd {

struct FactoredGdOptions : FixedSampleSettings, DeclaredOptions<FactoredGdOptions> {
  enum class Preconditioner { none, scaled };
  enum class Factorization { general, psd };

  Index rank;
  Preconditioner preconditioner;
  Factorization factorization;
  std::optional<double> step_size;  ///< unset: 0.5 for L R', 0.25 for X X' (default_step_size)

  /// The step η when none is given: 0.5 on L R' (Tong, Ma & Chi's), 0.25 on X X', whose gradient
  /// (S + S')X carries a factor 2 (docs/plugins/factored_gd.md, "Step sizes").
  double step() const;

  static const OptionsTable<FactoredGdOptions>& table();
  FactoredGdOptions() { read_defaults(); }
  explicit FactoredGdOptions(const Params& params) { read(params); }
};

class FactoredGd final : public FixedSampleEstimator {
 public:
  explicit FactoredGd(FactoredGdOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;

 protected:
  double advance(const Vector& r) override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;
  std::string stall_hint() const override;

 private:
  bool psd() const { return options_.factorization == FactoredGdOptions::Factorization::psd; }
  /// G P^{-1} for the k × k Gram matrix P of a factor; false when P is singular (a factor lost rank).
  bool right_solve(const Matrix& G, const Matrix& P, Matrix& out) const;

  FactoredGdOptions options_;
  Matrix L_;  ///< d1 × k (psd: X)
  Matrix R_;  ///< d2 × k (psd: unused, X again)
  double sigma_ = 1.0;  ///< vanilla GD's step scale: σ_1 of the start
  bool symmetrize_ = false;
};

}  // namespace rankone::factored_gd
