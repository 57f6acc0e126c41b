// Saved models end to end: every trial stores its final model; `rankone model` exports it as a folder
// numpy reads; `rankone predict` scores a file with it, prepared as the training data was, and its
// lines equal the in-run predictions (the export_predictions metric) byte for byte. FM regression
// from libsvm files, matrix completion from LIBMF triplets, one-bit multi-label from a multi-label
// libsvm file; and the refusals.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

std::string slurp(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::size_t lines_of(const std::string& text) { return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')); }

/// The key of the one trial stored in `results`.
std::string only_trial(const fs::path& results) {
  const ResultsStore store(results, ResultsStore::Access::read_only);
  const auto trials = store.trials(false);
  REQUIRE(trials.size() == 1);
  return trials[0].key;
}

/// y = 1.5 + x'w + x'Mx + noise on 8 Gaussian features, one-based libsvm lines with a non-zero mean
/// and scale per feature (so standardisation matters).
std::string fm_lines(std::mt19937_64& rng, int n) {
  std::normal_distribution<double> z;
  std::ostringstream out;
  out.precision(10);
  for (int i = 0; i < n; ++i) {
    double x[8], y = 1.5;
    for (int j = 0; j < 8; ++j) x[j] = 2.0 + (1.0 + j) * z(rng);
    for (int j = 0; j < 8; ++j) y += 0.1 * (j % 3 - 1) * x[j];
    y += 0.05 * (x[0] - 2) * (x[1] - 2) - 0.02 * (x[2] - 2) * (x[2] - 2) + 0.05 * z(rng);
    out << y;
    for (int j = 0; j < 8; ++j) out << ' ' << j + 1 << ':' << x[j];
    out << '\n';
  }
  return out.str();
}

/// Runs a one-trial experiment, exports its model and predicts `data`: the predictions file and
/// the in-run one (export_predictions), and the model folder.
struct Saved {
  fs::path results, model, predicted, in_run;
};

Saved run_and_predict(const test::ScratchDir& s, const std::string& experiment, const fs::path& data,
                      const std::string& source_options = "") {
  const fs::path file = s.write("experiment.json", experiment);
  Saved out{s / "results", s / "model", s / "predicted.txt", s / "in_run.txt"};
  const auto run = test::rankone_cli("run " + file.string() + " --out " + out.results.string() + " --quiet");
  INFO(run.text);
  REQUIRE(run.code == 0);
  const auto model = test::rankone_cli("model " + out.results.string() + " --trial " + only_trial(out.results) +
                                       " --output " + out.model.string());
  INFO(model.text);
  REQUIRE(model.code == 0);
  const auto predict = test::rankone_cli("predict " + out.model.string() + " " + data.string() + " " + source_options +
                                         " --output " + out.predicted.string());
  INFO(predict.text);
  REQUIRE(predict.code == 0);
  return out;
}

/// Runs a numpy script `script MODEL DATA PREDICTED` that prints the largest relative difference
/// between its own scores and rankone predict's; Debian's python3, which python3-numpy serves.
double numpy_difference(const std::string& script, const fs::path& model, const fs::path& data, const fs::path& predicted) {
  const auto numpy = test::run_command("/usr/bin/python3 " + script + " " + model.string() + " " + data.string() + " " +
                                       predicted.string() + " 2>&1");
  INFO(numpy.text);
  REQUIRE(numpy.code == 0);
  return std::stod(numpy.text);
}

}  // namespace

TEST_CASE("a saved FM model predicts its test file bit for bit, and numpy reads it", "[cli][models]") {
  test::ScratchDir s("model_fm");
  std::mt19937_64 rng(11);
  const fs::path train = s.write("train.svm", fm_lines(rng, 3000));
  const fs::path test = s.write("test.svm", fm_lines(rng, 500));
  const Saved saved = run_and_predict(s, R"({"name": "fm", "seed": 3, "repetitions": 1,
    "data": {"name": "libsvm", "file": ")" + train.string() + R"(", "test_file": ")" + test.string() + R"(",
             "indexing": "one", "test_fraction": 0, "standardize": "center_scale", "design": "dense",
             "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "gfm_one_pass", "rank": 2, "batch_size": 1000, "max_iterations": 6, "passes": 3,
                    "intercept": true}],
    "metrics": ["test_rmse", {"name": "export_predictions", "path": ")" + (s / "in_run.txt").string() + R"("}]})",
                                      test);
  const std::string predicted = slurp(saved.predicted);
  CHECK(lines_of(predicted) == 500);
  CHECK(predicted == slurp(saved.in_run));  // byte for byte: the same numbers, the same format

  // The folder as documented: the factors, w, the standardisation, and the intercept in model.json.
  for (const char* array : {"left.npy", "right.npy", "w.npy", "feature_mean.npy", "feature_scale.npy"})
    CHECK(fs::exists(saved.model / array));
  CHECK_FALSE(fs::exists(saved.model / "feature_impute.npy"));  // libsvm has no missing values to impute

  // numpy alone (docs/models.md): standardise with the saved statistics, score bias + x'w + x'Mx.
  const std::string script = s.write("score.py", R"(import json, sys
import numpy as np
folder, data, predicted = sys.argv[1:4]
m = json.load(open(folder + "/model.json"))
a = {name: np.load(folder + "/" + info["file"]) for name, info in m["arrays"].items()}
d = m["preparation"]["dimension"]
X = np.zeros((sum(1 for _ in open(data)), d))
for i, line in enumerate(open(data)):
    for token in line.split()[1:]:
        j, v = token.split(":")
        X[i, int(j) - m["preparation"]["index_base"]] = float(v)
X = (X - a["feature_mean"]) * a["feature_scale"]
M = a["left"] @ a["right"].T
M = (M + M.T) / 2
scores = m["model"]["bias"] + X @ a["w"] + np.einsum("ni,ij,nj->n", X, M, X)
theirs = np.loadtxt(predicted)
print("%.3g" % (np.max(np.abs(scores - theirs)) / np.max(np.abs(theirs))))
)").string();
  CHECK(numpy_difference(script, saved.model, test, saved.predicted) < 1e-12);  // summation order only

  // The checksums as docs/models.md lets anyone check them: its Python block, run on this folder,
  // passes; and fails on a copy with one byte of model.json changed.
  const std::string doc = slurp(test::source_dir() / "docs" / "models.md");
  const auto block = doc.find("```python\nimport re, xxhash");
  REQUIRE(block != std::string::npos);
  std::string check = doc.substr(block + 10, doc.find("```", block + 10) - block - 10);
  for (std::size_t at; (at = check.find("fm-model/")) != std::string::npos;) check.replace(at, 9, saved.model.string() + "/");
  const auto sealed = test::run_command("/usr/bin/python3 " + s.write("seal.py", check).string() + " 2>&1");
  INFO(sealed.text);
  CHECK(sealed.code == 0);
  std::string forged = slurp(saved.model / "model.json");
  forged[forged.find("\"bias\": ") + 8] ^= 0x01;
  std::ofstream(saved.model / "model.json", std::ios::binary) << forged;
  CHECK(test::run_command("/usr/bin/python3 " + (s / "seal.py").string() + " 2>/dev/null").code != 0);

  // The FM model of libFM (estimator fm: M = V V' without its diagonal), through the same script
  // with the diagonal zeroed as docs/models.md says.
  test::ScratchDir f("model_fm_zero_diagonal");
  const Saved fm = run_and_predict(f, R"({"name": "fm", "seed": 3, "repetitions": 1,
    "data": {"name": "libsvm", "file": ")" + train.string() + R"(", "test_file": ")" + test.string() + R"(",
             "indexing": "one", "test_fraction": 0, "standardize": "center_scale", "design": "dense",
             "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "fm", "rank": 2, "max_iterations": 5}],
    "metrics": ["test_rmse", {"name": "export_predictions", "path": ")" + (f / "in_run.txt").string() + R"("}]})",
                                   test);
  CHECK(slurp(fm.predicted) == slurp(fm.in_run));
  std::string zeroed = slurp(script);
  zeroed.replace(zeroed.find("M = (M + M.T) / 2"), 17, "M = (M + M.T) / 2\nif m['model']['zero_diagonal']: np.fill_diagonal(M, 0)");
  const std::string zeroed_script = f.write("score.py", zeroed).string();
  CHECK(numpy_difference(zeroed_script, fm.model, test, fm.predicted) < 1e-12);
}

