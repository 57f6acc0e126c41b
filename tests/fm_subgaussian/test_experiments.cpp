// Smoke runs of experiments/fm_subgaussian/*.json through the rankone CLI, shrunk by overrides so
// the whole file takes a few seconds. They check that the files stay valid and run end to end; the
// full-size results are in docs/fm_subgaussian_*.md.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

std::string experiment(const std::string& name) {
  return (test::source_dir() / "experiments" / "fm_subgaussian" / name).string();
}

}  // namespace

TEST_CASE("figure1.json runs (shrunk)", "[fm_subgaussian][experiments]") {
  test::ScratchDir out("figure1");
  const test::CommandOutput o = test::rankone_cli("run " + experiment("figure1.json") +
                               " repetitions=1 data.d=20 data.size=1200 data.test_size=500"
                               " estimators.0.batch_size=1200 estimators.0.passes=3 estimators.0.max_iterations=3"
                               " estimators.1.max_iterations=3 estimators.2.max_iterations=3 --out " + out.path().string() + " --jobs 1");
  INFO(o.text);
  CHECK(o.code == 0);
  CHECK_THAT(o.text, Catch::Contains("trials: 9 (9 run now"));
}

TEST_CASE("mip.json runs (shrunk); Rademacher cells fail on tau", "[fm_subgaussian][experiments]") {
  test::ScratchDir out("mip");
  const test::CommandOutput o = test::rankone_cli("run " + experiment("mip.json") +
                               " repetitions=1 data.d=20 estimators.0.batch_size=2000 estimators.1.batch_size=2000"
                               " estimators.2.batch_size=2000 estimators.0.max_iterations=2 estimators.1.max_iterations=2"
                               " estimators.2.max_iterations=2 --out " +
                               out.path().string() + " --jobs 1");
  INFO(o.text);
  CHECK(o.code == 1);  // a study with failed trials: the moment-elimination cells on Rademacher data
  CHECK_THAT(o.text, Catch::Contains("trials: 24 (24 run now"));
  CHECK_THAT(o.text, Catch::Contains("tau-MIP constant tau"));
}

TEST_CASE("sample_complexity*.json run (shrunk)", "[fm_subgaussian][experiments]") {
  for (const char* file : {"sample_complexity.json", "sample_complexity_ifm.json"}) {
    test::ScratchDir out("sample_complexity");
    const test::CommandOutput o = test::rankone_cli("run " + experiment(file) +
                                 " repetitions=1 data.d=15 estimators.0.max_iterations=2 record_every=1 --out " +
                                 out.path().string() + " --jobs 1");
    INFO(file << "\n" << o.text);
    CHECK(o.code == 0);
    CHECK_THAT(o.text, Catch::Contains("trials: 21 (21 run now"));
  }
}

TEST_CASE("standardisation*.json run (shrunk): the checked entries refuse what the unchecked ones run on",
          "[fm_subgaussian][experiments]") {
  struct Case {
    const char* file;
    const char* grid;
    const char* refusal;
  };
  // std 0.5: E x_j² = 0.25; mean 0.3 at d = 10: E x_j² = 1.09 is in the band but |E x|² = 0.9 is not.
  for (const Case c : {Case{"standardisation.json", R"({"data.sampler.std": [0.5, 1.0]})", "the mean of x_j^2"},
                       Case{"standardisation_mean.json", R"({"data.sampler.mean": [0.0, 0.3]})", "|E x|^2 estimated"}}) {
    test::ScratchDir out("standardisation");
    std::string shrink = " repetitions=1 data.d=10";
    for (int e = 0; e < 4; ++e)
      shrink += " estimators." + std::to_string(e) + ".batch_size=1000 estimators." + std::to_string(e) + ".max_iterations=2";
    const test::CommandOutput o = test::rankone_cli("run " + experiment(c.file) + shrink + " 'sweep.grid=" + c.grid +
                                                    "' --out " + out.path().string() + " --jobs 1");
    INFO(c.file << "\n" << o.text);
    CHECK(o.code == 1);  // the checked entries fail on the far-off cell by design
    CHECK_THAT(o.text, Catch::Contains("trials: 8 (8 run now") && Catch::Contains(c.refusal));
  }
}
