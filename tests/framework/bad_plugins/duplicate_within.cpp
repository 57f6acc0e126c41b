// A plugin library that registers the same (otherwise unused) name twice.
#include "rankone/plugin/plugin_api.hpp"

namespace {
rankone::PluginDescriptor describe() {
  rankone::PluginDescriptor d;
  for (int copy = 0; copy < 2; ++copy) {
    rankone::Registration r;
    r.kind = rankone::Kind::sampler;
    r.name = "twice_registered";
    r.summary = "registered twice by one library";
    r.factory = [](const rankone::Params&, const rankone::BuildContext&) -> std::unique_ptr<rankone::Component> {
      return nullptr;
    };
    d.registrations.push_back(std::move(r));
  }
  return d;
}
}  // namespace
RANKONE_PLUGIN(describe)
