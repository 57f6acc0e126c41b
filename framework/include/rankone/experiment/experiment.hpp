#pragma once
/// \file Experiment files: composition (`extends`, command-line overrides), validation against the
/// plugin schemas, and the plan of trials (sweep cells × repetitions × estimators) with their seeds.
///
/// An experiment document:
/// \code{.json}
/// {
///   "name": "quickstart", "description": "...", "seed": 1, "repetitions": 3,
///   "extends": "base.json",                       // or a list; deep-merged, this file wins
///   "plugin_paths": ["path/to/libmy_plugin.so"],  // optional extra plugin libraries or folders
///   "data": {"name": "synthetic", "d": 50, ...},  // a source
///   "estimators": [{"name": "spectral", "label": "spectral-2k", ...}],
///   "metrics": ["combined_error", {"name": "relative_error_M", "norm": "frobenius"}],
///   "record_every": 1,                            // evaluate metrics every N iterations
///   "stop": {"metric": "relative_error_M", "target": 1e-6, "seconds": 60},  // shared stopping rules and budgets
///   "sweep": {"grid": {"data.d": [50, 100]},      // cartesian product of axes
///             "zip":  [{"data.rank": [2, 3], "estimators.0.rank": [2, 3]}]}  // axes moving together
/// }
/// \endcode
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "rankone/core/params.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone {

/// An experiment document after `extends` and overrides, with the origin of every value.
class ComposedExperiment {
 public:
  Json document;
  std::filesystem::path file;
  /// JSON pointer → where it was set ("experiments/a.json", "command line override 'x=1'").
  std::map<std::string, std::string> origins;

  /// The origin of the value at a JSON pointer (the longest recorded prefix), or the main file.
  std::string origin_of(const std::string& pointer) const;
};

/// Reads `file`, resolves `extends` recursively (paths relative to the extending file) and applies
/// `key.path=value` overrides (array elements by index; values parsed as JSON, else taken as strings).
/// Throws ConfigError naming the file and line for syntax errors, the path for bad overrides.
ComposedExperiment compose_experiment(const std::filesystem::path& file, const std::vector<std::string>& overrides);

/// Parses a JSON file (comments allowed); syntax errors name the file, line and column.
Json read_json_file(const std::filesystem::path& file);

/// What one trial may hold in memory, checked before it runs (runner/memory_budget.hpp).
struct MemoryBudget {
  double bytes = 0;    ///< 0: not checked
  std::string source;  ///< where the figure comes from, for messages ("--max-memory 4096")
};

/// One trial: a sweep cell × a repetition × an estimator.
struct TrialSpec {
  std::size_t cell = 0;
  Json coordinates = Json::object();  ///< sweep path → value for this cell
  int repetition = 0;
  std::size_t estimator_index = 0;
  std::string label;       ///< the estimator's label (its name unless given)
  Json data;               ///< resolved source reference for this cell
  Json estimator;          ///< resolved estimator reference
  Json metrics;            ///< resolved metric references
  int record_every = 1;
  Json stop;               ///< the validated `stop` section (runner/stopping_rules.hpp), or null
  std::uint64_t data_seed = 0;       ///< from the experiment seed, the data coordinates and the repetition
  std::uint64_t estimator_seed = 0;  ///< from the data seed and the estimator's label
  std::string key;                   ///< content key: identical trials have identical keys
  Json code = Json::object();        ///< the code that runs it (runner/code_identity.hpp); not in the key
  MemoryBudget memory_budget;        ///< what it may hold; sources reading their shape check against it; not in the key
};

/// The seeds of a trial: its data's from the experiment seed, the data coordinates of its cell
/// and the repetition (estimator sweeps stay paired); its estimator's from those and its label.
struct TrialSeeds {
  std::uint64_t data = 0, estimator = 0;
};
TrialSeeds trial_seeds(std::uint64_t experiment_seed, const Json& data_coordinates, int repetition, const std::string& label);

/// A trial as JSON and back, e.g. to hand it to the process that runs it.
Json trial_spec_to_json(const TrialSpec& t);
TrialSpec trial_spec_from_json(const Json& j);

/// Per-trial resource limits (`"limits"` in an experiment; the CLI's flags override them). A trial
/// over a limit is stopped and recorded `failed` with the limit as its reason.
struct TrialLimits {
  /// The smallest wall-time limit: starting a trial host takes longer, so a smaller one would be
  /// accepted and never honoured (a trial stored as converged under a limit of a nanosecond).
  static constexpr double kMinSeconds = 1e-3;
  std::optional<double> seconds;         ///< wall time
  std::optional<std::int64_t> memory_mb; ///< resident memory, MiB
  /// A trial that finishes neither its start nor an iteration for this long is stopped, so one
  /// hang costs one trial, never the study: on unless lifted (null, --trial-stall none).
  static constexpr double kDefaultStallSeconds = 600;
  static constexpr double kMinStallSeconds = 1;  ///< a host beats at most four times a second
  std::optional<double> stall_seconds = kDefaultStallSeconds;
};

struct Plan {
  Json resolved;                   ///< the experiment with defaults filled in (base cell)
  std::vector<Json> cells;         ///< coordinates of each sweep cell
  std::vector<std::string> axes;   ///< sweep paths, in order
  std::vector<TrialSpec> trials;   ///< cell-major, then repetition, then estimator
  TrialLimits limits;              ///< from the experiment's "limits"
};

/// What a study may use, checked before anything runs. Each trial's budget is the smallest of the
/// machine's memory, `max_memory`, and the limit the trial runs under: `trial_limit` (a flag), else
/// the experiment's "limits"/"trial_memory_mb", else `default_limit` of the study's trial count.
struct StudyBudget {
  std::uint64_t memory_bytes = 0;  ///< for planning the trials
  std::string source;              ///< where the figure comes from, for messages ("--max-memory 4096")
  MemoryBudget machine_memory;
  std::optional<MemoryBudget> max_memory;
  std::optional<MemoryBudget> trial_limit;
  std::function<std::optional<MemoryBudget>(std::size_t trials)> default_limit;
  /// The machine's physical memory, for the plan and for each trial.
  static StudyBudget machine();
};

/// Validates the composed experiment against the registry (every cell) and lists its trials.
/// A study too large to plan within the budget is a ConfigError at /repetitions or /sweep; a trial
/// whose estimated footprint exceeds the per-trial budget is a ConfigError at the JSON path of its
/// largest part, with the estimate and the limit.
Plan plan_experiment(const ComposedExperiment& experiment, const Registry& registry,
                     const StudyBudget& budget = StudyBudget::machine());

/// The plugin paths an experiment asks for (`plugin_paths`, relative to its file).
std::vector<std::filesystem::path> experiment_plugin_paths(const ComposedExperiment& experiment);
/// Loads the experiment's `plugin_paths` into `registry`; an error names the file and the JSON
/// path (`/plugin_paths/i`) that asked for the offending library.
void load_experiment_plugins(Registry& registry, const ComposedExperiment& experiment);

/// Sets the value at a dotted path ("estimators.0.rank") in a JSON document. Array indices must
/// exist; object keys are created. Throws ConfigError mentioning `what` on a bad path.
void set_dotted(Json& doc, const std::string& dotted, const Json& value, const std::string& what);
/// The value of a `key.path=value` override: the text parsed as JSON, else the text as a string.
Json override_value(const std::string& text, const std::string& what);
/// The JSON pointer ("/estimators/0/rank") of a dotted path.
std::string dotted_to_pointer(const std::string& dotted);

}  // namespace rankone
