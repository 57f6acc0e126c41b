#pragma once
/// \file DataSource: a stream of batches, finite or endless, with optional ground truth and
/// held-out test set.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "rankone/core/arrays.hpp"
#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone {

/// What a source learnt or decided from its training data that a model trained on it needs again to
/// score new data the same way: a header (the feature dimension, the design, a detected index base)
/// and arrays (standardisation statistics, id maps). Stored with every trial's model.
struct DataPreparation {
  Json header = Json::object();
  ArraySet arrays;
};

/// How responses relate to the linear measurement: `y = 𝒜(M) + noise` or `y = sign(𝒜(M) + noise)`.
enum class Link { identity, sign };
std::string to_string(Link link);

class DataSource : public Component {
 public:
  ~DataSource() override;

  /// Draws the ground truth and the test set, and positions the stream at its start. Called once,
  /// with a seed derived from the experiment seed and the repetition, before any other call.
  virtual void open(std::uint64_t seed) = 0;

  /// The next batch of (up to) n instances. A finite source returns fewer at the end of a pass, and
  /// an empty batch when the pass is exhausted (see `rewind`). Counts samples drawn.
  Batch next(Index n);
  /// Measurements handed out so far (across passes).
  Index samples_drawn() const { return samples_drawn_; }
  /// Gives a batch the caller no longer needs back, so that the next `produce` can fill its buffers
  /// instead of allocating new ones (a 160 MB batch per iteration otherwise: page faults and
  /// allocator time on every step). Only memory is reused, never content. Const: a buffer pool,
  /// not the source's state.
  void recycle(Batch&& batch) const { spare_ = std::move(batch); }

  virtual ProblemShape shape() const = 0;
  virtual const SensingOperator& sensing_operator() const = 0;
  virtual Link link() const { return Link::identity; }
  /// True when the stream ends (a data file); false for endless generators.
  virtual bool finite() const = 0;
  /// Instances in one pass of a finite source.
  virtual std::optional<Index> size() const { return std::nullopt; }
  /// Starts another pass over a finite source. Endless sources ignore it.
  virtual void rewind() {}
  /// The planted truth, or nullptr when unknown (real data).
  virtual const GroundTruth* truth() const { return nullptr; }
  /// A held-out test set, or nullptr.
  virtual const Batch* test_set() const { return nullptr; }
  /// A validation part held apart from the training and test data (early stopping scores iterates on
  /// it), or null when the source has none.
  virtual const Batch* validation_set() const { return nullptr; }
  /// After `open`: what a model trained on this data needs to score new data (empty when nothing).
  virtual DataPreparation preparation() const { return {}; }
  /// Before `open`: serve every record of the data once, in its order, prepared as `preparation`
  /// says (a saved model's) instead of as learnt from this data, for `rankone predict`. The default
  /// throws a ConfigError: the source cannot score new data.
  virtual void score_with(const DataPreparation& preparation);

  /// Every choice the source made about the data that the user did not spell out (a capped test
  /// set, a detected header, a dense or sparse design): stored with the trial, printed once a study.
  const std::vector<std::string>& notes() const { return notes_; }

  /// Says whether a problem of a shape fits the trial's memory budget: "" when it does, else why
  /// not ("estimator 'spectral' would need 14.9 GiB, more than …"). Set by the runner before `open`.
  using ShapeBudget = std::function<std::string(const ProblemShape&)>;
  void set_shape_budget(ShapeBudget budget) { shape_budget_ = std::move(budget); }

 protected:
  /// What a source reading its shape from the data (a file's largest feature index, a raw id, an
  /// image's header) calls before allocating for it: "" when `shape` fits the budget, else why not,
  /// for the DataError that names the record.
  std::string over_budget(const ProblemShape& shape) const { return shape_budget_ ? shape_budget_(shape) : ""; }
  virtual Batch produce(Index n) = 0;
  /// The batch last given to `recycle` (its buffers to refill), or an empty one.
  Batch take_spare() const {
    Batch out = std::move(spare_);
    spare_ = Batch{};
    return out;
  }
  /// Records a note (once: repeated notes are kept once).
  void note(std::string text);

 private:
  Index samples_drawn_ = 0;
  mutable Batch spare_;  ///< a recycled batch whose buffers `produce` may reuse
  std::vector<std::string> notes_;
  ShapeBudget shape_budget_;
};

}  // namespace rankone
