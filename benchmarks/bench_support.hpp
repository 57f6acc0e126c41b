#pragma once
// Shared helpers for the benchmark suites: the registry of built plugins, a replayed batch, thread
// CPU time and the pairing of an estimator's steps with the reference work each is compared with.
#include <benchmark/benchmark.h>

#include <ctime>
#include <functional>
#include <memory>
#include <optional>

#include "rankone/rankone.hpp"

namespace rankone::bench {

/// The registry with every plugin of this build loaded (once per process).
inline const Registry& registry() {
  static const Registry r = [] {
    Registry reg;
    reg.load_default();
    return reg;
  }();
  return r;
}

/// Creates a plugin from a JSON reference, validated as an experiment would be.
template <class T>
std::unique_ptr<T> make(const Json& ref, Kind kind) {
  ValidationContext ctx(registry(), nullptr);
  return registry().create<T>(validate_plugin_ref(ref, kind, ctx, ""), kind, "");
}

/// Hands out the same in-memory batch of `batch_size` on every call: times an iteration without
/// the data generator.
class ReplaySource final : public DataSource {
 public:
  ReplaySource(std::unique_ptr<DataSource> inner, Index batch_size) : inner_(std::move(inner)), batch_size_(batch_size) {}
  void open(std::uint64_t seed) override {
    inner_->open(seed);
    batch_ = inner_->next(batch_size_);
  }
  ProblemShape shape() const override { return inner_->shape(); }
  const SensingOperator& sensing_operator() const override { return inner_->sensing_operator(); }
  bool finite() const override { return false; }
  /// The replayed batch (what every `next` hands out a copy of).
  const Batch& replayed() const { return batch_; }
  /// Stages the batch now, so that the next `next` only moves it: call it with the benchmark's
  /// timer paused, and the timed step pays neither for a copy nor for its after-effects (160 MB of
  /// freshly written cache lines to write back). The batch the estimator recycled is handed out
  /// again when it still equals the replayed one (estimators only read their batch), else it is
  /// overwritten with a copy; either way the step allocates and frees nothing.
  void stage() {
    Batch copy = take_spare();
    const bool same = copy.y.size() == batch_.y.size() && copy.y == batch_.y && !copy.right && !batch_.right &&
                      copy.left.kind == DesignSide::Kind::dense && batch_.left.kind == DesignSide::Kind::dense &&
                      copy.left.dim == batch_.left.dim &&
                      copy.left.dense.rows() == batch_.left.dense.rows() &&
                      copy.left.dense.cols() == batch_.left.dense.cols() && copy.left.dense == batch_.left.dense;
    if (!same) copy = batch_;
    staged_ = std::move(copy);
  }

 protected:
  Batch produce(Index) override {
    if (staged_) {
      Batch out = std::move(*staged_);
      staged_.reset();
      return out;
    }
    return batch_;
  }

 private:
  std::unique_ptr<DataSource> inner_;
  Index batch_size_;
  Batch batch_;
  std::optional<Batch> staged_;
};

/// An estimator stepped on one replayed batch, started afresh every `steps_per_start` steps: one
/// batch replayed drives an estimate off after enough steps, and a faster core asks for more
/// within the minimum time, so the benchmark stays finite on every machine. `next` is called with
/// the timer paused.
class RestartedEstimator {
 public:
  RestartedEstimator(std::function<std::unique_ptr<Estimator>()> make, DataSource& source, int steps_per_start)
      : make_(std::move(make)), source_(source), steps_per_start_(steps_per_start) {}
  /// The estimator for the next step (a new one, started, when the last has taken its steps).
  Estimator& next() {
    if (!estimator_ || taken_ == steps_per_start_) {
      estimator_ = make_();
      Rng rng(2);
      estimator_->start(source_, rng);
      taken_ = 0;
    }
    ++taken_;
    return *estimator_;
  }

 private:
  std::function<std::unique_ptr<Estimator>()> make_;
  DataSource& source_;
  int steps_per_start_;
  int taken_ = 0;
  std::unique_ptr<Estimator> estimator_;
};

/// CPU seconds of this thread so far.
inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Times `estimator`'s steps on `data` and, after each step (timer paused), runs `reference()` once,
/// its mean CPU time per step in the counter `counter`: the step and its reference measured in the
/// same seconds of the machine (docs/PERFORMANCE.md).
template <class Reference>
void steps_beside(benchmark::State& state, Estimator& estimator, DataSource& data, const char* counter,
                  Reference reference) {
  double reference_seconds = 0.0;
  for (auto _ : state) {
    if (!estimator.step(data)) state.SkipWithError(estimator.summary().message.c_str());
    state.PauseTiming();
    const double before = thread_cpu_seconds();
    reference();
    reference_seconds += thread_cpu_seconds() - before;
    state.ResumeTiming();
  }
  state.counters[counter] = reference_seconds / static_cast<double>(state.iterations());
}

}  // namespace rankone::bench
