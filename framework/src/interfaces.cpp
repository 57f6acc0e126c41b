// Out-of-line destructors (the key functions that anchor typeinfo in the core library) and the
// small shared pieces of the interfaces.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>

#include "rankone/core/errors.hpp"
#include "rankone/interfaces/initializer.hpp"
#include "rankone/linalg/balanced_factors.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/plugin/registry.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/interfaces/metric.hpp"
#include "rankone/interfaces/sampler.hpp"
#include "rankone/interfaces/sensing_operator.hpp"

namespace rankone {

InputError::~InputError() = default;
ConfigError::~ConfigError() = default;
PluginError::~PluginError() = default;
DataError::~DataError() = default;
UsageError::~UsageError() = default;

Component::~Component() = default;
Sampler::~Sampler() = default;
SensingOperator::~SensingOperator() = default;

std::pair<Matrix, Matrix> SensingOperator::adjoint_pair(const Batch& batch, const Vector& z, const Matrix& R,
                                                        const Matrix& L) const {
  return {adjoint_times(batch, z, R), adjoint_transpose_times(batch, z, L)};
}
DataSource::~DataSource() = default;
Estimator::~Estimator() = default;
IterativeEstimator::~IterativeEstimator() = default;
Metric::~Metric() = default;
Initializer::~Initializer() = default;

namespace {
std::string initializer_name(const Params& estimator_params) {
  if (!estimator_params.has("init")) return "";
  const Json& init = estimator_params.raw("init");
  if (init.is_string()) return init.get<std::string>();
  if (init.is_object() && init.contains("name") && init["name"].is_string()) return init["name"].get<std::string>();
  return "";
}
}  // namespace

bool initializer_reads_data(const Params& estimator_params, const Registry& registry) {
  const std::string name = initializer_name(estimator_params);
  if (name.empty()) return false;
  try {
    return registry.get(name, Kind::initializer).reads_data;
  } catch (const std::exception&) {
    return true;  // unknown here: count the copy (validation names the unknown start)
  }
}

std::optional<double> initializer_batch_size(const Params& estimator_params) {
  if (!estimator_params.has("init")) return std::nullopt;
  const Json& init = estimator_params.raw("init");
  if (init.is_object() && init.contains("batch_size") && init["batch_size"].is_number()) return init["batch_size"].get<double>();
  return std::nullopt;
}

std::string to_string(Link link) { return link == Link::sign ? "sign" : "identity"; }

void DataSource::note(std::string text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
}

void DataSource::score_with(const DataPreparation&) {
  throw ConfigError("this data source cannot score new data with a saved model (it does not implement score_with)");
}

Batch DataSource::next(Index n) {
  Batch b = produce(n);
  samples_drawn_ += b.size();
  return b;
}

std::string to_string(Status s) {
  switch (s) {
    case Status::running: return "running";
    case Status::converged: return "converged";
    case Status::max_iterations: return "max_iterations";
    case Status::budget: return "budget";
    case Status::stalled: return "stalled";
    case Status::diverged: return "diverged";
    case Status::failed: return "failed";
  }
  return "unknown";
}

Status status_from_string(const std::string& s) {
  for (Status st : {Status::running, Status::converged, Status::max_iterations, Status::budget, Status::stalled,
                    Status::diverged, Status::failed})
    if (to_string(st) == s) return st;
  throw InputError("unknown status '" + s + "'");
}

bool IterativeEstimator::step(DataSource& data) {
  stepped_source_ = &data;
  if (finished()) return false;
  if (early_.on && early_.losses.empty() && !track_validation(data)) return false;  // scores the start
  if (summary_.iterations >= max_iterations_) {
    finish(Status::max_iterations, "reached the iteration budget (" + std::to_string(max_iterations_) + ")");
    return false;
  }
  const double change = iterate(data);
  if (finished()) return false;  // iterate() ended the run (diverged, failed, data exhausted)
  ++summary_.iterations;
  if (early_.on && !track_validation(data)) return false;
  if (change >= 0 && change < tolerance_) {
    finish(Status::converged, "relative change " + short_number(change) + " below tolerance " +
                                  short_number(tolerance_) + " after " + std::to_string(summary_.iterations) +
                                  " iterations");
    return false;
  }
  if (summary_.iterations >= max_iterations_) {
    finish(Status::max_iterations, "reached the iteration budget (" + std::to_string(max_iterations_) + ")");
    return false;
  }
  return true;
}

void IterativeEstimator::stop(Status status, std::string message) {
  if (!finished()) finish(status, std::move(message));
}

StartRequest training_set_request(const Batch& set, Index rank) {
  StartRequest request;
  request.rank = rank;
  request.batch_size = set.instances();
  request.read = [&set](Index n) { return n >= set.instances() ? set : set.slice(0, n); };
  request.refusal = [&set](Index n, const std::string& parameter) -> std::string {
    if (n <= set.instances()) return "";
    return parameter + " = " + std::to_string(n) + " exceeds the " + std::to_string(set.instances()) + " training instances";
  };
  return request;
}

Start IterativeEstimator::initial_model(const DataSource& data, const StartRequest& request, Rng& rng) {
  if (!init_) throw std::logic_error("initial_model: the estimator declares no init (declare_policy with init)");
  Start start = init_->initialize(data, request, rng);
  const Matrix& L = start.model.left;
  const Matrix& R = start.model.right;
  const bool one_factor = R.rows() == L.rows() && R.cols() == L.cols() && R == L;
  if (start.ok && request.one_factor && !one_factor) {
    // A one-factor model starts from the PSD part of the start's M (a zero-diagonal model has none).
    if (start.model.zero_diagonal || start.model.rows() != start.model.cols()) {
      start.ok = false;
      start.failure = "the estimator's model is one factor (M = L L') and the start's model is not: it has " +
                      std::string(start.model.zero_diagonal ? "no diagonal" : "two shapes of factor");
    } else {
      const BalancedFactors f = psd_factor(start.model, request.rank, request.psd_floor);
      start.model.left = f.left;
      start.model.right = f.left;
      start.basis = Matrix();
      const Index kept = (f.values.array() > 0.0).count();
      summary_.notes.push_back("a one-factor model starts from the start's PSD part, of rank " + std::to_string(kept) +
                               " of " + std::to_string(request.rank) +
                               (kept < request.rank ? " (the other columns start at 0)" : ""));
    }
  }
  if (start.ok && request.subspace && request.rank > 0 && start.model.left.isZero(0.0)) {
    start.ok = false;
    start.failure = "the start's left factor is zero and spans no subspace, and this estimator starts from the start's "
                    "column space: use a start with a column space (spectral_init, random_init, warm_start, near_truth)";
  }
  if (start.ok && start.basis.size() == 0) start.basis = orthonormalize(start.model.left);
  if (!start.note.empty()) summary_.notes.push_back(start.note);
  return start;
}

void IterativeEstimator::keep_if_best(double fit, int after) {
  if (!(fit < best_.fit)) return;
  best_.fit = fit;
  best_.after = after;
  best_.state = snapshot();
}

std::string IterativeEstimator::restore_best(const std::string& otherwise) {
  if (!std::isfinite(best_.fit)) return otherwise;
  restore(best_.state);
  summary_.fit = best_.fit;
  return "; the estimate returned is the best seen on " + best_.seen_on + " (after " + best_.unit + " " +
         std::to_string(best_.after) + ", " + fit_name(fit_link()) + " " + short_number(best_.fit) + ")";
}

void IterativeEstimator::declare_policy(Schema& schema, PolicyParts parts) {
  schema
      .number("stall_fit", kDefaultStallFit,
              "a run that ends converged or at its budget with a fit (Summary::fit: relative residual on fresh data, "
              "or the estimator's own measure) above stall_fit × the fit of a model that learnt nothing (1 for a "
              "relative residual, 0.5 for a sign error rate) ends 'stalled', with a hint in its message")
      .above(0.0);
  schema
      .number("stall_ratio", kDefaultStallRatio,
              "with a planted truth, a run that ends converged or at its budget also ends 'stalled' when its fit is "
              "above stall_ratio × the truth's own fit on the same data (the noise floor) + stall_margin")
      .at_least(1.0);
  schema
      .number("stall_margin", kDefaultStallMargin,
              "the additive part of the noise-floor stall threshold (see stall_ratio), in units of the fit")
      .at_least(0.0);
  if (!parts.init.empty())
    schema.plugin("init", "initializer", parts.init,
                  "where the estimator starts: spectral_init (the spectral estimate of a batch), random_init, "
                  "zero_init, warm_start (a stored model) or near_truth (docs/plugins/initializers.md)");
  if (!parts.early_stopping) return;
  schema.boolean("early_stopping", false,
                 "score every iterate (and the start) on the source's validation part, keep the best, and stop "
                 "(converged) after `patience` iterations without improvement; the kept iterate is the final "
                 "estimate (metrics, stored model, predict). Loss: the estimator's fit measure (the relative residual "
                 "‖y − ŷ‖/‖y‖, or the sign error rate for an estimator that measures signs). Needs a validation part (file sources: "
                 "validation_fraction or validation_fold, not served nor evaluated on)");
  schema.integer("patience", 5, "early stopping: iterations without improvement of the validation loss before the run "
                                "stops")
      .at_least(1);
  schema.number("min_delta", 0.0, "early stopping: an improvement is a validation loss below the best by more than this")
      .at_least(0.0);
}

void IterativeEstimator::configure_policy(const Params& params, const Registry& registry, const Schema& declared) {
  // Only the policy's `init` (an initializer) is a start; an estimator's own parameter of that name is not.
  const ParamSpec* init = declared.find("init");
  if (init != nullptr && init->type == ParamType::plugin && init->plugin_kind == "initializer" && params.has("init"))
  {
    init_ = registry.create<Initializer>(params.raw("init"), Kind::initializer, params.path_of("init"));
    init_reads_data_ = initializer_reads_data(params, registry);
  }
  if (params.has("stall_fit")) stall_fit_ = params.number("stall_fit");
  if (params.has("stall_ratio")) stall_ratio_ = params.number("stall_ratio");
  if (params.has("stall_margin")) stall_margin_ = params.number("stall_margin");
  early_ = EarlyStopping{};
  if (!params.has("early_stopping")) return;
  early_.on = params.boolean("early_stopping");
  early_.patience = static_cast<int>(params.integer("patience"));
  early_.min_delta = params.number("min_delta");
  early_.path = params.path_of("early_stopping");
}

bool IterativeEstimator::track_validation(const DataSource& data) {
  const Batch* validation = data.validation_set();
  if (validation == nullptr || validation->empty())
    throw ConfigError("at " + early_.path + ": early_stopping needs a validation part of the data, and the source has "
                      "none (a file source: set validation_fraction or folds with validation_fold, and neither serve "
                      "nor evaluate_on \"validation\")");
  double loss = fit_of(validation->y, data.sensing_operator().forward(*validation, estimate()));
  if (!std::isfinite(loss)) loss = std::numeric_limits<double>::infinity();
  early_.losses.push_back(loss);
  const int t = summary_.iterations;
  if (early_.best_iteration < 0 || loss < early_.best - early_.min_delta) {
    early_.best = loss;
    early_.best_iteration = t;
    early_.best_state = snapshot();
    return true;
  }
  if (t - early_.best_iteration < early_.patience) return true;
  finish(Status::converged, "early stopping: the validation loss did not improve by more than min_delta = " +
                                short_number(early_.min_delta) + " for patience = " + std::to_string(early_.patience) +
                                " iterations");
  return false;
}

void IterativeEstimator::declare_divergence_factor(Schema& schema, const std::string& measured,
                                                   const std::string& reference) {
  schema
      .number("divergence_factor", kDefaultDivergenceFactor,
              "diverged when the residual RMS " + measured + " exceeds this multiple of " + reference +
                  " (a relative residual above it), or is not finite; the best estimate seen is returned")
      .above(1.0);
}

bool IterativeEstimator::end_if_diverged(double residual_rms, double reference_rms, double divergence_factor,
                                         const std::string& where, const std::string& reference,
                                         const std::function<std::string()>& restore) {
  if (std::isfinite(residual_rms) && !(residual_rms > divergence_factor * reference_rms)) return false;
  const std::string kept = restore();
  if (!std::isfinite(residual_rms)) {
    finish(Status::diverged, "the residual " + where + " is not finite" + kept);
    return true;
  }
  finish(Status::diverged, "residual RMS " + short_number(residual_rms) + " " + where + " exceeds divergence_factor × " +
                               reference + " (" + short_number(divergence_factor) + " × " + short_number(reference_rms) +
                               ")" + kept);
  return true;
}

bool IterativeEstimator::end_if_not_finite(bool finite, const std::string& what,
                                           const std::function<std::string()>& restore, const std::string& hint) {
  if (finite) return false;
  const std::string kept = restore();
  finish(Status::diverged, "the update of iteration " + std::to_string(iteration() + 1) + " produced non-finite " + what +
                               kept + (hint.empty() ? "" : "; " + hint));
  return true;
}

void IterativeEstimator::record_fresh_fit(double fit, const std::string& measure, Batch&& batch,
                                          const DataSource& data) {
  record_fit(fit, measure);
  fresh_fits_.push_back(fit);
  if (data.truth() == nullptr) {  // no floor to measure: do not keep the batch, lend its memory back
    data.recycle(std::move(batch));
    return;
  }
  if (!floor_batch_.empty()) data.recycle(std::move(floor_batch_));  // the previous floor batch
  floor_batch_ = std::move(batch);
  floor_source_ = &data;
  floor_on_ = FloorData::fresh_batch;
}

bool IterativeEstimator::record_test_fit(const Estimate& estimate, const std::string& measure) {
  const Batch* test = stepped_source_ == nullptr ? nullptr : stepped_source_->test_set();
  if (test == nullptr || test->empty()) return false;
  const double fit = fit_of(test->y, stepped_source_->sensing_operator().forward(*test, estimate));
  if (!std::isfinite(fit)) return false;
  record_fit(fit, measure);
  return true;
}

double fit_on_link(Link link, const Vector& y, const Vector& scores) {
  if (link == Link::sign) {
    Index wrong = 0;
    for (Index i = 0; i < y.size(); ++i) wrong += (scores(i) >= 0.0) != (y(i) >= 0.0);
    return static_cast<double>(wrong) / static_cast<double>(std::max<Index>(y.size(), 1));
  }
  const double y_norm = y.norm();
  return y_norm > 0.0 ? (y - scores).norm() / y_norm : std::numeric_limits<double>::quiet_NaN();
}

std::string fit_name(Link link) { return link == Link::sign ? "sign error rate" : "relative residual"; }

double no_skill_fit(Link link) { return link == Link::sign ? 0.5 : 1.0; }

bool IterativeEstimator::still_converging(Status status) const {
  if (status != Status::max_iterations && status != Status::budget) return false;
  // One fit (of the start) or none: no evidence of progress or of a stall; not judged by the floor.
  if (fresh_fits_.size() < 2) return true;
  const std::size_t last = fresh_fits_.size() - 1;
  // A run shorter than the window is still converging while its fit falls at all; a longer one
  // while the fit fell by kConvergingFactor over the last kConvergingWindow iterations.
  if (last < static_cast<std::size_t>(kConvergingWindow)) return fresh_fits_[last] < fresh_fits_[0];
  return fresh_fits_[last - kConvergingWindow] >= kConvergingFactor * fresh_fits_[last];
}

double IterativeEstimator::measure_floor() const {
  if (floor_on_ == FloorData::none || floor_source_ == nullptr) return std::numeric_limits<double>::quiet_NaN();
  const GroundTruth* truth = floor_source_->truth();
  const Batch* batch = &floor_batch_;
  if (truth == nullptr || batch == nullptr || batch->empty()) return std::numeric_limits<double>::quiet_NaN();
  return fit_of(batch->y, floor_source_->sensing_operator().forward(*batch, *truth));
}

void IterativeEstimator::finish(Status status, std::string message) {
  // Early stopping: whatever ended the run, the final estimate is the best iterate on the validation part.
  const bool keeps_best_iterate =
      early_.on && early_.best_iteration >= 0 && status != Status::failed && status != Status::running;
  if (keeps_best_iterate) {
    if (early_.best_iteration != summary_.iterations || status == Status::diverged) restore(early_.best_state);
    message += "; early stopping kept iteration " + std::to_string(early_.best_iteration) + " of " +
               std::to_string(summary_.iterations) + " (validation loss " + short_number(early_.best) + ", the lowest)";
    record_fit(early_.best, "validation loss of the kept iterate (" + fit_name(fit_link()) + " on the validation part)");
  }
  if (status == Status::converged || status == Status::max_iterations || status == Status::budget) {
    if (!keeps_best_iterate) measure_final_fit();  // else the fit is the kept iterate's validation loss
    const double threshold = stall_fit_ * no_skill_fit();
    summary_.fit_floor = std::isfinite(summary_.fit) ? measure_floor() : std::numeric_limits<double>::quiet_NaN();
    const double floor = summary_.fit_floor;
    const double floor_threshold = stall_ratio_ * floor + stall_margin_;
    if (std::isfinite(summary_.fit) && summary_.fit > threshold) {
      const std::string hint = stall_hint();
      message += "; stalled: " + summary_.fit_measure + " " + short_number(summary_.fit) + " is above stall_fit × " +
                 short_number(no_skill_fit()) + " = " + short_number(threshold) + " (no better than a model that "
                 "learnt nothing)" + (hint.empty() ? std::string() : ". Hint: " + hint);
      status = Status::stalled;
    } else if (std::isfinite(summary_.fit) && std::isfinite(floor) && summary_.fit > floor_threshold &&
               still_converging(status)) {
      message += "; still converging: the fit on fresh data (" + short_number(summary_.fit) + ", the truth's own " +
                 short_number(floor) + ") " +
                 (fresh_fits_.size() <= static_cast<std::size_t>(kConvergingWindow)
                      ? std::string("is still falling after ") + std::to_string(fresh_fits_.size()) + " fresh batch(es)"
                      : "fell by more than " + short_number(kConvergingFactor) + "× over the last " +
                            std::to_string(kConvergingWindow) + " iterations") +
                 "; more iterations may reach the noise floor";
    } else if (std::isfinite(summary_.fit) && std::isfinite(floor) && summary_.fit > floor_threshold) {
      const std::string hint = stall_hint();
      message += "; stalled: stopped far from a fit: " + summary_.fit_measure + " " + short_number(summary_.fit) +
                 ", the truth's own is " + short_number(floor) + " (noise floor); above stall_ratio × floor + "
                 "stall_margin = " + short_number(stall_ratio_) + " × " + short_number(floor) + " + " +
                 short_number(stall_margin_) + " = " + short_number(floor_threshold) +
                 (hint.empty() ? std::string() : ". Hint: " + hint);
      status = Status::stalled;
    }
  }
  if (status == Status::diverged) {  // a diverged run deserves the same hint as a stalled one
    const std::string hint = stall_hint();
    if (!hint.empty()) message += ". Hint: " + hint;
  }
  summary_.status = status;
  summary_.message = std::move(message);
  floor_batch_ = Batch{};  // the floor is measured: release the kept batch
}

std::string short_number(double value, int digits) {
  std::ostringstream os;
  os.precision(digits);
  os << value;
  return os.str();
}

}  // namespace rankone