TEST_CASE("a saved completion model scores LIBMF triplets through the training file's id maps", "[cli][models]") {
  test::ScratchDir s("model_mc");
  // A rank-1 matrix of 30 users × 20 items with sparse, non-contiguous ids; the test file holds
  // entries of the same users and items.
  std::mt19937_64 rng(5);
  std::uniform_real_distribution<double> u(0.5, 1.5);
  std::ostringstream train, test;
  for (int user = 0; user < 30; ++user)
    for (int item = 0; item < 20; ++item) {
      const double rating = (1.0 + user % 5) * (1.0 + item % 4) / 4.0;
      ((user + item) % 7 == 0 ? test : train) << 1000 + 7 * user << ' ' << 50 + 3 * item << ' ' << rating << '\n';
    }
  const fs::path train_file = s.write("tr.txt", train.str());
  const fs::path test_file = s.write("te.txt", test.str());
  const Saved saved = run_and_predict(s, R"({"name": "mc", "seed": 3, "repetitions": 1,
    "data": {"name": "ratings", "file": ")" + train_file.string() + R"(", "test_file": ")" + test_file.string() + R"(",
             "test_fraction": 0},
    "estimators": [{"name": "als_completion", "rank": 1, "max_iterations": 10}],
    "metrics": ["test_rmse", {"name": "export_predictions", "path": ")" + (s / "in_run.txt").string() + R"("}]})",
                                      test_file);
  const std::string predicted = slurp(saved.predicted);
  CHECK(lines_of(predicted) == lines_of(test.str()));
  CHECK(predicted == slurp(saved.in_run));
  CHECK(fs::exists(saved.model / "row_ids.npy"));
  CHECK(fs::exists(saved.model / "col_ids.npy"));

  // The same entries in another order give the same predictions in that order (the ids, not the
  // positions, name the rows), and an unseen user is scored with zero factors and said so.
  const fs::path reordered = s.write("new.txt", "1007 53 0\n1000 50 0\n99999 50 0\n");
  const auto scored = test::rankone_cli("predict " + saved.model.string() + " " + reordered.string(), true);
  REQUIRE(scored.code == 0);
  const auto notes = test::rankone_cli("predict " + saved.model.string() + " " + reordered.string());
  CHECK_THAT(notes.text, Contains("widens the model's 30 × 20 matrix to 31 × 20"));
  std::istringstream lines(scored.text);
  double a = 0, b = 0, c = 1;
  lines >> a >> b >> c;
  CHECK(std::abs(a - 2.0 * 2.0 / 4.0) < 0.05);  // user 1 (id 1007), item 1 (id 53): rating 1
  CHECK(std::abs(b - 1.0 / 4.0) < 0.05);        // user 0, item 0: 0.25
  CHECK(c == 0.0);                              // unseen: zero factors, no intercept

  // With biases folded into the factors ([L, b_row, 1], [R, 1, b_col]), an unseen user keeps the
  // item's bias: μ + b_item, what the trained model predicts for a user whose own bias and factors
  // are zero.
  test::ScratchDir biases("model_mc_biases");
  const Saved biased = run_and_predict(biases, R"({"name": "mcb", "seed": 3, "repetitions": 1,
    "data": {"name": "ratings", "file": ")" + train_file.string() + R"(", "test_file": ")" + test_file.string() + R"(",
             "test_fraction": 0},
    "estimators": [{"name": "als_completion", "rank": 1, "max_iterations": 10, "offset": "biases"}],
    "metrics": ["test_rmse", {"name": "export_predictions", "path": ")" + (biases / "in_run.txt").string() + R"("}]})",
                                       test_file);
  CHECK(slurp(biased.predicted) == slurp(biased.in_run));
  const std::string check = biases.write("unseen.py", R"(import json, sys
import numpy as np
folder, predicted = sys.argv[1:3]
m = json.load(open(folder + "/model.json"))
L, R = np.load(folder + "/left.npy"), np.load(folder + "/right.npy")
item = list(np.load(folder + "/col_ids.npy")).index(50)
constant = [a for a in range(L.shape[1]) if np.all(L[:, a] == L[0, a])]
expected = m["model"]["bias"] + sum(L[0, a] * R[item, a] for a in constant)
print("%.17g %.17g %.17g" % (expected, float(open(predicted).read().split()[2]), m["model"]["bias"]))
)").string();
  const auto unseen = test::rankone_cli("predict " + biased.model.string() + " " + reordered.string() + " --output " +
                                        (biases / "unseen.txt").string());
  REQUIRE(unseen.code == 0);
  const auto compared = test::run_command("/usr/bin/python3 " + check + " " + biased.model.string() + " " +
                                          (biases / "unseen.txt").string() + " 2>&1");
  INFO(compared.text);
  REQUIRE(compared.code == 0);
  std::istringstream values(compared.text);
  double expected = 0, got = 1, bias = 0;
  values >> expected >> got >> bias;
  CHECK(got == Approx(expected).epsilon(1e-12));
  CHECK(std::abs(expected - bias) > 1e-6);  // the item's bias is there, not the intercept alone
}

