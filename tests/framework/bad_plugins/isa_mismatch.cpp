// A well-formed plugin compiled for another instruction set than the core (tests/framework/CMakeLists.txt
// gives this file its own -march): Eigen's vector width and arithmetic differ, so it must not load.
#include "rankone/plugin/plugin_api.hpp"

namespace {
rankone::PluginDescriptor describe() { return {}; }
}  // namespace

RANKONE_PLUGIN(describe)
