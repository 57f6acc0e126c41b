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
  std::vector<std::int32_t> by_row;      ///< entry numbers sorted by row (4 bytes: Ω has < 2³¹ entries)
  std::vector<Index> col_start;
  std::vector<std::int32_t> by_col;

  Index size() const { return static_cast<Index>(values.size()); }
  double value_rms() const;
  /// Fills the fields from the entries of `batch`; with `grouped`, also by_row and by_col (counting
  /// sort by row and by column; left empty otherwise, for a reader that needs neither). Throws a
  /// DataError for 2³¹ entries or more (entry numbers are 4 bytes).
  void assign(const EntryView& entries, Index d1, Index d2, bool grouped = true);
  /// assign() from a batch of entries that is not needed afterwards: each of its arrays is released
  /// as soon as it is copied, so that Ω is not held twice.
  void take(Batch&& batch, Index d1, Index d2, bool grouped);

 private:
  /// Copies the entries; releases each array of `release` (the batch `entries` views) once copied.
  void copy(const EntryView& entries, Index d1, Index d2, bool grouped, Batch* release);
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
  /// The copy best-iterate keeping holds: U and V.
  std::any snapshot() const final;
  void restore(const std::any& state) final;
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
  /// Solves for every row of `target` against `other` over the entries grouped by `start`/`order`,
  /// on `options_.threads` threads: each row's solve depends on no other, so any thread count gives
  /// the same rows.
  void solve_rows(RowMatrix& target, const RowMatrix& other, const std::vector<Index>& start,
                  const std::vector<std::int32_t>& order, const std::vector<std::int32_t>& other_index);
};

/// SGD matrix factorisation (LIBMF's update and its parallel schedule): e = M_ij − u_i'v_j,
/// u_i ← u_i + γ(e v_j − λ u_i), v_j ← v_j + γ(e u_i − λ v_j), with γ = learning_rate / ν and
/// λ = regularization · ν, ν = ‖U0‖²_F/d1 + ‖V0‖²_F/d2, so both are dimensionless (they are LIBMF's γ
/// and λ when the rows have unit mean energy).
///
/// The schedule (Chin et al. 2015; Gemulla et al. 2011): rows and columns are cut into `blocks`
/// contiguous runs of ids holding about |Ω|/blocks entries each; an epoch visits the `blocks` strata
/// in a random order, stratum s being the blocks (p, (p + s) mod blocks), which share no row and no
/// column and so run in parallel; each block's entries come in a fresh random order every epoch,
/// drawn from a stream of the block's own seeded from the epoch's. Each block's squared residuals
/// are added in block order, so the result depends on `blocks`, never on `threads`. One block is
/// plain SGD over Ω in one shuffled order per epoch, drawn from the estimator's stream.
class SgdMf final : public OfflineCompletion {
 public:
  using OfflineCompletion::OfflineCompletion;
  ~SgdMf() override;

 protected:
  std::string name() const override { return "sgd_mf"; }
  double sweep() override;

 private:
  /// Deals Ω into the blocks: `order_` holds the entry numbers grouped by block (row group × blocks +
  /// column group), block b being order_[block_start_[b] .. block_start_[b+1]).
  void deal_blocks();
  /// Reorders Ω's arrays so that each block's entries are contiguous (a block then fits in cache).
  void store_by_block();
  /// SGD over one block's entries in their current order; returns their squared residuals.
  double update_block(Index block, double step, double ridge);

  std::vector<std::int32_t> order_;
  std::vector<Index> block_start_;
  std::vector<Index> strata_;  ///< the strata in this epoch's order
};

}  // namespace rankone::online_completion
