// A plugin library whose describe function (the entry point) throws.
#include <stdexcept>

#include "rankone/plugin/plugin_api.hpp"

namespace {
rankone::PluginDescriptor describe() { throw std::runtime_error("describe of a hostile plugin"); }
}  // namespace
RANKONE_PLUGIN(describe)
