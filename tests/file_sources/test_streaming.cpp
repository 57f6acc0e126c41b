// The generic machinery: split, shuffle buffer, passes, standardisation, test cap, label views.
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <numeric>
#include <set>

#include "../../plugins/sources/file_source.hpp"
#include "file_support.hpp"

using namespace rankone;
using test::open_source;
using test::Scratch;

namespace {

/// A dense libsvm file whose first feature is the record number (so tests can tell records apart)
/// and whose label is the record number too.
std::string numbered_file(const Scratch& dir, int records, const std::string& name = "n.svm") {
  std::string text;
  for (int i = 0; i < records; ++i)
    text += std::to_string(i) + " 1:" + std::to_string(i) + " 2:" + std::to_string((i * 37) % 11 - 5) + " 3:" +
            std::to_string(0.5 * (i % 3)) + "\n";
  return dir.write(name, text);
}

std::vector<int> record_ids(const Batch& b) {
  std::vector<int> ids;
  for (Index i = 0; i < b.instances(); ++i) ids.push_back(static_cast<int>(b.y(i)));
  return ids;
}

}  // namespace

TEST_CASE("the split is a deterministic partition with the requested fractions", "[file_sources][split]") {
  Scratch dir("split");
  const int n = 4000;
  const std::string file = numbered_file(dir, n);
  const Json params = {{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.2}, {"validation_fraction", 0.1},
                       {"design", "dense"}};
  auto s = open_source(params, 9);
  const auto& fs = static_cast<const sources::FileSource&>(*s);
  const std::int64_t train = fs.records_in(sources::Part::train), validation = fs.records_in(sources::Part::validation),
                     test = fs.records_in(sources::Part::test);
  CHECK(train + validation + test == n);
  // Binomial counts: within 4 standard deviations of n p.
  CHECK(std::abs(test - 0.2 * n) < 4 * std::sqrt(n * 0.2 * 0.8));
  CHECK(std::abs(validation - 0.1 * n) < 4 * std::sqrt(n * 0.1 * 0.9));

  const std::vector<int> train_ids = record_ids(test::whole_pass(*s));
  Json serve_validation = params;
  serve_validation["serve"] = "validation";
  auto v = open_source(serve_validation, 9);
  const std::vector<int> validation_ids = record_ids(test::whole_pass(*v));
  const std::vector<int> test_ids = record_ids(*s->test_set());
  std::set<int> all(train_ids.begin(), train_ids.end());
  all.insert(validation_ids.begin(), validation_ids.end());
  all.insert(test_ids.begin(), test_ids.end());
  CHECK(static_cast<int>(train_ids.size() + validation_ids.size() + test_ids.size()) == n);
  CHECK(static_cast<int>(all.size()) == n);  // disjoint and complete

  // Each record's part depends on (record number, seed) only.
  for (int i = 0; i < 50; ++i) {
    const bool in_test = std::find(test_ids.begin(), test_ids.end(), i) != test_ids.end();
    CHECK(in_test == (sources::part_of(i, 9, 0.1, 0.2) == sources::Part::test));
  }
  auto other_seed = open_source(params, 10);
  CHECK(record_ids(*other_seed->test_set()) != test_ids);
  auto same_seed = open_source(params, 9);
  CHECK(record_ids(*same_seed->test_set()) == test_ids);
}

TEST_CASE("batch sizes do not change the stream; rewind replays it", "[file_sources][stream]") {
  Scratch dir("batches");
  const std::string file = numbered_file(dir, 500);
  const Json params = {{"name", "libsvm"}, {"file", file}, {"design", "dense"}};
  auto a = open_source(params), b = open_source(params);
  const Batch whole_a = test::whole_pass(*a, 1000), whole_b = test::whole_pass(*b, 13);
  CHECK(whole_a.y == whole_b.y);
  CHECK(whole_a.left.dense == whole_b.left.dense);
  CHECK(a->samples_drawn() == *a->size());
  CHECK(a->next(10).empty());
  a->rewind();
  CHECK(test::whole_pass(*a, 64).y == whole_a.y);
}

TEST_CASE("the shuffle buffer permutes within a bounded window", "[file_sources][stream]") {
  Scratch dir("shuffle");
  const int n = 3000;
  const std::string file = numbered_file(dir, n);
  const Json params = {{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.0}, {"shuffle_buffer", 100}};
  auto s = open_source(params);
  const std::vector<int> first = record_ids(test::whole_pass(*s, 256));
  std::vector<int> sorted = first;
  std::sort(sorted.begin(), sorted.end());
  std::vector<int> expected(n);
  std::iota(expected.begin(), expected.end(), 0);
  CHECK(sorted == expected);  // a permutation of the file
  CHECK(first != expected);
  // A record leaves at most (buffer − 1) places ahead of its file position: the buffer is bounded.
  for (int position = 0; position < n; ++position) CHECK(first[position] <= position + 99);
  // Another pass is shuffled afresh, reproducibly for the seed.
  s->rewind();
  const std::vector<int> second = record_ids(test::whole_pass(*s, 256));
  CHECK(second != first);
  CHECK(record_ids(test::whole_pass(*open_source(params), 256)) == first);
}

