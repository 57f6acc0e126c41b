// Smoke runs of experiments/one_bit/*.json through the rankone command, at a tiny size: the files
// validate, every trial ends without failure, and the metrics the docs plot are recorded.
#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <string>
#include <sys/wait.h>

#include "test_support.hpp"

namespace fs = std::filesystem;

namespace {

struct Output {
  int code;
  std::string text;
};

Output rankone(const std::string& args) {
  const std::string cmd = (rankone::test::binary_dir() / "bin" / "rankone").string() + " " + args + " 2>&1";
  std::string text;
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p);
  char buf[4096];
  while (std::size_t n = fread(buf, 1, sizeof buf, p)) text.append(buf, n);
  const int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, text};
}

void smoke(const std::string& file, const std::string& overrides, const std::string& expected_metric) {
  const fs::path out = fs::temp_directory_path() / ("rankone_one_bit_smoke_" + fs::path(file).stem().string());
  fs::remove_all(out);
  const std::string experiment = (rankone::test::source_dir() / "experiments" / "one_bit" / file).string();
  const Output run = rankone("run " + experiment + " " + overrides + " --out " + out.string() + " --jobs 1");
  INFO(run.text);
  REQUIRE(run.code == 0);
  const Output csv = rankone("export " + out.string() + " --format csv");
  REQUIRE(csv.code == 0);
  CHECK(csv.text.find("," + expected_metric + ",") != std::string::npos);
  CHECK(csv.text.find("failed") == std::string::npos);
  fs::remove_all(out);
}

}  // namespace

TEST_CASE("experiments/one_bit/table1.json runs at a tiny size", "[experiments]") {
  smoke("table1.json",
        "'sweep={}' data.d=40 data.d2=10 data.test_size=200 estimators.0.batch_size=3000 estimators.0.max_iterations=3 "
        "estimators.1.training_size=3000 estimators.1.max_iterations=3",
        "recovery_error");
}

TEST_CASE("experiments/one_bit/table2.json runs at a tiny size", "[experiments]") {
  smoke("table2.json",
        "repetitions=1 data.d=40 data.d2=10 data.size=300 data.test_size=200 estimators.0.batch_size=100 "
        "estimators.0.max_iterations=3",
        "precision_at_k");
}
