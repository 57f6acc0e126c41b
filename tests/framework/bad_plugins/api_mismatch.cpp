// A plugin built against a different (future) plugin API version.
#include "rankone/plugin/plugin_api.hpp"

namespace {
int future_api_version() { return 999; }
const char* fingerprint() { return RANKONE_BUILD_FINGERPRINT; }
rankone::PluginDescriptor describe() { return {}; }
}  // namespace
BOOST_DLL_ALIAS(future_api_version, rankone_plugin_api_version)
BOOST_DLL_ALIAS(fingerprint, rankone_plugin_fingerprint)
BOOST_DLL_ALIAS(describe, rankone_plugin)
