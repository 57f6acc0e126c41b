// A separate test file (`test_file`, idx also `test_labels`): the test set is that file, the
// training file is split into train and validation only, statistics come from the training part
// (docs/plugins/file_sources.md, "Test file").
#include <catch2/catch.hpp>

#include <cmath>
#include <set>

#include "../../plugins/sources/file_source.hpp"
#include "file_support.hpp"

using namespace rankone;
using Catch::Contains;
using test::open_source;
using test::Scratch;
using test::ids;
using test::idx_file;

namespace {

/// A csv file of `records` rows `a,b,id` with id = first_id + i (the label, so a batch tells which
/// records it holds) and features a = offset + (i mod 7), b = offset + 3·((13 i) mod 5).
std::string numbered_csv(const Scratch& dir, const std::string& name, int records, int first_id, double offset) {
  std::string text = "a,b,id\n";
  for (int i = 0; i < records; ++i)
    text += std::to_string(offset + i % 7) + "," + std::to_string(offset + 3 * ((i * 13) % 5)) + "," +
            std::to_string(first_id + i) + "\n";
  return dir.write(name, text);
}

std::set<int> range(int first, int count) {
  std::set<int> out;
  for (int i = first; i < first + count; ++i) out.insert(i);
  return out;
}

template <class Error>
std::string error_of(const Json& params) {
  try {
    open_source(params);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error of the expected type";
}

}  // namespace

TEST_CASE("test_file: the test set is every record of the test file, training reads the training file whole",
          "[file_sources][test_file]") {
  Scratch dir("test_file_records");
  const Json params = {{"name", "csv"}, {"file", numbered_csv(dir, "train.csv", 300, 0, 0.0)},
                       {"test_file", numbered_csv(dir, "test.csv", 40, 1000, 0.0)}, {"labels", "id"},
                       {"test_fraction", 0.0}};
  auto s = open_source(params);
  auto& file_source = static_cast<sources::FileSource&>(*s);
  REQUIRE(s->test_set() != nullptr);
  CHECK(ids(*s->test_set()) == range(1000, 40));  // all 40, none from the training file
  CHECK(s->test_set()->instances() == 40);
  CHECK(ids(test::whole_pass(*s)) == range(0, 300));  // the training file untouched by the split
  CHECK(s->size() == 300);
  CHECK(file_source.records_in(sources::Part::test) == 40);
  CHECK(file_source.records_in(sources::Part::train) == 300);

  // test_cap subsamples the test file as it does a test part.
  Json capped = params;
  capped["test_cap"] = 10;
  const std::set<int> sub = ids(*open_source(capped)->test_set());
  CHECK(sub.size() == 10);
  for (int id : sub) CHECK(range(1000, 40).count(id));
}

TEST_CASE("test_file: standardisation statistics come from the training part only", "[file_sources][test_file]") {
  Scratch dir("test_file_standardize");
  const int n = 350;
  // The test file's features are shifted by 1000: any leak would move the mean far from the training one.
  const Json params = {{"name", "csv"}, {"file", numbered_csv(dir, "train.csv", n, 0, 0.0)},
                       {"test_file", numbered_csv(dir, "test.csv", 35, 1000, 1000.0)}, {"labels", "id"},
                       {"features", "a,b"}, {"test_fraction", 0.0}, {"standardize", "center_scale"}};
  auto s = open_source(params);
  const auto& source = static_cast<const sources::FileSource&>(*s);
  // Training moments of a = i mod 7 and b = 3·((13 i) mod 5), i < n, computed here directly.
  double mean_a = 0, mean_b = 0, sq_a = 0, sq_b = 0;
  for (int i = 0; i < n; ++i) {
    const double a = i % 7, b = 3 * ((i * 13) % 5);
    mean_a += a / n, mean_b += b / n, sq_a += a * a / n, sq_b += b * b / n;
  }
  const double sd_a = std::sqrt(sq_a - mean_a * mean_a), sd_b = std::sqrt(sq_b - mean_b * mean_b);
  CHECK(source.feature_mean()(0) == Approx(mean_a).epsilon(1e-12));
  CHECK(source.feature_mean()(1) == Approx(mean_b).epsilon(1e-12));
  CHECK(source.feature_scale()(0) == Approx(1.0 / sd_a).epsilon(1e-12));
  CHECK(source.feature_scale()(1) == Approx(1.0 / sd_b).epsilon(1e-12));
  // The test records carry the training transform: record 1000 + i has a = 1000 + (i mod 7).
  const Batch& test = *s->test_set();
  for (Index i = 0; i < test.instances(); ++i) {
    const int k = static_cast<int>(test.y(i)) - 1000;
    CHECK(test.left.dense(0, i) == Approx((1000.0 + k % 7 - mean_a) / sd_a));
    CHECK(test.left.dense(1, i) == Approx((1000.0 + 3 * ((k * 13) % 5) - mean_b) / sd_b));
  }
  // The training stream has mean 0 and sd 1 per feature.
  const Batch train = test::whole_pass(*s, 64);
  CHECK(train.left.dense.row(0).mean() == Approx(0.0).margin(1e-12));
  CHECK(std::sqrt(train.left.dense.row(0).squaredNorm() / n) == Approx(1.0).epsilon(1e-12));
}

TEST_CASE("test_file: validation_fraction and folds still split the training file", "[file_sources][test_file]") {
  Scratch dir("test_file_validation");
  const std::string train = numbered_csv(dir, "train.csv", 600, 0, 0.0);
  const std::string test_path = numbered_csv(dir, "test.csv", 50, 1000, 0.0);
  const Json base = {{"name", "csv"}, {"file", train}, {"test_file", test_path}, {"labels", "id"},
                     {"test_fraction", 0.0}};

  // Fractions: evaluate_on validation holds the validation part of the training file.
  Json fraction = base;
  fraction["validation_fraction"] = 0.25;
  fraction["evaluate_on"] = "validation";
  auto s = open_source(fraction);
  const std::set<int> validation = ids(*s->test_set()), trained = ids(test::whole_pass(*s));
  CHECK(validation.size() + trained.size() == 600);
  for (int id : validation) CHECK((id < 600 && !trained.count(id)));
  // Binomial(600, 0.25): within 4 standard deviations of 150.
  CHECK(std::abs(static_cast<double>(validation.size()) - 150.0) < 4 * std::sqrt(600 * 0.25 * 0.75));
  CHECK(static_cast<sources::FileSource&>(*s).records_in(sources::Part::test) == 50);  // read and counted only
  // The same seed with evaluate_on test: the same training part, scored on the test file.
  fraction["evaluate_on"] = "test";
  auto t = open_source(fraction);
  CHECK(ids(test::whole_pass(*t)) == trained);
  CHECK(ids(*t->test_set()) == range(1000, 50));

  // Folds: validation_fold is held out, the others train; no fold is the test part.
  Json folds = base;
  folds.erase("test_fraction");
  folds.update({{"folds", 4}, {"validation_fold", 1}, {"split_seed", 3}, {"evaluate_on", "validation"}});
  auto f = open_source(folds);
  const std::set<int> fold = ids(*f->test_set()), rest = ids(test::whole_pass(*f));
  CHECK(fold.size() + rest.size() == 600);
  for (int id : fold) CHECK(sources::fold_of(id, 3, 4) == 1);
  for (int id : rest) CHECK(sources::fold_of(id, 3, 4) != 1);
}

TEST_CASE("idx test_file with test_labels: the t10k layout", "[file_sources][test_file][idx]") {
  Scratch dir("test_file_idx");
  std::string train_pixels, test_pixels;
  for (int i = 0; i < 6 * 4; ++i) train_pixels += static_cast<char>(i * 10);
  for (int i = 0; i < 3 * 4; ++i) test_pixels += static_cast<char>(200 + i);
  const Json params = {
      {"name", "idx"}, {"operator", "single_label"}, {"classes", 3}, {"test_fraction", 0.0},
      {"file", dir.write("train.idx", idx_file(0x08, {6, 2, 2}, train_pixels))},
      {"labels", dir.write("train-labels.idx", idx_file(0x08, {6}, std::string("\x00\x01\x02\x00\x01\x02", 6)))},
      {"test_file", dir.write_gzip("t10k.idx.gz", idx_file(0x08, {3, 2, 2}, test_pixels))},
      {"test_labels", dir.write_gzip("t10k-labels.idx.gz", idx_file(0x08, {3}, std::string("\x02\x02\x01", 3)))}};
  auto s = open_source(params);
  CHECK(s->size() == 6);
  const Batch& test = *s->test_set();
  REQUIRE(test.instances() == 3);
  // The test images' pixels, in file order, each with every label: y(i + 3·j) = +1 iff label j.
  for (Index i = 0; i < 3; ++i)
    for (Index p = 0; p < 4; ++p)
      CHECK(test.left.dense(p, i) == 200.0 + 4 * static_cast<double>(i) + static_cast<double>(p));
  const int labels[3] = {2, 2, 1};
  for (Index i = 0; i < 3; ++i)
    for (Index j = 0; j < 3; ++j) CHECK(test.y(i + 3 * j) == (j == labels[i] ? 1.0 : -1.0));
}

TEST_CASE("test_file errors name the parameter and the file", "[file_sources][test_file][errors]") {
  Scratch dir("test_file_errors");
  const std::string train = numbered_csv(dir, "train.csv", 30, 0, 0.0);
  const Json base = {{"name", "csv"}, {"file", train}, {"labels", "id"}, {"test_fraction", 0.0}};

  Json missing = base;
  missing["test_file"] = (dir.dir / "no-such-test.csv").string();
  CHECK_THAT(error_of<InputError>(missing), Contains("/test_file") && Contains("no-such-test.csv"));

  Json with_fraction = base;
  with_fraction["test_file"] = train;
  with_fraction["test_fraction"] = 0.2;  // a value given would deal records to a second test part
  CHECK_THAT(error_of<ConfigError>(with_fraction), Contains("/test_fraction") && Contains("/test_file") &&
                                                        Contains("drop test_fraction or set it to 0"));

  Json empty = base;
  empty["test_file"] = dir.write("empty.csv", "a,b,id\n");
  CHECK_THAT(error_of<DataError>(empty), Contains("empty.csv") && Contains("at least one test record"));

  Json narrow = base;
  narrow["test_file"] = dir.write("narrow.csv", "a,id\n1,1000\n");
  narrow["features"] = "";
  CHECK_THAT(error_of<DataError>(narrow), Contains("narrow.csv:2") && Contains("2 features") && Contains("1 features"));

  Json with_fold = {{"name", "csv"}, {"file", train}, {"labels", "id"}, {"test_file", train}, {"folds", 3},
                    {"test_fold", 0}, {"validation_fold", 1}, {"split_seed", 1}};
  CHECK_THAT(error_of<ConfigError>(with_fold), Contains("/test_fold") && Contains("drop test_fold"));
  with_fold.erase("test_fold");
  with_fold.erase("validation_fold");
  CHECK_THAT(error_of<ConfigError>(with_fold), Contains("/validation_fold"));

  // idx: labels need test labels and the reverse; the widths must agree.
  const std::string images = dir.write("i.idx", idx_file(0x08, {2, 2}, std::string("\x01\x02\x03\x04", 4)));
  const std::string labels = dir.write("l.idx", idx_file(0x08, {2}, std::string("\x00\x01", 2)));
  const Json idx = {{"name", "idx"}, {"file", images}, {"labels", labels}, {"test_fraction", 0.0},
                    {"operator", "single_label"}, {"classes", 2}};
  Json no_labels = idx;
  no_labels["test_file"] = images;
  CHECK_THAT(error_of<ConfigError>(no_labels), Contains("/test_labels") && Contains("/test_file"));
  Json stray = idx;
  stray["test_labels"] = labels;
  CHECK_THAT(error_of<ConfigError>(stray), Contains("test_labels go with test_file"));
  Json missing_labels = idx;
  missing_labels["test_file"] = images;
  missing_labels["test_labels"] = (dir.dir / "gone-labels.idx").string();
  CHECK_THAT(error_of<InputError>(missing_labels), Contains("/test_labels") && Contains("gone-labels.idx"));
  Json wide = idx;
  wide["test_file"] = dir.write("wide.idx", idx_file(0x08, {1, 3}, std::string("\x01\x02\x03", 3)));
  wide["test_labels"] = dir.write("wl.idx", idx_file(0x08, {1}, std::string("\x01", 1)));
  CHECK_THAT(error_of<DataError>(wide), Contains("wide.idx") && Contains("2 features") && Contains("3 features"));

}

TEST_CASE("a training file with a test file needs no other option", "[file_sources][test_file][defaults]") {
  Scratch dir("test_file_defaults");
  // The test file alone has an index 0: both files are read 0-based, and a note says why.
  const std::string train = dir.write("train.svm", "1 1:0.5 3:2\n0 2:1\n2 1:1 2:1\n");
  const std::string test = dir.write("test.svm", "1 0:1 3:1\n0 2:2\n");
  auto s = open_source({{"name", "libsvm"}, {"file", train}, {"test_file", test}});
  CHECK(s->shape().d1 == 4);        // indices 0..3, one base for both files
  CHECK(s->test_set()->instances() == 2);  // every test record, no training record held out
  std::string notes;
  for (const auto& n : s->notes()) notes += n + "\n";
  CHECK_THAT(notes, Contains("train.svm is read 0-based although it has no index 0") && Contains("test.svm"));
  const Matrix test_design = s->test_set()->left.to_dense();
  CHECK(test_design(0, 0) == 1.0);  // test.svm's 0:1 is feature 0, not dropped
  CHECK(test_design(3, 0) == 1.0);
  // Neither file has an index 0: both 1-based.
  const std::string test1 = dir.write("test1.svm", "1 1:1 3:1\n");
  CHECK(open_source({{"name", "libsvm"}, {"file", train}, {"test_file", test1}})->shape().d1 == 3);
  // The training file serves every record: nothing is dealt to a test part of its own.
  auto all = open_source({{"name", "libsvm"}, {"file", train}, {"test_file", test}});
  CHECK(test::whole_pass(*all).instances() == 3);
  // The first-order term is on: an FM on a file's features has a linear part.
  CHECK(all->sensing_operator().has_first_order());
  // A declared base still holds for both files.
  CHECK(open_source({{"name", "libsvm"}, {"file", train}, {"test_file", test1}, {"indexing", "zero"}})->shape().d1 == 4);
}
