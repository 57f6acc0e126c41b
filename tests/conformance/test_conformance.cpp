// Conformance over every registered plugin: the installed checks of rankone/conformance (the ones
// `rankone test-plugin` runs on an out-of-tree library), plus what the built-in plugins promise
// beyond them: a documentation page in the repository and a declared memory footprint.
#include <catch2/catch.hpp>

#include <map>

#include "rankone/conformance/conformance.hpp"
#include "test_support.hpp"

using namespace rankone;

TEST_CASE("every plugin conforms", "[conformance]") {
  const auto& registry = test::registry();
  REQUIRE(registry.all().size() >= 20);
  for (const Registration* r : registry.all()) {
    DYNAMIC_SECTION(to_string(r->kind) << " " << r->name) {
      INFO("plugin " << r->name << " from " << r->library);
      const ConformanceReport report = check_plugin(registry, *r);
      INFO(report);
      CHECK(report.passed());
      CHECK(report.checks.size() >= 4);
      CHECK(std::filesystem::exists(test::source_dir() / r->doc_page));
      if (r->kind == Kind::sampler || r->kind == Kind::data_source || r->kind == Kind::estimator)
        CHECK(static_cast<bool>(r->footprint));
    }
  }
}

TEST_CASE("the conformance checks catch each broken promise", "[conformance]") {
  Registry registry;
  registry.load_default({RANKONE_NONCONFORMING_PLUGINS});
  // plugin → the check it must fail (every other check of it passes)
  const std::map<std::string, std::vector<std::string>> expected_failures = {
      {"wrong_moments", {"declared moments match its draws"}},
      {"not_adjoint", {"adjoint identity <A(M), z> = <M, A'(z)> (dense designs)",
                       "matrix-free adjoint products equal the dense form (dense designs)"}},
      {"nan_estimator", {"runs start and step on its example data with finite estimates"}},
      {"irreproducible_estimator", {"the same seed gives the same estimate"}},
      {"unseeded_source", {"the same seed gives the same data"}},
      {"nan_metric", {"evaluates to finite values on its example data"}},
      {"unread_parameter", {"reads every declared parameter", "evaluates to finite values on its example data"}}};
  for (const auto& [name, failing] : expected_failures) {
    DYNAMIC_SECTION(name) {
      const ConformanceReport report = check_plugin(registry, registry.get(name));
      INFO(report);
      std::vector<std::string> failed;
      for (const auto& c : report.checks)
        if (!c.passed) failed.push_back(c.check);
      CHECK(failed == failing);
    }
  }
}
