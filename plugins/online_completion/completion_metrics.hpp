#pragma once
/// \file Metrics for completion on real data (docs/plugins/completion_metrics.md):
/// `test_relative_error`, `test_psnr` and `export_matrix`.
#include <vector>

#include "rankone/interfaces/metric.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::online_completion {

/// PSNR is reported with the MSE floored here, so an exact reconstruction stays finite (3000 dB at peak 1).
constexpr double kPsnrMseFloor = 1e-300;

/// ‖predicted − observed‖₂ / ‖observed‖₂ (the absolute error when `observed` is 0; NaN when empty).
double relative_error(const Vector& predicted, const Vector& observed);
/// 10 log10(peak² / mean (predicted − observed)²) in dB (NaN when empty).
double psnr(const Vector& predicted, const Vector& observed, double peak);

/// The registrations of test_relative_error, test_psnr and export_matrix.
std::vector<Registration> completion_metric_registrations();

}  // namespace rankone::online_completion