TEST_CASE("a saved one-bit multi-label model writes every label's score per record", "[cli][models]") {
  test::ScratchDir s("model_ml");
  // 6 features, 4 labels; label j is on when feature j is large.
  std::mt19937_64 rng(9);
  std::normal_distribution<double> z;
  auto lines = [&](int n) {
    std::ostringstream out;
    out.precision(8);
    for (int i = 0; i < n; ++i) {
      double x[6];
      std::string labels;
      for (double& v : x) v = z(rng);
      for (int j = 0; j < 4; ++j)
        if (x[j] > 0.3) {
          if (!labels.empty()) labels += ',';
          labels += std::to_string(j);
        }
      out << (labels.empty() ? "0" : labels);
      for (int j = 0; j < 6; ++j) out << ' ' << j << ':' << x[j];
      out << '\n';
    }
    return out.str();
  };
  const fs::path train = s.write("train.svm", lines(2000));
  const fs::path test = s.write("test.svm", lines(300));
  const Saved saved = run_and_predict(s, R"({"name": "ml", "seed": 3, "repetitions": 1,
    "data": {"name": "libsvm", "file": ")" + train.string() + R"(", "test_file": ")" + test.string() + R"(",
             "indexing": "zero", "test_fraction": 0, "operator": "single_label", "classes": 4},
    "estimators": [{"name": "one_bit_mll", "rank": 2, "batch_size": 500, "max_iterations": 3}],
    "metrics": ["auc", {"name": "export_predictions", "path": ")" + (s / "in_run.txt").string() + R"("}]})",
                                      test);
  const std::string predicted = slurp(saved.predicted);
  CHECK(lines_of(predicted) == 300);
  CHECK(predicted == slurp(saved.in_run));
  const std::string first = predicted.substr(0, predicted.find('\n'));
  CHECK(std::count(first.begin(), first.end(), ' ') == 3);  // four scores: one per label

  // numpy: bias + √d2 · a'M per label (docs/models.md).
  const std::string script = s.write("labels.py", R"(import json, sys
import numpy as np
folder, data, predicted = sys.argv[1:4]
m = json.load(open(folder + "/model.json"))
L, R = np.load(folder + "/left.npy"), np.load(folder + "/right.npy")
X = np.zeros((sum(1 for _ in open(data)), m["preparation"]["dimension"]))
for i, line in enumerate(open(data)):
    for token in line.split()[1:]:
        j, v = token.split(":")
        X[i, int(j) - m["preparation"]["index_base"]] = float(v)
scores = m["model"]["bias"] + np.sqrt(m["model"]["cols"]) * X @ (L @ R.T)
theirs = np.loadtxt(predicted)
print("%.3g" % (np.max(np.abs(scores - theirs)) / np.max(np.abs(theirs))))
)").string();
  CHECK(numpy_difference(script, saved.model, test, saved.predicted) < 1e-12);
}

