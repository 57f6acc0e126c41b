// Out-of-line destructors (the key functions that anchor typeinfo in the core library) and the
// small shared pieces of the interfaces.
#include <algorithm>
#include <cmath>

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

void IterativeEstimator::finish(Status status, std::string message) {
  summary_.status = status;
  summary_.message = std::move(message);
}

}  // namespace rankone
