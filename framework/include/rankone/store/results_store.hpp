#pragma once
/// \file The results store: one SQLite database (`results.sqlite`) in a run's output folder.
///
/// Tables: `runs` (the resolved experiment and its provenance: git commit, compiler and flags,
/// library versions, host, start and end), `trials` (coordinates, seed, status, message, seconds,
/// keyed by content so a rerun skips completed trials), `points` (iteration, samples, seconds,
/// metric, value) and `models` (each trial's final model: a JSON header and its arrays as a blob).
/// A trial, its points and its model are written in one transaction when it ends, so an interrupted
/// run loses at most the trials in flight.
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "rankone/core/params.hpp"
#include "rankone/store/saved_model.hpp"

struct sqlite3;

namespace rankone {

struct Point {
  int iteration = 0;
  Index samples = 0;
  double seconds = 0.0;
  std::string metric;
  double value = 0.0;
};

struct TrialRecord {
  std::string key;
  std::size_t cell = 0;
  Json coordinates = Json::object();
  int repetition = 0;
  std::string estimator;  ///< plugin name
  std::string label;
  std::uint64_t data_seed = 0;
  std::uint64_t estimator_seed = 0;
  std::string status;
  std::string message;
  int iterations = 0;
  Index samples = 0;
  double seconds = 0.0;
  Json config;  ///< the resolved trial: data, estimator, metrics
  std::vector<Point> points;
  /// What the trial left besides its points: `fit` and `fit_measure`, `singular_values` of the
  /// final estimate, `notes`; for a trial whose process died, `cause`, `stderr_tail`, `peak_memory_mb`.
  Json diagnostics = Json::object();
  /// The code that produced it (see runner/code_identity.hpp): role → library, fingerprint, version.
  Json code = Json::object();
  /// The final model, when the trial ended with a finite one (store/saved_model.hpp).
  std::optional<SavedModel> model;
};

/// A trial record as JSON and back (exactly: doubles round-trip), e.g. to ship it between processes.
Json trial_to_json(const TrialRecord& t);
TrialRecord trial_from_json(const Json& j);

/// Provenance of a run.
struct RunInfo {
  Json experiment;
  std::string experiment_file;
  std::string command;
};

/// A stored run as readers see it: what was run, by which build, where and when.
struct RunRecord {
  std::int64_t id = 0;
  std::string started, ended, status;  ///< UTC times; `ended` is empty for a run that never ended
  std::string experiment_file, command;
  std::string git_commit, compiler, flags, host;
  Json libraries = Json::object();  ///< library → version, including "rankone"
  std::size_t trials = 0;           ///< trials this run wrote (and that are still stored)
};

class ResultsStore {
 public:
  enum class Access {
    read_write,  ///< creates the folder and the store if needed, migrates an older layout (runs)
    read_only    ///< the store must exist; checked for its layout and integrity (every reader)
  };
  /// Opens `folder/results.sqlite`. Every error names the file: a missing or empty (0-byte) file,
  /// one that is not a RankOne store, or a store of a newer layout are InputErrors. Read-only, damage
  /// found by SQLite's integrity check is listed in `damage()`, and the rows that can be read are.
  explicit ResultsStore(const std::filesystem::path& folder, Access access = Access::read_write);
  ~ResultsStore();
  ResultsStore(const ResultsStore&) = delete;
  ResultsStore& operator=(const ResultsStore&) = delete;

  static std::filesystem::path database_path(const std::filesystem::path& folder);
  /// The layout version this rankone writes; older stores are migrated when opened, newer ones refused.
  static int current_schema_version();
  /// True when `folder` holds a results database.
  static bool exists(const std::filesystem::path& folder);

  /// Records a new run with its provenance and returns its id.
  std::int64_t begin_run(const RunInfo& info);
  /// Records how the run ended. On a full disk it frees the store's reserve (`<store>.reserve`, kept
  /// beside it at kReserveBytes whenever it is opened for writing), tries once more, so that a run
  /// the disk stopped is still recorded `aborted`, and keeps what is left as the next reserve.
  void end_run(std::int64_t run_id, const std::string& status);
  /// Room kept on the disk for the last status of a run (a WAL frame is a 4 KiB page and its header).
  static constexpr std::uintmax_t kReserveBytes = 64 * 1024;

  /// The trials already completed (any terminal status): content key → the code identity that
  /// produced it (an empty object for trials stored before identities were recorded).
  std::map<std::string, Json> completed() const;

  enum class WriteMode {
    keep_existing,  ///< a stored trial with the same key wins (another run finished it first)
    replace         ///< the stored trial with the same key (and its points) is deleted first
  };
  /// Writes a finished trial and its points atomically. With `keep_existing`, returns false,
  /// writing nothing, when a trial with the same key is already stored (trials are deterministic,
  /// so the stored one is the same result). `replace` is for reruns of stale trials.
  bool write_trial(std::int64_t run_id, const TrialRecord& trial, WriteMode mode = WriteMode::keep_existing);

  /// Every trial, with or without its points. Cells are numbered by distinct sweep coordinates, so
  /// trials of runs with different sweeps in one folder never share a cell. A row that cannot be
  /// read is skipped and listed in `damage()` by its trial.
  std::vector<TrialRecord> trials(bool with_points) const;
  /// What was found damaged so far (integrity problems, unreadable rows), one line each.
  const std::vector<std::string>& damage() const { return damaged_; }
  const std::filesystem::path& path() const { return path_; }
  /// The final model stored with trial `key`, or none (a trial without a finite model, or stored by
  /// a rankone before models were stored).
  std::optional<SavedModel> model(const std::string& key) const;
  /// The experiment document of the latest run.
  Json latest_experiment() const;
  /// Every run, oldest first (a row that cannot be read is listed in `damage()`).
  std::vector<RunRecord> runs() const;

 private:
  void exec(const std::string& sql) const;
  void open_connection(int flags);
  void check_readable();
  int schema_version() const;
  void upgrade_schema();
  /// Tops `<store>.reserve` up to kReserveBytes for end_run, as far as the disk allows.
  void keep_reserve();
  std::int64_t code_id(const Json& identity);
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::filesystem::path reserve_;  ///< `<store>.reserve` when opened for writing and it holds room (end_run), else empty
  Access access_ = Access::read_write;
  mutable std::vector<std::string> damaged_;
};

/// Writes long-format rows (trial, estimator, label, repetition, one column per sweep coordinate,
/// status, iteration, samples, seconds, metric, value) as CSV or JSON.
void export_results(const ResultsStore& store, const std::string& format, std::ostream& out);

/// Provenance strings recorded with each run.
struct BuildInfo {
  static std::string git_commit();
  static std::string compiler();
  static std::string flags();
  static Json libraries();
  static std::string host();
};

}  // namespace rankone
