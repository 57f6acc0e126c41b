// A plugin built with other libraries than the core (its fingerprint differs).
#include "rankone/plugin/plugin_api.hpp"

namespace {
int api_version() { return rankone::kPluginApiVersion; }
const char* other_fingerprint() { return "gcc-abi=0;eigen=2.0.0;built-elsewhere"; }
rankone::PluginDescriptor describe() { return {}; }
}  // namespace
BOOST_DLL_ALIAS(api_version, rankone_plugin_api_version)
BOOST_DLL_ALIAS(other_fingerprint, rankone_plugin_fingerprint)
BOOST_DLL_ALIAS(describe, rankone_plugin)
