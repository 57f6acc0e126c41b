#pragma once
/// \file `polynomial_network`: the degree-2 polynomial network ŷ = x̃'P Q'x̃ (Blondel et al., ICML
/// 2016), a second-order model whose M = sym(P Q') is unconstrained (indefinite, diagonal
/// included), trained by coordinate descent as polylearn (lifted_cd.hpp) on a fixed training set
/// (estimation/fixed_sample.hpp). One iteration is one epoch. docs/plugins/polynomial_network.md.
#include <optional>

#include "lifted_cd.hpp"
#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::fm_baselines {

struct PolynomialNetworkOptions : FixedSampleSettings, DeclaredOptions<PolynomialNetworkOptions> {
  Index rank;
  double reg_v;     ///< ½ reg_v (‖P‖² + ‖Q‖²) beside the mean squared loss (polylearn's beta = n · reg_v)
  bool fit_lower;   ///< w and b through a constant feature (polylearn's fit_lower = 'augment')

  static const OptionsTable<PolynomialNetworkOptions>& table();
  PolynomialNetworkOptions() { read_defaults(); }
  explicit PolynomialNetworkOptions(const Params& params) { read(params); }
};

class PolynomialNetwork final : public FixedSampleEstimator {
 public:
  explicit PolynomialNetwork(PolynomialNetworkOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;

 protected:
  double advance(const Vector& r) override;
  /// The solver's own residual, refreshed every epoch.
  Vector training_residual() const override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;
  std::string stall_hint() const override;

 private:
  PolynomialNetworkOptions options_;
  std::optional<LiftedCd> solver_;
  bool augmented_ = false;  ///< the last row of P and Q belongs to the constant feature
};

}  // namespace rankone::fm_baselines
