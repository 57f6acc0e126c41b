#pragma once
/// \file Estimator: start / step / estimate / summary (the Ceres Options → Summary pattern).
/// Non-convergence is a status, never an exception; exceptions are for bugs and bad input.
#include <any>
#include <functional>
#include <memory>
#include <limits>
#include <string>
#include <vector>

#include "rankone/core/batch.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/params.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/interfaces/initializer.hpp"

namespace rankone {

class Registry;

/// `stalled`: the run ended (budget spent or no more change) far from a fit of the data, a
/// non-success verdict with a hint in the message. `failed` also covers a trial whose process died.
/// `budget`: the experiment's `stop` section ended the run on a wall-time, CPU-time or sample budget
/// (trial.cpp): a graceful end whose curve is kept, unlike a limit, which kills the trial (`failed`).
enum class Status { running, converged, max_iterations, budget, stalled, diverged, failed };
std::string to_string(Status s);
Status status_from_string(const std::string& s);

/// The fit of `scores` against the responses `y` on `link`, lower is better: the relative residual
/// ‖y − ŷ‖/‖y‖ (NaN when y = 0), or on a sign link the fraction of signs the scores get wrong (sign(0) = +1).
double fit_on_link(Link link, const Vector& y, const Vector& scores);
/// What messages call that fit ("relative residual", "sign error rate").
std::string fit_name(Link link);
/// That fit for a model that learnt nothing: 1 for ŷ = 0, 0.5 for a coin.
double no_skill_fit(Link link);

struct Summary {
  Status status = Status::running;
  std::string message;  ///< why it stopped, in a sentence
  int iterations = 0;   ///< completed steps
  /// How well the final model fits data it had not yet used (NaN when the estimator has none);
  /// for the sensing estimators the relative residual ||y - y_hat|| / ||y|| on the last fresh batch,
  /// for the estimators that measure signs (IterativeEstimator::fit_link) the sign error rate.
  double fit = std::numeric_limits<double>::quiet_NaN();
  std::string fit_measure;          ///< what `fit` is, e.g. "relative residual on the last fresh batch"
  /// The planted truth's own fit, in the same measure on the same data (the noise floor); NaN when
  /// the source has no truth or the estimator measured no fit on data the truth can be run on.
  double fit_floor = std::numeric_limits<double>::quiet_NaN();
  std::vector<std::string> notes;   ///< choices made about the data or the run, printed once per study
};

class Estimator : public Component {
 public:
  ~Estimator() override;

  /// Initialises from the data (may draw its own batch). All randomness comes from `rng`.
  /// May end the run at once by setting a terminal status (e.g. `failed` with a reason).
  virtual void start(DataSource& data, Rng& rng) = 0;
  /// One iteration (pulls its own fresh batch). Returns false when finished; the summary says why.
  virtual bool step(DataSource& data) = 0;
  /// The current estimate.
  virtual Estimate estimate() const = 0;
  /// The low-rank part of the estimate, without offsets folded into its factors (e.g. row and
  /// column biases): the part whose spectrum says whether the rank was over-specified.
  virtual Estimate low_rank_part() const { return estimate(); }
  virtual Summary summary() const = 0;
  /// The experiment's stopping rules ended the run (the `stop` section: a metric target, no
  /// progress, or a budget) with `status` (converged or budget) and `message`. Estimators that keep
  /// a status of their own record it (IterativeEstimator: its verdicts and best iterate apply);
  /// the default keeps nothing and the runner records the status itself.
  virtual void stop(Status /*status*/, std::string /*message*/) {}
};

/// Which optional parts of the shared iteration policy an estimator offers (IterativeEstimator::declare_policy).
struct PolicyParts {
  /// `early_stopping`, `patience`, `min_delta`: keep the best iterate on the source's validation
  /// part (the estimator overrides `snapshot` and `restore`).
  bool early_stopping = false;
  /// `init`, the start (interfaces/initializer.hpp), with this default initializer ("": none declared).
  std::string init{};
};

/// Common bookkeeping for iterative estimators: an iteration budget, a relative-change stopping
/// rule, the fit measure and the stall verdict, and the summary. Subclasses implement `start` and
/// `iterate`, record their fit with `record_fit`, and call `finish` to stop early.
///
/// The stall verdict: a run that ends `converged` or `max_iterations` ends `stalled` instead, its
/// message naming the fit, the threshold and the estimator's `stall_hint()`, when
///  - its fit is above `stall_fit` × `no_skill_fit()` (the fit of a model that learnt nothing:
///    relative residual 1 for ŷ = 0, sign error 0.5 for a coin), or
///  - the source has a planted truth and the fit is above `stall_ratio` × floor + `stall_margin`,
///    the floor being the truth's own fit on the same data (the noise: 0 for noiseless data).
/// The floor is measured once, in `finish`, on the batch the last fit was measured on (kept by
/// `record_fresh_fit`) or on the held-out set (`record_test_fit`): one forward pass of the truth.
/// It is diagnostic only: no iterate depends on it.
class IterativeEstimator : public Estimator {
 public:
  /// The default of the `stall_fit` parameter every iterative estimator declares.
  static constexpr double kDefaultStallFit = 1.0;
  /// Defaults of `stall_ratio` and `stall_margin` (measured: docs/plugins/gfm_one_pass.md, "Stall verdict").
  static constexpr double kDefaultStallRatio = 3.0;
  static constexpr double kDefaultStallMargin = 0.05;
  /// A run stopped by its budget whose fresh-data fit fell by at least this factor over its last
  /// kConvergingWindow iterations (a shorter run: whose fit fell at all, or was measured once) is
  /// still converging: the floor rule does not call it stalled.
  static constexpr double kConvergingFactor = 2.0;
  static constexpr int kConvergingWindow = 5;
  /// Default of `divergence_factor`: far above any fit a working run records (the start, ŷ = 0, has
  /// relative residual 1), and reached within a few iterations by a geometric blow-up.
  static constexpr double kDefaultDivergenceFactor = 1e3;
  /// Declares `divergence_factor` (default, bound, and a text saying what `measured` residual is
  /// compared with which `reference` RMS): the one declaration of every estimator's divergence rule,
  /// `end_if_diverged`. The defaults are the fresh-batch estimators' (gfm_one_pass,
  /// fm_moment_elimination, ifm, the online completion estimators).
  static void declare_divergence_factor(Schema& schema, const std::string& measured = "on a fresh batch",
                                        const std::string& reference = "the RMS of that batch's responses");

