#include "spectral_estimator.hpp"

#include "rankone/estimation/spectral.hpp"

namespace rankone::spectral {

SpectralEstimator::SpectralEstimator(const Params& params)
    : rank_(params.integer("rank")), batch_size_(params.integer("batch_size")), first_order_(params.boolean("first_order")),
      intercept_(params.boolean("intercept")) {}

SpectralEstimator::~SpectralEstimator() = default;

void SpectralEstimator::start(DataSource& data, Rng& rng) {
  const Batch batch = data.next(batch_size_);
  const SpectralResult result =
      spectral_estimate(batch, data.sensing_operator(), data.shape(), rank_, first_order_, rng);
  model_ = result.model;
  // The moment estimate is blind to b (the trace shift cancels it): b is the batch's mean residual.
  if (result.ok && intercept_) model_.bias = (batch.y - data.sensing_operator().forward(batch, model_)).mean();
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
