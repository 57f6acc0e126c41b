// End to end: a study over a file source runs through the CLI; a malformed file exits 2 with the
// file, line and offending text, and no results are presented as complete.
#include <catch2/catch.hpp>

#include "file_support.hpp"

using namespace rankone;

namespace {

std::string experiment(const std::string& data_file) {
  return R"({"name": "file-smoke", "seed": 1, "repetitions": 2,
    "data": {"name": "libsvm", "file": ")" + data_file + R"(", "standardize": "scale", "test_fraction": 0.25},
    "estimators": [{"name": "spectral", "rank": 1, "batch_size": 100}],
    "metrics": ["test_rmse", "samples"]})";
}

}  // namespace

TEST_CASE("rankone run over a libsvm file completes; a malformed file exits 2", "[file_sources][cli]") {
  test::Scratch dir("cli");
  std::string good;
  for (int i = 0; i < 400; ++i)
    good += std::to_string((i % 7) * 0.5) + " 1:" + std::to_string(i % 7) + " 3:" + std::to_string(i % 3) + "\n";
  const std::string data = dir.write("good.svm", good);
  const std::string file = dir.write("good.json", experiment(data));
  const test::CommandOutput ok = test::rankone_cli("run " + file + " --out " + (dir.dir / "out").string() + " --jobs 1");
  INFO(ok.text);
  CHECK(ok.code == 0);
  CHECK_THAT(ok.text, Catch::Contains("2 run now"));

  const std::string bad = dir.write("bad.svm", good + "1 1:2 2:inf\n");
  const test::CommandOutput failed = test::rankone_cli("run " + dir.write("bad.json", experiment(bad)) + " --out " + (dir.dir / "bad").string());
  INFO(failed.text);
  CHECK(failed.code == 2);
  CHECK_THAT(failed.text, Catch::Contains("bad.svm:401") && Catch::Contains("'inf'"));
  CHECK_THAT(failed.text, !Catch::Contains("run now"));
}
