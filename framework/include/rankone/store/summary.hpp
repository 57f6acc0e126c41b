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
  /// failed nor diverged). Give both or neither: neither takes the experiment's "success" section.
  /// summarize() throws UsageError for only one of them, or for a metric that no trial recorded.
  std::optional<std::string> success_metric;
  std::optional<double> success_below;
};

struct SummaryRow {
  std::size_t cell = 0;
  Json coordinates = Json::object();
  std::string label;
  std::string metric;
  std::size_t trials = 0;     ///< trials with a final value of this metric
  std::size_t failures = 0;   ///< trials of this cell and label that failed or diverged
  double mean = 0.0, sd = 0.0, ci_low = 0.0, ci_high = 0.0, median = 0.0;
  std::optional<double> success_rate;          ///< for the success metric only, over all attempts
  std::optional<double> samples_to_target;     ///< mean over the trials that reached the target
  std::optional<double> seconds_to_target;
  std::size_t reached_target = 0;
};

/// Two-sided 95 % Student-t quantile for `df` degrees of freedom.
double t_quantile_975(std::size_t df);

std::vector<SummaryRow> summarize(const ResultsStore& store, const SummaryOptions& options);
/// A sweep value as tables show it: strings bare, anything else as JSON.
std::string value_text(const Json& value);
/// Sweep coordinates as "path=value path=value" (value_text of each value).
std::string coordinates_text(const Json& coordinates);

/// Writes rows as an aligned table, CSV or JSON.
void write_summary(const std::vector<SummaryRow>& rows, const std::string& format, std::ostream& out);

}  // namespace rankone
