#pragma once
/// \file `fm`: the conventional factorization machine of Rendle (2010), the baseline every FM user
/// knows, with libFM's two classic solvers (SGD and ALS / coordinate descent).
///
///   ŷ(x) = b + w'x + x'Mx,   M = U U' − D(U U')   (PSD factor, zero diagonal; U is d × k),
///
/// i.e. Rendle's Σ_{j<l} <v_j, v_l> x_j x_l with v_j = √2 · (row j of U). Objective
///
///   J = (1/2N) Σ_i (ŷ_i − y_i)² + ½ reg_w ‖w‖² + ½ reg_v ‖U‖²   (bias unregularised),
///
/// over a training set held in memory (one pass of a finite source, or the first `training_size`
/// instances of an endless one). One iteration is one epoch. Predictions and gradients use the
/// identity x'Mx = Σ_f [(u_f'x)² − Σ_j u_jf² x_j²]: O(kd) per instance.
#include <string>

#include "fm_common.hpp"
#include "fm_options.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::fm_subgaussian {

class ConventionalFmEstimator final : public IterativeEstimator {
 public:
  explicit ConventionalFmEstimator(ConventionalFmOptions options);
  ~ConventionalFmEstimator() override;

  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;
  Summary summary() const override;

 protected:
  double iterate(DataSource& data) override;
  /// The training relative residual (fm holds one training set: there is no fresh data).
  void measure_final_fit() override;
  /// Unstandardised features or the SGD step.
  std::string stall_hint() const override;
  /// Early stopping's copy of the estimate: U, w and the bias (the ALS caches are refreshed on restore).
  std::any snapshot() const override;
  void restore(const std::any& state) override;

 private:
  /// The model in the scaled (standardised) feature space the solvers work in.
  LowRankModel scaled_model() const;
  void sgd_epoch();
  void als_epoch();
  /// Residuals ŷ − y on the training set, and the cached projections Z'U (ALS).
  void refresh_residuals();

  ConventionalFmOptions options_;
  Rng rng_{0};
  FeatureScaling scaling_;
  bool first_order_ = true;
  Matrix Z_;         ///< d × N standardised training features (SGD reads columns)
  Matrix Zt_;        ///< N × d, the same (ALS reads features)
  Vector y_;
  Matrix U_;         ///< d × k
  Vector w_;
  double bias_ = 0.0;
  Vector residual_;  ///< ŷ − y (ALS)
  Matrix projected_; ///< Z'U, N × k (ALS)
  std::string data_note_;
  double min_variance_ = 1.0, max_variance_ = 1.0;  ///< raw feature variances of the training set (hint)
};

}  // namespace rankone::fm_subgaussian
