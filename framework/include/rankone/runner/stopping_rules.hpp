#pragma once
/// \file The experiment's `stop` section: stopping rules and budgets shared by every estimator.
///
/// \code{.json}
/// "stop": {"metric": "relative_error_M", "target": 1e-6,          // converged once the metric reaches it
///          "patience": 5, "min_improvement": 0.01,                 // converged after 5 evaluations without a 1 % gain
///          "seconds": 60, "cpu_seconds": 120, "samples": 1000000}  // budget: estimator time, CPU time, samples drawn
/// \endcode
///
/// The runner checks the budgets after every step and the metric rules whenever the metrics are
/// evaluated (`record_every`). A rule that fires ends the trial gracefully through
/// `Estimator::stop`: the curve so far is kept, the estimator's verdicts (stalled) and best iterate
/// apply, and the status is `converged` (target, no progress) or `budget`. Unlike a limit
/// (`--trial-seconds`, `"limits"`), which kills the trial's process and records it `failed`.
#include <optional>
#include <set>
#include <string>

#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone {

/// Where a trial stands when the rules are asked.
struct TrialProgress {
  int iteration = 0;
  double seconds = 0.0;      ///< estimator wall time (metrics excluded)
  double cpu_seconds = 0.0;  ///< CPU time of the trial's process while the estimator ran
  Index samples = 0;         ///< samples drawn from the source
};

/// Why a rule ended the trial.
struct StopVerdict {
  Status status = Status::converged;
  std::string message;
};

class StoppingRules {
 public:
  /// The declared keys of the `stop` section (validated like a plugin's parameters).
  static const Schema& schema();
  /// Validates a `stop` section (the experiment's JSON at `/stop`); throws ConfigError naming the
  /// key, including the cross-field rules (a target or patience needs a metric, a metric needs one of
  /// them). Returns it with defaults filled in.
  static Json validate(const Json& section, const ValidationContext& ctx);

  StoppingRules() = default;
  /// From a validated section (null: no rules).
  explicit StoppingRules(const Json& validated);
  bool empty() const { return !metric_ && !seconds_ && !cpu_seconds_ && !samples_; }
  /// The metric the target and no-progress rules read, if any.
  const std::optional<std::string>& metric() const { return metric_; }

  /// The budgets, after a step.
  std::optional<StopVerdict> after_step(const TrialProgress& progress) const;
  /// The metric rules, after the metrics were evaluated; `names` are the values they produced (a
  /// rule on a name none of them produces is a ConfigError at /stop/metric, at the first evaluation).
  std::optional<StopVerdict> after_evaluation(const TrialProgress& progress, const std::set<std::string>& names,
                                              double value);

 private:
  std::optional<std::string> metric_;
  bool maximize_ = false;
  std::optional<double> target_;
  std::optional<int> patience_;
  double min_improvement_ = 0.0;
  std::optional<double> seconds_, cpu_seconds_;
  std::optional<Index> samples_;
  // No-progress bookkeeping.
  std::optional<double> best_;
  int since_best_ = 0;
};

}  // namespace rankone
