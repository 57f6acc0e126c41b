#pragma once
/// \file The online SGD estimators of Jin, Kakade & Netrapalli 2016: `omc_psd` (Algorithm 1),
/// `omc_general_theoretical` (Algorithm 2) and `omc_general` (Algorithm 3).
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "biases.hpp"
#include "completion_options.hpp"
#include "entries.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::online_completion {

/// Scales down every row whose squared norm exceeds `factor_of_mean` times the mean squared row
/// norm (the trimming of Keshavan, Montanari & Oh 2010): a sparse warm start concentrates on the
/// rows it happened to observe, and a spiky row makes 2ηd1d2(‖u_i‖² + ‖v_j‖²) exceed 2.
/// Returns the number of rows scaled down.
Index trim_rows(RowMatrix& factor, double factor_of_mean);

/// What one batch of observations did.
struct BatchStats {
  double squared_residuals = 0.0;  ///< Σ r_t², each residual taken before its update (progressive validation)
  double squared_change = 0.0;     ///< Σ of squared row changes
  Index processed = 0;
};

/// Warm start, the batch loop, step size, divergence detection and rollback; subclasses supply the
/// per-observation update (`process`) and how to undo a batch (`rollback`).
class OnlineCompletion : public IterativeEstimator {
 public:
  explicit OnlineCompletion(OnlineOptions options);
  ~OnlineCompletion() override;

  void start(DataSource& data, Rng& rng) final;
  Estimate estimate() const override;
  /// U V' (U U') without the offset.
  Estimate low_rank_part() const override;

  /// The step multiplier 2 η d1 d2 (2 η d² for Algorithm 1) in use; 0 before start.
  double gain() const { return gain_; }
  /// The learning rate η of the paper in use.
  double learning_rate() const { return learning_rate_; }
  /// The offset estimated so far (mean 0 and no biases with offset "none").
  Biases offset() const { return offset_ ? offset_->biases() : Biases{}; }

 protected:
  double iterate(DataSource& data) final;

  virtual bool psd() const = 0;
  virtual std::string algorithm() const = 0;
  /// Called once the warm start is in U_, V_ (set up caches).
  virtual void prepare() {}
  /// Applies the observations one at a time, in order.
  virtual BatchStats process(const EntryView& entries) = 0;
  /// Restores the factors held before the last `process` call (after divergence).
  virtual void rollback() = 0;
  /// Called after each batch that did not diverge.
  virtual void after_batch() {}
  /// Called after the factors were replaced by the best estimate seen (set up caches again).
  virtual void after_restore() {}
  /// A non-symmetric matrix (omc_psd), too few entries, or a rank above the true rank.
  std::string stall_hint() const final;
  /// The copy best-iterate keeping holds: U, V (not for omc_psd) and the running offset.
  std::any snapshot() const final;
  void restore(const std::any& state) final;

  OnlineOptions options_;
  RowMatrix U_;  ///< d1 × k
  RowMatrix V_;  ///< d2 × k (unused by Algorithm 1, whose estimate is U U')
  double gain_ = 0.0;
  double learning_rate_ = 0.0;

 private:
  /// Scales U0 V0' by the s minimising Σ (s (U0 V0')_ij − m_ij)² over the warm-start entries: the
  /// d1 d2/|Ω| of the spectral estimate is the right scale only for uniformly sampled entries.
  void fit_warm_start_scale(const EntryView& entries);
  /// How far the warm-start entries are from a symmetric matrix (omc_psd's hint).
  void measure_asymmetry(const EntryView& entries);
  /// After the shared divergence rule fired: undoes the batch, restores the best estimate seen on
  /// fresh entries, and says which estimate is returned and what to change (`end_if_diverged`).
  std::string undo_diverged_batch();
  /// The entries of `batch` minus the running offset, each taken before the offset learns it.
  EntryView residual_entries(const EntryView& entries);

