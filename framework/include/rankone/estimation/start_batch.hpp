#pragma once
/// \file What every data-driven start shares (interfaces/initializer.hpp): a failed start that says why,
/// and the batch it reads through the estimator's reader, refused as the estimator's own policy refuses it.
#include <optional>
#include <string>

#include "rankone/interfaces/initializer.hpp"

namespace rankone {

/// A start that failed, saying why.
inline Start failed_start(std::string why) {
  Start s;
  s.failure = std::move(why);
  return s;
}

/// Reads the start's batch of `n` instances into `batch` through the request's reader; the failed start
/// instead when the estimator refuses batches of n (`init/batch_size`) or the data ran out before it.
inline std::optional<Start> read_start_batch(const StartRequest& request, Index n, Batch& batch) {
  if (request.refusal)
    if (std::string why = request.refusal(n, "init/batch_size"); !why.empty()) return failed_start(std::move(why));
  batch = request.read(n);
  if (batch.instances() > 0) return std::nullopt;
  Start s = failed_start("the data ran out before the initialisation batch of " + std::to_string(n) + " instances");
  s.ran_out = true;
  return s;
}

}  // namespace rankone
