#pragma once
/// \file Full batches from finite or endless sources, with opt-in re-use of a finite set: the one
/// batch rule of the estimators that read fresh batches (gfm_one_pass, fm_moment_elimination, ifm,
/// one_bit_mll).
/// "One pass" stays the default, any re-use is declared (`passes`) and reported, and a short last
/// batch is never used: every batch handed out has exactly the size asked for.
#include <algorithm>
#include <cmath>
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// Draws batches of a fixed size from a source. On an endless source every batch is fresh. On a
/// finite source, a batch that reaches the end of a pass is topped up from the next pass only while
/// fewer than `passes` passes have started: re-using data is opt-in, and `passes_started()` says
/// how much was re-used.
///
/// The short-last-batch rule: when the allowed passes cannot supply a full batch, the remainder is
/// dropped (an empty batch is returned) and counted in `dropped()`. The guarantees of the papers
/// are for a fixed number n of fresh instances per step; a shorter batch would make the last step,
/// whose estimate is the one returned, the noisiest.
class BatchReader {
 public:
  explicit BatchReader(Index passes = 1) : passes_(std::max<Index>(1, passes)) {}
  /// Sets the passes once the plan is chosen (in the estimator's start).
  void allow_passes(Index passes) { passes_ = std::max<Index>(1, passes); }

  /// The batch size on an endless source (or one of unknown size) when the user sets none, and the
  /// largest batch the finite-data rule chooses.
  static constexpr Index endless_batch_size = 10000;

  /// Declares `batch_size` with the text `what` (e.g. "instances in each iteration's fresh
  /// mini-batch (n)"): null or absent means "from the data" (`choose`).
  static void declare_batch_size(Schema& schema, const std::string& what, Index at_least = 1) {
    schema.integer("batch_size", std::nullopt,
                   what + ". Default from the data: " + std::to_string(endless_batch_size) +
                       " on an endless source; on a finite one of N training instances max(10·d·k, N / (T + 1)), "
                       "at most " + std::to_string(endless_batch_size) +
                       " and N (T = max_iterations; the choice is printed as a note)")
        .at_least(static_cast<double>(at_least))
        .make_nullable();
  }

  /// Declares `passes`, read by the constructor: the one declaration of every estimator that reads
  /// its batches through a BatchReader.
  static void declare_passes(Schema& schema) {
    schema
        .integer("passes", std::nullopt,
                 "passes allowed over a finite source (1: every instance is used once, as in the papers' fresh "
                 "batches; more re-uses the set, which breaks the batches' independence, and the summary says so). "
                 "Every batch is full: one that reaches the end of a pass is topped up from the next while passes "
                 "allow, and a short last batch is not used. Default from the data: 1, except when batch_size is "
                 "also from the data on a finite source: then the fewest passes that supply T + 1 batches")
        .at_least(1)
        .make_nullable();
  }

  /// Batch size and passes of a run, with the note saying how they were chosen ("" when the user set
  /// both or the source is endless).
  struct Plan {
    Index batch_size = endless_batch_size;
    Index passes = 1;
    std::string note;
  };

  /// The finite-data rule, the one place it is written. Unset values on an endless source (or one of
  /// unknown size): batch_size 10 000, passes 1, as before. On a finite source of N training
  /// instances: batch_size = max(minimum, N / (T + 1)) capped at 10 000 and at N, so that the start
  /// and the T iterations get a batch each when N allows, and no batch is smaller than the moment
  /// estimates need (`minimum`, e.g. 10·d·k, the estimators' own "batch small" hint); passes = the
  /// fewest passes that supply the T + 1 batches (1 when N is large enough). Explicit values are
  /// obeyed; passes left unset with an explicit batch_size stays 1 (the papers' one pass).
  static Plan choose(const DataSource& data, std::optional<Index> batch_size, std::optional<Index> passes,
                     int max_iterations, Index minimum, const std::string& estimator) {
    Plan plan;
    plan.passes = passes.value_or(1);
    const Index n = data.finite() ? data.size().value_or(0) : 0;  // 0: endless or of unknown size
    if (batch_size || n <= 0) {
      plan.batch_size = batch_size.value_or(endless_batch_size);
      return plan;
    }
    const Index batches = static_cast<Index>(max_iterations) + 1;
    plan.batch_size = std::min({std::max(minimum, n / batches), endless_batch_size, n});
    if (!passes)
      plan.passes = std::max<Index>(1, (batches * plan.batch_size + n - 1) / n);
    plan.note = estimator + ": batch_size " + std::to_string(plan.batch_size) +
                (passes ? std::string() : " and passes " + std::to_string(plan.passes)) + " chosen from the " +
                std::to_string(n) + " training instances (max(10·d·k = " + std::to_string(minimum) + ", N / (T + 1) = " +
                std::to_string(n / batches) + "), at most " + std::to_string(endless_batch_size) + " and N" +
                (passes ? std::string() : "; passes: the fewest that supply T + 1 = " + std::to_string(batches) + " batches") +
                "); set batch_size and passes to override";
    return plan;
  }