  std::string warm_start_note_;
  std::optional<RunningBiases> offset_, saved_offset_;
  std::vector<double> residuals_;
  /// ‖M − M'‖/‖M‖ over the warm-start entries observed at both (i, j) and (j, i), i ≠ j (NaN: no pair).
  double asymmetry_ = std::numeric_limits<double>::quiet_NaN();
  Index asymmetric_pairs_ = 0;
  Index d1_ = 0, d2_ = 0;
  bool exhausted_ = false;  ///< a finite source ran out
  Index entries_seen_ = 0;
};

/// Algorithm 1: M ≈ U U' for a PSD M; each observation updates rows i and j of U in O(k).
class OnlinePsd final : public OnlineCompletion {
 public:
  using OnlineCompletion::OnlineCompletion;
  ~OnlinePsd() override;

 protected:
  bool psd() const override { return true; }
  std::string algorithm() const override { return "Algorithm 1 (PSD)"; }
  void prepare() override;
  BatchStats process(const EntryView& entries) override;
  void rollback() override;

 private:
  /// Observations ahead whose rows are prefetched: the rows are random, so each update would
  /// otherwise wait on a cache miss (d = 10 000, k = 8: 640 KB of factor, beyond L2).
  static constexpr Index kPrefetchDistance = 8;
  void prefetch_rows(Index i, Index j) const;

  std::vector<std::int32_t> undo_rows_;  ///< rows saved in the undo log, in update order
  RowMatrix undo_values_;                ///< their old values (2 per observation, preallocated)
  Index undo_size_ = 0;
};

/// Algorithm 2: renormalise U, V through an SVD of U V' (by thin QRs of U and V and a k × k SVD)
/// before every observation: O((d1 + d2) k²) per observation. A reference for Algorithm 3.
class OnlineGeneralTheoretical final : public OnlineCompletion {
 public:
  using OnlineCompletion::OnlineCompletion;
  ~OnlineGeneralTheoretical() override;

 protected:
  bool psd() const override { return false; }
  std::string algorithm() const override { return "Algorithm 2 (general, SVD renormalisation)"; }
  BatchStats process(const EntryView& entries) override;
  void rollback() override;

 private:
  RowMatrix saved_U_, saved_V_;
};

/// Algorithm 3: the iterates of Algorithm 2 (the same U V', Lemma 3.2) through k × k
/// eigen-decompositions of U'U and V'V kept up to date by rank-one corrections: O(k³) per
/// observation. Every d1 + d2 observations the Gram matrices are recomputed and the factors
/// rebalanced to U W_U √D, V W_V √D (which leaves U V' unchanged) to stop rounding drift.
class OnlineGeneral final : public OnlineCompletion {
 public:
  using OnlineCompletion::OnlineCompletion;
  ~OnlineGeneral() override;

 protected:
  bool psd() const override { return false; }
  std::string algorithm() const override { return "Algorithm 3 (general, k × k eigen-decompositions)"; }
  void prepare() override;
  BatchStats process(const EntryView& entries) override;
  void rollback() override;
  void after_batch() override;
  void after_restore() override { refresh(); }

 private:
  /// The gauge maps A, B of Algorithm 3 from the current Gram matrices; false if U or V lost rank.
  bool gauge_maps();
  /// Recomputes the Gram matrices and rebalances U, V (U V' unchanged).
  void refresh();

  Matrix gram_U_, gram_V_;  ///< U'U, V'V
  Matrix A_, B_;            ///< u_i ← u_i − gain·r·v_j'A,  v_j ← v_j − gain·r·u_i'B
  Eigen::SelfAdjointEigenSolver<Matrix> eig_U_, eig_V_;
  Eigen::JacobiSVD<Matrix> svd_;
  Matrix half_U_, half_V_, core_, left_, right_;  // k × k workspaces (no allocation per observation)
  Vector old_u_, old_v_;
  std::vector<std::int32_t> undo_rows_, undo_cols_;
  RowMatrix undo_u_, undo_v_;
  Index undo_size_ = 0;
  Index since_refresh_ = 0;
};

}  // namespace rankone::online_completion
