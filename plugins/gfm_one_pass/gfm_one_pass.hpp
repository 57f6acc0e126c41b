#pragma once
/// \file The `gfm_one_pass` estimator: one-pass generalized factorization machine and rank-one
/// matrix sensing (Lin & Ye 2016, Algorithm 1), with the asymmetric (inductive matrix completion)
/// variant the paper states but does not print (docs/papers/gfm-one-pass.md). See
/// docs/plugins/gfm_one_pass.md.
#include <limits>
#include <string>

#include "gfm_options.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::gfm {

/// One-pass gFM. Every iteration draws a fresh batch (the conditionally independent RIP of the paper
/// needs the batch to be independent of the current estimate), forms the residual
/// `r = y − 𝒜(M_t) − X'w_t` and the shifted operator
///
///   G = scale·(𝒜'(r)/n − trace_shift·mean(r)·I) + M_t      (≈ M*; scale ½, shift 1 for x'Mx)
///
/// matrix-free, then
/// - symmetric operators: `M_t = (U V' + V U')/2`, `U ← QR(G U)`, `V ← G U` (new U, same G);
/// - other operators:     `M_t = U V'`,            `U ← QR(G V)`, `V ← G' U`;
/// - with a first-order term: `w ← w + 𝒜_w'(r)/n` (= `X r / n`);
/// - with `intercept`: `b ← mean(y − 𝒜(M_{t+1}) − X'w_{t+1})` on the same batch (the trace shift
///   makes G blind to b, so b is refitted once M and w have moved; docs/plugins/gfm_one_pass.md).
/// Memory O(k d) besides the batch; work O(n d k) per iteration. For x'Mx on dense designs the
/// iteration takes a fused path that passes over the batch four times (X'[U V w], X·[diag(r)X'U, r],
/// X'U_new, X·diag(r)X'U_new) in fixed blocks on `threads` threads (rankone/linalg/blocked_products.hpp).
class GfmOnePass final : public IterativeEstimator {
 public:
  explicit GfmOnePass(const GfmOptions& options);
  ~GfmOnePass() override;

  /// Draws the initialisation batch and takes U from its spectral estimate (w = 0, V = 0 for x'Mx as
  /// in the paper; the spectral estimate itself, U Σ V', for other operators).
  void start(DataSource& data, Rng& rng) override;
  Estimate estimate() const override { return model(); }
  /// The status, with a note when a finite training set was re-used (passes > 1).
  Summary summary() const override;

 protected:
  double iterate(DataSource& data) override;
  /// The copy of the estimate early stopping and best-iterate keeping hold: U, V, w and b.
  std::any snapshot() const override;
  void restore(const std::any& state) override;
  /// Intercept in the data (without `intercept`), batch too small for d and k, or a rank above the true rank.
  std::string stall_hint() const override;
  /// Without `intercept`: what a residual mean above half its RMS says (empty otherwise).
  std::string missing_intercept() const;

 private:
  /// The current estimate as a model: left = U, right = V (symmetrised for x'Mx), w and b.
  LowRankModel model() const;
  /// M_t Z without forming M_t.
  Matrix model_times(const Matrix& Z) const;
  /// M_t' Z without forming M_t.
  Matrix model_transpose_times(const Matrix& Z) const;
  /// r = y − x_i'M_t x_i − x_i'w_t − b for x'Mx on dense designs and, in the same pass over X
  /// (P = X'[U V w] and then X·W(P)), `XrXtU` = X·[diag(r) X'U, r]: the G U product and X r.
  Vector dense_residual(const Batch& batch, Matrix& XrXtU) const;
  /// The symmetric update (U ← QR(G U), V ← G U_new, w ← w + X r / n, and b) for dense designs from
  /// the residual pass's X·[diag(r) X'U, r]: one more pass over X instead of the operator-generic path's seven.
  void dense_update(const Batch& batch, const MomentInverse& inverse, const Vector& residual, const Matrix& XrXtU,
                    Matrix& U_next, Matrix& V_next, Vector& w_next, double& b_next) const;
  /// `intercept`: mean(y − 𝒜(M) − X'w) of the batch for the model (U, V, w), its least-squares b.
  double refit_intercept(const Batch& batch, const SensingOperator& op, const Matrix& U, const Matrix& V,
                         const Vector& w) const;

  GfmOptions options_;
  bool symmetric_ = true;
  bool has_w_ = false;
  Matrix U_;  ///< d1 × k, orthonormal columns
  Matrix V_;  ///< d2 × k
  Vector w_;  ///< d1, or empty without a first-order term
  double b_ = 0.0;  ///< intercept (0 without `intercept`)
  BatchReader reader_;
  Index batch_size_ = BatchReader::endless_batch_size;  ///< chosen in start (BatchReader::choose)
  std::string batch_note_;                             ///< how batch_size and passes were chosen, or ""
  const DataSource* data_ = nullptr;  ///< for the summary's re-use note
  double last_mean_residual_ = 0.0;  ///< mean and RMS of the last fresh batch's residual and RMS of its y, for the hint
  double last_residual_rms_ = 0.0;
  double last_response_rms_ = 0.0;
  Index d_ = 0;
};

}  // namespace rankone::gfm
