#pragma once
/// \file The `synthetic` data source: a planted ground truth (`w*`, `M*` of a chosen structure and
/// spectrum) observed through a sensing operator, with designs from samplers, optional additive
/// noise, a link (identity or sign) and sign flips.
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "rankone/core/rng.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/sampler.hpp"
#include "rankone/plugin/registry.hpp"
#include "chunk_prefetcher.hpp"
#include "entry_set.hpp"

namespace rankone::sources {

/// The structure of the planted M* (parameter `truth`).
enum class TruthStructure {
  symmetric,      ///< U diag(λ) U', U orthonormal, eigenvalues of chosen signs
  psd,            ///< the same with positive eigenvalues
  fm,             ///< U U' − D(U U'), U Gaussian (conventional factorization machine)
  zero_diagonal,  ///< U V' − D(U V'), U and V Gaussian (the iFM model)
  general,        ///< U S V', U and V orthonormal (d1 × d2)
  unit_columns    ///< general, then every column scaled to unit norm (the one-bit model)
};

/// Signs of a generated eigenvalue spectrum (parameter `signs`, truth "symmetric" only).
enum class SpectrumSigns { mixed, positive, negative };

/// How the generated spectrum falls from `scale` to `scale / condition_number` (parameter `spacing`).
enum class SpectrumSpacing { geometric, linear };

/// Everything the synthetic source needs besides its plugins; read and checked by the factory.
struct SyntheticConfig {
  Index d1 = 0;
  Index d2 = 0;
  Index rank = 2;
  TruthStructure structure = TruthStructure::symmetric;
  std::vector<double> eigenvalues;  ///< explicit spectrum (size rank); empty: geometric spacing
  double scale = 1.0;
  double condition_number = 1.0;
  SpectrumSigns signs = SpectrumSigns::mixed;
  SpectrumSpacing spacing = SpectrumSpacing::geometric;
  std::vector<double> tail;  ///< extra small eigen/singular values beyond the rank
  double truth_sign = 1.0;
  double factor_std = 0.0;  ///< entry std of Gaussian factors (fm, zero_diagonal)
  double w_norm = 0.0;
  std::optional<double> w_std;
  double bias = 0.0;
  Link link = Link::identity;
  double noise_std = 0.0;
  /// Phase retrieval's noise: y = max(√y₀ + ξ, 0)² with ξ ~ N(0, σ²), σ = ‖x‖/SNR, ‖x‖ = √tr M*.
  std::optional<double> amplitude_snr;
  double flip_probability = 0.0;
  Index test_size = 0;
  Index validation_size = 0;  ///< instances of the validation part (early stopping), drawn like training ones
  bool test_full_labels = false;
  bool full_labels = false;  ///< training instances observe every right index (full observation)
  bool test_noise = false;
  std::optional<Index> size;  ///< finite training set of this many instances
  Index prefetch = 0;  ///< training instances drawn ahead on a second thread (0: none)
  /// Entries (operator "entry"): the training set of `size` distinct entries and held-out entries
  /// distinct from them, instead of entries drawn with replacement (entry_set.hpp).
  bool without_replacement = false;
  Index min_per_line = 0;  ///< without replacement: entries in every row and column of the training set
  /// The operator takes matrix designs (gaussian_ensemble): each measurement's A_i is d2 draws of
  /// the left sampler in dimension d, side by side.
  bool matrix_designs = false;
};

/// A reproducible stream of synthetic measurements.
///
/// Three independent random streams derive from the `open` seed: "truth" (M*, w*), "test" (the
/// held-out set) and "train". The training stream is cut into fixed chunks of `kChunk` instances,
/// chunk c drawn from its own seed, so instance i depends only on (seed, i): the same instances
/// come out whatever batch sizes are requested, and `rewind` replays a finite source exactly. The
/// same property lets `prefetch` draw the next chunks on a second thread with unchanged results.
class SyntheticSource final : public DataSource {
 public:
  static constexpr Index kChunk = 256;

  /// `right` is null for a symmetric operator.
  SyntheticSource(SyntheticConfig config, std::unique_ptr<SensingOperator> op, std::unique_ptr<Sampler> left,
                  std::unique_ptr<Sampler> right);
  ~SyntheticSource() override;

  void open(std::uint64_t seed) override;
  ProblemShape shape() const override;
  const SensingOperator& sensing_operator() const override { return *op_; }
  Link link() const override { return config_.link; }
  bool finite() const override { return config_.size.has_value(); }
  std::optional<Index> size() const override { return config_.size; }
  void rewind() override { position_ = 0; }
  const GroundTruth* truth() const override { return opened_ ? &truth_ : nullptr; }
  const Batch* test_set() const override { return opened_ && config_.test_size > 0 ? &test_ : nullptr; }
  const Batch* validation_set() const override {
    return opened_ && config_.validation_size > 0 ? &validation_ : nullptr;
  }

 protected:
  Batch produce(Index n) override;

 private:
  /// n instances from `rng`: designs, then responses 𝒜(M*) + noise through the link, then flips.
  /// A test draw may pair each instance with every label, and is noise-free unless `test_noise`.
  /// Without replacement the designs are entries [first, first + n) of `entries_`.
  Batch draw(Rng& rng, Index n, bool test, Index first = 0) const;
  const Batch& chunk(Index c);
  /// Training chunk c, from its own seed (a pure function of c: safe on the prefetch thread).
  Batch draw_chunk(Index c) const;
  Batch empty_batch() const;

  SyntheticConfig config_;
  std::unique_ptr<SensingOperator> op_;
  std::unique_ptr<Sampler> left_sampler_;
  std::unique_ptr<Sampler> right_sampler_;

  bool opened_ = false;
  GroundTruth truth_;
  Batch test_;
  Batch validation_;
  EntrySet entries_;  ///< without replacement: training entries, then test, then validation ones
  std::uint64_t train_seed_ = 0;
  Index position_ = 0;  ///< next training instance
  Index cached_chunk_ = -1;
  Batch cached_;
  std::unique_ptr<ChunkPrefetcher> prefetcher_;  ///< last: stops before what its draws use goes
};

/// The planted M* and w* of a configuration, drawn from `rng`.
GroundTruth plant_truth(const SyntheticConfig& config, Rng& rng);

/// The registration of the `synthetic` source (parameters, validation of combinations, factory).
Registration synthetic_registration();

}  // namespace rankone::sources