  /// Declares the policy's parameters in an estimator's schema: `stall_fit`, `stall_ratio` and
  /// `stall_margin` always, the early-stopping ones when asked. The registry reads them
  /// (`configure_policy`) once the factory has built the estimator: factories never do.
  static void declare_policy(Schema& schema, PolicyParts parts = {});
  /// Reads what `declare_policy` declared in `declared` (a parameter it did not declare keeps its
  /// default) and builds the `init` start from `registry`.
  void configure_policy(const Params& params, const Registry& registry, const Schema& declared);

  /// The validation loss after the start (index 0) and after each iteration; empty without early stopping.
  const std::vector<double>& validation_losses() const { return early_.losses; }
  /// The iteration whose estimate early stopping kept (0: the start), or -1 without early stopping.
  int kept_iteration() const { return early_.best_iteration; }

  IterativeEstimator(int max_iterations, double tolerance)
      : max_iterations_(max_iterations), tolerance_(tolerance) {}
  ~IterativeEstimator() override;

  bool step(DataSource& data) final;
  Summary summary() const override { return summary_; }
  /// Ends the run through `finish` (its verdicts and best iterate apply), unless it has ended.
  void stop(Status status, std::string message) override;

 protected:
  /// One iteration. Returns the relative change of the estimate (for the stopping rule), or a
  /// negative number when there is none to report.
  virtual double iterate(DataSource& data) = 0;
  /// Ends the run with a terminal status. `converged` and `max_iterations` become `stalled` when
  /// the fit is above the stall threshold.
  void finish(Status status, std::string message);
  bool finished() const { return summary_.status != Status::running; }
  int iteration() const { return summary_.iterations; }

  /// The divergence rule: the residual of the current estimate, measured `where` (for example "on
  /// the training set after iteration 4"), has diverged when its RMS is non-finite or above
  /// `divergence_factor` × `reference_rms` (the RMS of the responses it is compared with, named by
  /// `reference`). Then the run ends `diverged` with the shared message, `restore` (called only
  /// then) putting back the estimate to return and saying which it is, and this returns true.
  bool end_if_diverged(double residual_rms, double reference_rms, double divergence_factor, const std::string& where,
                       const std::string& reference, const std::function<std::string()>& restore);
  /// The same rule on iteration `iteration`'s fresh batch, against that batch's response RMS.
  bool end_if_diverged(double residual_rms, double response_rms, double divergence_factor, int iteration,
                       const std::function<std::string()>& restore) {
    return end_if_diverged(residual_rms, response_rms, divergence_factor,
                           "on the fresh batch of iteration " + std::to_string(iteration), "the batch's response RMS",
                           restore);
  }

  /// The non-finite rule: when `finite` is false, the update of the current iteration produced a NaN
  /// or an infinity in `what` (for example "factors"): the run ends `diverged` with the shared
  /// message, `restore` putting back the estimate to return (its text appended), then `hint`, and
  /// this returns true.
  bool end_if_not_finite(bool finite, const std::string& what, const std::function<std::string()>& restore,
                         const std::string& hint = "");

