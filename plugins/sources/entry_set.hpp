#pragma once
/// \file Distinct entries of a d1 × d2 matrix drawn without replacement, with a minimum number of
/// entries in every row and every column: the observation model of the completion literature's
/// sample-complexity experiments (Ω uniform of a given size, each line observed at least m times).
#include "rankone/core/rng.hpp"
#include "rankone/core/types.hpp"

namespace rankone::sources {

/// Entries (rows(t), cols(t)), all distinct.
struct EntrySet {
  IndexVector rows;
  IndexVector cols;
  Index size() const { return rows.size(); }
};

/// `count` distinct entries, then `held_out` more distinct from them (and from each other), as one
/// set of count + held_out entries: the first `count` in random order, every row and every column
/// among them `min_per_line` times at least, the rest uniform among the entries not taken. Needs
/// min_per_line ≤ min(d1, d2), count ≥ min_per_line · (d1 + d2) (room for the minimum in any
/// draw) and count + held_out ≤ d1 · d2; throws std::invalid_argument otherwise.
EntrySet draw_entries(Rng& rng, Index d1, Index d2, Index count, Index min_per_line, Index held_out);

}  // namespace rankone::sources
