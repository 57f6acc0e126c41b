// Trial execution and the multi-threaded run loop.
#include "rankone/runner/runner.hpp"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "rankone/core/errors.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/metric.hpp"

namespace rankone {

namespace {

/// A stopwatch that can be paused (metrics are not estimator time).
class Stopwatch {
 public:
  void resume() { started_ = Clock::now(); running_ = true; }
  void pause() {
    if (running_) elapsed_ += std::chrono::duration<double>(Clock::now() - started_).count();
    running_ = false;
  }
  double seconds() const { return elapsed_; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_;
  double elapsed_ = 0.0;
  bool running_ = false;
};

}  // namespace

TrialRecord run_trial(const TrialSpec& spec, const Registry& registry) {
  TrialRecord rec;
  rec.key = spec.key;
  rec.cell = spec.cell;
  rec.coordinates = spec.coordinates;
  rec.repetition = spec.repetition;
  rec.estimator = spec.estimator["name"].get<std::string>();
  rec.label = spec.label;
  rec.data_seed = spec.data_seed;
  rec.estimator_seed = spec.estimator_seed;
  rec.config = Json{{"data", spec.data}, {"estimator", spec.estimator}, {"metrics", spec.metrics}};

  auto source = registry.create<DataSource>(spec.data, Kind::data_source, "/data");
  auto estimator = registry.create<Estimator>(spec.estimator, Kind::estimator, "/estimators/" + std::to_string(spec.estimator_index));
  std::vector<std::unique_ptr<Metric>> metrics;
  for (std::size_t m = 0; m < spec.metrics.size(); ++m)
    metrics.push_back(registry.create<Metric>(spec.metrics[m], Kind::metric, "/metrics/" + std::to_string(m)));

  source->open(spec.data_seed);
  for (std::size_t m = 0; m < metrics.size(); ++m) {
    const std::string name = spec.metrics[m]["name"].get<std::string>();
    if (metrics[m]->needs_truth() && !source->truth())
      throw ConfigError("at /metrics/" + std::to_string(m) + ": metric '" + name + "' needs a ground truth, which source '" +
                        spec.data["name"].get<std::string>() + "' does not have");
    if (metrics[m]->needs_test_set() && !source->test_set())
      throw ConfigError("at /metrics/" + std::to_string(m) + ": metric '" + name + "' needs a held-out test set; give the source one (e.g. \"test_size\")");
  }

  Rng rng(spec.estimator_seed);
  Stopwatch clock;
  Status forced = Status::running;
  std::string forced_message;

  // Evaluates every metric; returns false (and records nothing) when the estimate is not finite.
  auto record = [&](int iteration) {
    const Estimate est = estimator->estimate();
    if (!est.all_finite()) return false;
    const MetricContext ctx{est, source->truth(), source->test_set(), source->sensing_operator(), source->link(),
                            source->samples_drawn(), clock.seconds(), iteration};
    std::vector<Point> points;
    for (const auto& metric : metrics)
      for (const auto& [name, value] : metric->evaluate(ctx)) {
        if (!std::isfinite(value)) return false;
        points.push_back(Point{iteration, source->samples_drawn(), clock.seconds(), name, value});
      }
    rec.points.insert(rec.points.end(), points.begin(), points.end());
    return true;
  };

  try {
    clock.resume();
    estimator->start(*source, rng);
    clock.pause();
    int iteration = 0;
    bool more = estimator->summary().status == Status::running;
    if (!record(0)) {
      forced = Status::diverged;
      forced_message = "non-finite estimate or metric after initialisation";
      more = false;
    }
    while (more) {
      clock.resume();
      more = estimator->step(*source);
      clock.pause();
      ++iteration;
      const bool last = !more;
      if (iteration % spec.record_every == 0 || last) {
        if (!record(iteration)) {
          forced = Status::diverged;
          forced_message = "non-finite estimate or metric at iteration " + std::to_string(iteration);
          break;
        }
      }
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    clock.pause();
    forced = Status::failed;
    forced_message = std::string("exception: ") + e.what();
  }

  const Summary summary = estimator->summary();
  Status status = forced != Status::running ? forced : summary.status;
  std::string message = forced != Status::running ? forced_message : summary.message;
  if (status == Status::running) {  // an estimator that stopped without saying why
    status = Status::failed;
    message = "estimator stopped without a terminal status" + (message.empty() ? "" : ": " + message);
  }
  rec.status = to_string(status);
  rec.message = message;
  rec.iterations = summary.iterations;
  rec.samples = source->samples_drawn();
  rec.seconds = clock.seconds();
  return rec;
}

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
      while (!abort) {
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

RunReport run_plan(const Plan& plan, const ComposedExperiment& experiment, const Registry& registry, const RunOptions& options,
                   const TrialExecutor& executor) {
  ResultsStore store(options.out);
  const auto done = store.completed_keys();
  std::vector<const TrialSpec*> todo;
  for (const auto& t : plan.trials)
    if (!done.count(t.key)) todo.push_back(&t);

  RunReport report;
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

  TrialEvents events;
  events.started = [&](const TrialSpec&) {
    ++running;
    show_progress(false);
  };
  events.finished = [&](TrialRecord&& rec) {
    --running;
    ++ended;
    if (store.write_trial(run_id, rec)) {
      ++report.completed;
      if (rec.status == "failed" || rec.status == "diverged") ++report.failed;
    } else {  // another run into this folder finished the same trial first: keep the stored one
      ++report.skipped;
      ++report.written_elsewhere;
    }
    show_progress(false);
  };
  try {
    (executor ? executor : thread_executor(options.jobs))(todo, registry, events);
  } catch (...) {
    show_progress(true);
    store.end_run(run_id, "aborted");
    throw;
  }
  show_progress(true);
  report.seconds = elapsed();
  store.end_run(run_id, report.failed ? "completed with failures" : "completed");
  return report;
}

}  // namespace rankone
