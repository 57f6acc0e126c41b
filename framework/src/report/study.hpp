#pragma once
// A study as the report sees it: one results folder, its sweep axes (values in numeric order),
// its curves aggregated per iteration, each trial's outcome, and the provenance of its runs.
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "rankone/report/paired.hpp"
#include "rankone/report/report.hpp"
#include "rankone/store/results_store.hpp"
#include "rankone/store/summary.hpp"
#include "statistics.hpp"

namespace rankone::reporting {

/// Order of sweep values: numbers (and strings that are numbers, "1e-3") by value, before other
/// strings, which compare naturally ("n=800" < "n=1600": digit runs by value); anything else by
/// its JSON text.
bool sweep_value_less(const Json& a, const Json& b);

/// A sweep axis: one grid path, or the paths of a zip group (moving together; the first names
/// the position).
struct Axis {
  std::vector<std::string> keys;
  std::vector<Json> values;  ///< distinct values of keys[0], in sweep_value_less order
  bool numeric = true;       ///< every value is a JSON number
  std::string name() const;
};

/// One aggregated point of a curve: the repetitions at one iteration.
struct CurvePoint {
  double iteration = 0.0, samples = 0.0, seconds = 0.0;
  Band y;
};

using SeriesKey = std::tuple<std::size_t, std::size_t, std::size_t>;  // cell, label index, metric index

/// One version of the code that produced trials: a role ("core", a plugin name) and its library.
struct CodeVersion {
  std::string role, version, fingerprint, library;
  std::size_t trials = 0;
};

struct Study {
  std::filesystem::path folder;
  std::string name;
  std::string description;
  Json experiment;
  std::vector<TrialRecord> trials;    ///< without points (they are aggregated while loading)
  std::vector<TrialOutcome> outcomes;  ///< one per trial, same order
  std::vector<SummaryRow> summary;
  std::optional<std::string> success_metric;
  std::optional<double> success_below;
  std::vector<std::string> labels;   ///< experiment order
  std::vector<std::string> metrics;  ///< order of first appearance
  std::map<std::size_t, Json> cells;
  std::vector<Axis> axes;            ///< every swept axis (also those with one value)
  std::map<std::size_t, std::vector<std::size_t>> position;  ///< cell → value index per axis
  std::map<SeriesKey, std::vector<CurvePoint>> curves;
  std::map<SeriesKey, Band> finals;  ///< final value over repetitions
  int repetitions = 1;
  std::vector<RunRecord> runs;
  std::vector<CodeVersion> code;     ///< per role, each distinct library fingerprint
  std::vector<std::string> damage;   ///< what the store reported as damaged

  std::size_t label_index(const std::string& label);
  std::size_t metric_index(const std::string& metric);
  /// Index of a known label, or labels.size().
  std::size_t find_label(const std::string& label) const;
  /// Axes that take at least two values: the ones worth a plot dimension.
  std::vector<std::size_t> varying_axes() const;
  /// Cells ordered by their sweep values (axis by axis, numeric values by value).
  std::vector<std::size_t> ordered_cells() const;
  /// "axis = value, axis = value" for the axes `which`.
  std::string cell_text(std::size_t cell, const std::vector<std::size_t>& which) const;
};

Study load_study(const std::filesystem::path& folder, const ReportOptions& options);

}  // namespace rankone::reporting
