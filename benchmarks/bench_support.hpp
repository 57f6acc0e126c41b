#pragma once
// Shared helpers for the benchmark suites: the registry of built plugins.
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

}  // namespace rankone::bench