TEST_CASE("model and predict refuse what they cannot do, naming it, with exit 2", "[cli][models]") {
  test::ScratchDir s("model_bad");
  const fs::path csv = s.write("train.csv", "y,a,b\n1,0.5,1\n2,1,0\n3,1.5,2\n4,2,1\n5,2.5,3\n6,3,2\n");
  const fs::path file = s.write("experiment.json", R"({"name": "bad", "seed": 1, "repetitions": 1,
    "data": {"name": "csv", "file": ")" + csv.string() + R"(", "labels": "y", "test_fraction": 0,
             "operator": {"name": "symmetric_rank_one", "first_order": true}},
    "estimators": [{"name": "ridge"}], "metrics": ["samples"]})");
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s / "results").string() + " --quiet").code == 0);

  const auto unknown = test::rankone_cli("model " + (s / "results").string() + " --trial nope --output " + (s / "m").string());
  CHECK(unknown.code == 2);
  CHECK_THAT(unknown.text, Contains("no trial nope"));

  // A folder of one trial needs no --trial; its model goes to DIR/model by default.
  const auto only = test::rankone_cli("model " + (s / "results").string());
  CHECK(only.code == 0);
  CHECK(fs::exists(s / "results" / "model" / "model.json"));
  const auto both = test::rankone_cli("model " + (s / "results").string() + " --trial x --best samples");
  CHECK(both.code == 2);
  CHECK_THAT(both.text, Contains("--trial or --best"));

  const auto no_folder = test::rankone_cli("predict " + (s / "absent").string() + " " + csv.string());
  CHECK(no_folder.code == 2);
  CHECK_THAT(no_folder.text, Contains((s / "absent").string() + ": no such model folder"));

  const fs::path model = s / "model";
  REQUIRE(test::rankone_cli("model " + (s / "results").string() + " --trial " + only_trial(s / "results") + " --output " +
                            model.string())
              .code == 0);
  // A csv with a header: the model's features by name, in any order, other columns and the label
  // column not needed; a file without one of them is refused, naming it.
  const auto plain = test::rankone_cli("predict " + model.string() + " " + s.write("plain.csv", "y,a,b\n0,0.5,1\n").string(), true);
  const auto moved = test::rankone_cli("predict " + model.string() + " " + s.write("moved.csv", "c,b,a\n9,1,0.5\n").string(), true);
  REQUIRE(plain.code == 0);
  CHECK(moved.code == 0);
  CHECK(moved.text == plain.text);
  const fs::path narrower = s.write("narrower.csv", "y,a\n1,0.5\n");
  const auto mismatch = test::rankone_cli("predict " + model.string() + " " + narrower.string());
  CHECK(mismatch.code == 2);
  CHECK_THAT(mismatch.text, Contains(narrower.string()));
  CHECK_THAT(mismatch.text, Contains("a column 'b' (a feature of the model's training data)"));

  const auto bad_option = test::rankone_cli("predict " + model.string() + " " + csv.string() + " delimiter");
  CHECK(bad_option.code == 2);
  CHECK_THAT(bad_option.text, Contains("expected key=value"));
  // A value an option gives is refused as that option's; an unknown option is refused, not ignored.
  const auto bad_value = test::rankone_cli("predict " + model.string() + " " + csv.string() + " delimiter=bogus");
  CHECK(bad_value.code == 2);
  CHECK_THAT(bad_value.text, Contains("source option 'delimiter=bogus': at /data/delimiter: expected one character"));
  const auto bad_type = test::rankone_cli("predict " + model.string() + " " + csv.string() + " labels=7");
  CHECK(bad_type.code == 2);
  CHECK_THAT(bad_type.text, Contains("source option 'labels=7': at /data/labels"));
  CHECK(bad_type.text.find("json.exception") == std::string::npos);
  const auto unknown_option = test::rankone_cli("predict " + model.string() + " " + csv.string() + " nosuch=1");
  CHECK(unknown_option.code == 2);
  CHECK_THAT(unknown_option.text, Contains("source option 'nosuch=1': at /data/nosuch: unknown"));
  // The data file: a folder and a pipe are named as such, not as missing files.
  const auto folder = test::rankone_cli("predict " + model.string() + " " + s.path().string());
  CHECK(folder.code == 2);
  CHECK_THAT(folder.text, Contains(s.path().string() + ": a folder (expected a data file)"));
  REQUIRE(::mkfifo((s / "fifo").c_str(), 0600) == 0);
  const auto pipe = test::rankone_cli("predict " + model.string() + " " + (s / "fifo").string());
  CHECK(pipe.code == 2);
  CHECK_THAT(pipe.text, Contains((s / "fifo").string() + ": not a regular file"));

  // model.json and its arrays must agree (edits resealed: the checksums are tests/hostile's).
  const std::string header = slurp(model / "model.json");
  auto edited = [&](const std::string& from, const std::string& to) {
    std::string text = header;
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(), to);
    std::ofstream(model / "model.json") << SavedModel::sealed(text);
    return test::rankone_cli("predict " + model.string() + " " + csv.string());
  };
  const auto first_order = edited("\"format\": \"rankone-model\"", "\"format\": \"rankone-model\", \"x\": 1");
  CHECK(first_order.code == 0);  // an unknown key of the header is harmless
  const auto rows = edited("\"rows\": 2", "\"rows\": 3");
  CHECK(rows.code == 2);
  CHECK_THAT(rows.text, Contains("at /model/rows: 3, but left.npy has 2"));
  const auto typed = edited("\"bias\": ", "\"bias\": \"zero\", \"was\": ");
  CHECK(typed.code == 2);
  CHECK_THAT(typed.text, Contains("at /model/bias: expected a number"));
  const auto version = edited("\"version\": 2", "\"version\": \"2\"");
  CHECK(version.code == 2);
  CHECK_THAT(version.text, Contains("at /version"));
  std::ofstream(model / "model.json") << header;

  // A damaged array file is named.
  std::ofstream(model / "left.npy") << "not numpy";
  const auto damaged = test::rankone_cli("predict " + model.string() + " " + csv.string());
  CHECK(damaged.code == 2);
  CHECK_THAT(damaged.text, Contains("left.npy: checksum mismatch"));
}
