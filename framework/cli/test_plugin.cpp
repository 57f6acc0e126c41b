// `rankone test-plugin LIB`: conformance checks (rankone/conformance) on the plugins of one library.
#include "test_plugin.hpp"

#include <algorithm>

#include "rankone/conformance/conformance.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::cli {

int test_plugin(const std::filesystem::path& library, std::ostream& out) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(library, ec))
    throw UsageError("test-plugin: " + library.string() + " is not a file (expected a plugin library, e.g. build/libmy_plugin.so)");
  const std::filesystem::path canonical = std::filesystem::canonical(library);
  Registry registry;
  registry.load_default();  // the built-in plugins its example data and operators may name
  const auto loaded = registry.libraries();
  if (std::find(loaded.begin(), loaded.end(), canonical) == loaded.end()) registry.load_library(canonical);

  std::size_t plugins = 0, checks = 0, failures = 0;
  for (const Registration* r : registry.all()) {
    if (r->library != canonical.string()) continue;
    ++plugins;
    const ConformanceReport report = check_plugin(registry, *r);
    checks += report.checks.size();
    failures += report.failures();
    out << report;
  }
  if (plugins == 0) throw PluginError("test-plugin: " + library.string() + " registers no plugins");
  out << library.string() << ": " << plugins << (plugins == 1 ? " plugin, " : " plugins, ") << checks << " checks, "
      << failures << " failed\n";
  return failures == 0 ? 0 : 1;
}

}  // namespace rankone::cli
