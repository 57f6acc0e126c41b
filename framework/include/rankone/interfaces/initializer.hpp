#pragma once
/// \file Initializer: where an iterative estimator starts, as a component of its own, so that
/// "solver × start" is a sweep axis (`estimators.0.init`) and every estimator shares one vocabulary:
/// the spectral estimate of a batch, random factors, a stored model, or a point at a chosen distance
/// from a planted truth (plugins/initializers/).
///
/// An estimator that declares `init` (IterativeEstimator::declare_policy with `init`) asks for its
/// start in `start()` through `IterativeEstimator::initial_model`, reading data only through the
/// reader it hands over, so that its own policy over finite data (passes, fresh batches) applies.
#include <functional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// What an estimator asks of its start.
struct StartRequest {
  Index rank = 1;
  bool first_order = false;  ///< also a start for w, when the operator has a first-order term
  /// The estimator's model is one factor, M = L L' (a factorization machine's): the start's right
  /// factor is its left (random_init draws one; initial_model takes another start's PSD part).
  bool one_factor = false;
  /// Instances the estimator reads per batch: the default of a data-driven start's batch.
  Index batch_size = 0;
  /// The estimator's reader: `read(n)` returns the next n instances (fewer, or none, when the data
  /// ran out). A start reads data only through it.
  std::function<Batch(Index n)> read;
  /// Why batches of n instances cannot come from the data (BatchReader::refusal), or "".
  std::function<std::string(Index n, const std::string& parameter)> refusal;
};

/// The request of an estimator that holds one fixed training set (`set`, which must outlive the
/// request): its reader hands out the set's first n instances, the whole set by default.
StartRequest training_set_request(const Batch& set, Index rank);
StartRequest training_set_request(Batch&& set, Index rank) = delete;  // the reader would outlive it

/// A start: the initial model, an orthonormal basis of its column space, and the batch it read.
struct Start {
  bool ok = false;
  std::string failure;  ///< why there is no start (the data ran out, no planted truth, a model of another shape)
  LowRankModel model;   ///< d1 × k left and d2 × k right factors (and w when asked for)
  Matrix basis;         ///< d1 × k orthonormal basis of the model's column space (a subspace method's
                        ///< start); initial_model fills it when a start leaves it empty
  Batch batch;          ///< the batch a data-driven start read (empty otherwise): the estimator may use and recycle it
  std::string note;     ///< what the start chose, among the trial's notes ("" when nothing)
};

class Initializer : public Component {
 public:
  ~Initializer() override;
  /// The start of a rank-`request.rank` model on `data` (shape, operator, truth); all randomness from `rng`.
  virtual Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const = 0;
};

}  // namespace rankone
