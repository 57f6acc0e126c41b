// The run loop: which trials to run, the in-process thread executor, progress and the store.
#include "rankone/runner/runner.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <mutex>
#include <thread>

#include <set>

#include "rankone/core/errors.hpp"
#include "rankone/runner/code_identity.hpp"
#include "rankone/runner/memory_budget.hpp"

namespace rankone {

namespace {

std::string format_duration(double s) {
  char buf[32];
  if (s < 60) std::snprintf(buf, sizeof buf, "%.1fs", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%dm%02ds", static_cast<int>(s) / 60, static_cast<int>(s) % 60);
  else std::snprintf(buf, sizeof buf, "%dh%02dm", static_cast<int>(s) / 3600, (static_cast<int>(s) % 3600) / 60);
  return buf;
}

}  // namespace

TrialExecutor thread_executor(int jobs) {
  return [jobs](const std::vector<const TrialSpec*>& todo, const Registry& registry, const TrialEvents& events) {
    std::atomic<std::size_t> next{0};
    std::mutex mutex;  // serialises the callbacks
    std::exception_ptr first_error;
    std::atomic<bool> abort{false};
    auto worker = [&] {
      while (!abort && !events.stop_requested()) {  // in-flight trials finish: threads cannot be abandoned
        const std::size_t i = next++;
        if (i >= todo.size()) return;
        try {
          {
            std::lock_guard<std::mutex> lock(mutex);
            events.started(*todo[i]);
          }
          TrialRecord rec = run_trial(*todo[i], registry);
          std::lock_guard<std::mutex> lock(mutex);
          events.finished(std::move(rec));
        } catch (...) {
          std::lock_guard<std::mutex> lock(mutex);
          if (!first_error) first_error = std::current_exception();
          abort = true;
        }
      }
    };
    const int threads_wanted = std::max(1, std::min<int>(jobs, static_cast<int>(std::max<std::size_t>(todo.size(), 1))));
    std::vector<std::thread> threads;
    for (int j = 1; j < threads_wanted; ++j) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (first_error) std::rethrow_exception(first_error);
  };
}

std::vector<TrialState> trial_states(const Plan& plan, const std::map<std::string, Json>& completed) {
  std::vector<TrialState> states(plan.trials.size());
  for (std::size_t i = 0; i < plan.trials.size(); ++i) {
    const auto it = completed.find(plan.trials[i].key);
    if (it == completed.end()) continue;
    states[i].stale_reasons = stale_reasons(it->second, plan.trials[i].code);
    states[i].standing = states[i].stale_reasons.empty() ? TrialState::Standing::done : TrialState::Standing::stale;
  }
  return states;
}

RunReport run_plan(const Plan& plan, const ComposedExperiment& experiment, const Registry& registry, const RunOptions& options,
                   const TrialExecutor& executor) {
  ResultsStore store(options.out);
  const std::vector<TrialState> states = trial_states(plan, store.completed());
  std::vector<const TrialSpec*> todo;
  std::set<std::string> replace;  // keys whose stored trial the new one replaces
  RunReport report;
  for (std::size_t i = 0; i < plan.trials.size(); ++i) {
    const auto kind = states[i].standing;
    if (kind == TrialState::Standing::todo) {
      todo.push_back(&plan.trials[i]);
    } else if (options.rerun_all || (kind == TrialState::Standing::stale && !options.keep_stale)) {
      todo.push_back(&plan.trials[i]);
      replace.insert(plan.trials[i].key);
      if (kind == TrialState::Standing::stale) ++report.stale_rerun;
    } else if (kind == TrialState::Standing::stale) {
      ++report.stale_kept;
    }
  }
  report.total = plan.trials.size();
  report.skipped = plan.trials.size() - todo.size();
  const std::int64_t run_id = store.begin_run(RunInfo{plan.resolved, experiment.file.string(), options.command});

  std::size_t running = 0;
  std::size_t ended = 0;  // trials of `todo` finished here, written or not
  const auto t0 = std::chrono::steady_clock::now();
  auto elapsed = [&] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(); };
  double drawn_at = -1.0;
  auto show_progress = [&](bool final) {
    if (!options.progress) return;
    const double el = elapsed();
    // At most ten redraws a second: a study of many short trials must not be bound by the terminal.
    if (!final && drawn_at >= 0.0 && el - drawn_at < 0.1) return;
    drawn_at = el;
    const std::string eta = ended == 0 ? std::string("?")
                            : format_duration(el / static_cast<double>(ended) * static_cast<double>(todo.size() - ended));
    // \033[K clears what a longer previous line left on the right.
    std::fprintf(stderr, "\r[%zu/%zu trials] done %zu, running %zu, failed %zu, skipped %zu | elapsed %s, ETA %s\033[K%s",
                 report.skipped + report.completed, report.total, report.completed, running, report.failed, report.skipped,
                 format_duration(el).c_str(), eta.c_str(), final ? "\n" : "");
    std::fflush(stderr);
  };

  // Each distinct note of the sources and estimators is told once a study; all stay with their trials.
  std::set<std::string> told;
  auto tell_notes = [&](const TrialRecord& rec) {
    if (!options.notes || !rec.diagnostics.contains("notes")) return;
    for (const auto& note : rec.diagnostics["notes"]) {
      const std::string text = note.get<std::string>();
      if (!told.insert(text).second) continue;
      std::fprintf(stderr, "%snote: %s\n", options.progress ? "\r\033[K" : "", text.c_str());
    }
  };

  std::map<std::string, const TrialSpec*> spec_of;  // key → spec, for records that come back without an estimate
  for (const TrialSpec* t : todo) spec_of[t->key] = t;

  TrialEvents events;
  events.started = [&](const TrialSpec&) {
    ++running;
    show_progress(false);
  };
  events.finished = [&](TrialRecord&& rec) {
    --running;
    ++ended;
    tell_notes(rec);
    // A trial that died or failed while being set up never estimated its footprint: the one from
    // its parameters stands beside its peak.
    if (!rec.diagnostics.contains("estimated_memory_mb") && spec_of.count(rec.key))
      rec.diagnostics["estimated_memory_mb"] = trial_footprint(*spec_of.at(rec.key), registry).bytes() / (1024.0 * 1024.0);
    const auto mode = replace.count(rec.key) ? ResultsStore::WriteMode::replace : ResultsStore::WriteMode::keep_existing;
    if (store.write_trial(run_id, rec, mode)) {
      ++report.completed;
      if (rec.status == "failed" || rec.status == "diverged") ++report.failed;
    } else {  // another run into this folder finished the same trial first: keep the stored one
      ++report.skipped;
      ++report.written_elsewhere;
    }
    show_progress(false);
  };
  events.stop_requested = [&] { return options.stop_signal && options.stop_signal() != 0; };
  try {
    (executor ? executor : thread_executor(options.jobs))(todo, registry, events);
  } catch (...) {
    show_progress(true);
    store.end_run(run_id, "aborted");
    throw;
  }
  show_progress(true);
  report.seconds = elapsed();
  if (events.stop_requested()) {
    report.interrupted_by = options.stop_signal();
    const char* name = sigabbrev_np(report.interrupted_by);
    store.end_run(run_id, "interrupted by " + (name ? "SIG" + std::string(name) : "signal " + std::to_string(report.interrupted_by)));
    return report;
  }
  store.end_run(run_id, report.failed ? "completed with failures" : "completed");
  return report;
}

}  // namespace rankone
