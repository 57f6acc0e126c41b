// `rankone fit` end to end: a train/test pair with no options, the folder it leaves, the model and
// predictions it writes, and `rankone model DIR` without --trial.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>
#include <sstream>

#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"
#include "test_support.hpp"

using namespace rankone;
namespace fs = std::filesystem;

namespace {

/// An FM with a linear part on Gaussian features, as libsvm lines (0-based indices, exact values).
std::string fm_lines(int n, std::uint32_t seed) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> normal;
  std::ostringstream out;
  out.precision(17);
  for (int i = 0; i < n; ++i) {
    double x[6], y = 0;
    for (double& v : x) v = normal(gen);
    for (int j = 0; j < 6; ++j) y += (j + 1) * 0.3 * x[j] + 0.5 * x[j] * x[(j + 1) % 6];
    out << y;
    for (int j = 0; j < 6; ++j) out << " " << j << ":" << x[j];
    out << "\n";
  }
  return out.str();
}

std::vector<double> numbers_in(const fs::path& file) {
  std::ifstream in(file);
  std::vector<double> v;
  for (double x; in >> x;) v.push_back(x);
  return v;
}

}  // namespace

TEST_CASE("rankone fit: a train/test pair with no options leaves the model, the predictions and the experiment",
          "[cli][fit]") {
  test::ScratchDir dir("fit");
  const auto train = dir.write("train.svm", fm_lines(600, 1));
  const auto test_file = dir.write("test.svm", fm_lines(100, 2));
  const fs::path out = dir / "fm";
  const auto fit = test::rankone_cli("fit fm " + train.string() + " --test " + test_file.string() + " rank=2 seed=5 --out " +
                                     out.string());
  INFO(fit.text);
  REQUIRE(fit.code == 0);
  CHECK_THAT(fit.text, Catch::Contains("test_rmse") && Catch::Contains("predictions: "));
  for (const char* file : {"results.sqlite", "experiment.json", "model/model.json", "predictions.txt"})
    CHECK(fs::exists(out / file));
  // One line per test record, as `rankone predict` writes them.
  const auto predicted = numbers_in(out / "predictions.txt");
  CHECK(predicted.size() == 100);
  const auto again = test::rankone_cli("predict " + (out / "model").string() + " " + test_file.string(), true);
  std::istringstream lines(again.text);
  std::vector<double> by_predict;
  for (double x; lines >> x;) by_predict.push_back(x);
  CHECK(by_predict == predicted);
  // The composed experiment: the source and operator inferred (libsvm, the FM's first-order term),
  // the settings given on the command line kept, so `rankone run` repeats the fit.
  const Json experiment = Json::parse(std::ifstream(out / "experiment.json"));
  CHECK(experiment["data"]["name"] == "libsvm");
  CHECK(experiment["data"]["operator"]["first_order"] == true);
  CHECK(experiment["estimators"][0]["rank"] == 2);
  CHECK(experiment["seed"] == 5);
  const auto rerun = test::rankone_cli("run " + (out / "experiment.json").string() + " --out " + out.string() + " --quiet");
  CHECK(rerun.code == 0);
  CHECK(rerun.text.empty());  // --quiet prints nothing but errors
  CHECK(ResultsStore(out, ResultsStore::Access::read_only).trials(false).size() == 1);  // the same trial: done
  // The FM fits its linear part (on by default for a file's features): without w the test error
  // would be about the linear part's size, 3.0; the interactions it leaves are 1.2.
  const auto trials = ResultsStore(out, ResultsStore::Access::read_only).trials(true);
  double rmse = -1;
  for (const auto& p : trials.front().points)
    if (p.metric == "test_rmse") rmse = p.value;
  CHECK(rmse >= 0);
  CHECK(rmse < 1.5);

  // `rankone model DIR` needs no --trial for a folder of one trial; its default output is DIR/model.
  fs::remove_all(out / "model");
  const auto model = test::rankone_cli("model " + out.string());
  CHECK(model.code == 0);
  CHECK(fs::exists(out / "model" / "model.json"));

  // --quiet: nothing on success.
  const auto quiet = test::rankone_cli("fit fm " + train.string() + " --quiet rank=2 --out " + (dir / "q").string());
  CHECK(quiet.code == 0);
  CHECK(quiet.text.empty());
}

TEST_CASE("rankone fit: errors name what was wrong", "[cli][fit]") {
  test::ScratchDir dir("fit_errors");
  const auto train = dir.write("train.svm", fm_lines(50, 3));
  const auto missing = test::rankone_cli("fit fm " + (dir / "nope.svm").string());
  CHECK(missing.code == 2);
  CHECK_THAT(missing.text, Catch::Contains("nope.svm") && Catch::Contains("no such file"));
  const auto unknown = test::rankone_cli("fit fmm " + train.string() + " --out " + (dir / "u").string());
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("did you mean 'fm'"));
  const auto bad = test::rankone_cli("fit fm " + train.string() + " rank=0 --out " + (dir / "b").string());
  CHECK(bad.code == 2);
  CHECK_THAT(bad.text, Catch::Contains("/estimators/0/rank") && Catch::Contains("rank=0"));
  const auto stray = test::rankone_cli("fit fm " + train.string() + " rank --out " + (dir / "s").string());
  CHECK(stray.code == 2);
  CHECK_THAT(stray.text, Catch::Contains("key=value"));
}

TEST_CASE("rankone model DIR: --trial or --best when the folder holds several trials", "[cli][fit]") {
  test::ScratchDir dir("model_best");
  const auto exp = dir.write("e.json", R"({"name": "two", "seed": 1, "repetitions": 1,
    "data": {"name": "synthetic", "d": 10, "rank": 2, "test_size": 100},
    "estimators": [{"name": "spectral", "label": "small", "rank": 2, "batch_size": 200},
                   {"name": "spectral", "label": "large", "rank": 2, "batch_size": 20000}],
    "metrics": ["test_rmse"]})");
  REQUIRE(test::rankone_cli("run " + exp.string() + " --quiet --out " + (dir / "r").string()).code == 0);
  const auto ambiguous = test::rankone_cli("model " + (dir / "r").string());
  CHECK(ambiguous.code == 2);
  CHECK_THAT(ambiguous.text, Catch::Contains("holds 2 trials") && Catch::Contains("--best"));
  const auto best = test::rankone_cli("model " + (dir / "r").string() + " --best test_rmse --output " + (dir / "m").string());
  CHECK(best.code == 0);
  // The larger sample estimates better: it is the one chosen.
  const auto model = SavedModel::read_folder(dir / "m");
  const ResultsStore store(dir / "r", ResultsStore::Access::read_only);
  for (const auto& t : store.trials(false))
    if (t.key == model.header["trial"]) CHECK(t.label == "large");
  const auto worst = test::rankone_cli("model " + (dir / "r").string() + " --best test_rmse --highest --output " +
                                       (dir / "w").string());
  CHECK(worst.code == 0);
  CHECK(SavedModel::read_folder(dir / "w").header["trial"] != model.header["trial"]);
  const auto unknown = test::rankone_cli("model " + (dir / "r").string() + " --best auc");
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Catch::Contains("'auc'"));
  // summarize: the columns no row fills are left out unless --all-columns.
  const auto table = test::rankone_cli("summarize " + (dir / "r").string(), true);
  CHECK_THAT(table.text, !Catch::Contains("samples_to_target") && !Catch::Contains("coordinates"));
  const auto all = test::rankone_cli("summarize " + (dir / "r").string() + " --all-columns", true);
  CHECK_THAT(all.text, Catch::Contains("samples_to_target") && Catch::Contains("coordinates"));
}
