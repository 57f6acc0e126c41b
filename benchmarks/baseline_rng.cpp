// Rng::fill_normal as the portable build (x86-64: SSE2, no FMA) compiles it, in a library of its
// own with hidden symbols (benchmarks/CMakeLists.txt): the reference bench_references times the
// build's own generator against in the same run. The source is framework/src/rng.cpp, unchanged.
#include <cstdint>

#include "rankone/core/rng.hpp"

extern "C" __attribute__((visibility("default"))) void rankone_baseline_fill_normal(rankone::Rng* state, double* out,
                                                                                    std::int64_t n) {
  // Rng's layout is the same in both builds (four 64-bit words), so the caller's state is used as is.
  state->fill_normal(out, n);
}
