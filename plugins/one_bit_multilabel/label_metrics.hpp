#pragma once
/// \file Metrics of the one-bit multi-label plugin: the paper's recovery error ‖W − W*‖₂ and
/// precision@k on a test set that pairs every instance with all labels.
#include "rankone/interfaces/metric.hpp"

namespace rankone::one_bit {

/// `recovery_error`: ‖W − W*‖₂ (absolute spectral norm, exact from the factors), optionally after
/// scaling every column of W to unit norm (the model class of the paper, where W* has unit columns).
class RecoveryError final : public Metric {
 public:
  explicit RecoveryError(bool normalize_columns) : normalize_columns_(normalize_columns) {}
  ~RecoveryError() override;
  bool needs_truth() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override;

 private:
  bool normalize_columns_;
};

/// `precision_at_k`: for every test instance, the fraction of its k highest-scored labels that are
/// positive, averaged over instances. Needs a test set with every label (`test_full_labels`).
class PrecisionAtK final : public Metric {
 public:
  explicit PrecisionAtK(Index k) : k_(k) {}
  ~PrecisionAtK() override;
  bool needs_test_set() const override { return true; }
  MetricValues evaluate(const MetricContext& ctx) const override;

 private:
  Index k_;
};

/// The model with every column of M = L R' scaled to unit norm (zero columns left at zero).
LowRankModel with_unit_columns(const LowRankModel& model);

}  // namespace rankone::one_bit
