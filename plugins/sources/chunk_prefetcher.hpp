#pragma once
/// \file Drawing a stream's next chunks on a second thread while the caller uses the current ones
/// (the synthetic source's `prefetch`).
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <thread>

#include "rankone/core/batch.hpp"

namespace rankone::sources {

/// Draws chunks c, c + 1, … on a worker thread, at most `ahead` chunks beyond the next one the
/// caller will take. A chunk depends only on its index (the caller's `draw` must be a pure,
/// thread-safe function of it), so what `take` returns is exactly what drawing the chunk in the
/// caller's thread would give: results do not depend on the thread or its timing.
class ChunkPrefetcher {
 public:
  /// `chunks`: how many chunks the stream has (a finite source), or -1 for an endless one.
  ChunkPrefetcher(std::function<Batch(Index)> draw, Index chunks, Index ahead);
  ~ChunkPrefetcher();  ///< stops the worker and waits for it
  ChunkPrefetcher(const ChunkPrefetcher&) = delete;
  ChunkPrefetcher& operator=(const ChunkPrefetcher&) = delete;

  /// Chunk c, from the worker (waiting for it if needed). A jump (a rewind, or a chunk already
  /// dropped) restarts the worker at c.
  Batch take(Index c);

 private:
  void work();

  std::function<Batch(Index)> draw_;
  Index chunks_;
  Index ahead_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::map<Index, Batch> ready_;  ///< drawn chunks not taken yet
  Index next_ = 0;                ///< the next chunk the worker draws
  Index wanted_ = 0;              ///< the next chunk the caller will take
  bool stop_ = false;
  std::exception_ptr failure_;    ///< what `draw` threw in the worker, rethrown by `take`
  std::thread worker_;
};

}  // namespace rankone::sources
