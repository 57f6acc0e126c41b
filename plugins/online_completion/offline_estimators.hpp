#pragma once
/// \file Offline matrix-completion baselines over a fixed observed set Ω, several passes each:
/// `als_completion` (alternating least squares with a ridge term) and `sgd_mf` (plain SGD matrix
/// factorisation as LIBMF does it).
#include <limits>
#include <string>
#include <vector>

#include "completion_options.hpp"
#include "entries.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::online_completion {

/// The observed entries of one pass over a finite source, grouped by row and by column (CSR-like).
struct ObservedSet {
  Index d1 = 0, d2 = 0;
  std::vector<std::int32_t> rows, cols;  ///< entry t is (rows[t], cols[t])
  std::vector<double> values;
  std::vector<Index> row_start;          ///< entries of row i: by_row[row_start[i] .. row_start[i+1])
  std::vector<Index> by_row;             ///< entry numbers sorted by row
  std::vector<Index> col_start;
  std::vector<Index> by_col;

  Index size() const { return static_cast<Index>(values.size()); }
  double value_rms() const;
  /// Fills the fields from the entries of `batch` (counting sort by row and by column).
  void assign(const EntryView& entries, Index d1, Index d2);
};

/// Reads Ω in `start`, initialises U, V, and runs one pass (`sweep`) per iteration, with
/// divergence detection (the factors of the last good pass are kept) and a relative-change rule.
class OfflineCompletion : public IterativeEstimator {
 public:
  explicit OfflineCompletion(OfflineOptions options);
  ~OfflineCompletion() override;

  void start(DataSource& data, Rng& rng) final;
  Estimate estimate() const override;
  /// U V' (U U') without the offset.
  Estimate low_rank_part() const override;

 protected:
  double iterate(DataSource& data) final;
  /// Too few observed entries for the rank, or a rank above the true rank.
  std::string stall_hint() const final;
  /// With a held-out test set, the fit is measured on it at the end (training residual otherwise).
  void measure_final_fit() final;
  virtual std::string name() const = 0;
  /// One pass over Ω; returns the sum of squared training residuals it saw.
  virtual double sweep() = 0;

  OfflineOptions options_;
  ObservedSet observed_;
  RowMatrix U_, V_;
  Rng rng_;
  double row_energy_ = 0.0;  ///< ‖U0‖²_F/d1 + ‖V0‖²_F/d2 of the initialisation: the scale of the steps
  double offset_mean_ = 0.0;     ///< the offset fitted on Ω (μ, and b_row, b_col with "biases")
  Vector offset_row_, offset_col_;

 private:
  RowMatrix saved_U_, saved_V_;
  // The factors with the lowest training residual so far (copied only when it improves).
  RowMatrix best_U_, best_V_;
  double best_fit_ = std::numeric_limits<double>::infinity();
  int best_iteration_ = 0;
};

/// Alternating least squares: each row u_i = argmin Σ_{j∈Ω_i} (u'v_j − M_ij)² + λ_i ‖u‖², then each
/// v_j likewise, with λ_i = regularization · |Ω_i| · ‖V‖²_F/d2 (weighted-λ ridge, scale-free).
class AlsCompletion final : public OfflineCompletion {
 public:
  using OfflineCompletion::OfflineCompletion;
  ~AlsCompletion() override;

 protected:
  std::string name() const override { return "als_completion"; }
  double sweep() override;

 private:
  /// Solves for every row of `target` against `other` over the entries grouped by `start`/`order`.
  void solve_rows(RowMatrix& target, const RowMatrix& other, const std::vector<Index>& start,
                  const std::vector<Index>& order, const std::vector<std::int32_t>& other_index);
};

/// SGD matrix factorisation (LIBMF's update without its parallel blocking): each epoch visits Ω in
/// a fresh random order; e = M_ij − u_i'v_j, u_i ← u_i + γ(e v_j − λ u_i), v_j ← v_j + γ(e u_i − λ v_j).
/// γ = learning_rate / ν and λ = regularization · ν with ν = ‖U0‖²_F/d1 + ‖V0‖²_F/d2, so both are
/// dimensionless (they are LIBMF's γ and λ when the rows have unit mean energy).
class SgdMf final : public OfflineCompletion {
 public:
  using OfflineCompletion::OfflineCompletion;
  ~SgdMf() override;

 protected:
  std::string name() const override { return "sgd_mf"; }
  double sweep() override;

 private:
  std::vector<Index> order_;
};

}  // namespace rankone::online_completion
