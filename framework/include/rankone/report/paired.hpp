#pragma once
/// \file What each trial achieved, and paired comparisons of estimators. Trials of one sweep cell
/// and repetition see the same data (the data seed derives from the data coordinates and the
/// repetition), so the ratio of two estimators' outcomes on the same (cell, repetition) removes
/// the variation of the data from their comparison.
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rankone/store/results_store.hpp"

namespace rankone {

/// One trial's outcome: its final value of each metric (the point of its last recorded iteration,
/// as `rankone summarize` takes it) and, when a success threshold is given and some point fell
/// below it, the samples and seconds of the first such point.
struct TrialOutcome {
  std::size_t cell = 0;
  int repetition = 0;
  std::string label;
  std::string status;
  std::map<std::string, double> finals;
  std::optional<double> samples_to_target, seconds_to_target;
};

TrialOutcome outcome_of(const TrialRecord& trial, const std::optional<std::string>& success_metric,
                        std::optional<double> success_below);

/// The quantities a paired comparison compares besides a metric's final value.
inline const std::string kSamplesToTarget = "samples to target";
inline const std::string kSecondsToTarget = "seconds to target";

/// A trial's value of `quantity` (a metric name, kSamplesToTarget or kSecondsToTarget), if it has one.
std::optional<double> quantity_of(const TrialOutcome& outcome, const std::string& quantity);

/// The ratio of one trial's quantity to the baseline trial's of the same cell and repetition.
struct PairedRatio {
  std::size_t cell = 0;
  int repetition = 0;
  std::string label;
  double ratio = 0.0;
};

/// Every ratio `quantity(label) / quantity(baseline)` over the (cell, repetition) pairs, for each
/// label other than `baseline`, in the order of `outcomes`. A pair is left out when either side
/// has no positive finite value (a failed trial, a target never reached): a ratio needs both.
std::vector<PairedRatio> paired_ratios(const std::vector<TrialOutcome>& outcomes, const std::string& baseline,
                                       const std::string& quantity);

}  // namespace rankone
