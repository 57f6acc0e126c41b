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

rankone::test::CommandOutput page_script(const fs::path& results, const std::string& args) {
  const fs::path script = rankone::test::source_dir() / "experiments" / "one_bit" / "table1_page.py";
  return rankone::test::run_command("RANKONE_BIN=" + rankone::test::rankone_binary() + " python3 " + script.string() + " " +
                                    results.string() + " " + args + " 2>&1");
}

void run_into(const std::string& file, const std::string& overrides, const fs::path& out) {
  const std::string experiment = (rankone::test::source_dir() / "experiments" / "one_bit" / file).string();
  const auto run = rankone_cli("run " + experiment + " " + overrides + " --out " + out.string() + " --jobs 1 --quiet");
  INFO(run.text);
  REQUIRE(run.code == 0);
}

}  // namespace

TEST_CASE("table1_page.py writes, checks and refuses the generated blocks of the Table 1 page", "[experiments]") {
  const rankone::test::ScratchDir dir("one_bit_table1_page");
  const fs::path results = dir / "results";
  run_into("table1_validation.json", tiny_table1("ours@c4"), results / "validation");
  run_into("table1.json", "'sweep={}' " + tiny_table1("ours@c4"), results / "test");
  run_into("table1_unit_noise.json",
           "'sweep={\"zip\":[{\"data.noise_std\":[1.4142135623730951],\"data.flip_probability\":[0.0]}]}' " +
               tiny_table1("ours@c4"),
           results / "unit_noise");

  std::string markers;
  for (const char* name : {"one-bit-table1", "one-bit-table1-validation", "one-bit-table1-iterations",
                           "one-bit-table1-unit-noise"})
    markers += std::string("text\n<!-- generated: ") + name + " -->\nstale\n<!-- /generated: " + name + " -->\n";
  const fs::path page = dir.write("page.md", markers);

  // An out-of-date page fails the check with a diff; --write brings it up to date; then it passes.
  auto check = page_script(results, "--check --page " + page.string());
  INFO(check.text);
  CHECK(check.code == 1);
  CHECK(check.text.find("-stale") != std::string::npos);
  REQUIRE(page_script(results, "--write --page " + page.string()).code == 0);
  check = page_script(results, "--check --page " + page.string());
  INFO(check.text);
  CHECK(check.code == 0);
  std::ifstream in(page);
  const std::string written((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(written.find("| noise-free |") != std::string::npos);  // the main table's only cell of this tiny run
  CHECK(written.find("**chosen**") != std::string::npos);       // the validation table marks each family's choice
  CHECK(written.find("Who wins where") != std::string::npos);

  // A subset of the runs (the test folder only) passes the partial check; a changed number on the page fails it.
  const fs::path subset = dir / "subset";
  fs::create_directories(subset);
  fs::copy(results / "test", subset / "test", fs::copy_options::recursive);
  auto partial = page_script(subset, "--check --partial --page " + page.string());
  INFO(partial.text);
  CHECK(partial.code == 0);
  std::string edited = written;
  const std::size_t row = edited.find("| noise-free |");
  const std::size_t digit = edited.find("0.", row + 15);
  REQUIRE(digit != std::string::npos);
  edited[digit + 4] = edited[digit + 4] == '9' ? '1' : '9';  // a different third decimal: beyond any small --ulps
  dir.write("page.md", edited);
  partial = page_script(subset, "--check --partial --ulps 2 --page " + page.string());
  INFO(partial.text);
  CHECK(partial.code == 1);

  // A test run of a setting validation did not choose is refused.
  const fs::path other = dir / "other";
  fs::create_directories(other);
  fs::copy(results / "validation", other / "validation", fs::copy_options::recursive);
  fs::copy(results / "unit_noise", other / "unit_noise", fs::copy_options::recursive);
  run_into("table1.json", "'sweep={}' " + tiny_table1("ours@c3"), other / "test");
  const auto refused = page_script(other, "");
  INFO(refused.text);
  CHECK(refused.code == 2);
  CHECK(refused.text.find("validation chose ours@c4") != std::string::npos);
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
