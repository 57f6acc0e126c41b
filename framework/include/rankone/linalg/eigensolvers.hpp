#pragma once
/// \file Top-k eigen- and singular pairs of matrix-free linear operators (block subspace iteration
/// with Rayleigh–Ritz), with a dense solver for small problems.
#include <functional>

#include "rankone/core/rng.hpp"
#include "rankone/core/types.hpp"

namespace rankone {

/// Applies a linear operator to a thin matrix: Y = A X.
using LinearMap = std::function<Matrix(const Matrix&)>;

struct EigenOptions {
  int max_iterations = 300;
  double tolerance = 1e-10;  ///< relative change of the Ritz values between iterations
  Index oversampling = 8;    ///< extra columns carried to speed convergence
  Index dense_below = 200;   ///< form the matrix densely when the dimension is at most this
};

struct EigenResult {
  Vector values;   ///< k values, ordered by decreasing |value|
  Matrix vectors;  ///< d × k, orthonormal columns
  int iterations = 0;
  bool converged = false;
};

/// The k eigenpairs of largest |eigenvalue| of a symmetric operator of dimension d.
EigenResult top_k_symmetric(const LinearMap& apply, Index d, Index k, Rng& rng, const EigenOptions& opts = {});

struct SvdResult {
  Vector values;  ///< k singular values, decreasing
  Matrix left;    ///< d1 × k
  Matrix right;   ///< d2 × k
  int iterations = 0;
  bool converged = false;
};

/// The k largest singular triplets of a d1 × d2 operator given by A X and A' Y.
SvdResult top_k_singular(const LinearMap& apply, const LinearMap& apply_transpose, Index d1, Index d2, Index k,
                         Rng& rng, const EigenOptions& opts = {});

/// The peak bytes `top_k_singular` (or `top_k_symmetric`, d1 = d2) holds, for memory footprints:
/// the Krylov blocks (about 25 matrices of max(d1, d2) × (k + oversampling)), or on the dense path
/// the formed d1 × d2 matrix with its decomposition (about four of it) and the map applied to an
/// identity. `bytes_per_column` is what applying the map to one column allocates (2 × 8 bytes per
/// instance for a sensing adjoint: its weights and projections, an n × b block for b columns).
double eigensolver_bytes(Index d1, Index d2, Index k, double bytes_per_column, const EigenOptions& opts = {});

/// Thin QR: the orthonormal factor Q (d × k) of X (Householder).
Matrix orthonormalize(const Matrix& X);

}  // namespace rankone
