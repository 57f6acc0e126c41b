// Tests of the @kind@ '@name@': the conformance checks every plugin passes (the same ones
// `rankone test-plugin` runs), then what this plugin promises.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>

#include <rankone/conformance/conformance.hpp>
#include <rankone/rankone.hpp>

namespace {

/// The built-in plugins (the example data names them) and this library.
const rankone::Registry& registry() {
  static const rankone::Registry loaded = [] {
    rankone::Registry r;
    r.load_folder(RANKONE_PLUGIN_DIR);
    r.load_library(PLUGIN_LIBRARY);
    return r;
  }();
  return loaded;
}

}  // namespace

TEST_CASE("@name@ passes the conformance checks") {
  const rankone::ConformanceReport report = rankone::check_plugin(registry(), registry().get("@name@"));
  INFO(report);
  CHECK(report.passed());
}
