#pragma once
/// \file The `spectral` estimator: the one-shot moment estimate of M* (and w*) from one batch.
#include "rankone/core/options_table.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::spectral {

/// The settings of `spectral`, declared once in `table()` (core/options_table.hpp).
struct SpectralOptions : DeclaredOptions<SpectralOptions> {
  Index rank;
  Index batch_size;  ///< measurements in the one batch
  bool first_order;  ///< also estimate w (when the operator has a first-order term)
  bool intercept;    ///< also estimate b: the batch's mean residual of the moment estimate

  static const OptionsTable<SpectralOptions>& table();
  SpectralOptions() { read_defaults(); }  ///< the schema's defaults
  explicit SpectralOptions(const Params& params) { read(params); }
};

/// Draws one batch in `start`, returns the rank-k spectral estimate (see rankone/estimation/spectral.hpp),
/// and does no further iterations.
class SpectralEstimator final : public Estimator {
 public:
  explicit SpectralEstimator(SpectralOptions options);
  ~SpectralEstimator() override;

  void start(DataSource& data, Rng& rng) override;
  /// Nothing to iterate: the estimate is final after `start`.
  bool step(DataSource&) override { return false; }
  Estimate estimate() const override { return model_; }
  Summary summary() const override { return summary_; }

 private:
  SpectralOptions options_;
  LowRankModel model_;
  Summary summary_;
};

}  // namespace rankone::spectral
