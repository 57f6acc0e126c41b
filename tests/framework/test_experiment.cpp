// Experiment composition (extends, overrides), validation errors and the trial plan.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>

#include "rankone/experiment/experiment.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

const char* kBase = R"({
  "name": "base",
  "seed": 7,
  "repetitions": 2,
  "data": {"name": "synthetic", "d": 20, "rank": 2},
  "estimators": [{"name": "spectral", "rank": 2, "batch_size": 500}],
  "metrics": ["combined_error"]
})";

std::string config_error(const fs::path& file, const std::vector<std::string>& overrides = {}) {
  try {
    const auto exp = compose_experiment(file, overrides);
    plan_experiment(exp, test::registry());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("extends deep-merges and the extending file wins", "[experiment]") {
  test::ScratchDir s("extends");
  s.write("base.json", kBase);
  const auto file = s.write("child.json", R"({
    // comments are allowed
    "extends": "base.json",
    "name": "child",
    "data": {"d": 30}
  })");
  const auto exp = compose_experiment(file, {});
  CHECK(exp.document["name"] == "child");
  CHECK(exp.document["data"]["d"] == 30);
  CHECK(exp.document["data"]["rank"] == 2);  // kept from base
  CHECK(exp.document["seed"] == 7);
  CHECK_FALSE(exp.document.contains("extends"));
  CHECK(exp.origin_of("/data/d") == file.string());
  CHECK(exp.origin_of("/data/rank") == (s.path() / "base.json").string());
}

TEST_CASE("command-line overrides set values by dotted path, arrays by index", "[experiment]") {
  test::ScratchDir s("overrides");
  const auto file = s.write("e.json", kBase);
  const auto exp = compose_experiment(file, {"data.d=40", "estimators.0.batch_size=800", "name=renamed", "data.sampler.std=2"});
  CHECK(exp.document["data"]["d"] == 40);
  CHECK(exp.document["estimators"][0]["batch_size"] == 800);
  CHECK(exp.document["name"] == "renamed");
  CHECK(exp.document["data"]["sampler"]["std"] == 2);
  CHECK(exp.origin_of("/data/d") == "command line override 'data.d=40'");
  CHECK_THROWS_WITH(compose_experiment(file, {"estimators.3.rank=2"}),
                    Catch::Contains("command line override 'estimators.3.rank=2': at /estimators/3: expected an index below 1"));
  CHECK_THROWS_WITH(compose_experiment(file, {"data.d"}), Catch::Contains("expected key.path=value"));
}

TEST_CASE("validation errors name the file that set the value", "[experiment]") {
  test::ScratchDir s("errors");
  s.write("base.json", kBase);
  const auto child = s.write("child.json", R"({"extends": "base.json", "data": {"rank": "two"}})");
  CHECK(config_error(child) == child.string() + ": at /data/rank: expected an integer ≥ 1, found \"two\"");
  // A value from the base file is blamed on the base file.
  const auto bad_base = s.write("bad_base.json", R"({"extends": "base.json", "estimators": [{"name": "spectral", "rnak": 2}]})");
  CHECK_THAT(config_error(bad_base), Catch::Contains(bad_base.string() + ": at /estimators/0/rnak: unknown parameter 'rnak'"));
  // Overrides are blamed on the command line.
  CHECK(config_error(s.path() / "base.json", {"data.d=-3"}) ==
        "command line override 'data.d=-3': at /data/d: expected an integer ≥ 1, found -3");
  CHECK_THAT(config_error(s.write("top.json", R"({"extends": "base.json", "colour": 1})")),
             Catch::Contains("at /colour: unknown key 'colour'"));
  CHECK_THAT(config_error(s.write("noest.json", R"({"data": {"name": "synthetic", "d": 5}, "metrics": ["samples"]})")),
             Catch::Contains("at /estimators: missing required key"));
  CHECK_THAT(config_error(s.write("dup.json", R"({"extends": "base.json", "estimators": [{"name": "spectral"}, {"name": "spectral"}]})")),
             Catch::Contains("two estimators are labelled 'spectral'"));
}

TEST_CASE("JSON syntax errors name the file, line and column", "[experiment]") {
  test::ScratchDir s("syntax");
  const auto file = s.write("broken.json", "{\n  \"name\": \"x\",\n  \"seed\": 1,,\n}\n");
  CHECK_THAT(config_error(file), Catch::StartsWith(file.string() + ":3:"));
  CHECK_THAT(config_error(s.path() / "missing.json"), Catch::Contains("experiment file not found"));
  const auto cyc = s.write("a.json", R"({"extends": "a.json"})");
  CHECK_THAT(config_error(cyc), Catch::Contains("circular 'extends'"));
}

TEST_CASE("a sweep is the product of grid axes and zipped groups", "[experiment][sweep]") {
  test::ScratchDir s("sweep");
  s.write("base.json", kBase);
  const auto file = s.write("sweep.json", R"({
    "extends": "base.json",
    "estimators": [{"name": "spectral", "label": "small"}, {"name": "spectral", "label": "big", "batch_size": 900}],
    "sweep": {"grid": {"data.d": [20, 30, 40]},
              "zip": [{"data.rank": [1, 2], "estimators.0.rank": [1, 2]}]}
  })");
  const Plan plan = plan_experiment(compose_experiment(file, {}), test::registry());
  REQUIRE(plan.cells.size() == 6);
  CHECK(plan.trials.size() == 6 * 2 * 2);
  CHECK(plan.cells[0] == Json{{"data.d", 20}, {"data.rank", 1}, {"estimators.0.rank", 1}});
  CHECK(plan.cells[1] == Json{{"data.d", 20}, {"data.rank", 2}, {"estimators.0.rank", 2}});
  CHECK(plan.cells[5] == Json{{"data.d", 40}, {"data.rank", 2}, {"estimators.0.rank", 2}});
  // Each trial carries the resolved configuration of its cell.
  const auto& t = plan.trials.back();
  CHECK(t.data["d"] == 40);
  CHECK(t.data["rank"] == 2);
  // Zipped axes must move together.
  const auto bad = s.write("badzip.json", R"({"extends": "base.json",
      "sweep": {"zip": [{"data.rank": [1, 2], "estimators.0.rank": [1]}]}})");
  CHECK_THAT(config_error(bad), Catch::Contains("at /sweep/zip/0/estimators.0.rank: expected an array of 2 values"));
  // A sweep value that fails validation is blamed on the sweep.
  const auto badval = s.write("badval.json", R"({"extends": "base.json", "sweep": {"grid": {"data.d": [10, -1]}}})");
  CHECK_THAT(config_error(badval), Catch::Contains("(sweep axis 'data.d'): at /data/d: expected an integer ≥ 1, found -1"));
}

