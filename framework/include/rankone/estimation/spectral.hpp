#pragma once
/// \file The one-shot spectral (moment) estimate of a low-rank model from one batch: a generic
/// moment method that any estimator can reuse (the `spectral` plugin returns it as is, one-pass gFM
/// starts from it).
///
/// For isotropic designs (standard Gaussian x, or uniform index designs) the sensing operator
/// supplies a moment inversion (`SensingOperator::isotropic_inverse`) such that
///
///   M̂ = scale · (𝒜'(y)/n − trace_shift · mean(y) · I)
///
/// is an unbiased estimate of M* when y = 𝒜(M*) (+ x'w* + noise). For symmetric Gaussian sensing
/// E[(x'Mx) x x'] = 2M + tr(M) I and E[x'Mx] = tr(M), hence scale ½ and trace_shift 1; the
/// first-order term adds nothing in expectation because E[(x'w) x x'] = 0 (odd Gaussian moments).
/// The estimate is the best rank-k approximation of M̂: its k eigenpairs of largest |eigenvalue|
/// (symmetric operators) or its k largest singular triplets, found matrix-free in O(n d k) per
/// product. When requested, w is estimated by E[y x] = w* (again E[x x'] = I and E x³ = 0).
///
/// \code
///   #include "rankone/estimation/spectral.hpp"
///   rankone::SpectralResult r = rankone::spectral_estimate(batch, op, shape, rank, /*first_order=*/true, rng);
///   if (!r.ok) { /* r.failure says why; r.model is the zero model of the right shape */ }
/// \endcode
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/sensing_operator.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone {

/// The moment estimate M̂(z) = scale·(𝒜'(z)/n − trace_shift·mean(z)·I) as matrix-free maps
/// Z ↦ M̂ Z and Z ↦ M̂' Z. They refer to the arguments, which must outlive them.
struct MomentMaps {
  LinearMap times;            ///< Z (d2 × k) ↦ M̂ Z (d1 × k)
  LinearMap transpose_times;  ///< Z (d1 × k) ↦ M̂' Z (d2 × k)
};

/// Builds the maps of M̂(z) for a batch (z: one response per measurement, usually y, or residuals).
/// The trace shift needs a square M (d1 = d2); a caller must check that first.
MomentMaps moment_maps(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, const Vector& z);

/// The outcome of a spectral estimate. On failure `model` is the zero model of the right shape.
struct SpectralResult {
  LowRankModel model;     ///< rank-k M̂ (left factor orthonormal, right factor carries the values)
  Matrix left_vectors;    ///< d1 × k orthonormal: eigenvectors, or left singular vectors
  Matrix right_vectors;   ///< d2 × k orthonormal: the same eigenvectors, or right singular vectors
  Vector values;          ///< k eigenvalues by decreasing |value| (signed), or singular values
  int solver_iterations = 0;  ///< eigensolver restarts (0: dense solver)
  bool ok = false;            ///< false when the batch was unusable or the eigensolver did not converge
  std::string failure;        ///< why, when !ok
};

/// The rank-`rank` spectral estimate of M* (and of w* when `first_order` and the operator has a
/// first-order term) from one batch. Symmetric operators give M = U diag(λ) U' with
/// `LowRankModel::symmetric_from_eigen`; others M = U diag(σ) V' stored as left = U, right = V diag(σ).
/// `rng` seeds the eigensolver's random start.
SpectralResult spectral_estimate(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                                 bool first_order, Rng& rng, const EigenOptions& options = {});

/// The start of a one-factor model M = X X': the k largest *algebraic* eigenpairs of sym(M̂) (the
/// k largest in magnitude may hold a negative noise eigenvalue, which has no PSD factor), as
/// M = U diag(λ) U' with the signed λ in `values`. Needs a square M.
SpectralResult spectral_psd_estimate(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                                     bool first_order, Rng& rng, const EigenOptions& options = {});

}  // namespace rankone
