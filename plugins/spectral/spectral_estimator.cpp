#include "spectral_estimator.hpp"

#include "rankone/estimation/spectral.hpp"

namespace rankone::spectral {

SpectralEstimator::SpectralEstimator(const Params& params)
    : rank_(params.integer("rank")), batch_size_(params.integer("batch_size")), first_order_(params.boolean("first_order")) {}

SpectralEstimator::~SpectralEstimator() = default;

void SpectralEstimator::start(DataSource& data, Rng& rng) {
  const Batch batch = data.next(batch_size_);
  const SpectralResult result =
      spectral_estimate(batch, data.sensing_operator(), data.shape(), rank_, first_order_, rng);
  model_ = result.model;
  summary_.iterations = 0;
  if (result.ok) {
    summary_.status = Status::converged;
    summary_.message = "one-shot spectral estimate from " + std::to_string(batch.size()) + " samples";
  } else {
    summary_.status = Status::failed;
    summary_.message = "spectral estimate failed: " + result.failure;
  }
}

}  // namespace rankone::spectral
