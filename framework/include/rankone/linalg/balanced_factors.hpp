#pragma once
/// \file Factors of a given matrix in the shapes factored solvers start from, computed from the
/// model's own factors by thin QR and an SVD (or eigen-decomposition) of the small core: O(d k²),
/// exact, M never formed.
#include "rankone/core/model.hpp"

namespace rankone {

/// Rank-k factors of M with equal spectra on both sides.
struct BalancedFactors {
  Matrix left;    ///< d1 × k: U Σ^½
  Matrix right;   ///< d2 × k: V Σ^½
  Vector values;  ///< the k singular values σ_1 ≥ … ≥ σ_k (zeros past M's rank)
};

/// `(U Σ^½, V Σ^½)` from the k largest singular triplets of the model's M (its symmetrisation
/// when the model says so; the diagonal is never removed: a zero_diagonal model is refused).
BalancedFactors balanced_factors(const LowRankModel& m, Index k);

/// `X = Q max(Λ, 0)^½` from the k largest (algebraic) eigenvalues of sym(M) = (M + M')/2, the PSD
/// factor X X' closest to sym(M) at rank k; `values` holds max(Λ, 0). Needs a square model. With
/// `floor` > 0 the eigenvalues are raised to at least floor · λ1 instead of 0: a solver for which a
/// zero column is a fixed point (SGD on X X') keeps every direction.
BalancedFactors psd_factor(const LowRankModel& m, Index k, double floor = 0.0);

}  // namespace rankone
