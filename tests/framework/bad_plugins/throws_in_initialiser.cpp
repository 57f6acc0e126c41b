// A plugin library whose static initialiser throws while the loader opens it.
#include <stdexcept>

#include "rankone/plugin/plugin_api.hpp"

namespace {
struct Throws {
  Throws() { throw std::runtime_error("initialiser of a hostile plugin"); }
};
const Throws on_load;

rankone::PluginDescriptor describe() { return {}; }
}  // namespace
RANKONE_PLUGIN(describe)
