// Entry point of the metrics library.
#include "metrics.hpp"
#include "rankone/plugin/plugin_api.hpp"

namespace rankone::metrics {

PluginDescriptor describe_metrics() {
  PluginDescriptor d;
  for (auto group : {error_metric_registrations(), prediction_metric_registrations(), budget_metric_registrations()})
    for (Registration& r : group) d.registrations.push_back(std::move(r));
  return d;
}

}  // namespace rankone::metrics

RANKONE_PLUGIN(rankone::metrics::describe_metrics)
