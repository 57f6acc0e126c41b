#pragma once
/// \file The per-observation updates of Jin, Kakade & Netrapalli 2016, as allocation-free kernels on
/// contiguous rows (header-only so the benchmarks can time them against a bare loop).
#include <algorithm>

#include "rankone/core/types.hpp"

namespace rankone::online_completion {

/// Algorithm 1, one observation m = M_ij of a PSD matrix with factor U (rows u_i, u_j, k entries):
///   U ← U − gain · (U U' − M)_ij (e_i e_j' + e_j e_i') U,   gain = 2 η d²,
/// i.e. u_i ← u_i − gain·r·u_j and u_j ← u_j − gain·r·u_i with r = u_i'u_j − m (old rows on the
/// right); on the diagonal (i = j) u_i ← u_i − 2·gain·r·u_i. The old rows are written to `old_i`
/// and `old_j` (equal on the diagonal), which serve as the undo log. Returns the residual r. O(k).
inline double psd_update(double* ui, double* uj, bool diagonal, Index k, double m, double gain, double* old_i,
                         double* old_j) {
  // The undo copies ride in the inner-product loop: a separate std::copy of k doubles is a
  // memmove call per row, which costs as much as the update itself at k = 8.
  double inner = 0.0;
  for (Index a = 0; a < k; ++a) {
    old_i[a] = ui[a];
    old_j[a] = uj[a];
    inner += ui[a] * uj[a];
  }
  const double r = inner - m;
  if (diagonal) {
    const double g = 2.0 * gain * r;
    for (Index a = 0; a < k; ++a) ui[a] -= g * old_i[a];
    return r;
  }
  const double g = gain * r;
  for (Index a = 0; a < k; ++a) {
    ui[a] = old_i[a] - g * old_j[a];
    uj[a] = old_j[a] - g * old_i[a];
  }
  return r;
}

/// Algorithms 2/3, one observation m = M_ij with rows u_i (of U) and v_j (of V):
///   u_i ← u_i − gain·r·(v_j' A),  v_j ← v_j − gain·r·(u_i' B),  r = u_i'v_j − m,  gain = 2 η d1 d2,
/// where A, B are the k × k gauge maps of Algorithm 3 (identity for plain SGD / Algorithm 2 after
/// its renormalisation). `old_i`, `old_j` receive the old rows. O(k²).
inline double general_update(double* ui, double* vj, Index k, double m, double gain, const Matrix& A, const Matrix& B,
                             double* old_i, double* old_j) {
  double inner = 0.0;
  for (Index a = 0; a < k; ++a) inner += ui[a] * vj[a];
  const double r = inner - m;
  std::copy(ui, ui + k, old_i);
  std::copy(vj, vj + k, old_j);
  const double g = gain * r;
  // (v_j' A)_b = Σ_a v_j[a] A(a, b): A is column-major, so column b is contiguous.
  for (Index b = 0; b < k; ++b) {
    double va = 0.0;
    double ub = 0.0;
    const double* a_col = A.data() + b * k;
    const double* b_col = B.data() + b * k;
    for (Index a = 0; a < k; ++a) {
      va += old_j[a] * a_col[a];
      ub += old_i[a] * b_col[a];
    }
    ui[b] -= g * va;
    vj[b] -= g * ub;
  }
  return r;
}

}  // namespace rankone::online_completion
