// Smoke runs of experiments/one_bit/*.json through the rankone command, at a tiny size: the files
// validate, every trial ends without failure, and the metrics the docs plot are recorded. The
// real-data experiments run only where scripts/fetch-datasets has put their data (not in CI).
#include <catch2/catch.hpp>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
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
        "estimators.1.batch_size=3000 estimators.1.max_iterations=3 estimators.2.training_size=1000 "
        "estimators.2.max_iterations=3 estimators.3.training_size=3000 estimators.3.max_iterations=3",
        "recovery_error");
}

TEST_CASE("experiments/one_bit/table1_validation.json runs at a tiny size", "[experiments]") {
  std::string small = "'sweep={}' data.d=40 data.d2=10 data.test_size=200";
  for (int e = 0; e < 5; ++e)
    small += " estimators." + std::to_string(e) + ".batch_size=2000 estimators." + std::to_string(e) + ".max_iterations=2";
  for (int e = 5; e < 11; ++e)
    small += " estimators." + std::to_string(e) + ".training_size=2000 estimators." + std::to_string(e) + ".max_iterations=2";
  smoke("table1_validation.json", small, "auc");
}

namespace {

/// One family per estimator kind at a tiny size, the same settings in the validation and the test runs.
std::string tiny_table1(const std::string& damped_label) {
  const std::string ours = "\"name\":\"one_bit_mll\",\"rank\":3,\"batch_size\":2000,\"max_iterations\":2";
  const std::string leml = "\"name\":\"leml\",\"rank\":3,\"max_iterations\":2,\"newton_steps\":1,\"cg_iterations\":30";
  return "data.d=40 data.d2=10 data.test_size=200 'estimators=[{\"label\":\"ours@c1\"," + ours + "},{\"label\":\"" +
         damped_label + "\",\"lambda\":3.1915382432," + ours + "},{\"label\":\"leml_100k@1e-06\",\"penalty\":1e-6," +
         "\"training_size\":1000," + leml + "},{\"label\":\"leml_1M@1e-02\",\"penalty\":1e-2,\"training_size\":4000," +
         leml + "}]'";
}

/// The Table 1 block printer (scripts/docblocks/one_bit_table1.py) on the given results folders.
rankone::test::CommandOutput table1_block(const std::string& block, const std::vector<fs::path>& folders) {
  const fs::path printer = rankone::test::source_dir() / "scripts" / "docblocks" / "one_bit_table1.py";
  std::string command = "RANKONE_BIN=";
  command += rankone::test::rankone_binary();
  for (const std::string& word : {std::string("python3"), printer.string(), block}) command.append(" ").append(word);
  for (const fs::path& folder : folders) command.append(" ").append(folder.string());
  return rankone::test::run_command(command.append(" 2>&1"));
}

void run_into(const std::string& file, const std::string& overrides, const fs::path& out) {
  const std::string experiment = (rankone::test::source_dir() / "experiments" / "one_bit" / file).string();
  const auto run = rankone_cli("run " + experiment + " " + overrides + " --out " + out.string() + " --jobs 1 --quiet");
  INFO(run.text);
  REQUIRE(run.code == 0);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("one_bit_table1.py prints the Table 1 blocks, marks what a reduced run lacks, refuses unchosen settings",
          "[experiments]") {
  const rankone::test::ScratchDir dir("one_bit_table1_blocks");
  const fs::path validation = dir / "validation", test = dir / "test", unit_noise = dir / "unit_noise";
  run_into("table1_validation.json", tiny_table1("ours@c4"), validation);
  run_into("table1.json", "'sweep={}' " + tiny_table1("ours@c4"), test);
  run_into("table1_unit_noise.json",
           "'sweep={\"zip\":[{\"data.noise_std\":[1.4142135623730951],\"data.flip_probability\":[0.0]}]}' " +
               tiny_table1("ours@c4"),
           unit_noise);

  // The tiny test run has the noise-free column only: its cells are numbers, the other columns `…`.
  const auto table = table1_block("table", {test});
  INFO(table.text);
  REQUIRE(table.code == 0);
  CHECK(contains(table.text, "| noise-free | 0."));
  CHECK(contains(table.text, "| p = 10 % | … | … | … | … |"));
  CHECK(contains(table.text, "LEML, as many labels (penalty 1e-02)"));
  CHECK(contains(table.text, "Who wins where"));
  CHECK(contains(table.text, "\n…\n"));  // a sentence over all eight columns cannot be stated

  // The validation block marks each family's choice, and passes the runs that hold it.
  const auto chosen = table1_block("validation", {validation, test, unit_noise});
  INFO(chosen.text);
  REQUIRE(chosen.code == 0);
  CHECK(contains(chosen.text, "**chosen**"));

  const auto iterations = table1_block("iterations", {test});
  INFO(iterations.text);
  REQUIRE(iterations.code == 0);
  CHECK(contains(iterations.text, "| noise-free | ours, as printed (λ = √(2/π)) | "));
  CHECK(contains(iterations.text, "| p = 10 % | ours, as printed (λ = √(2/π)) | … |"));

  // A test run without the LEML families (a reduced run) prints `…` for their cells and headers.
  const fs::path reduced = dir / "reduced";
  run_into("table1.json",
           "'sweep={}' " + tiny_table1("ours@c4").replace(tiny_table1("ours@c4").find(",{\"label\":\"leml_100k"),
                                                          std::string::npos, "]'"),
           reduced);
  const auto partial = table1_block("table", {reduced});
  INFO(partial.text);
  REQUIRE(partial.code == 0);
  CHECK(contains(partial.text, "| ours, as printed (λ = √(2/π)) | ours, step 1/4 (c = 4) | … | … |"));

  // A test run of a setting validation did not choose is refused, naming the choice.
  const fs::path other = dir / "other";
  run_into("table1.json", "'sweep={}' " + tiny_table1("ours@c3"), other);
  const auto refused = table1_block("validation", {validation, other});
  INFO(refused.text);
  CHECK(refused.code == 2);
  CHECK(contains(refused.text, "validation chose ours@c4"));
}

TEST_CASE("experiments/one_bit/table2.json runs at a tiny size", "[experiments]") {
  smoke("table2.json",
        "'sweep={}' repetitions=1 data.d=40 data.d2=10 data.size=300 data.test_size=200 estimators.0.batch_size=100 "
        "estimators.0.max_iterations=3 estimators.1.batch_size=200 estimators.1.max_iterations=3",
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
