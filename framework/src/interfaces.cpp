// Out-of-line destructors (the key functions that anchor typeinfo in the core library) and the
// small shared pieces of the interfaces.
#include <algorithm>
#include <cmath>
#include <sstream>

#include "rankone/core/errors.hpp"
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
DataSource::~DataSource() = default;
Estimator::~Estimator() = default;
IterativeEstimator::~IterativeEstimator() = default;
Metric::~Metric() = default;

std::string to_string(Link link) { return link == Link::sign ? "sign" : "identity"; }

void DataSource::note(std::string text) {
  if (std::find(notes_.begin(), notes_.end(), text) == notes_.end()) notes_.push_back(std::move(text));
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
    case Status::stalled: return "stalled";
    case Status::diverged: return "diverged";
    case Status::failed: return "failed";
  }
  return "unknown";
}

Status status_from_string(const std::string& s) {
  for (Status st : {Status::running, Status::converged, Status::max_iterations, Status::stalled, Status::diverged,
                    Status::failed})
    if (to_string(st) == s) return st;
  throw InputError("unknown status '" + s + "'");
}

bool IterativeEstimator::step(DataSource& data) {
  if (finished()) return false;
  if (summary_.iterations >= max_iterations_) {
    finish(Status::max_iterations, "reached the iteration budget (" + std::to_string(max_iterations_) + ")");
    return false;
  }
  const double change = iterate(data);
  if (finished()) return false;  // iterate() ended the run (diverged, failed, data exhausted)
  ++summary_.iterations;
  if (change >= 0 && change < tolerance_) {
    finish(Status::converged, "relative change " + std::to_string(change) + " below tolerance " +
                                  std::to_string(tolerance_) + " after " + std::to_string(summary_.iterations) +
                                  " iterations");
    return false;
  }
  if (summary_.iterations >= max_iterations_) {
    finish(Status::max_iterations, "reached the iteration budget (" + std::to_string(max_iterations_) + ")");
    return false;
  }
  return true;
}

void IterativeEstimator::declare_stall_fit(Schema& schema) {
  schema
      .number("stall_fit", kDefaultStallFit,
              "a run that ends converged or at its budget with a fit (Summary::fit: relative residual on fresh data, "
              "or the estimator's own measure) above stall_fit × the fit of a model that learnt nothing (1 for a "
              "relative residual, 0.5 for a sign error rate) ends 'stalled', with a hint in its message")
      .above(0.0);
}

void IterativeEstimator::finish(Status status, std::string message) {
  if (status == Status::converged || status == Status::max_iterations) {
    measure_final_fit();
    const double threshold = stall_fit_ * no_skill_fit();
    if (std::isfinite(summary_.fit) && summary_.fit > threshold) {
      const std::string hint = stall_hint();
      message += "; stalled: " + summary_.fit_measure + " " + short_number(summary_.fit) + " is above stall_fit × " +
                 short_number(no_skill_fit()) + " = " + short_number(threshold) + " (no better than a model that "
                 "learnt nothing)" + (hint.empty() ? std::string() : ". Hint: " + hint);
      status = Status::stalled;
    }
  }
  if (status == Status::diverged) {  // a diverged run deserves the same hint as a stalled one
    const std::string hint = stall_hint();
    if (!hint.empty()) message += ". Hint: " + hint;
  }
  summary_.status = status;
  summary_.message = std::move(message);
}

std::string short_number(double value) {
  std::ostringstream os;
  os.precision(3);
  os << value;
  return os.str();
}

}  // namespace rankone
