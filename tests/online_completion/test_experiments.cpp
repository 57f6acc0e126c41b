// Smoke runs of the experiment files in experiments/online_completion/ through the CLI, at a small
// size (the full runs are in docs/online-completion-experiments.md).
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

TEST_CASE("the online-completion experiments run at a small size", "[online_completion][cli]") {
  const fs::path experiments = test::source_dir() / "experiments" / "online_completion";
  const fs::path out = fs::temp_directory_path() / "rankone_omc_smoke";
  struct Smoke {
    const char* file;
    const char* overrides;
  };
  const Smoke smokes[] = {
      {"convergence.json",
       "data.d=200 repetitions=1 estimators.0.max_iterations=3 "
       "'sweep={\"grid\":{\"data.condition_number\":[1,2]}}'"},
      {"warm_start.json",
       "data.d=200 repetitions=1 estimators.0.batch_size=2000 estimators.0.max_iterations=3 "
       "'sweep={\"grid\":{\"estimators.0.init_batch_factor\":[2,4]}}'"},
      {"vs_offline.json",
       "data.d=200 data.size=20000 repetitions=1 estimators.0.max_iterations=2 estimators.1.max_iterations=2 "
       "estimators.2.max_iterations=2 estimators.3.max_iterations=2 estimators.4.max_iterations=2 "
       "estimators.5.max_iterations=2"},
  };
  for (const Smoke& s : smokes) {
    fs::remove_all(out);
    const test::CommandOutput o =
        test::rankone_cli("run " + (experiments / s.file).string() + " " + s.overrides + " --out " + out.string() + " --quiet");
    INFO(s.file << ":\n" << o.text);
    CHECK(o.code == 0);
  }
  fs::remove_all(out);
}

TEST_CASE("the synthetic online-completion experiment files validate", "[online_completion][cli]") {
  const fs::path experiments = test::source_dir() / "experiments" / "online_completion";
  for (const char* file : {"convergence.json", "warm_start.json", "vs_offline.json", "vs_offline_validation.json",
                           "fit.json"}) {
    const test::CommandOutput o = test::rankone_cli("validate " + (experiments / file).string());
    INFO(file << ":\n" << o.text);
    CHECK(o.code == 0);
  }
}
