#pragma once
/// \file Fixed-size batches from finite or endless sources, with opt-in re-use of a finite set.
/// The one-pass estimators (gfm_one_pass, fm_moment_elimination, ifm, ridge) read through it so
/// that "one pass" stays the default and any re-use is declared (`passes`) and reported.
#include <algorithm>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// Draws batches of a fixed size from a source. On an endless source every batch is fresh. On a
/// finite source, a batch that reaches the end of a pass is topped up from the next pass only while
/// fewer than `passes` passes have started: re-using data is opt-in, and `passes_started()` says
/// how much was re-used.
class BatchReader {
 public:
  explicit BatchReader(Index passes = 1) : passes_(std::max<Index>(1, passes)) {}

  /// Up to n instances; fewer (possibly none) once the allowed passes are exhausted.
  Batch next(DataSource& data, Index n) {
    Batch batch = data.next(n);
    while (data.finite() && batch.instances() < n && passes_started_ < passes_) {
      data.rewind();
      ++passes_started_;
      Batch more = data.next(n - batch.instances());
      if (more.instances() == 0) break;  // an empty finite source
      if (batch.instances() == 0) batch = std::move(more);
      else batch.append(more);
    }
    return batch;
  }

  Index passes_started() const { return passes_started_; }
  Index passes_allowed() const { return passes_; }

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
};

}  // namespace rankone
