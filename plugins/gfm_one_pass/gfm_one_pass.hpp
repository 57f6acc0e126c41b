#pragma once
/// \file The `gfm_one_pass` estimator: one-pass generalized factorization machine and rank-one
/// matrix sensing (Lin & Ye 2016, Algorithm 1), with the asymmetric (inductive matrix completion)
/// variant of /work/shared/NOTES.md §1. See docs/plugins/gfm_one_pass.md.
#include "rankone/core/params.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::gfm {

/// The estimator's settings, read from validated parameters (the schema in plugin.cpp documents each).
struct GfmOptions {
  Index rank = 2;
  Index batch_size = 10000;
  Index init_batch_size = 10000;
  int iterations = 30;
  Index passes = 1;  ///< passes allowed over a finite source (1: the paper's one pass)
  double tolerance = 1e-9;
  bool first_order = true;
  double divergence_factor = 1e3;

  static GfmOptions from_params(const Params& params);
};

/// One-pass gFM. Every iteration draws a fresh batch (the conditionally independent RIP of the paper
/// needs the batch to be independent of the current estimate), forms the residual
/// `r = y − 𝒜(M_t) − X'w_t` and the shifted operator
///
///   G = scale·(𝒜'(r)/n − trace_shift·mean(r)·I) + M_t      (≈ M*; scale ½, shift 1 for x'Mx)
///
/// matrix-free, then
/// - symmetric operators: `M_t = (U V' + V U')/2`, `U ← QR(G U)`, `V ← G U` (new U, same G);
/// - other operators:     `M_t = U V'`,            `U ← QR(G V)`, `V ← G' U`;
/// - with a first-order term: `w ← w + 𝒜_w'(r)/n` (= `X r / n`).
/// Memory O(k d) besides the batch; work O(n d k) per iteration.
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

 private:
  /// The current estimate as a model: left = U, right = V (symmetrised for x'Mx), and w.
  LowRankModel model() const;
  /// M_t Z without forming M_t.
  Matrix model_times(const Matrix& Z) const;
  /// M_t' Z without forming M_t.
  Matrix model_transpose_times(const Matrix& Z) const;

  GfmOptions options_;
  bool symmetric_ = true;
  bool has_w_ = false;
  Matrix U_;  ///< d1 × k, orthonormal columns
  Matrix V_;  ///< d2 × k
  Vector w_;  ///< d1, or empty without a first-order term
  BatchReader reader_;
  const DataSource* data_ = nullptr;  ///< for the summary's re-use note
  double response_rms_ = 1.0;  ///< RMS of the initialisation responses: the scale divergence is judged on
};

}  // namespace rankone::gfm
