#pragma once
/// \file Observed entries of a matrix, read from a batch of the `entry` operator without copying.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "rankone/core/batch.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/initializer.hpp"

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

/// The factors a completion estimator starts from: the balanced (U Σ^½, V Σ^½) of a data-driven
/// start's M (an estimate, whose factorisation is only a representation: the spectral start's is
/// U, V Σ), the start's own factors when it drew or stored them (random_init, warm_start, near_truth).
std::pair<Matrix, Matrix> completion_factors(const Start& start, Index rank);

/// Mean squared row norms ‖U‖²_F/d1 + ‖V‖²_F/d2: the expected ‖u_i‖² + ‖v_j‖² of a uniformly
/// random entry, which sets the scale of every step size here.
double mean_row_energy(const RowMatrix& left, const RowMatrix& right);

}  // namespace rankone::online_completion
