// Entries without replacement (entry_set.hpp): Floyd's algorithm for each line's minimum, then
// rejection sampling while the set is sparse, or a shuffle of the remaining entries when it is dense.
#include "entry_set.hpp"

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <unordered_set>
#include <vector>

namespace rankone::sources {

namespace {

/// `m` distinct values of [0, n), uniformly (Floyd's algorithm: O(m) draws, no array of size n).
std::vector<std::uint64_t> distinct(Rng& rng, std::uint64_t n, std::uint64_t m) {
  std::unordered_set<std::uint64_t> chosen;
  std::vector<std::uint64_t> out;
  out.reserve(m);
  for (std::uint64_t j = n - m; j < n; ++j) {
    const std::uint64_t t = rng.below(j + 1);
    const std::uint64_t pick = chosen.count(t) ? j : t;
    chosen.insert(pick);
    out.push_back(pick);
  }
  return out;
}

/// Fisher–Yates on keys[first, end).
void shuffle(Rng& rng, std::vector<std::uint64_t>& keys, std::size_t first) {
  for (std::size_t i = keys.size(); i > first + 1; --i) {
    const std::size_t j = first + static_cast<std::size_t>(rng.below(i - first));
    std::swap(keys[i - 1], keys[j]);
  }
}

}  // namespace

EntrySet draw_entries(Rng& rng, Index d1, Index d2, Index count, Index min_per_line, Index held_out) {
  const auto rows = static_cast<std::uint64_t>(d1), cols = static_cast<std::uint64_t>(d2);
  const std::uint64_t cells = rows * cols;
  const auto m = static_cast<std::uint64_t>(min_per_line);
  const auto wanted = static_cast<std::uint64_t>(count), total = wanted + static_cast<std::uint64_t>(held_out);
  if (min_per_line < 0 || m > std::min(rows, cols))
    throw std::invalid_argument("a minimum of " + std::to_string(min_per_line) + " entries per line needs at most min(d1, d2)");
  if (wanted < m * (rows + cols))
    throw std::invalid_argument(std::to_string(count) + " entries cannot guarantee " + std::to_string(min_per_line) +
                                " per row and column: need at least min_per_line · (d1 + d2) = " +
                                std::to_string(m * (rows + cols)));
  if (total > cells)
    throw std::invalid_argument(std::to_string(total) + " distinct entries requested of a " + std::to_string(d1) + " × " +
                                std::to_string(d2) + " matrix");
  // Keys k = i·d2 + j, in the order drawn.
  std::unordered_set<std::uint64_t> seen;
  std::vector<std::uint64_t> keys;
  keys.reserve(total);
  auto take = [&](std::uint64_t key) {
    if (seen.insert(key).second) keys.push_back(key);
  };
  for (std::uint64_t i = 0; i < rows && m > 0; ++i)
    for (std::uint64_t j : distinct(rng, cols, m)) take(i * cols + j);
  for (std::uint64_t j = 0; j < cols && m > 0; ++j)
    for (std::uint64_t i : distinct(rng, rows, m)) take(i * cols + j);
  // Now keys.size() ≤ m (d1 + d2) ≤ count: the rest of the training part, then the held-out part.
  if (2 * total <= cells) {
    // Sparse: a uniform draw is new with probability ≥ 1/2, so rejection costs at most twice the draws.
    while (keys.size() < total) take(rng.below(cells));
  } else {
    // Dense: the entries not taken yet, shuffled, and as many as are missing taken from the front.
    std::vector<std::uint64_t> rest;
    rest.reserve(cells - keys.size());
    for (std::uint64_t k = 0; k < cells; ++k)
      if (!seen.count(k)) rest.push_back(k);
    shuffle(rng, rest, 0);
    keys.insert(keys.end(), rest.begin(), rest.begin() + static_cast<std::ptrdiff_t>(total - keys.size()));
  }
  // The minimum's entries came first and row by row: shuffle the training part as a whole. The
  // held-out part is uniform among the entries the training part left.
  std::vector<std::uint64_t> training(keys.begin(), keys.begin() + static_cast<std::ptrdiff_t>(wanted));
  shuffle(rng, training, 0);
  std::copy(training.begin(), training.end(), keys.begin());
  EntrySet set;
  set.rows.resize(static_cast<Index>(total));
  set.cols.resize(static_cast<Index>(total));
  for (std::size_t t = 0; t < keys.size(); ++t) {
    set.rows(static_cast<Index>(t)) = static_cast<IndexVector::Scalar>(keys[t] / cols);
    set.cols(static_cast<Index>(t)) = static_cast<IndexVector::Scalar>(keys[t] % cols);
  }
  return set;
}

}  // namespace rankone::sources
