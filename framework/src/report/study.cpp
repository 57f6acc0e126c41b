// Loading a study for the report: sweep axes in numeric order, curves aggregated per iteration,
// trial outcomes, summary rows and the provenance of the runs.
#include "study.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <set>

namespace rankone::reporting {

namespace fs = std::filesystem;

namespace {

/// The value of a string that is a whole number literal ("16", "1e-3"), if it is one.
std::optional<double> number_in(const std::string& s) {
  if (s.empty() || std::isspace(static_cast<unsigned char>(s.front()))) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<double> numeric_value(const Json& v) {
  if (v.is_number()) return v.get<double>();
  if (v.is_string()) return number_in(v.get<std::string>());
  return std::nullopt;
}

/// Natural order: runs of digits compare by value, everything else character by character.
bool natural_less(const std::string& a, const std::string& b) {
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
      std::size_t i_end = i, j_end = j;
      while (i_end < a.size() && std::isdigit(static_cast<unsigned char>(a[i_end]))) ++i_end;
      while (j_end < b.size() && std::isdigit(static_cast<unsigned char>(b[j_end]))) ++j_end;
      const double x = std::strtod(a.substr(i, i_end - i).c_str(), nullptr);
      const double y = std::strtod(b.substr(j, j_end - j).c_str(), nullptr);
      if (x != y) return x < y;
      i = i_end;
      j = j_end;
    } else {
      if (a[i] != b[j]) return a[i] < b[j];
      ++i;
      ++j;
    }
  }
  return a.size() - i < b.size() - j;
}

std::string text_of(const Json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::vector<Axis> sweep_axes(const Json& experiment, const std::map<std::size_t, Json>& cells) {
  std::map<std::string, std::vector<Json>> values;
  std::set<std::string> keys;
  for (const auto& [cell, coords] : cells)
    for (auto it = coords.begin(); it != coords.end(); ++it) keys.insert(it.key());
  for (const auto& [cell, coords] : cells)
    for (const auto& k : keys) {
      const Json v = coords.contains(k) ? coords[k] : Json();  // a cell of another run's sweep lacks the key
      auto& list = values[k];
      if (std::find(list.begin(), list.end(), v) == list.end()) list.push_back(v);
    }
  // Paths of one zip group form one axis.
  std::map<std::string, std::vector<std::string>> zip_of;
  if (experiment.contains("sweep") && experiment["sweep"].contains("zip") && experiment["sweep"]["zip"].is_array())
    for (const auto& group : experiment["sweep"]["zip"]) {
      std::vector<std::string> group_keys;
      for (auto it = group.begin(); it != group.end(); ++it)
        if (values.count(it.key())) group_keys.push_back(it.key());
      for (const auto& k : group_keys) zip_of[k] = group_keys;
    }
  std::vector<Axis> axes;
  std::set<std::string> done;
  for (const auto& [key, vals] : values) {
    if (done.count(key)) continue;
    Axis axis;
    axis.keys = zip_of.count(key) ? zip_of[key] : std::vector<std::string>{key};
    for (const auto& k : axis.keys) done.insert(k);
    axis.values = values[axis.keys[0]];
    std::sort(axis.values.begin(), axis.values.end(), sweep_value_less);
    for (const auto& v : axis.values) axis.numeric = axis.numeric && v.is_number();
    axes.push_back(std::move(axis));
  }
  return axes;
}

/// Per iteration of one (cell, label, metric): the repetitions' values and where they were taken.
struct IterationValues {
  std::vector<double> samples, seconds, values;
};

std::vector<CodeVersion> code_versions(const std::vector<TrialRecord>& trials) {
  std::map<std::tuple<std::string, std::string, std::string, std::string>, std::size_t> count;
  for (const auto& t : trials)
    for (auto it = t.code.begin(); it != t.code.end(); ++it)
      if (it.value().is_object())
        ++count[{it.key(), it.value().value("version", ""), it.value().value("fingerprint", ""),
                 it.value().value("library", "")}];
  std::vector<CodeVersion> out;
  for (const auto& [key, n] : count) {
    const auto& [role, version, fingerprint, library] = key;
    out.push_back({role, version, fingerprint, library, n});
  }
  // The core first, then plugins by name (the map already orders each role's versions).
  std::stable_sort(out.begin(), out.end(), [](const CodeVersion& a, const CodeVersion& b) {
    return (a.role == "core") > (b.role == "core");
  });
  return out;
}

}  // namespace

bool sweep_value_less(const Json& a, const Json& b) {
  const auto x = numeric_value(a), y = numeric_value(b);
  if (x && y) return *x != *y ? *x < *y : text_of(a) < text_of(b);
  if (x || y) return x.has_value();  // numbers first
  if (a.is_string() && b.is_string()) return natural_less(a.get<std::string>(), b.get<std::string>());
  return natural_less(a.dump(), b.dump());
}

std::string Axis::name() const {
  std::string s;
  for (const auto& k : keys) s += (s.empty() ? "" : " / ") + k;
  return s;
}

std::size_t Study::label_index(const std::string& label) {
  const std::size_t i = find_label(label);
  if (i < labels.size()) return i;
  labels.push_back(label);
  return labels.size() - 1;
}

std::size_t Study::find_label(const std::string& label) const {
  return static_cast<std::size_t>(std::find(labels.begin(), labels.end(), label) - labels.begin());
}

std::size_t Study::metric_index(const std::string& metric) {
  auto it = std::find(metrics.begin(), metrics.end(), metric);
  if (it != metrics.end()) return static_cast<std::size_t>(it - metrics.begin());
  metrics.push_back(metric);
  return metrics.size() - 1;
}

std::vector<std::size_t> Study::varying_axes() const {
  std::vector<std::size_t> out;
  for (std::size_t a = 0; a < axes.size(); ++a)
    if (axes[a].values.size() > 1) out.push_back(a);
  return out;
}

std::vector<std::size_t> Study::ordered_cells() const {
  std::vector<std::size_t> out;
  for (const auto& [cell, coords] : cells) out.push_back(cell);
  std::stable_sort(out.begin(), out.end(), [this](std::size_t a, std::size_t b) { return position.at(a) < position.at(b); });
  return out;
}

std::string Study::cell_text(std::size_t cell, const std::vector<std::size_t>& which) const {
  std::string s;
  for (std::size_t a : which)
    s += (s.empty() ? "" : ", ") + axes[a].name() + " = " + value_text(axes[a].values[position.at(cell)[a]]);
  return s;
}

Study load_study(const fs::path& folder, const ReportOptions& options) {
  Study s;
  s.folder = folder;
  const ResultsStore store(folder, ResultsStore::Access::read_only);
  s.experiment = store.latest_experiment();
  s.name = s.experiment.value("name", folder.filename().string());
  if (s.experiment.contains("description") && s.experiment["description"].is_string())
    s.description = s.experiment["description"].get<std::string>();
  if (s.experiment.contains("repetitions") && s.experiment["repetitions"].is_number_integer())
    s.repetitions = s.experiment["repetitions"].get<int>();
  if (s.experiment.contains("estimators") && s.experiment["estimators"].is_array())
    for (const auto& e : s.experiment["estimators"]) {
      if (e.is_string()) s.label_index(e.get<std::string>());
      else if (e.is_object() && e.contains("name")) s.label_index(e.value("label", e["name"].get<std::string>()));
    }

  SummaryOptions summary_options;
  summary_options.success_metric = options.success_metric;
  summary_options.success_below = options.success_below;
  if (s.experiment.contains("success") && !options.success_metric) {
    s.success_metric = s.experiment["success"]["metric"].get<std::string>();
    s.success_below = s.experiment["success"]["below"].get<double>();
  } else {
    s.success_metric = options.success_metric;
    s.success_below = options.success_below;
  }

  // Aggregate point by point, then drop the points: a study of millions of points never holds
  // more than the per-iteration value lists.
  std::map<SeriesKey, std::map<int, IterationValues>> by_iteration;
  std::map<SeriesKey, std::vector<double>> final_values;
  s.trials = store.trials(true);
  s.outcomes.reserve(s.trials.size());
  for (auto& t : s.trials) {
    s.cells.emplace(t.cell, t.coordinates);
    const std::size_t label = s.label_index(t.label);
    s.outcomes.push_back(outcome_of(t, s.success_metric, s.success_below));
    std::map<std::string, std::pair<std::map<int, IterationValues>*, const Point*>> per_metric;
    for (const auto& p : t.points) {
      if (!std::isfinite(p.value)) continue;
      auto [it, fresh] = per_metric.try_emplace(p.metric);
      if (fresh) it->second.first = &by_iteration[{t.cell, label, s.metric_index(p.metric)}];
      IterationValues& v = (*it->second.first)[p.iteration];
      v.samples.push_back(static_cast<double>(p.samples));
      v.seconds.push_back(p.seconds);
      v.values.push_back(p.value);
      if (!it->second.second || p.iteration >= it->second.second->iteration) it->second.second = &p;
    }
    for (const auto& [metric, entry] : per_metric)
      final_values[{t.cell, label, s.metric_index(metric)}].push_back(entry.second->value);
    t.points.clear();
    t.points.shrink_to_fit();
  }
  for (auto& [key, iterations] : by_iteration) {
    auto& curve = s.curves[key];
    curve.reserve(iterations.size());
    for (auto& [iteration, v] : iterations)
      curve.push_back({static_cast<double>(iteration), median_of(v.samples), median_of(v.seconds),
                       band_of(v.values, options.band_quantile)});
  }
  for (auto& [key, values] : final_values) s.finals[key] = band_of(values, options.band_quantile);

  s.axes = sweep_axes(s.experiment, s.cells);
  for (const auto& [cell, coords] : s.cells) {
    auto& pos = s.position[cell];
    for (const auto& axis : s.axes) {
      const Json& v = coords.contains(axis.keys[0]) ? coords[axis.keys[0]] : Json();
      pos.push_back(static_cast<std::size_t>(std::find(axis.values.begin(), axis.values.end(), v) - axis.values.begin()));
    }
  }
  s.summary = summarize(store, summary_options);
  s.runs = store.runs();
  s.code = code_versions(s.trials);
  s.damage = store.damage();
  return s;
}

}  // namespace rankone::reporting
