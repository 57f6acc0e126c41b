#pragma once
/// \file Top-k eigen- and singular pairs of matrix-free linear operators (Spectra's implicitly
/// restarted Lanczos), with a dense solver for small problems.
#include <functional>

#include "rankone/core/rng.hpp"
#include "rankone/core/types.hpp"

namespace rankone {

/// Applies a linear operator to a thin matrix: Y = A X.
using LinearMap = std::function<Matrix(const Matrix&)>;

struct EigenOptions {
  int max_iterations = 300;  ///< Lanczos restarts
  double tolerance = 1e-10;  ///< Ritz residual relative to |θ_i| (Spectra's test; see eigensolvers.cpp)
  Index lanczos_vectors = 0; ///< Krylov dimension (Spectra's ncv); 0: max(2k + 1, 20), at most the dimension
  Index dense_below = 200;   ///< form the matrix densely when the dimension is at most this
};

struct EigenResult {
  Vector values;   ///< k values, ordered by decreasing |value|
  Matrix vectors;  ///< d × k, orthonormal columns
  int iterations = 0;  ///< Lanczos restarts (0: the dense path)
  int products = 0;    ///< single-vector products with the operator
  bool converged = false;
};

/// The k eigenpairs of largest |eigenvalue| of a symmetric operator of dimension d.
EigenResult top_k_symmetric(const LinearMap& apply, Index d, Index k, Rng& rng, const EigenOptions& opts = {});

/// The k eigenpairs of largest *algebraic* eigenvalue (values decreasing): top_k_symmetric on the
/// operator shifted by its spectral radius, where the two orders agree. A PSD factor, or a start
/// from a weighted matrix with negative weights, needs these rather than the largest |value|.
/// `iterations` counts both solves.
EigenResult top_k_algebraic(const LinearMap& apply, Index d, Index k, Rng& rng, const EigenOptions& opts = {});

struct SvdResult {
  Vector values;  ///< k singular values, decreasing
  Matrix left;    ///< d1 × k
  Matrix right;   ///< d2 × k
  int iterations = 0;  ///< Lanczos restarts (0: the dense path)
  int products = 0;    ///< single-vector products with the Gram operator (each: one A and one A')
  bool converged = false;
};

/// The k largest singular triplets of a d1 × d2 operator given by A X and A' Y.
SvdResult top_k_singular(const LinearMap& apply, const LinearMap& apply_transpose, Index d1, Index d2, Index k,
                         Rng& rng, const EigenOptions& opts = {});

/// The peak bytes `top_k_singular` (or `top_k_symmetric`, d1 = d2) holds, for memory footprints:
/// the Lanczos basis (about three min(d1, d2) × ncv matrices) and the k vectors of each side, or on
/// the dense path the formed d1 × d2 matrix with its decomposition (about four of it) and the map
/// applied to an identity. `bytes_per_column` is what applying the map to one column allocates
/// (2 × 8 bytes per instance for a sensing adjoint: its weights and projections).
double eigensolver_bytes(Index d1, Index d2, Index k, double bytes_per_column, const EigenOptions& opts = {});

/// Thin QR: the orthonormal factor Q (d × k) of X (Householder).
Matrix orthonormalize(const Matrix& X);

}  // namespace rankone
