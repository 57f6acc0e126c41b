#pragma once
/// \file Observed entries of a matrix, read from a batch of the `entry` operator without copying,
/// and the spectral warm start of Jin, Kakade & Netrapalli 2016 (Algorithms 1–3, first line).
#include <cstdint>
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone::online_completion {

/// Row-major factor storage: an update touches one row, which is then contiguous in memory.
using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

/// The entries (row(t), col(t), value(t)) of a batch of the `entry` operator, viewed in place.
/// A one-hot design with scale s observes `s_left · s_right · M_ij`; `value` undoes that scale.
struct EntryView {
  const std::int32_t* rows = nullptr;
  const std::int32_t* cols = nullptr;
  const double* y = nullptr;
  double value_scale = 1.0;  ///< M_ij = value_scale · y
  Index size = 0;

  std::int32_t row(Index t) const { return rows[t]; }
  std::int32_t col(Index t) const { return cols[t]; }
  double value(Index t) const { return value_scale * y[t]; }
};

/// The entries of `batch`, or nullopt when its designs are not one index per side (the `entry`
/// operator with the `one_hot` sampler). The batch must outlive the view.
std::optional<EntryView> entry_view(const Batch& batch);

/// Why a source cannot feed a matrix-completion estimator ("" when it can): it must observe
/// single entries (operator `entry`), and a PSD estimator needs a square matrix.
std::string check_entry_source(const DataSource& data, bool needs_square);

/// A warm start `U0 V0'` (balanced: U0 = W √D, V0 = Z √D) and what went into it.
struct WarmStart {
  RowMatrix left;   ///< d1 × k
  RowMatrix right;  ///< d2 × k (equal to `left` for the PSD warm start)
  Vector values;    ///< the k eigen/singular values of d1 d2/|Ω| · P_Ω(M) (PSD: floored at 1e-6 λ1)
  bool converged = true;  ///< the iterative eigensolver met its tolerance
  std::string failure;    ///< non-empty when no warm start could be formed
};

/// Top-k SVD of d1 d2/|Ω| · P_Ω(M) from the observed entries of `batch` (Algorithms 2 and 3), or,
/// with `psd`, its k largest (algebraic) eigenpairs of the symmetrised matrix, eigenvalues floored at 1e-6 λ1
/// (Algorithm 1: U0 U0'). Matrix-free: the products with P_Ω(M) are the operator's adjoint
/// products, O(|Ω| k) each; nothing d1 × d2 is formed (a dense solver is used only for d ≤ 200).
WarmStart spectral_warm_start(const Batch& batch, const SensingOperator& op, const ProblemShape& shape, Index rank,
                              bool psd, Rng& rng);

/// Mean squared row norms ‖U‖²_F/d1 + ‖V‖²_F/d2: the expected ‖u_i‖² + ‖v_j‖² of a uniformly
/// random entry, which sets the scale of every step size here.
double mean_row_energy(const RowMatrix& left, const RowMatrix& right);

}  // namespace rankone::online_completion
