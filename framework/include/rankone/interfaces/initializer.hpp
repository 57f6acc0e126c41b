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
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone {

class Registry;

/// What an estimator asks of its start.
struct StartRequest {
  /// The rank of the start; 0: the estimator's model has none (a convex solver's iterate): a stored
  /// or planted start keeps its own, zero_init's is the zero matrix, and a start that draws k
  /// columns (spectral_init, random_init) is refused.
  Index rank = 1;
  bool first_order = false;  ///< also a start for w, when the operator has a first-order term
  /// The estimator's model is one factor, M = L L' (a factorization machine's): the start's right
  /// factor is its left (random_init draws one; spectral_init takes the top algebraic eigenpairs;
  /// initial_model takes a start's PSD part).
  bool one_factor = false;
  /// With one_factor: eigenvalues of the start's PSD part below this × λ1 are raised to it, not to
  /// 0 (an SGD on X X' never moves a zero column).
  double psd_floor = 0.0;
  /// Instances the estimator reads per batch: the default of a data-driven start's batch.
  Index batch_size = 0;
  /// The std random_init draws with when it is given none (0: its own default): the estimator's
  /// convention (LEML's 1/√k) or the scale of its data (completion: products with the entries' RMS).
  double random_std = 0.0;
  /// The estimator starts from the start's column space (Start::basis): a start whose left factor
  /// is zero spans none and is refused (zero_init; a QR of 0 would give an arbitrary axis basis).
  bool subspace = false;
  /// The estimator's first step solves for the left factor given the right (alternating
  /// minimisation): random_init draws the right factor alone and starts the left at 0.
  bool solves_left_first = false;
  /// The eigensolver tolerance spectral_init uses when it is given none (0: its own default): the
  /// estimator's, where its results were established with another.
  double eigen_tolerance = 0.0;
  /// The estimator's own moment estimate of a batch, as the symmetric map Z ↦ M̂ Z, when it
  /// replaces the operator's isotropic inversion (fm_moment_elimination and ifm: their corrected 𝓜
  /// on standardised features); spectral_init then takes its k eigenpairs of largest |value|.
  std::function<LinearMap(const Batch& batch)> moment;
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
  bool ran_out = false;      ///< the failure is data that ran out before the start's batch
  bool from_moment = false;  ///< the start is the eigenbasis of the estimator's own moment map (StartRequest::moment)
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

/// A footprint's view of an estimator's `init` (a name, or an object with `name`): whether that start
/// reads data (Registration::reads_data; no `init`: it reads none), and the batch it was given.
bool initializer_reads_data(const Params& estimator_params, const Registry& registry);
std::optional<double> initializer_batch_size(const Params& estimator_params);

}  // namespace rankone
