#pragma once
/// \file `ridge`: first-order linear regression with an intercept and an L2 penalty, the
/// no-interaction baseline. Minimises (1/2N) Σ (b + w'x_i − y_i)² + ½ l2 ‖w‖² exactly from running
/// sufficient statistics (means and centred scatter of [x; y], merged batch by batch with Chan's
/// update, so large feature means cost no precision). One iteration consumes one batch and
/// re-solves: the curve over iterations is a learning curve. Memory O(d²): fine for a linear model.
#include <string>

#include "fm_common.hpp"
#include "fm_options.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::fm_subgaussian {

class RidgeEstimator final : public IterativeEstimator {
 public:
  explicit RidgeEstimator(RidgeOptions options);
  ~RidgeEstimator() override;

  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override { return model_; }

 protected:
  double iterate(DataSource& data) override;
  /// The training relative residual, from the sufficient statistics in O(d²).
  void measure_final_fit() override;
  std::string stall_hint() const override {
    return "the response is not explained by b + x'w (ridge has no second-order term)";
  }

 private:
  void solve();

  RidgeOptions options_;
  Index count_ = 0;
  Vector mean_;     ///< means of [x; y] (size d + 1)
  Matrix scatter_;  ///< Σ (v − mean)(v − mean)' of v = [x; y]
  LowRankModel model_;
};

}  // namespace rankone::fm_subgaussian
