// One trial: an estimator on one data stream, metrics recorded as it iterates.
#include <time.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <optional>
#include <set>

#include "rankone/core/errors.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/metric.hpp"
#include "rankone/runner/memory_budget.hpp"
#include "rankone/runner/runner.hpp"
#include "rankone/runner/stopping_rules.hpp"
#include "rankone/store/saved_model.hpp"

namespace rankone {

namespace {

/// The process's CPU time, every thread included.
double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// A stopwatch of wall and CPU time that can be paused (metrics are not estimator time).
class Stopwatch {
 public:
  void resume() {
    started_ = Clock::now();
    cpu_started_ = process_cpu_seconds();
    running_ = true;
  }
  void pause() {
    if (running_) {
      elapsed_ += std::chrono::duration<double>(Clock::now() - started_).count();
      cpu_elapsed_ += process_cpu_seconds() - cpu_started_;
    }
    running_ = false;
  }
  double seconds() const { return elapsed_; }
  double cpu_seconds() const { return cpu_elapsed_; }

 private:
  using Clock = std::chrono::steady_clock;
  Clock::time_point started_;
  double cpu_started_ = 0.0;
  double elapsed_ = 0.0;
  double cpu_elapsed_ = 0.0;
  bool running_ = false;
};

/// What the trial leaves besides its points: the fit measure, the spectrum of the final estimate's
/// low-rank part (its `rank` largest singular values when the estimator has a `rank` parameter) and
/// every note the source and the estimator made.
Json trial_diagnostics(const Summary& summary, const DataSource& source, const Estimator& estimator,
                       const Json& estimator_config) {
  Json d = Json::object();
  if (std::isfinite(summary.fit)) {
    d["fit"] = summary.fit;
    d["fit_measure"] = summary.fit_measure;
    if (std::isfinite(summary.fit_floor)) d["fit_floor"] = summary.fit_floor;  // the truth's own fit (noise floor)
  }
  const Estimate est = estimator.low_rank_part();
  if (est.rank() > 0 && est.all_finite()) {
    Vector s = singular_values(est);
    // A factored form wider than the rank asked for (one_bit_mll's 2k columns) has more values than
    // the user's rank; the over-specification test is about that rank.
    const auto rank = estimator_config.find("rank");
    if (rank != estimator_config.end() && rank->is_number_integer() && rank->get<Index>() > 0 && rank->get<Index>() < s.size())
      s.conservativeResize(rank->get<Index>());
    d["singular_values"] = std::vector<double>(s.data(), s.data() + s.size());
  }
  Json notes = Json::array();
  for (const auto& n : source.notes()) notes.push_back(n);
  for (const auto& n : summary.notes) notes.push_back(n);
  if (!notes.empty()) d["notes"] = std::move(notes);
  return d;
}

}  // namespace

TrialRecord unfinished_record(const TrialSpec& spec) {
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
  rec.code = spec.code;
  rec.status = to_string(Status::running);
  return rec;
}

TrialRecord run_trial(const TrialSpec& spec, const Registry& registry, const std::function<void(int)>& heartbeat) {
  return run_trial(spec, registry, std::unique_ptr<DataSource>{}, heartbeat);
}

TrialRecord run_trial(const TrialSpec& spec, const Registry& registry, std::unique_ptr<DataSource> given_source,
                      const std::function<void(int)>& heartbeat) {
  TrialRecord rec = unfinished_record(spec);
  const bool planned_source = given_source == nullptr;

  // A plugin that fails while being built or opened costs its trial, not the study.
  auto failed_setup = [&](const std::string& message) {
    rec.status = to_string(Status::failed);
    rec.message = message;
    return rec;
  };
  std::unique_ptr<DataSource> source;
  std::unique_ptr<Estimator> estimator;
  double estimated_bytes = 0;  // the footprint with what the source read: stored beside the measured peak
  std::vector<std::unique_ptr<Metric>> metrics;
  try {
    source = planned_source ? registry.create<DataSource>(spec.data, Kind::data_source, "/data") : std::move(given_source);
    estimator = registry.create<Estimator>(spec.estimator, Kind::estimator, "/estimators/" + std::to_string(spec.estimator_index));
    for (std::size_t m = 0; m < spec.metrics.size(); ++m)
      metrics.push_back(registry.create<Metric>(spec.metrics[m], Kind::metric, "/metrics/" + std::to_string(m)));
    if (planned_source) source->set_shape_budget(shape_budget(spec, registry));
    source->open(spec.data_seed);
    // What was read may be larger than the parameters said (a file's dimension): check it all again.
    // (A source built by the caller holds data already in memory: there is no budget to check.)
    if (planned_source) {
      DataFootprint read;
      read.shape = source->shape();
      if (source->finite() && source->size()) read.training_instances = static_cast<double>(*source->size());
      const TrialFootprint footprint = trial_footprint(spec, registry, read);
      estimated_bytes = footprint.bytes();
      const std::string over = over_budget(footprint, spec.memory_budget);
      if (!over.empty())
        throw DataError("at /data: the data of source '" + spec.data["name"].get<std::string>() + "' is " +
                        std::to_string(read.shape.d1) + " × " + std::to_string(read.shape.d2) + ": " + over);
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    return failed_setup(std::string("exception while setting up the trial: ") + e.what());
  } catch (...) {
    return failed_setup("exception of a type that is not std::exception while setting up the trial");
  }
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
  StoppingRules rules(spec.stop);
  std::optional<StopVerdict> stopped;  // a rule of the experiment's `stop` section ended the run
  auto progress = [&](int iteration) {
    return TrialProgress{iteration, clock.seconds(), clock.cpu_seconds(), source->samples_drawn()};
  };
  // Ends the run through the estimator, which keeps its own verdicts (stalled) and best iterate.
  auto stop_with = [&](StopVerdict verdict) {
    estimator->stop(verdict.status, verdict.message);
    stopped = std::move(verdict);
  };

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
    if (rules.metric() && !stopped) {
      std::set<std::string> names;
      double value = 0.0;
      for (const Point& p : points) {
        names.insert(p.metric);
        if (p.metric == *rules.metric()) value = p.value;
      }
      if (auto verdict = rules.after_evaluation(progress(iteration), names, value)) stop_with(std::move(*verdict));
    }
    return true;
  };
  // After a rule ended the run, the estimate may be another iterate (early stopping's, a kept best):
  // the points of the last evaluation are those of the estimate returned.
  auto record_again = [&](int iteration) {
    rec.points.erase(std::remove_if(rec.points.begin(), rec.points.end(),
                                    [iteration](const Point& p) { return p.iteration == iteration; }),
                     rec.points.end());
    return record(iteration);
  };

  try {
    clock.resume();
    estimator->start(*source, rng);
    clock.pause();
    int iteration = 0;
    if (heartbeat) heartbeat(iteration);
    // A failure declared in start is final: there is no model to evaluate. (A one-shot estimator
    // ends in start with a success status and its model is evaluated.)
    const Status started = estimator->summary().status;
    bool more = started == Status::running;
    const bool has_model = more || started == Status::converged || started == Status::max_iterations;
    if (has_model && !record(0)) {
      forced = Status::diverged;
      forced_message = "non-finite estimate or metric after initialisation";
      more = false;
    }
    if (stopped) more = false;  // the start already met the target
    while (more) {
      clock.resume();
      more = estimator->step(*source);
      clock.pause();
      ++iteration;
      if (heartbeat) heartbeat(iteration);
      if (more)
        if (auto verdict = rules.after_step(progress(iteration))) {
          stop_with(std::move(*verdict));
          more = false;
        }
      const bool last = !more;
      if (iteration % spec.record_every == 0 || last) {
        const bool was_stopped = stopped.has_value();
        if (!record(iteration)) {
          forced = Status::diverged;
          forced_message = "non-finite estimate or metric at iteration " + std::to_string(iteration);
          break;
        }
        if (!was_stopped && stopped) {  // a metric rule fired on this evaluation
          more = false;
          if (!record_again(iteration)) {
            forced = Status::diverged;
            forced_message = "non-finite estimate or metric at iteration " + std::to_string(iteration);
            break;
          }
        }
      }
    }
  } catch (const InputError&) {
    throw;
  } catch (const std::bad_alloc&) {
    clock.pause();
    forced = Status::failed;
    forced_message = "out of memory: an allocation failed (std::bad_alloc)";
  } catch (const std::exception& e) {
    clock.pause();
    forced = Status::failed;
    forced_message = std::string("exception: ") + e.what();
  } catch (...) {  // a plugin threw something that is not a std::exception
    clock.pause();
    forced = Status::failed;
    forced_message = "exception of a type that is not std::exception";
  }

  const Summary summary = estimator->summary();
  Status status = forced != Status::running ? forced : summary.status;
  std::string message = forced != Status::running ? forced_message : summary.message;
  if (status == Status::running && stopped) {  // an estimator that keeps no status of its own
    status = stopped->status;
    message = stopped->message;
  }
  if (status == Status::running) {  // an estimator that stopped without saying why
    status = Status::failed;
    message = "estimator stopped without a terminal status" + (message.empty() ? "" : ": " + message);
  }
  rec.status = to_string(status);
  rec.message = message;
  rec.iterations = summary.iterations;
  rec.samples = source->samples_drawn();
  rec.seconds = clock.seconds();
  try {
    rec.diagnostics = trial_diagnostics(summary, *source, *estimator, spec.estimator);
  } catch (const std::exception& e) {  // an estimate that cannot be decomposed loses only its spectrum
    rec.diagnostics["error"] = e.what();
  }
  rec.diagnostics["estimated_memory_mb"] = estimated_bytes / (1024.0 * 1024.0);
  // The final model and what scores with it (store/saved_model.hpp), unless the trial failed or its
  // estimate is not finite.
  if (status != Status::failed) {
    try {
      const Estimate final_estimate = estimator->estimate();
      if (final_estimate.all_finite())
        rec.model = SavedModel::of(final_estimate, *source, spec.data, rec.estimator, spec.key);
    } catch (const std::exception& e) {  // a model that cannot be described costs the model, not the trial
      rec.diagnostics["model_error"] = e.what();
    }
  }
  return rec;
}

}  // namespace rankone
