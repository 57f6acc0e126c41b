// Smoke runs of experiments/one_bit/*.json through the rankone command, at a tiny size: the files
// validate, every trial ends without failure, and the metrics the docs plot are recorded. The
// real-data experiments run only where scripts/fetch-datasets has put their data (not in CI).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace fs = std::filesystem;
using rankone::test::rankone_cli;

namespace {

void smoke(const std::string& file, const std::string& overrides, const std::string& expected_metric) {
  const rankone::test::ScratchDir out("one_bit_smoke_" + fs::path(file).stem().string());
  const std::string experiment = (rankone::test::source_dir() / "experiments" / "one_bit" / file).string();
  const auto run = rankone_cli("run " + experiment + " " + overrides + " --out " + out.path().string() + " --jobs 1");
  INFO(run.text);
  REQUIRE(run.code == 0);
  const auto csv = rankone_cli("export " + out.path().string() + " --format csv", /*stdout_only=*/true);
  REQUIRE(csv.code == 0);
  CHECK(csv.text.find("," + expected_metric + ",") != std::string::npos);
  CHECK(csv.text.find("failed") == std::string::npos);
}

/// True when `relative` is where the file sources look for fetched data sets ($RANKONE_DATA, then
/// ~/.cache/rankone/datasets); otherwise says which test is skipped and how to enable it.
bool have_data(const std::string& relative) {
  std::vector<fs::path> roots;
  if (const char* d = std::getenv("RANKONE_DATA")) roots.emplace_back(d);
  if (const char* home = std::getenv("HOME")) roots.push_back(fs::path(home) / ".cache" / "rankone" / "datasets");
  for (const fs::path& root : roots)
    if (fs::exists(root / relative)) return true;
  WARN("skipped: " << relative << " is not fetched (scripts/fetch-datasets fetches it)");
  return false;
}

}  // namespace

TEST_CASE("experiments/one_bit/table1.json runs at a tiny size", "[experiments]") {
  smoke("table1.json",
        "'sweep={}' data.d=40 data.d2=10 data.test_size=200 estimators.0.batch_size=3000 estimators.0.max_iterations=3 "
        "estimators.1.training_size=3000 estimators.1.max_iterations=3 estimators.2.batch_size=3000 "
        "estimators.2.max_iterations=3",
        "recovery_error");
}

TEST_CASE("experiments/one_bit/table1_step_validation.json runs at a tiny size", "[experiments]") {
  std::string small = "'sweep={}' data.d=40 data.d2=10 data.test_size=200";
  for (int e = 0; e < 5; ++e)
    small += " estimators." + std::to_string(e) + ".batch_size=2000 estimators." + std::to_string(e) + ".max_iterations=2";
  smoke("table1_step_validation.json", small, "auc");
}

TEST_CASE("experiments/one_bit/table2.json runs at a tiny size", "[experiments]") {
  smoke("table2.json",
        "'sweep={}' repetitions=1 data.d=40 data.d2=10 data.size=300 data.test_size=200 estimators.0.batch_size=100 "
        "estimators.0.max_iterations=3",
        "precision_at_k");
}

TEST_CASE("experiments/one_bit/yeast*.json run at a tiny size when the yeast data is present", "[experiments][data]") {
  if (!have_data("yeast/yeast.csv")) return;
  smoke("yeast.json", "repetitions=1 estimators.0.max_iterations=2 estimators.1.max_iterations=2 "
        "estimators.2.max_iterations=2 estimators.3.max_iterations=2 estimators.4.max_iterations=2",
        "precision_at_k");
  smoke("yeast_full.json", "repetitions=1 estimators.0.max_iterations=2 estimators.1.max_iterations=2 "
        "estimators.2.max_iterations=2 estimators.3.max_iterations=2 estimators.5.max_iterations=5 "
        "estimators.6.max_iterations=5",
        "auc");
}

TEST_CASE("experiments/one_bit/fashion_mnist*.json run at a tiny size when Fashion-MNIST is present",
          "[experiments][data]") {
  if (!have_data("fashion-mnist/train-images-idx3-ubyte.gz")) return;
  // One estimator of each kind, a few hundred images: the files, the idx source and the views fit together.
  smoke("fashion_mnist.json",
        "repetitions=1 data.test_cap=300 'estimators=[{\"name\":\"one_bit_mll\",\"rank\":3,\"batch_size\":500,"
        "\"max_iterations\":2,\"lambda\":20},{\"name\":\"leml\",\"rank\":3,\"training_size\":500,\"max_iterations\":2},"
        "{\"name\":\"ova_svm\",\"training_size\":500,\"newton_steps\":2}]'",
        "precision_at_k");
  smoke("fashion_mnist_full.json",
        "repetitions=1 data.test_cap=300 estimators.0.training_size=300 estimators.1.training_size=300 "
        "estimators.2.training_size=300 estimators.2.max_iterations=2",
        "auc");
}
