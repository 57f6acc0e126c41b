#pragma once
/// \file Metric: named numbers from an estimate, the truth and/or held-out data.
#include <string>
#include <utility>
#include <vector>

#include "rankone/core/model.hpp"
#include "rankone/interfaces/component.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

/// Everything a metric may look at. `truth` and `test` are null when the source has none.
struct MetricContext {
  const Estimate& estimate;
  const GroundTruth* truth;
  const Batch* test;
  const SensingOperator& op;
  Link link;
  Index samples;   ///< measurements consumed so far
  double seconds;  ///< estimator time so far (the clock pauses while metrics run)
  int iteration;
};

/// A metric may report several values (e.g. AUC and the number of labels it skipped).
using MetricValues = std::vector<std::pair<std::string, double>>;

class Metric : public Component {
 public:
  ~Metric() override;

  virtual bool needs_truth() const { return false; }
  virtual bool needs_test_set() const { return false; }
  virtual MetricValues evaluate(const MetricContext& ctx) const = 0;
};

}  // namespace rankone
