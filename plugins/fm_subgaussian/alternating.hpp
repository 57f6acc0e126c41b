#pragma once
/// \file The alternating (power-method-like) estimators of "Learning Factorization Machines on
/// Sub-gaussian Data" (AAAI-19): `fm_moment_elimination` (Algorithm 1, generalized FM) and `ifm`
/// (the improved FM of Eq. (12)). Both keep M = Ū V' with Ū orthonormal (d × k) and iterate, on a
/// fresh batch each time with residual r = ŷ − y,
///
///   U = V − 𝓜(r) Ū_prev,   Ū = QR(U),   V = V Ū_prev' Ū − 𝓜(r) Ū,   w = w − 𝓦(r),
///
/// where 𝓜(r) ≈ M_prev − M* and 𝓦(r) ≈ w_prev − w* are matrix-free operators built from the
/// batch; the two estimators differ only in 𝓜 and 𝓦 (and in the zero-diagonal model of iFM).
#include <limits>
#include <memory>
#include <string>

#include "fm_common.hpp"
#include "fm_options.hpp"
#include "moments.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::fm_subgaussian {

class AlternatingEstimator : public IterativeEstimator {
 public:
  explicit AlternatingEstimator(AlternatingOptions options);
  ~AlternatingEstimator() override;

  void start(DataSource& data, Rng& rng) final;
  Estimate estimate() const final;
  Summary summary() const final;

 protected:
  double iterate(DataSource& data) final;
  /// Unstandardised features, a small batch, or a step too long for the data.
  std::string stall_hint() const final;
  /// Early stopping's copy of the estimate: Ū, V, w and the bias.
  std::any snapshot() const final;
  void restore(const std::any& state) final;

  /// Called once with the (standardised, if asked) first batch (d × n). Returns "" or why the
  /// estimator cannot run (it then ends with status `failed` and that message).
  virtual std::string prepare(const Matrix& Z) = 0;
  /// Whether the start needs a batch of its own after the first (true when the first estimated moments).
  virtual bool separate_initialisation_batch() const = 0;
  /// 𝓜(r) Y for the standardised batch Z (d × n), residuals r (n) and a thin Y (d × k).
  virtual Matrix correction_times(const Matrix& Z, const Vector& r, const Matrix& Y) const = 0;
  /// 𝓦(r), the first-order correction (size d).
  virtual Vector first_order_correction(const Matrix& Z, const Vector& r) const = 0;
  /// Whether the model removes the diagonal of Ū V' (iFM).
  virtual bool zero_diagonal() const = 0;
  /// Name used in messages.
  virtual std::string name() const = 0;

  AlternatingOptions options_;

 private:
  /// The model in standardised coordinates.
  LowRankModel model_z() const;
  /// The next batch in standardised coordinates, or false when the data are exhausted.
  bool next_batch(DataSource& data, Matrix& Z, Vector& y);

  BatchReader reader_;
  Index batch_size_ = BatchReader::endless_batch_size;  ///< chosen in start (BatchReader::choose)
  std::string batch_note_;                             ///< how batch_size and passes were chosen, or ""
  Batch last_batch_;  ///< the batch of the last fit, handed to record_fresh_fit for the noise floor
  FeatureScaling scaling_;
  bool first_order_ = true;  ///< the operator has a first-order term (else w stays absent)
  Matrix U_;                 ///< Ū, d × k orthonormal
  Matrix V_;                 ///< d × k
  Vector w_;
  double bias_ = 0.0;
  const DataSource* data_ = nullptr;  ///< for the summary's re-use note
  // Raw feature moments of the first batch, for the hint: the moment updates assume mean 0, variance 1.
  double min_variance_ = 1.0, max_variance_ = 1.0, mean_norm_sq_ = 0.0;
  Index d_ = 0;
};

/// `fm_moment_elimination`: Algorithm 1 with the trace term that Eq. (7) lacks restored
/// (docs/papers/fm-subgaussian.md, erratum in Eq. (7)),
///   𝓜(r) = 𝒜'(r)/(2n) − ½ P0 I − ½ D(G1∘P1 + G2∘P2),   𝓦(r) = H1∘P1 + H2∘P2,
/// P0 = mean(r), P1 = X r/n, P2 = (X∘X) r/n − P0, and G, H from κ, φ of the first batch.
class MomentEliminationEstimator final : public AlternatingEstimator {
 public:
  explicit MomentEliminationEstimator(const MomentEliminationOptions& options);

 protected:
  std::string prepare(const Matrix& Z) override;
  bool separate_initialisation_batch() const override { return true; }
  Matrix correction_times(const Matrix& Z, const Vector& r, const Matrix& Y) const override;
  Vector first_order_correction(const Matrix& Z, const Vector& r) const override;
  bool zero_diagonal() const override { return false; }
  std::string name() const override { return "fm_moment_elimination"; }

 private:
  double tau_threshold_;
  double tau_confidence_;
  EliminationCoefficients coefficients_;
};

/// `ifm`: M = Ū V' − D(Ū V'). 𝓜(r) = 𝒜'(r)/(2n) with its diagonal removed, 𝓦(r) = X r/n.
/// No moment correction is needed because the target has no diagonal (docs/papers/fm-subgaussian.md,
/// iFM: the algorithm the paper does not give).
class ImprovedFmEstimator final : public AlternatingEstimator {
 public:
  explicit ImprovedFmEstimator(AlternatingOptions options) : AlternatingEstimator(std::move(options)) {}

 protected:
  std::string prepare(const Matrix&) override { return ""; }
  /// No moments to estimate: the first batch is the initialisation batch.
  bool separate_initialisation_batch() const override { return false; }
  Matrix correction_times(const Matrix& Z, const Vector& r, const Matrix& Y) const override;
  Vector first_order_correction(const Matrix& Z, const Vector& r) const override;
  bool zero_diagonal() const override { return true; }
  std::string name() const override { return "ifm"; }
};

}  // namespace rankone::fm_subgaussian
