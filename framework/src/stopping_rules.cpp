// The experiment's `stop` section (runner/stopping_rules.hpp): its schema, its cross-field rules,
// and the verdicts the runner asks for after each step and each evaluation of the metrics.
#include "rankone/runner/stopping_rules.hpp"

#include <cmath>

#include "rankone/plugin/registry.hpp"

namespace rankone {

const Schema& StoppingRules::schema() {
  static const Schema s = [] {
    Schema s;
    s.string("metric", std::nullopt,
             "the metric value the target and no-progress rules read (a name the experiment's metrics record, "
             "e.g. \"relative_error_M\")")
        .make_nullable();
    s.choice("direction", "minimize", {"minimize", "maximize"}, "whether lower (an error) or higher (an AUC) is better");
    s.number("target", std::nullopt, "converged once the metric reaches this value (≤ when minimizing, ≥ when maximizing)")
        .make_nullable();
    s.integer("patience", std::nullopt,
              "converged after this many evaluations of the metrics in a row without the metric improving on its best "
              "by more than min_improvement")
        .at_least(1)
        .make_nullable();
    s.number("min_improvement", 0.0,
             "no-progress rule: an improvement is a change past the best value by more than this fraction of its "
             "magnitude")
        .at_least(0.0);
    s.number("seconds", std::nullopt, "budget: the estimator's wall time (metrics excluded), in seconds")
        .above(0.0)
        .make_nullable();
    s.number("cpu_seconds", std::nullopt,
             "budget: the CPU time of the trial's process while the estimator runs (all its threads), in seconds")
        .above(0.0)
        .make_nullable();
    s.integer("samples", std::nullopt, "budget: samples drawn from the data source").at_least(1).make_nullable();
    return s;
  }();
  return s;
}

Json StoppingRules::validate(const Json& section, const ValidationContext& ctx) {
  if (!section.is_object())
    ctx.fail("/stop", "an object of stopping rules, e.g. {\"metric\": \"relative_error_M\", \"target\": 1e-6}", section);
  for (const char* reserved : {"name", "label"})  // Schema::validate passes these through for plugins
    if (section.contains(reserved))
      ctx.fail_message(std::string("/stop/") + reserved, std::string("unknown key '") + reserved + "' in the stop section");
  const Json v = schema().validate(section, ctx, "/stop");
  const bool metric_rule = !v["target"].is_null() || !v["patience"].is_null();
  if (metric_rule && v["metric"].is_null())
    ctx.fail_message(!v["target"].is_null() ? "/stop/target" : "/stop/patience",
                     std::string(!v["target"].is_null() ? "target" : "patience") +
                         " needs /stop/metric: the metric value the rule reads");
  if (!v["metric"].is_null() && !metric_rule)
    ctx.fail_message("/stop/metric", "metric is read by target or patience, and neither is set");
  if (section.contains("min_improvement") && v["patience"].is_null())
    ctx.fail_message("/stop/min_improvement", "min_improvement belongs to the no-progress rule, and /stop/patience is not set");
  if (section.contains("direction") && v["metric"].is_null())
    ctx.fail_message("/stop/direction", "direction belongs to the metric rules, and /stop/metric is not set");
  if (v["metric"].is_null() && v["seconds"].is_null() && v["cpu_seconds"].is_null() && v["samples"].is_null())
    ctx.fail_message("/stop", "an empty stop section: give a metric rule (metric with target or patience) or a budget "
                              "(seconds, cpu_seconds, samples)");
  return v;
}

StoppingRules::StoppingRules(const Json& v) {
  if (v.is_null()) return;
  if (!v["metric"].is_null()) metric_ = v["metric"].get<std::string>();
  maximize_ = v["direction"].get<std::string>() == "maximize";
  if (!v["target"].is_null()) target_ = v["target"].get<double>();
  if (!v["patience"].is_null()) patience_ = v["patience"].get<int>();
  min_improvement_ = v["min_improvement"].get<double>();
  if (!v["seconds"].is_null()) seconds_ = v["seconds"].get<double>();
  if (!v["cpu_seconds"].is_null()) cpu_seconds_ = v["cpu_seconds"].get<double>();
  if (!v["samples"].is_null()) samples_ = v["samples"].get<Index>();
}

std::optional<StopVerdict> StoppingRules::after_step(const TrialProgress& p) const {
  const std::string after = " after " + std::to_string(p.iteration) + " iterations";
  if (seconds_ && p.seconds >= *seconds_)
    return StopVerdict{Status::budget, "stop: the estimator's wall time " + short_number(p.seconds) +
                                           " s reached the budget /stop/seconds = " + short_number(*seconds_) + after};
  if (cpu_seconds_ && p.cpu_seconds >= *cpu_seconds_)
    return StopVerdict{Status::budget, "stop: the estimator's CPU time " + short_number(p.cpu_seconds) +
                                           " s reached the budget /stop/cpu_seconds = " + short_number(*cpu_seconds_) +
                                           after};
  if (samples_ && p.samples >= *samples_)
    return StopVerdict{Status::budget, "stop: " + std::to_string(p.samples) +
                                           " samples drawn reached the budget /stop/samples = " + std::to_string(*samples_) +
                                           after};
  return std::nullopt;
}

std::optional<StopVerdict> StoppingRules::after_evaluation(const TrialProgress& p, const std::set<std::string>& names,
                                                           double value) {
  if (!metric_) return std::nullopt;
  if (!names.count(*metric_)) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throw ConfigError("at /stop/metric: the metrics of the experiment record no value named '" + *metric_ +
                      "'; they record: " + known);
  }
  const std::string at = " at iteration " + std::to_string(p.iteration);
  const bool reached = target_ && (maximize_ ? value >= *target_ : value <= *target_);
  if (reached)
    return StopVerdict{Status::converged, "stop: " + *metric_ + " = " + short_number(value) + " reached the target " +
                                              short_number(*target_) + at};
  if (!patience_) return std::nullopt;
  const double margin = min_improvement_ * (best_ ? std::abs(*best_) : 0.0);
  const bool improved = !best_ || (maximize_ ? value > *best_ + margin : value < *best_ - margin);
  if (improved) {
    best_ = value;
    since_best_ = 0;
    return std::nullopt;
  }
  if (++since_best_ < *patience_) return std::nullopt;
  return StopVerdict{Status::converged, "stop: " + *metric_ + " did not improve on its best (" + short_number(*best_) +
                                            ") by more than min_improvement = " + short_number(min_improvement_) +
                                            " of it in " + std::to_string(*patience_) + " evaluations" + at};
}

}  // namespace rankone
