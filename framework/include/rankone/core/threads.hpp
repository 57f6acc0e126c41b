#pragma once
/// \file Threads inside one trial: the one `threads` parameter and the one way work is dealt.
///
/// Work is cut into units whose number and content never depend on the thread count; unit u runs
/// on thread u mod threads, and whatever the units add up is added in unit order afterwards. So a
/// result is bitwise the same on 1, 2 or 16 threads (RankOne's results must not depend on how a
/// study is scheduled).
#include <algorithm>
#include <barrier>
#include <string>
#include <thread>
#include <vector>

#include "rankone/core/params.hpp"
#include "rankone/core/types.hpp"

namespace rankone {

/// The threads a kernel may use when asked for `requested` (0: every hardware thread), at least 1.
inline int resolve_threads(int requested) {
  if (requested > 0) return requested;
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

/// Declares `threads` (default 1; 0: every hardware thread) for an estimator whose `work` runs on
/// several threads. The default is 1 because trials already run in parallel (`run --jobs`).
inline void declare_threads(Schema& schema, const std::string& work) {
  schema
      .integer("threads", 1,
               "threads for " + work + " (0: every hardware thread). The result is identical for any value; keep 1 "
               "when trials already run in parallel (run --jobs > 1)")
      .at_least(0);
}

/// Runs body(u) for every unit u in [0, units), unit u on thread u mod threads (`threads` as
/// resolved by resolve_threads; 1 runs them in order on the calling thread).
template <class Body>
void for_each_unit(Index units, int threads, const Body& body) {
  const int workers = static_cast<int>(std::min<Index>(std::max(threads, 1), units));
  if (workers <= 1) {
    for (Index u = 0; u < units; ++u) body(u);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers - 1));
  const auto run = [&](int worker) {
    for (Index u = worker; u < units; u += workers) body(u);
  };
  for (int worker = 1; worker < workers; ++worker) pool.emplace_back(run, worker);
  run(0);
  for (std::thread& t : pool) t.join();
}

/// Runs body(r, u) for every round r in [0, rounds), in order, and every unit u in [0, units) of a
/// round on thread u mod threads: a round starts when every unit of the previous one has ended. The
/// threads start once, not once a round (short rounds: an SGD stratum is a fraction of a millisecond).
/// `body` must not throw.
template <class Body>
void for_each_unit_in_rounds(Index rounds, Index units, int threads, const Body& body) {
  const int workers = static_cast<int>(std::min<Index>(std::max(threads, 1), units));
  if (workers <= 1) {
    for (Index r = 0; r < rounds; ++r)
      for (Index u = 0; u < units; ++u) body(r, u);
    return;
  }
  std::barrier round_ended(workers);
  const auto run = [&](int worker) {
    for (Index r = 0; r < rounds; ++r) {
      for (Index u = worker; u < units; u += workers) body(r, u);
      round_ended.arrive_and_wait();
    }
  };
  std::vector<std::thread> pool;
  pool.reserve(static_cast<std::size_t>(workers - 1));
  for (int worker = 1; worker < workers; ++worker) pool.emplace_back(run, worker);
  run(0);
  for (std::thread& t : pool) t.join();
}

}  // namespace rankone
