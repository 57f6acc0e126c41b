#include "chunk_prefetcher.hpp"

#include <utility>

namespace rankone::sources {

ChunkPrefetcher::ChunkPrefetcher(std::function<Batch(Index)> draw, Index chunks, Index ahead)
    : draw_(std::move(draw)), chunks_(chunks), ahead_(ahead < 1 ? 1 : ahead), worker_([this] { work(); }) {}

ChunkPrefetcher::~ChunkPrefetcher() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
}

void ChunkPrefetcher::work() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] {
      return stop_ || (!failure_ && next_ < wanted_ + ahead_ && (chunks_ < 0 || next_ < chunks_));
    });
    if (stop_) return;
    const Index c = next_++;
    lock.unlock();
    Batch chunk;
    std::exception_ptr failure;
    try {
      chunk = draw_(c);
    } catch (...) {
      failure = std::current_exception();
    }
    lock.lock();
    if (failure) failure_ = failure;
    else if (c >= wanted_) ready_[c] = std::move(chunk);  // an earlier chunk was skipped by a jump
    changed_.notify_all();
  }
}

Batch ChunkPrefetcher::take(Index c) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (c != wanted_ && !ready_.count(c)) {  // a jump (a rewind, a skip): restart the worker's window at c
    if (c < wanted_) ready_.clear();
    else ready_.erase(ready_.begin(), ready_.lower_bound(c));
    if (c < wanted_ || c >= next_) next_ = c;
  }
  wanted_ = c;
  changed_.notify_all();
  changed_.wait(lock, [this, c] { return ready_.count(c) > 0 || failure_ != nullptr; });
  if (!ready_.count(c)) std::rethrow_exception(failure_);
  Batch chunk = std::move(ready_[c]);
  ready_.erase(ready_.begin(), ready_.upper_bound(c));
  wanted_ = c + 1;
  changed_.notify_all();
  return chunk;
}

}  // namespace rankone::sources
