// Model selection on validation results (rankone select).
#include "rankone/store/selection.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "rankone/core/errors.hpp"

namespace rankone {

namespace {

std::string number(double v) {
  std::ostringstream os;
  os << std::setprecision(6) << v;
  return os.str();
}

/// Scores of one configuration on validation: the sum and count of cell means, and whether any
/// trial behind them failed.
struct Candidate {
  double sum = 0.0;
  std::size_t rows = 0;
  bool failed = false;
};

}  // namespace

std::vector<Selection> select_on_validation(const std::vector<SummaryRow>& rows, const SelectionOptions& o) {
  if (o.tune.empty()) throw UsageError("select: give the tuned coordinates (--tune PATH[,PATH...])");
  std::set<std::string> special(o.tune.begin(), o.tune.end());
  special.insert(o.validation_path);
  special.insert(o.average.begin(), o.average.end());
  if (o.outer) special.insert(*o.outer);

  // Key of a selection unit: label, the remaining coordinates, the outer value (all as JSON).
  using Unit = std::tuple<std::string, Json, Json>;
  std::map<Unit, std::map<Json, Candidate>> validation;  // unit → tuned values → scores
  std::map<Unit, std::map<Json, std::vector<const SummaryRow*>>> test;
  bool any_metric = false;
  for (const SummaryRow& r : rows) {
    if (r.metric != o.metric) continue;
    any_metric = true;
    const auto coordinate = [&](const std::string& path) -> Json {
      if (!r.coordinates.contains(path))
        throw UsageError("select: '" + path + "' is not a sweep coordinate of these results (coordinates: " +
                         coordinates_text(r.coordinates) + ")");
      return r.coordinates.at(path);
    };
    Json tuned = Json::object();
    for (const std::string& path : o.tune) tuned[path] = coordinate(path);
    Json group = Json::object();
    for (auto it = r.coordinates.begin(); it != r.coordinates.end(); ++it)
      if (!special.count(it.key())) group[it.key()] = it.value();
    const Unit unit{r.label, group, o.outer ? coordinate(*o.outer) : Json()};
    if (coordinate(o.validation_path) == o.validation_value) {
      for (const std::string& path : o.average) coordinate(path);  // a typo must not pass silently
      Candidate& c = validation[unit][tuned];
      c.sum += r.mean;
      ++c.rows;
      c.failed = c.failed || r.failures > 0 || !std::isfinite(r.mean);
    } else {
      test[unit][tuned].push_back(&r);
    }
  }
  if (!any_metric) throw UsageError("select: no final values of metric '" + o.metric + "' in these results");
  if (validation.empty())
    throw UsageError("select: no validation trials (" + o.validation_path + " = " + value_text(o.validation_value) + ")");

  std::vector<Selection> out;
  for (const auto& [unit, candidates] : validation) {
    Selection s;
    std::tie(s.label, s.group, s.outer) = unit;
    s.candidates = candidates.size();
    // A trial that recorded nothing (e.g. non-finite at initialisation) leaves no row: a candidate
    // with fewer validation cells than the others is as ineligible as one with a failed trial.
    std::size_t cells = 0;
    for (const auto& entry : candidates) cells = std::max(cells, entry.second.rows);
    double best = std::numeric_limits<double>::infinity();
    for (const auto& [tuned, c] : candidates) {
      if (c.failed || c.rows < cells) {
        ++s.failed_candidates;
        continue;
      }
      const double mean = c.sum / static_cast<double>(c.rows);
      if (mean < best) {  // strict: ties keep the first configuration in sorted order
        best = mean;
        s.chosen = tuned;
        s.validation = mean;
        s.validation_rows = c.rows;
      }
    }
    if (s.chosen.is_null()) {
      s.status = "all candidates failed";
      out.push_back(std::move(s));
      continue;
    }
    const auto unit_tests = test.find(unit);
    const std::vector<const SummaryRow*>* matches = nullptr;
    if (unit_tests != test.end()) {
      const auto it = unit_tests->second.find(s.chosen);
      if (it != unit_tests->second.end()) matches = &it->second;
    }
    if (!matches) {
      s.status = "no test trial";
    } else if (matches->size() > 1) {
      throw UsageError("select: " + std::to_string(matches->size()) + " test cells match " + s.label + " " +
                       coordinates_text(s.group) + " " + coordinates_text(s.chosen) +
                       " (cells " + std::to_string(matches->front()->cell) + ", " +
                       std::to_string(matches->back()->cell) + "); add the coordinate that tells them apart to --average "
                       "or --outer");
    } else if (matches->front()->failures > 0 || !std::isfinite(matches->front()->mean)) {
      s.status = "test failed";
    } else {
      s.test = matches->front()->mean;
      s.status = "ok";
    }
    out.push_back(std::move(s));
  }
  return out;
}

void write_selection(const std::vector<Selection>& selections, const SelectionOptions& o, const std::string& format,
                     std::ostream& out) {
  // Aggregate over outer values: per label × group.
  struct Aggregate {
    std::vector<double> tests;
    std::size_t units = 0;
    Json chosen = Json::array();
  };
  std::map<std::pair<std::string, Json>, Aggregate> aggregates;
  for (const Selection& s : selections) {
    Aggregate& a = aggregates[{s.label, s.group}];
    ++a.units;
    a.chosen.push_back(s.chosen);
    if (s.test) a.tests.push_back(*s.test);
  }
  const auto stats = [](const std::vector<double>& v) {
    const double n = static_cast<double>(v.size());
    double mean = 0.0, ss = 0.0;
    for (double x : v) mean += x / n;
    for (double x : v) ss += (x - mean) * (x - mean);
    return std::pair<double, double>{v.empty() ? std::nan("") : mean, v.size() > 1 ? std::sqrt(ss / (n - 1)) : 0.0};
  };

  if (format == "json") {
    Json doc = {{"metric", o.metric}, {"selections", Json::array()}, {"aggregate", Json::array()}};
    for (const Selection& s : selections) {
      Json j = {{"estimator", s.label}, {"group", s.group}, {"outer", s.outer}, {"chosen", s.chosen},
                {"candidates", s.candidates}, {"failed_candidates", s.failed_candidates}, {"status", s.status}};
      if (!s.chosen.is_null()) j["validation"] = s.validation, j["validation_cells"] = s.validation_rows;
      if (s.test) j["test"] = *s.test;
      doc["selections"].push_back(std::move(j));
    }
    for (const auto& [key, a] : aggregates) {
      const auto [mean, sd] = stats(a.tests);
      Json j = {{"estimator", key.first}, {"group", key.second}, {"units", a.units}, {"tested", a.tests.size()},
                {"chosen", a.chosen}};
      if (!a.tests.empty()) j["test_mean"] = mean, j["test_sd"] = sd;
      doc["aggregate"].push_back(std::move(j));
    }
    out << doc.dump(1) << "\n";
    return;
  }
  if (format != "table") throw UsageError("select: --format: expected table or json, found '" + format + "'");

  const auto print = [&out](const std::vector<std::vector<std::string>>& table) {
    std::vector<std::size_t> width(table.front().size(), 0);
    for (const auto& row : table)
      for (std::size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
    for (const auto& row : table) {
      for (std::size_t i = 0; i < row.size(); ++i) out << std::left << std::setw(static_cast<int>(width[i]) + 2) << row[i];
      out << "\n";
    }
  };
  std::vector<std::vector<std::string>> table = {{"estimator", "group", o.outer.value_or("outer"), "chosen",
                                                  "validation", "test", "candidates", "failed", "status"}};
  for (const Selection& s : selections)
    table.push_back({s.label, coordinates_text(s.group), s.outer.is_null() ? "" : value_text(s.outer),
                     s.chosen.is_null() ? "" : coordinates_text(s.chosen),
                     s.chosen.is_null() ? "" : number(s.validation), s.test ? number(*s.test) : "",
                     std::to_string(s.candidates), std::to_string(s.failed_candidates), s.status});
  print(table);
  out << "\n";
  std::vector<std::vector<std::string>> summary = {{"estimator", "group", "units", "tested", o.metric + "_mean", "sd"}};
  for (const auto& [key, a] : aggregates) {
    const auto [mean, sd] = stats(a.tests);
    summary.push_back({key.first, coordinates_text(key.second), std::to_string(a.units), std::to_string(a.tests.size()),
                       a.tests.empty() ? "" : number(mean), a.tests.empty() ? "" : number(sd)});
  }
  print(summary);
}

}  // namespace rankone