  /// The batch a footprint assumes when batch_size is from the data: an upper bound of the rule's
  /// choice (the dimension is not known before a file is read), which the caller caps at N.
  static Index footprint_batch_size(std::optional<Index> batch_size) { return batch_size.value_or(endless_batch_size); }

  /// Why batches of `n` instances cannot come from `data`, or "": a batch larger than a finite set
  /// would hold some of its instances twice (topped up from the next pass). Estimators ask in
  /// `start` for every batch size they will request; `parameter` names it in the message.
  static std::string refusal(const DataSource& data, Index n, const std::string& parameter) {
    const std::optional<Index> size = data.finite() ? data.size() : std::nullopt;
    if (!size || n <= *size) return "";
    return parameter + " " + std::to_string(n) + " is larger than the finite training set of " + std::to_string(*size) +
           " instances (a batch would hold some of them twice): lower it";
  }

  /// Exactly n instances, or none once the allowed passes cannot supply n more.
  Batch next(DataSource& data, Index n) {
    if (ended_) return Batch{};  // the data already ended
    Batch batch = data.next(n);
    while (data.finite() && batch.instances() < n && passes_started_ < passes_) {
      data.rewind();
      ++passes_started_;
      Batch more = data.next(n - batch.instances());
      if (more.instances() == 0) break;  // an empty finite source
      if (batch.instances() == 0) batch = std::move(more);
      else batch.append(more);
    }
    if (batch.instances() < n) {
      dropped_ = batch.instances();
      ended_ = true;
      return Batch{};
    }
    return batch;
  }

  /// True once a request could not be met (the data ended).
  bool ended() const { return ended_; }
  /// Instances of the short last batch that were not used (0 when the data ended on a batch boundary).
  Index dropped() const { return dropped_; }
  Index passes_started() const { return passes_started_; }
  Index passes_allowed() const { return passes_; }

  /// Why a run ended with the data: "one pass over the data: the source ran out after N samples
  /// (T iterations; the partial last batch of m instances is not used)", or "P passes over the data
  /// (passes = P): …" when more than one was allowed. The summary adds `reuse_note`.
  std::string exhausted_message(const DataSource& data, int iterations) const {
    const std::string passes = passes_ == 1 ? std::string("one pass over the data")
                                            : std::to_string(passes_started_) + " passes over the data (passes = " +
                                                  std::to_string(passes_) + ")";
    const std::string unused =
        dropped_ == 0 ? std::string()
                      : "; the partial last batch of " + std::to_string(dropped_) + " instances is not used";
    return passes + ": the source ran out after " + std::to_string(data.samples_drawn()) + " samples (" +
           std::to_string(iterations) + " iterations" + unused + ")";
  }

  /// The summary note when a short last batch was dropped, else "".
  std::string dropped_note(const std::string& estimator, Index batch_size) const {
    if (dropped_ == 0) return "";
    return estimator + ": the partial last batch of " + std::to_string(dropped_) +
           " instances was not used (every batch has batch_size = " + std::to_string(batch_size) + " instances)";
  }

  /// A sentence for the summary when a finite set was re-used, else "".
  std::string reuse_note(const DataSource& data) const {
    if (!data.finite() || passes_started_ <= 1) return "";
    return "; re-used the finite training set (" + std::to_string(passes_started_) + " passes over " +
           std::to_string(data.size().value_or(0)) + " instances, as allowed by passes = " + std::to_string(passes_) +
           ")";
  }

 private:
  Index passes_;
  Index passes_started_ = 1;
  Index dropped_ = 0;
  bool ended_ = false;
};

}  // namespace rankone
