// The budget spent so far: measurements consumed and estimator seconds (the runner's clock pauses
// while metrics run, so these are the estimator's own costs).
#include <memory>

#include "metrics.hpp"

namespace rankone::metrics {

namespace {

class Samples final : public Metric {
 public:
  MetricValues evaluate(const MetricContext& ctx) const override {
    return {{"samples", static_cast<double>(ctx.samples)}};
  }
};

class Seconds final : public Metric {
 public:
  MetricValues evaluate(const MetricContext& ctx) const override { return {{"seconds", ctx.seconds}}; }
};

template <class M>
Registration budget_registration(std::string name, std::string summary) {
  Registration r;
  r.kind = Kind::metric;
  r.name = std::move(name);
  r.summary = std::move(summary);
  r.doc_page = "docs/plugins/metrics.md";
  r.factory = [](const Params&, const BuildContext&) { return std::make_unique<M>(); };
  return r;
}

}  // namespace

std::vector<Registration> budget_metric_registrations() {
  std::vector<Registration> out;
  out.push_back(budget_registration<Samples>("samples", "measurements consumed by the estimator so far"));
  out.push_back(budget_registration<Seconds>("seconds", "estimator wall time so far (metric time excluded)"));
  return out;
}

}  // namespace rankone::metrics
