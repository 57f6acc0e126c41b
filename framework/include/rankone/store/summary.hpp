#pragma once
/// \file Aggregation of a results folder: per sweep cell × estimator label × metric, statistics of
/// the final values over repetitions, the success rate against a threshold, and the samples and
/// seconds needed to reach a target value.
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rankone/store/results_store.hpp"

namespace rankone {

struct SummaryOptions {
  /// Success: the final value of `success_metric` is below `success_below` (and the trial neither
  /// failed, diverged nor stalled). Give both or neither: neither takes the experiment's "success" section.
  /// summarize() throws UsageError for only one of them, or for a metric that no trial recorded.
  std::optional<std::string> success_metric;
  std::optional<double> success_below;
};

/// A cell × estimator whose final estimates have a median σ_k/σ_1 (diagnostics.singular_values,
/// the k = rank largest singular values of the low-rank part) below this is flagged "rank
/// over-specified?". Measured (d = 200, true rank 2, estimator rank 4, no noise): omc_psd 0.0077–0.0078,
/// omc_general 0.017; at the true rank 0.66–1; the planted spectra of experiments/ go down to 1/30
/// (experiments/gfm/conditioning.json), which the flag must not call over-specified.
inline constexpr double kRankOverSpecifiedRatio = 2e-2;

struct SummaryRow {
  std::size_t cell = 0;
  Json coordinates = Json::object();
  std::string label;
  std::string metric;
  std::size_t trials = 0;     ///< trials with a final value of this metric
  std::size_t failures = 0;   ///< trials of this cell and label that failed or diverged
  std::size_t stalled = 0;    ///< trials of this cell and label that stalled (not a success either)
  std::string flags;          ///< e.g. "rank over-specified? σ_k/σ_1 = 3e-3"
  double mean = 0.0, sd = 0.0, ci_low = 0.0, ci_high = 0.0, median = 0.0;
  /// The 95 % CI [ci_low, ci_high] is that of the geometric mean (see interval_95), not of the mean.
  bool ci_log_scale = false;
  std::optional<double> geometric_mean;        ///< when every final value is positive
  std::optional<double> success_rate;          ///< for the success metric only, over all attempts
  std::optional<double> samples_to_target;     ///< mean over the trials that reached the target
  std::optional<double> seconds_to_target;
  std::size_t reached_target = 0;
};

/// Two-sided 95 % Student-t quantile for `df` degrees of freedom.
double t_quantile_975(std::size_t df);

/// A 95 % confidence interval of the typical value of repetitions.
struct Interval95 {
  double centre = 0.0, low = 0.0, high = 0.0;
  bool log_scale = false;  ///< centre is the geometric mean; the bounds are exp of a t-interval of the logs
};

/// A positive quantity whose values span at least this ratio (max / min) gets its CI on log scale.
inline constexpr double kLogIntervalSpan = 10.0;

/// The 95 % CI of the mean (Student t) — unless every value is positive and they span a decade
/// (kLogIntervalSpan) or the t-interval would reach zero: then that of the geometric mean
/// (geometric_interval_95), so errors spanning decades never get a negative lower bound. With
/// fewer than two values the interval is the single value (or NaN for none).
Interval95 interval_95(const std::vector<double>& values);
/// The 95 % CI of the geometric mean of positive values: a Student-t interval of their logarithms,
/// exponentiated (NaN for a non-positive value).
Interval95 geometric_interval_95(const std::vector<double>& values);

std::vector<SummaryRow> summarize(const ResultsStore& store, const SummaryOptions& options);
/// A sweep value as tables show it: strings bare, anything else as JSON.
std::string value_text(const Json& value);
/// Sweep coordinates as "path=value path=value" (value_text of each value).
std::string coordinates_text(const Json& coordinates);

/// Writes rows as an aligned table, CSV or JSON. Table and CSV leave out the columns that no row
/// fills unless `all_columns` (a fixed set of columns for scripts); JSON leaves out empty fields.
void write_summary(const std::vector<SummaryRow>& rows, const std::string& format, std::ostream& out,
                   bool all_columns = false);

}  // namespace rankone
