#pragma once
/// \file `one_bit_mll`: Algorithm 1 of Qiu, Luo, Ye & Lin 2017, *Nonconvex One-bit Single-label
/// Multi-label Learning* — alternating power iteration on the Hermitian dilation.
///
/// With labels `y_i = sign(x_i' W* ē_i)` (ē = √d2 e_j, j uniform) and Gaussian x,
/// `E[sign(x'w) x] = λ w` for unit w (λ = √(2/π)), so for W with unit columns
///
///   H = √d2/(m λ) · 𝒜'(y − sign(𝒜(W)))  ≈  W* − W,
///
/// and W + H ≈ W*. The iteration runs a power step with 2k columns on the dilation
/// `𝓓 = [[0, H + W], [(H + W)', 0]]` (size d1 + d2, blocks ordered d1 then d2), applied matrix-free:
/// `𝓓 [a; b] = [(H + W) b; (H + W)' a]`, each product O(m d1 k) through the sensing operator.
/// Nothing of size (d1 + d2)², d1 × d2 or d2 × m is formed.
#include <cmath>
#include <optional>
#include <string>

#include "rankone/core/options_table.hpp"
#include "rankone/estimation/batch_reader.hpp"
#include "rankone/interfaces/estimator.hpp"

namespace rankone::one_bit {

/// E[sign(g) g] for g ~ N(0, 1): the λ of the paper.
inline const double kGaussianSignMean = std::sqrt(2.0 / 3.14159265358979323846);

/// The settings of `one_bit_mll`, declared once in `table()` (core/options_table.hpp); the start,
/// `init`, is the iteration policy's.
struct OneBitMllOptions : DeclaredOptions<OneBitMllOptions> {
  Index rank;
  std::optional<Index> batch_size;  ///< unset: the whole finite training set (10 000 if endless)
  std::optional<Index> passes;      ///< unset: max_iterations + 1 with the whole set, else 1
  std::optional<double> lambda;     ///< unset: kGaussianSignMean (sign_mean)
  int max_iterations;
  double tolerance;

  /// The λ = E[sign(g) g] H is divided by: `lambda`, else √(2/π) (Gaussian features).
  double sign_mean() const { return lambda.value_or(kGaussianSignMean); }

  static const OptionsTable<OneBitMllOptions>& table();
  OneBitMllOptions() { read_defaults(); }  ///< the schema's defaults
  explicit OneBitMllOptions(const Params& params) { read(params); }
};

class OneBitMultilabel final : public IterativeEstimator {
 public:
  explicit OneBitMultilabel(OneBitMllOptions options);
  ~OneBitMultilabel() override;

  /// Line 1 of Algorithm 1 and its first iteration, which share one batch: 𝓤 spans the top-k
  /// singular pairs of H⁽⁰⁾ = √d2/(mλ)·𝒜'(y) (W⁽⁰⁾ = 0, so the residual is y itself), then one
  /// power step with W = 0 gives 𝓤, 𝓥 and the first column-normalised W.
  void start(DataSource& data, Rng& rng) override;
  /// W = P Q' with P = top block of 𝓤 (d1 × 2k) and Q = D · bottom block of 𝓥 (d2 × 2k),
  /// D the column normalisation: a rank-2k factored model, never formed densely.
  Estimate estimate() const override { return model_; }
  /// The status, with the shared batch rule's notes (a re-used finite set, an unused last batch).
  Summary summary() const override;

 protected:
  /// Lines 3–11: a full batch (BatchReader: a finite source is passed over again up to `passes`),
  /// residual, 𝓤 = QR(𝓓 𝓤), 𝓥 = 𝓓 𝓤, column normalisation.
  /// Returns ‖W_new − W_old‖_F / ‖W_old‖_F.
  double iterate(DataSource& data) override;
  /// A classifier: its fit is a sign error rate (a coin gets half the signs wrong).
  Link fit_link() const override { return Link::sign; }
  /// A small batch for d1, d2 and the rank, or features far from Gaussian.
  std::string stall_hint() const override;

 private:
  /// One power step of the dilation built from `batch` and the current W (the zero model when
  /// `from_zero`), then the new normalised W. Returns false (after `finish`) on a degenerate update.
  bool power_step(const Batch& batch, const DataSource& data, bool from_zero);
  /// Lines 3–5's normalisation: W = left · right' scaled to unit columns (right's rows rescaled);
  /// false when a column is zero or not finite.
  static bool to_unit_columns(LowRankModel& model);

  OneBitMllOptions options_;
  BatchReader reader_;
  std::string batch_note_;  ///< how batch_size and passes were chosen from the data, or ""

  Index batch_size_ = 0;  ///< resolved at start
  const DataSource* data_ = nullptr;
  Index d1_ = 0, d2_ = 0;
  Matrix basis_;    ///< 𝓤: (d1 + d2) × 2k, orthonormal
  LowRankModel model_;
};

}  // namespace rankone::one_bit
