#pragma once
/// \file The metric registrations of this library, grouped by what they look at.
#include <vector>

#include "rankone/interfaces/metric.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::metrics {

/// relative_error_M, relative_error_w, combined_error, subspace_angle, sign_invariant_error, truth_correlation
/// (need the truth).
std::vector<Registration> error_metric_registrations();
/// test_rmse, auc, hamming_loss (need the test set).
std::vector<Registration> prediction_metric_registrations();
/// samples, seconds (the budget spent so far).
std::vector<Registration> budget_metric_registrations();

}  // namespace rankone::metrics