TEST_CASE("seeds derive from the experiment seed and the trial's coordinates", "[experiment][seeds]") {
  test::ScratchDir s("seeds");
  s.write("base.json", kBase);
  const auto file = s.write("sweep.json", R"({"extends": "base.json",
      "estimators": [{"name": "spectral", "label": "a"}, {"name": "spectral", "label": "b"}],
      "sweep": {"grid": {"data.d": [20, 30], "estimators.0.batch_size": [100, 200]}}})");
  const Plan plan = plan_experiment(compose_experiment(file, {}), test::registry());
  std::set<std::string> keys;
  std::set<std::uint64_t> estimator_seeds;
  for (const auto& t : plan.trials) {
    keys.insert(t.key);
    estimator_seeds.insert(t.estimator_seed);
  }
  CHECK(keys.size() == plan.trials.size());
  // Paired comparisons: every estimator of a (data cell, repetition) sees the same data stream,
  // also across cells that differ only in estimator settings.
  for (const auto& t1 : plan.trials)
    for (const auto& t2 : plan.trials) {
      const bool same_data = t1.coordinates["data.d"] == t2.coordinates["data.d"] && t1.repetition == t2.repetition;
      CHECK((t1.data_seed == t2.data_seed) == same_data);
    }
  // Seeds do not depend on the order of the trials nor on anything but coordinates and the seed.
  const Plan again = plan_experiment(compose_experiment(file, {}), test::registry());
  for (std::size_t i = 0; i < plan.trials.size(); ++i) CHECK(again.trials[i].key == plan.trials[i].key);
  const Plan reseeded = plan_experiment(compose_experiment(file, {"seed=8"}), test::registry());
  CHECK(reseeded.trials[0].data_seed != plan.trials[0].data_seed);
}

TEST_CASE("plugin_paths are relative to the file that lists them; a load error names it and the JSON path",
          "[experiment][plugins]") {
  test::ScratchDir s("plugin_paths");
  fs::create_directories(s.path() / "sub");
  const auto base = s.write("sub/base.json", R"({"plugin_paths": ["libmissing.so"]})");
  const auto top = s.write("top.json", R"({"extends": "sub/base.json"})");
  const auto exp = compose_experiment(top, {});
  const fs::path missing = s.path() / "sub" / "libmissing.so";
  CHECK(experiment_plugin_paths(exp) == std::vector<fs::path>{missing});
  Registry r;
  CHECK_THROWS_WITH(load_experiment_plugins(r, exp),
                    base.string() + ": at /plugin_paths/0: plugin library not found: " + missing.string());
  CHECK_THROWS_WITH(experiment_plugin_paths(compose_experiment(top, {"plugin_paths=3"})),
                    "command line override 'plugin_paths=3': at /plugin_paths: expected an array of paths, found 3");
}
