#pragma once
/// \file The starts of the phase-retrieval literature (docs/plugins/phase_starts.md): each is z_0 = s·v with
/// v the top (or bottom) eigenvector of a weighted matrix Y = (1/m) Σ_i T_i a_i a_i' of one batch and s a
/// norm estimate; a start differs from another only in its weights T. Rank-1 starts of M = z z', usable by
/// every estimator that takes `init` on phase-retrieval data (the flows, gfm_one_pass at rank 1, …).
#include <functional>
#include <optional>
#include <string>

#include "rankone/interfaces/initializer.hpp"

namespace rankone::phase_retrieval {

/// How the norm of a start is estimated.
enum class StartScale {
  mean,           ///< √mean(max(y, 0)), the papers' (E y = ‖x‖² on Gaussian designs)
  least_squares,  ///< argmin_s ‖s |A v| − ψ‖, PhasePack's rescaling
};

/// What a weighted spectral start reads of its batch.
struct StartBatch {
  const Vector& y;
  const Vector& psi;            ///< √max(y, 0)
  const Vector& design_norms;   ///< ‖a_i‖
  Index dimension;              ///< n, the signal's length
};

/// The weights T of Y (m of them), or a reason the batch cannot have them.
using StartWeights = std::function<Vector(const StartBatch&, std::string& refusal)>;

class WeightedSpectralStart final : public Initializer {
 public:
  struct Settings {
    std::string name;
    StartWeights weights;
    bool bottom = false;  ///< the eigenvector of the smallest eigenvalue (the null start)
    std::optional<Index> batch_size;
    StartScale scale = StartScale::mean;
    double tolerance = 1e-10;
  };
  explicit WeightedSpectralStart(Settings settings) : s_(std::move(settings)) {}
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  Settings s_;
};

/// `truth_angle_init`: the planted signal rotated by `angle` radians in a random direction, its norm kept
/// (PhasePack's error-against-initial-angle studies). Data without a rank-1 PSD truth is a ConfigError.
class TruthAngleStart final : public Initializer {
 public:
  TruthAngleStart(double angle, std::string path) : angle_(angle), path_(std::move(path)) {}
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  double angle_;
  std::string path_;
};

/// The weights of the literature's starts (docs/plugins/phase_starts.md).
StartWeights truncated_spectral_weights(double alpha_y);
StartWeights orthogonality_weights(double fraction);
StartWeights weighted_correlation_weights(double fraction, double exponent);
StartWeights optimal_spectral_weights();
StartWeights null_vector_weights(double fraction);

}  // namespace rankone::phase_retrieval