TEST_CASE("standardisation uses training statistics only", "[file_sources][standardize]") {
  Scratch dir("standardize");
  const std::string file = numbered_file(dir, 2000);
  const Json params = {{"name", "libsvm"}, {"file", file}, {"design", "dense"}, {"standardize", "center_scale"},
                       {"test_fraction", 0.25}};
  auto s = open_source(params);
  const Batch train = test::whole_pass(*s, 300);
  const Matrix& X = train.left.dense;
  const double n = static_cast<double>(X.cols());
  for (Index j = 0; j < X.rows(); ++j) {
    const double mean = X.row(j).mean();
    const double variance = (X.row(j).array() - mean).square().sum() / n;
    CHECK(std::abs(mean) < 1e-12);
    CHECK(variance == Approx(1.0).epsilon(1e-12));
  }
  // The test part is transformed with the training statistics: its first feature (the record
  // number, uniform over the file) is near 0 in mean but not exactly.
  const auto& fs = static_cast<const sources::FileSource&>(*s);
  const Matrix& T = s->test_set()->left.dense;
  const Vector raw_test_first = T.row(0).transpose().array() / fs.feature_scale()(0) + fs.feature_mean()(0);
  for (Index i = 0; i < T.cols(); ++i) CHECK(raw_test_first(i) == Approx(s->test_set()->y(i)).margin(1e-9));
  CHECK(std::abs(T.row(0).mean()) > 1e-12);

  // "scale" keeps sparse designs sparse and only divides by the std.
  Json sparse = params;
  sparse["design"] = "sparse";
  sparse["standardize"] = "scale";
  auto sp = open_source(sparse);
  const Batch st = test::whole_pass(*sp, 300);
  REQUIRE(st.left.kind == DesignSide::Kind::sparse);
  const Matrix dense = st.left.to_dense();
  CHECK((dense.row(0).array() / static_cast<const sources::FileSource&>(*sp).feature_scale()(0) -
         st.y.transpose().array()).abs().maxCoeff() < 1e-9);
}

TEST_CASE("a test part larger than test_cap is subsampled uniformly", "[file_sources][split]") {
  Scratch dir("cap");
  const std::string file = numbered_file(dir, 5000);
  auto s = open_source({{"name", "libsvm"}, {"file", file}, {"test_fraction", 0.5}, {"test_cap", 200}});
  const auto& fs = static_cast<const sources::FileSource&>(*s);
  CHECK(fs.records_in(sources::Part::test) > 2000);
  const std::vector<int> ids = record_ids(*s->test_set());
  CHECK(ids.size() == 200);
  // Uniform over the file: the mean record number is near 2500 (sd of the mean ≈ 1443/√200 ≈ 102).
  double mean = 0.0;
  for (int id : ids) mean += id / 200.0;
  CHECK(std::abs(mean - 2500.0) < 4 * 102.0);
  for (int id : ids) CHECK(sources::part_of(id, 5, 0.0, 0.5) == sources::Part::test);
}

TEST_CASE("one-bit single-label view: y says whether the asked label is one of the instance's", "[file_sources][views]") {
  Scratch dir("one_bit");
  // Multi-label records: labels {i mod 5, (i + 1) mod 5} of 10 classes.
  std::string text;
  for (int i = 0; i < 4000; ++i)
    text += std::to_string(i % 5) + "," + std::to_string((i + 1) % 5) + " 1:" + std::to_string(i) + " 2:1\n";
  const std::string file = dir.write("ml.svm", text);
  const Json params = {{"name", "libsvm"}, {"file", file}, {"operator", "single_label"}, {"classes", 10},
                       {"design", "dense"}, {"test_cap", 50}};
  auto s = open_source(params);
  CHECK(s->link() == Link::sign);
  const Batch b = test::whole_pass(*s, 500);
  REQUIRE(b.right->kind == DesignSide::Kind::index);
  double positives = 0.0;
  for (Index i = 0; i < b.instances(); ++i) {
    const int record = static_cast<int>(b.left.dense(0, i));
    const int j = b.right->index(i);
    const bool member = j == record % 5 || j == (record + 1) % 5;
    CHECK(b.y(i) == (member ? 1.0 : -1.0));
    positives += member;
  }
  // Uniform asked label: P(positive) = 2/10.
  const double n = static_cast<double>(b.instances());
  CHECK(std::abs(positives / n - 0.2) < 4 * std::sqrt(0.2 * 0.8 / n));
  // Balanced: 1/2 + 1/2 · (asked among the others never positive) = 1/2.
  Json balanced = params;
  balanced["balance"] = true;
  const Batch c = test::whole_pass(*open_source(balanced), 500);
  const double balanced_positive = (c.y.array() > 0).cast<double>().sum() / static_cast<double>(c.size());
  CHECK(std::abs(balanced_positive - 0.5) < 4 * std::sqrt(0.25 / static_cast<double>(c.size())));
  // The same instance is asked the same label whatever the batch size.
  CHECK(test::whole_pass(*open_source(params), 37).right->index == b.right->index);
  // The test set carries every label, label-major.
  const Batch* t = s->test_set();
  REQUIRE(t->right->kind == DesignSide::Kind::all);
  CHECK(t->size() == 50 * 10);
}

TEST_CASE("asymmetric sensing serves the feature vector on both sides", "[file_sources][views]") {
  const std::string file = (test::source_dir() / "plugins/sources/examples/tiny.csv").string();
  auto s = open_source({{"name", "csv"}, {"file", file}, {"labels", "y"}, {"operator", "asymmetric_rank_one"},
                        {"test_fraction", 0.0}});
  const Batch b = s->next(5);
  REQUIRE(b.right.has_value());
  CHECK(b.right->dense == b.left.dense);
  CHECK(s->shape().d2 == 3);
}
