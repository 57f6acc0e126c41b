#pragma once
/// \file Estimator: start / step / estimate / summary (the Ceres Options → Summary pattern).
/// Non-convergence is a status, never an exception; exceptions are for bugs and bad input.
#include <limits>
#include <string>
#include <vector>

#include "rankone/core/model.hpp"
#include "rankone/core/params.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// `stalled`: the run ended (budget spent or no more change) far from a fit of the data, a
/// non-success verdict with a hint in the message. `failed` also covers a trial whose process died.
enum class Status { running, converged, max_iterations, stalled, diverged, failed };
std::string to_string(Status s);
Status status_from_string(const std::string& s);

struct Summary {
  Status status = Status::running;
  std::string message;  ///< why it stopped, in a sentence
  int iterations = 0;   ///< completed steps
  /// How well the final model fits data it had not yet used (NaN when the estimator has none);
  /// for the sensing estimators the relative residual ||y - y_hat|| / ||y|| on the last fresh batch.
  double fit = std::numeric_limits<double>::quiet_NaN();
  std::string fit_measure;          ///< what `fit` is, e.g. "relative residual on the last fresh batch"
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
};

/// Common bookkeeping for iterative estimators: an iteration budget, a relative-change stopping
/// rule, the fit measure and the stall verdict, and the summary. Subclasses implement `start` and
/// `iterate`, record their fit with `record_fit`, and call `finish` to stop early.
///
/// The stall verdict: a run that ends `converged` or `max_iterations` with a fit above
/// `stall_fit` × `no_skill_fit()` (the fit of a model that learnt nothing: relative residual 1 for
/// ŷ = 0, sign error 0.5 for a coin) ends `stalled` instead, its message naming the fit, the
/// threshold and the estimator's `stall_hint()`.
class IterativeEstimator : public Estimator {
 public:
  /// The default of the `stall_fit` parameter every iterative estimator declares.
  static constexpr double kDefaultStallFit = 1.0;
  /// Declares `stall_fit` (default kDefaultStallFit) in an estimator's schema.
  static void declare_stall_fit(Schema& schema);

  IterativeEstimator(int max_iterations, double tolerance)
      : max_iterations_(max_iterations), tolerance_(tolerance) {}
  ~IterativeEstimator() override;

  bool step(DataSource& data) final;
  Summary summary() const override { return summary_; }
  /// The stall threshold, in units of the no-skill fit (the `stall_fit` parameter).
  void set_stall_fit(double stall_fit) { stall_fit_ = stall_fit; }
  double stall_fit() const { return stall_fit_; }

 protected:
  /// One iteration. Returns the relative change of the estimate (for the stopping rule), or a
  /// negative number when there is none to report.
  virtual double iterate(DataSource& data) = 0;
  /// Ends the run with a terminal status. `converged` and `max_iterations` become `stalled` when
  /// the fit is above the stall threshold.
  void finish(Status status, std::string message);
  bool finished() const { return summary_.status != Status::running; }
  int iteration() const { return summary_.iterations; }

  /// Records the current fit (lower is better) and what it measures.
  void record_fit(double fit, const std::string& measure) {
    summary_.fit = fit;
    if (summary_.fit_measure != measure) summary_.fit_measure = measure;
  }
  /// Called by `finish` before the verdict on a converged or budget-spent run: estimators that do
  /// not measure their fit every iteration (offline ones) measure it here.
  virtual void measure_final_fit() {}
  /// The fit of a model that learnt nothing, the unit of stall_fit: 1 for a relative residual.
  virtual double no_skill_fit() const { return 1.0; }
  /// Why the run may have stalled, specific to the estimator and the data ("" when it has no idea).
  virtual std::string stall_hint() const { return ""; }

  int max_iterations_;
  double tolerance_;
  double stall_fit_ = kDefaultStallFit;
  Summary summary_;
};

/// Formats a number in messages with 3 significant digits.
std::string short_number(double value);

}  // namespace rankone
