#pragma once
/// \file Estimator: start / step / estimate / summary (the Ceres Options → Summary pattern).
/// Non-convergence is a status, never an exception; exceptions are for bugs and bad input.
#include <limits>
#include <string>
#include <vector>

#include "rankone/core/model.hpp"
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
  virtual Summary summary() const = 0;
};

/// Common bookkeeping for iterative estimators: an iteration budget, a relative-change stopping
/// rule and the summary. Subclasses implement `start` and `iterate`, and call `finish` to stop early.
class IterativeEstimator : public Estimator {
 public:
  IterativeEstimator(int max_iterations, double tolerance)
      : max_iterations_(max_iterations), tolerance_(tolerance) {}
  ~IterativeEstimator() override;

  bool step(DataSource& data) final;
  Summary summary() const override { return summary_; }

 protected:
  /// One iteration. Returns the relative change of the estimate (for the stopping rule), or a
  /// negative number when there is none to report.
  virtual double iterate(DataSource& data) = 0;
  /// Ends the run with a terminal status.
  void finish(Status status, std::string message);
  bool finished() const { return summary_.status != Status::running; }
  int iteration() const { return summary_.iterations; }

  int max_iterations_;
  double tolerance_;
  Summary summary_;
};

}  // namespace rankone