  /// Records the current fit (lower is better) and what it measures; no floor is measured for it
  /// (training fits: the truth's residual on the training data says nothing about overfitting).
  void record_fit(double fit, const std::string& measure) {
    summary_.fit = fit;
    if (summary_.fit_measure != measure) summary_.fit_measure = measure;
    floor_on_ = FloorData::none;
  }
  /// Records a fit measured on `batch`, fresh data, and keeps the batch (moved in: no copy) so
  /// that `finish` can measure the truth's fit on it when the source has a truth.
  void record_fresh_fit(double fit, const std::string& measure, Batch&& batch, const DataSource& data);
  /// Offline estimators (no fresh data): when the source the run steps on has a held-out test set,
  /// records the fit (`fit_of`) of `estimate` on it, `measure` naming it, and returns true; false
  /// (nothing recorded) without a test set. No floor is measured on it: a synthetic test set is
  /// noise-free unless asked otherwise, so its floor is 0 whatever the training noise.
  bool record_test_fit(const Estimate& estimate, const std::string& measure);
  /// The fit of `predicted` against `y` in the estimator's measure (`fit_on_link` on `fit_link()`):
  /// what the floor, the validation loss and the held-out fit are.
  double fit_of(const Vector& y, const Vector& predicted) const { return fit_on_link(fit_link(), y, predicted); }
  /// The link whose fit the estimator's recorded fits are in: identity (relative residuals) unless
  /// the estimator measures signs (the fixed-sample estimators on a sign link, the one-bit classifiers).
  virtual Link fit_link() const { return Link::identity; }
  /// Called by `finish` before the verdict on a converged or budget-spent run: estimators that do
  /// not measure their fit every iteration (offline ones) measure it here.
  virtual void measure_final_fit() {}
  /// The fit of a model that learnt nothing, the unit of stall_fit (rankone::no_skill_fit of the link).
  double no_skill_fit() const { return rankone::no_skill_fit(fit_link()); }
  /// Why the run may have stalled, specific to the estimator and the data ("" when it has no idea).
  virtual std::string stall_hint() const { return ""; }
  /// The copy of the state behind `estimate()` and `model()` (the factors, w, b), and putting it
  /// back: what early stopping and best-iterate keeping hold. Estimators that use either override both.
  virtual std::any snapshot() const { return {}; }
  virtual void restore(const std::any& /*state*/) {}

  /// Best-iterate keeping: takes a snapshot of the current estimate when `fit` (lower is better) is
  /// the lowest seen so far; `after` is the number of iterations behind that estimate (0: the start).
  void keep_if_best(double fit, int after);
  /// Puts the kept estimate back (its fit becomes the summary's) and returns what a message says of
  /// it: "; the estimate returned is the best seen on <seen_on> (after <unit> t, <fit_name> r)";
  /// without one, `otherwise` (the estimate is left as it is).
  std::string restore_best(const std::string& otherwise);
  /// The start of the declared `init` (interfaces/initializer.hpp) on `data`, its note among the
  /// summary's notes; a logic error when the estimator declared none.
  Start initial_model(const DataSource& data, const StartRequest& request, Rng& rng);
  /// Whether the declared start reads data (its Registration::reads_data).
  bool start_reads_data() const { return init_ && init_reads_data_; }
  /// What the best-iterate message names: the data the fits were measured on, and an iteration.
  void describe_best_iterate(std::string seen_on, std::string unit) {
    best_.seen_on = std::move(seen_on);
    best_.unit = std::move(unit);
  }

  int max_iterations_;
  double tolerance_;
  double stall_fit_ = kDefaultStallFit;
  double stall_ratio_ = kDefaultStallRatio;
  double stall_margin_ = kDefaultStallMargin;
  Summary summary_;

 private:
  /// The truth's fit on the data the last fit was measured on (NaN without a truth).
  double measure_floor() const;
  /// Early stopping: scores the current estimate on the validation part, keeps it when best, and
  /// ends the run (converged) after `patience` iterations without improvement. False when it ended.
  bool track_validation(const DataSource& data);
  struct EarlyStopping {
    bool on = false;
    int patience = 5;
    double min_delta = 0.0;
    std::string path;  ///< JSON path of early_stopping, for the refusal without a validation part
    std::vector<double> losses;
    double best = 0.0;
    int best_iteration = -1;
    std::any best_state;
  };
  EarlyStopping early_;
  struct BestIterate {
    double fit = std::numeric_limits<double>::infinity();
    int after = 0;
    std::any state;
    std::string seen_on = "fresh data";
    std::string unit = "iteration";
  };
  BestIterate best_;
  std::shared_ptr<const Initializer> init_;  ///< the declared start, or null
  bool init_reads_data_ = true;
  /// A budget-stopped run whose fresh-data fit still falls fast (kConvergingFactor over kConvergingWindow).
  bool still_converging(Status status) const;
  enum class FloorData { none, fresh_batch };
  FloorData floor_on_ = FloorData::none;
  Batch floor_batch_;
  std::vector<double> fresh_fits_;  ///< every fit recorded by record_fresh_fit, in order
  const DataSource* floor_source_ = nullptr;
  const DataSource* stepped_source_ = nullptr;  ///< the source `step` was last called with
};

/// Formats a number in messages: `digits` significant digits (1e-09, 0.0123, 1.5e+03), the one
/// number format of every estimator's messages.
std::string short_number(double value, int digits = 3);

}  // namespace rankone
