#pragma once
/// \file Runs trials: one trial is one estimator on one data stream (a sweep cell × repetition),
/// with metrics recorded as it iterates. Trials run on `jobs` threads; each owns its generators,
/// seeded from its coordinates, so results are identical for any thread count or order.
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "rankone/experiment/experiment.hpp"
#include "rankone/store/results_store.hpp"

namespace rankone {

/// Runs one trial to completion in this process. A diverging estimator (non-finite estimate) ends
/// with status `diverged` and no non-finite rows; an exception from the estimator (of any type)
/// ends it with `failed`; a terminal status set in `start` is kept and no metric is evaluated.
/// Bad input (InputError) propagates. `heartbeat`, when given, is called with the iteration after
/// the start and after every step (what a supervisor's stall watchdog listens to).
TrialRecord run_trial(const TrialSpec& spec, const Registry& registry, const std::function<void(int)>& heartbeat = {});
/// The same trial on a source the caller built (arrays in memory, the Python package's fits):
/// `spec.data` only describes it, to the saved model; no memory budget is checked.
TrialRecord run_trial(const TrialSpec& spec, const Registry& registry, std::unique_ptr<DataSource> source,
                      const std::function<void(int)>& heartbeat = {});
/// The record of a trial that has not run: its identity, configuration and code, no points, status
/// `running` (for a supervisor to fill in when the trial's process dies).
TrialRecord unfinished_record(const TrialSpec& spec);

/// Where a trial of the plan stands against the trials stored in an output folder.
struct TrialState {
  enum class Standing { todo, done, stale } standing = Standing::todo;
  std::vector<std::string> stale_reasons;  ///< for `stale`: which library changed, both fingerprints
};
/// The state of every trial of the plan (same order), given `ResultsStore::completed()`.
std::vector<TrialState> trial_states(const Plan& plan, const std::map<std::string, Json>& completed);

struct RunOptions {
  std::filesystem::path out;  ///< output folder (holds results.sqlite)
  int jobs = 1;               ///< trials at once
  bool progress = false;      ///< live progress line on stderr
  bool notes = true;          ///< each distinct note of the trials, once a study, on stderr
  std::string command;        ///< the command line, for provenance
  /// Stale trials (stored by code that has changed since) run again and replace the stored ones,
  /// unless kept; `rerun_all` runs every trial again.
  bool keep_stale = false;
  bool rerun_all = false;
  /// The signal that asked the run to stop (SIGINT, SIGTERM), or 0; polled between trials.
  std::function<int()> stop_signal;
};

struct RunReport {
  std::size_t total = 0;
  std::size_t skipped = 0;    ///< already complete in the store (at the start or, see below, by the end)
  std::size_t completed = 0;  ///< run now and written
  std::size_t written_elsewhere = 0;  ///< run now, but a concurrent run into the folder stored them first (in skipped)
  std::size_t failed = 0;     ///< of those run now: status failed or diverged
  std::size_t stale_rerun = 0;  ///< of those run now: stale trials run again, replacing the stored ones
  std::size_t stale_kept = 0;   ///< stale trials kept as stored (keep_stale; in skipped)
  int interrupted_by = 0;       ///< the signal that stopped the run early, or 0
  double seconds = 0.0;
};

/// What an executor reports as trials start and end (calls are never concurrent), and what it asks.
struct TrialEvents {
  std::function<void(const TrialSpec&)> started;
  std::function<void(TrialRecord&&)> finished;
  /// True once the run must stop: start no more trials; report or abandon those in flight.
  std::function<bool()> stop_requested;
};

/// Runs a list of trials somewhere (threads, MPI ranks) and reports each through `events`.
/// Rethrows the first InputError or internal error after stopping the others.
using TrialExecutor =
    std::function<void(const std::vector<const TrialSpec*>& todo, const Registry& registry, const TrialEvents& events)>;

/// Runs trials on `jobs` threads of this process (trials are independent; each owns its generators).
/// No isolation: a plugin that crashes takes the process down. For debugging and for tests that
/// call the runner directly; the CLI isolates every trial in a process of its own (cli/isolation).
TrialExecutor thread_executor(int jobs);

/// Runs every trial of the plan not yet complete in `options.out`, writing each as it ends.
/// The executor defaults to `thread_executor(options.jobs)`.
RunReport run_plan(const Plan& plan, const ComposedExperiment& experiment, const Registry& registry,
                   const RunOptions& options, const TrialExecutor& executor = {});

}  // namespace rankone
