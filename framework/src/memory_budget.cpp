// A trial's footprint from its components' declared footprints, and the budget check.
#include "rankone/runner/memory_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace rankone {

double Footprint::bytes() const {
  double total = 0;
  for (const auto& p : parts) total += p.bytes;
  return total;
}

std::string format_bytes(double bytes) {
  static const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int u = 0;
  while (bytes >= 1024 && u < 6) {
    bytes /= 1024;
    ++u;
  }
  char buf[48];
  if (u == 0) std::snprintf(buf, sizeof buf, "%.0f bytes", bytes);
  else if (bytes >= 1024) std::snprintf(buf, sizeof buf, "%.3g %s", bytes, units[u]);  // beyond EiB: 1.2e+20 EiB
  else std::snprintf(buf, sizeof buf, bytes < 10 ? "%.2f %s" : bytes < 100 ? "%.1f %s" : "%.0f %s", bytes, units[u]);
  return buf;
}

std::string format_count(double n) {
  char buf[48];
  if (!(n < 1e9)) {
    std::snprintf(buf, sizeof buf, "%.3g", n);
    return buf;
  }
  std::snprintf(buf, sizeof buf, "%.0f", n);
  std::string digits = buf, out;
  for (std::size_t i = 0; i < digits.size(); ++i) {  // "10 000": a space between thousands
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
    out += digits[i];
  }
  return out;
}

double TrialFootprint::bytes() const {
  double total = 0;
  for (const auto& p : parts) total += p.part.bytes;
  return total;
}

const TrialFootprint::Part& TrialFootprint::largest() const {
  // A component's part before the process's own: the user can change a component.
  return *std::max_element(parts.begin(), parts.end(), [](const Part& a, const Part& b) {
    return std::make_pair(!a.path.empty(), a.part.bytes) < std::make_pair(!b.path.empty(), b.part.bytes);
  });
}

std::string TrialFootprint::describe(std::size_t max_parts) const {
  std::vector<const Part*> sorted;
  for (const auto& p : parts) sorted.push_back(&p);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Part* a, const Part* b) { return a->part.bytes > b->part.bytes; });
  std::string text;
  for (std::size_t i = 0; i < sorted.size() && i < max_parts; ++i)
    text += (i ? "; " : "") + sorted[i]->owner + ": " + sorted[i]->part.what + " " + format_bytes(sorted[i]->part.bytes);
  if (sorted.size() > max_parts) text += "; …";
  return text;
}

TrialFootprint trial_footprint(const TrialSpec& spec, const Registry& registry, const DataFootprint& read) {
  TrialFootprint trial;
  trial.parts.push_back({"", "the trial's process", MemoryPart{"code, plugins and runtime", kTrialBaselineBytes}});
  auto add = [&trial](const std::string& path, const std::string& owner, const Footprint& f) {
    for (const auto& p : f.parts) trial.parts.push_back({path, owner, p});
  };
  const Footprint source = registry.footprint(spec.data, Kind::data_source, FootprintContext{registry, read});
  add("/data", "source '" + spec.data["name"].get<std::string>() + "'", source);
  const Footprint estimator = registry.footprint(spec.estimator, Kind::estimator, FootprintContext{registry, source.data});
  add("/estimators/" + std::to_string(spec.estimator_index), "estimator '" + spec.label + "'", estimator);
  FootprintContext on_models{registry, source.data};
  on_models.data.zero_diagonal_model = source.data.zero_diagonal_model || estimator.data.zero_diagonal_model;
  // Metrics are evaluated one after another: only the largest one's workspace is alive at a time.
  std::size_t largest = spec.metrics.size();
  Footprint largest_metric;
  for (std::size_t m = 0; m < spec.metrics.size(); ++m) {
    Footprint f = registry.footprint(spec.metrics[m], Kind::metric, on_models);
    if (largest == spec.metrics.size() || f.bytes() > largest_metric.bytes()) {
      largest = m;
      largest_metric = std::move(f);
    }
  }
  if (largest < spec.metrics.size())
    add("/metrics/" + std::to_string(largest), "metric '" + spec.metrics[largest]["name"].get<std::string>() + "'", largest_metric);
  return trial;
}

std::string over_budget(const TrialFootprint& footprint, const MemoryBudget& budget) {
  const double bytes = footprint.bytes();
  if (!(budget.bytes > 0) || bytes <= budget.bytes) return "";
  return "a trial would need about " + format_bytes(bytes) + ", more than the per-trial memory budget of " +
         format_bytes(budget.bytes) + " (" + budget.source + "); the largest parts: " + footprint.describe();
}

DataSource::ShapeBudget shape_budget(const TrialSpec& spec, const Registry& registry) {
  if (!(spec.memory_budget.bytes > 0)) return {};
  return [&spec, &registry](const ProblemShape& shape) {
    DataFootprint read;
    read.shape = shape;
    return over_budget(trial_footprint(spec, registry, read), spec.memory_budget);
  };
}

}  // namespace rankone
