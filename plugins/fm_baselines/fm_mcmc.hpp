#pragma once
/// \file `fm_mcmc`: Bayesian factorization machine by Gibbs sampling, as libFM's MCMC (its default
/// and strongest solver), on a fixed training set (estimation/fixed_sample.hpp). One iteration is
/// one sweep (gibbs_fm.hpp); the estimate is the posterior mean of the model over the samples
/// after `burn_in`, which predicts libFM's average of the samples' predictions. docs/plugins/fm_mcmc.md.
#include <optional>

#include "gibbs_fm.hpp"
#include "rankone/core/options_table.hpp"
#include "rankone/estimation/fixed_sample.hpp"

namespace rankone::fm_baselines {

struct FmMcmcOptions : FixedSampleSettings, DeclaredOptions<FmMcmcOptions> {
  Index rank;
  int burn_in;  ///< sweeps left out of the posterior mean

  static const OptionsTable<FmMcmcOptions>& table();
  FmMcmcOptions() { read_defaults(); }
  explicit FmMcmcOptions(const Params& params) { read(params); }
};

class FmMcmc final : public FixedSampleEstimator {
 public:
  explicit FmMcmc(FmMcmcOptions options);
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;

 protected:
  double advance(const Vector& r) override;
  /// The posterior mean's residual, the mean of the kept samples' residuals (a forward product of
  /// the mean, whose rank grows with the samples, would cost more than the sweep).
  Vector training_residual() const override;
  std::any snapshot() const override;
  void restore(const std::any& state) override;
  std::string stall_hint() const override;

 private:
  /// The kept samples' sum: Σ V_s/√2 side by side (Σ ½ V_s V_s' = L L'), Σ w_s, Σ w0_s, Σ e_s.
  struct Sums {
    Matrix L;
    Vector w;
    double w0 = 0.0;
    Vector e;
    int samples = 0;
  };
  /// The best-iterate copy: the chain's state and residual (not its data) and the sums.
  struct Snapshot {
    GibbsState state;
    Vector residual;
    Sums sums;
  };
  void add_sample();

  FmMcmcOptions options_;
  Rng rng_{0};
  std::optional<GibbsFm> sampler_;
  Sums sums_;
};

}  // namespace rankone::fm_baselines
