#pragma once
/// \file The `spectral` estimator: the one-shot moment estimate of M* (and w*) from one batch.
#include "rankone/interfaces/estimator.hpp"
#include "rankone/core/params.hpp"

namespace rankone::spectral {

/// Draws one batch in `start`, returns the rank-k spectral estimate (see rankone/estimation/spectral.hpp),
/// and does no further iterations.
class SpectralEstimator final : public Estimator {
 public:
  /// Reads `rank`, `batch_size`, `first_order` and `intercept` from validated parameters.
  explicit SpectralEstimator(const Params& params);
  ~SpectralEstimator() override;

  void start(DataSource& data, Rng& rng) override;
  /// Nothing to iterate: the estimate is final after `start`.
  bool step(DataSource&) override { return false; }
  Estimate estimate() const override { return model_; }
  Summary summary() const override { return summary_; }

 private:
  Index rank_;
  Index batch_size_;
  bool first_order_;
  bool intercept_;
  LowRankModel model_;
  Summary summary_;
};

}  // namespace rankone::spectral
