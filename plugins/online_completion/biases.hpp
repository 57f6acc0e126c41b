#pragma once
/// \file Global mean and row/column biases of a matrix observed entry by entry: the `bias_baseline`
/// estimator, and the `offset` the completion estimators subtract before fitting U V' (ratings are
/// not a zero-mean low-rank matrix; μ + b_u + b_i is the standard first step, Koren 2008, §2.1).
#include <string>

#include "completion_options.hpp"
#include "entries.hpp"
#include "offline_estimators.hpp"
#include "rankone/core/model.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::online_completion {

/// μ + b_row(i) + b_col(j) (`row`, `col` empty: μ alone).
struct Biases {
  double mean = 0.0;
  Vector row, col;

  double operator()(Index i, Index j) const {
    return row.size() == 0 ? mean : mean + row(i) + col(j);
  }
  /// Adds the biases to a factored estimate without changing its type: L ← [L, b_row, 1],
  /// R ← [R, 1, b_col], bias ← bias + μ (so every operator and metric sees M + offset).
  void add_to(Estimate& e) const;
};

/// Minimises Σ_Ω (M_ij − μ − b_i − c_j)² + λ (‖b‖² + ‖c‖²) (μ unpenalised) by block coordinate
/// descent, each block solved exactly: μ = mean(M − b − c), b_i = Σ_j (M_ij − μ − c_j)/(λ + |Ω_i|),
/// then c_j likewise. A convex quadratic: the sweeps converge to its unique minimiser (for λ > 0).
class BiasFit {
 public:
  BiasFit(const ObservedSet& observed, OffsetKind kind, double regularization);
  /// One sweep; returns ‖Δθ‖ / max(‖θ‖, 1e-300) over θ = (μ, b, c).
  double sweep();
  /// Sweeps until the relative change is below `tolerance` or `max_sweeps` are done.
  void solve(int max_sweeps, double tolerance);
  const Biases& biases() const { return biases_; }

 private:
  const ObservedSet& observed_;
  OffsetKind kind_;
  double lambda_;
  Biases biases_;
};

/// The biases estimated in one pass over a stream, O(1) per observation: μ the running mean,
/// b_col(j) = Σ (m − μ)/(λ + n_j) over column j's entries (exact for the current μ, from running sums),
/// b_row(i) = Σ (m − μ_t − b_col,t(j))/(λ + n_i) with the column biases at the time of each entry
/// (the one-pass form of the two-step baseline of Koren 2008, §2.1).
class RunningBiases {
 public:
  RunningBiases(OffsetKind kind, double regularization, Index d1, Index d2);
  double operator()(Index i, Index j) const;
  void observe(Index i, Index j, double m);
  /// The current estimate as Biases.
  Biases biases() const;

 private:
  double column_bias(Index j) const;
  OffsetKind kind_;
  double lambda_;
  double sum_ = 0.0, count_ = 0.0;
  Vector col_sum_, col_count_, row_sum_, row_count_;
};

/// `bias_baseline`: μ + b_u + b_i fitted to a fixed observed set (one pass over a finite entry
/// source), one block-coordinate sweep per iteration. The estimate is the rank-2 factored matrix
/// [b_u, 1] [1, b_i]' with bias μ.
class BiasBaseline final : public IterativeEstimator {
 public:
  explicit BiasBaseline(BiasBaselineOptions options);
  ~BiasBaseline() override;

  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override;
  /// No low-rank part: a zero column.
  Estimate low_rank_part() const override;

 protected:
  double iterate(DataSource& data) override;
  /// The training relative residual of μ + b_u + b_i, O(|Ω|) once.
  void measure_final_fit() override;

 private:
  BiasBaselineOptions options_;
  ObservedSet observed_;
  std::unique_ptr<BiasFit> fit_;
};

}  // namespace rankone::online_completion
