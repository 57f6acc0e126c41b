#pragma once
/// \file Runs trials: one trial is one estimator on one data stream (a sweep cell × repetition),
/// with metrics recorded as it iterates. Trials run on `jobs` threads; each owns its generators,
/// seeded from its coordinates, so results are identical for any thread count or order.
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "rankone/experiment/experiment.hpp"
#include "rankone/store/results_store.hpp"

namespace rankone {

/// Runs one trial to completion. A diverging estimator (non-finite estimate) ends with status
/// `diverged` and no non-finite rows; an exception from the estimator ends it with `failed`.
/// Bad input (InputError) propagates.
TrialRecord run_trial(const TrialSpec& spec, const Registry& registry);

struct RunOptions {
  std::filesystem::path out;  ///< output folder (holds results.sqlite)
  int jobs = 1;               ///< trial-level threads
  bool progress = false;      ///< live progress line on stderr
  std::string command;        ///< the command line, for provenance
};

struct RunReport {
  std::size_t total = 0;
  std::size_t skipped = 0;    ///< already complete in the store (at the start or, see below, by the end)
  std::size_t completed = 0;  ///< run now and written
  std::size_t written_elsewhere = 0;  ///< run now, but a concurrent run into the folder stored them first (in skipped)
  std::size_t failed = 0;     ///< of those run now: status failed or diverged
  double seconds = 0.0;
};

/// What an executor reports as trials start and end. Calls are never concurrent.
struct TrialEvents {
  std::function<void(const TrialSpec&)> started;
  std::function<void(TrialRecord&&)> finished;
};

/// Runs a list of trials somewhere (threads, MPI ranks) and reports each through `events`.
/// Rethrows the first InputError or internal error after stopping the others.
using TrialExecutor =
    std::function<void(const std::vector<const TrialSpec*>& todo, const Registry& registry, const TrialEvents& events)>;

/// Runs trials on `jobs` threads of this process (trials are independent; each owns its generators).
TrialExecutor thread_executor(int jobs);

/// Runs every trial of the plan not yet complete in `options.out`, writing each as it ends.
/// The executor defaults to `thread_executor(options.jobs)`.
RunReport run_plan(const Plan& plan, const ComposedExperiment& experiment, const Registry& registry,
                   const RunOptions& options, const TrialExecutor& executor = {});

}  // namespace rankone
