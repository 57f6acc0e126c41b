#include "spectral_estimator.hpp"

#include <utility>

#include "rankone/estimation/spectral.hpp"

namespace rankone::spectral {

const OptionsTable<SpectralOptions>& SpectralOptions::table() {
  static const OptionsTable<SpectralOptions> t = [] {
    OptionsTable<SpectralOptions> t;
    Schema& s = t.schema();
    t.bind(&SpectralOptions::rank, s.integer("rank", 2, "rank k of the estimate").at_least(1));
    t.bind(&SpectralOptions::batch_size,
           s.integer("batch_size", 10000, "measurements in the one batch the estimate uses").at_least(1));
    t.bind(&SpectralOptions::first_order,
           s.boolean("first_order", true, "also estimate w (when the operator has a first-order term)"));
    t.bind(&SpectralOptions::intercept,
           s.boolean("intercept", false,
                     "also estimate an intercept b (y = b + x'w + x'Mx): the batch's mean residual of the moment estimate"));
    return t;
  }();
  return t;
}

SpectralEstimator::SpectralEstimator(SpectralOptions options) : options_(std::move(options)) {}

SpectralEstimator::~SpectralEstimator() = default;

void SpectralEstimator::start(DataSource& data, Rng& rng) {
  const Batch batch = data.next(options_.batch_size);
  const SpectralResult result =
      spectral_estimate(batch, data.sensing_operator(), data.shape(), options_.rank, options_.first_order, rng);
  model_ = result.model;
  // The moment estimate is blind to b (the trace shift cancels it): b is the batch's mean residual.
  if (result.ok && options_.intercept) model_.bias = (batch.y - data.sensing_operator().forward(batch, model_)).mean();
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
