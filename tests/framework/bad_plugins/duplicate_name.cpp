// A well-formed plugin whose sampler name collides with the built-in "gaussian".
#include "rankone/plugin/plugin_api.hpp"

namespace {
rankone::PluginDescriptor describe() {
  rankone::PluginDescriptor d;
  rankone::Registration r;
  r.kind = rankone::Kind::sampler;
  r.name = "gaussian";
  r.summary = "a second gaussian (collides)";
  r.factory = [](const rankone::Params&, const rankone::BuildContext&) -> std::unique_ptr<rankone::Component> {
    return nullptr;
  };
  d.registrations.push_back(std::move(r));
  return d;
}
}  // namespace
RANKONE_PLUGIN(describe)
