// Entry point of the sources library: the registrations of every data source in this folder.
#include "rankone/plugin/plugin_api.hpp"
#include "synthetic.hpp"

namespace rankone::sources {

PluginDescriptor describe_sources() {
  PluginDescriptor d;
  d.registrations.push_back(synthetic_registration());
  return d;
}

}  // namespace rankone::sources

RANKONE_PLUGIN(rankone::sources::describe_sources)
