// Trial outcomes and the ratios of paired trials (rankone report's paired comparison).
#include "rankone/report/paired.hpp"

#include <cmath>
#include <tuple>

namespace rankone {

TrialOutcome outcome_of(const TrialRecord& trial, const std::optional<std::string>& success_metric,
                        std::optional<double> success_below) {
  TrialOutcome out;
  out.cell = trial.cell;
  out.repetition = trial.repetition;
  out.label = trial.label;
  out.status = trial.status;
  std::map<std::string, int> last_iteration;
  bool reached = false;
  for (const auto& p : trial.points) {
    auto [it, fresh] = last_iteration.try_emplace(p.metric, p.iteration);
    if (fresh || p.iteration >= it->second) {
      it->second = p.iteration;
      out.finals[p.metric] = p.value;
    }
    // The first recorded point below the threshold, as summarize counts it.
    if (!reached && success_metric && success_below && p.metric == *success_metric && p.value < *success_below) {
      reached = true;
      out.samples_to_target = static_cast<double>(p.samples);
      out.seconds_to_target = p.seconds;
    }
  }
  return out;
}

std::optional<double> quantity_of(const TrialOutcome& outcome, const std::string& quantity) {
  if (quantity == kSamplesToTarget) return outcome.samples_to_target;
  if (quantity == kSecondsToTarget) return outcome.seconds_to_target;
  if (auto it = outcome.finals.find(quantity); it != outcome.finals.end()) return it->second;
  return std::nullopt;
}

std::vector<PairedRatio> paired_ratios(const std::vector<TrialOutcome>& outcomes, const std::string& baseline,
                                       const std::string& quantity) {
  const auto usable = [&](const TrialOutcome& o) -> std::optional<double> {
    const auto v = quantity_of(o, quantity);
    if (v && std::isfinite(*v) && *v > 0.0) return v;
    return std::nullopt;
  };
  std::map<std::pair<std::size_t, int>, double> baseline_value;
  for (const auto& o : outcomes)
    if (o.label == baseline)
      if (const auto v = usable(o)) baseline_value[{o.cell, o.repetition}] = *v;
  std::vector<PairedRatio> out;
  for (const auto& o : outcomes) {
    if (o.label == baseline) continue;
    const auto base = baseline_value.find({o.cell, o.repetition});
    const auto v = usable(o);
    if (base == baseline_value.end() || !v) continue;
    out.push_back({o.cell, o.repetition, o.label, *v / base->second});
  }
  return out;
}

}  // namespace rankone
