// One-bit observations as LEML keeps them: a feature file and `row label answer` lines
// (parameter observations). Each observation is one measurement: the row's features, the asked
// label, the ±1 answer; the test part is held-out observations; scoring a saved model reads the
// feature file alone.
#include <catch2/catch.hpp>

#include "file_support.hpp"

using namespace rankone;
using namespace rankone::test;
using Catch::Matchers::Contains;

namespace {

// Three instances of two features; four labels.
const char* kFeatures = "1:1 2:0\n1:0 2:1\n1:2 2:2\n";

Json source(const std::string& features, const std::string& observations) {
  return Json{{"name", "libsvm"},        {"file", features},       {"observations", observations},
              {"indexing", "one"},       {"operator", "single_label"}, {"classes", 4},
              {"test_fraction", 0.0},    {"design", "dense"}};
}

}  // namespace

TEST_CASE("observations: each line is a measurement of its row's features, label and answer", "[file_sources][observations]") {
  Scratch dir("observations");
  const std::string features = dir.write("x.svm", kFeatures);
  // 1-based rows and labels (LEML's), in any order, blank- or comma-separated; the answer's sign.
  const std::string observations = dir.write("y.txt", "3 1 1\n1 4 -1\n2,2,-3\n\n3 4 1\n");
  auto s = test::make<DataSource>(source(features, observations), Kind::data_source);
  s->open(1);
  CHECK(s->shape().d1 == 2);
  CHECK(s->shape().d2 == 4);
  CHECK(*s->size() == 4);
  const Batch b = s->next(10);
  REQUIRE(b.instances() == 4);
  REQUIRE(b.right);
  CHECK(b.right->kind == DesignSide::Kind::index);
  CHECK(std::vector<Index>{b.right->index(0), b.right->index(1), b.right->index(2), b.right->index(3)} == std::vector<Index>{0, 3, 1, 3});
  CHECK(b.y == Vector((Vector(4) << 1, -1, -1, 1).finished()));
  const Matrix& X = b.left.dense;
  CHECK(X.col(0) == Vector((Vector(2) << 2, 2).finished()));  // row 3
  CHECK(X.col(1) == Vector((Vector(2) << 1, 0).finished()));  // row 1
  CHECK(X.col(2) == Vector((Vector(2) << 0, 1).finished()));  // row 2
  CHECK_THAT(s->notes().front() + s->notes().back(), Contains("4 one-bit observations (row label ±1) of the 3 rows"));
}

TEST_CASE("observations: a held-out part of observations is the test set", "[file_sources][observations]") {
  Scratch dir("observations_test");
  std::string lines;
  for (int i = 0; i < 200; ++i) lines += std::to_string(1 + i % 3) + " " + std::to_string(1 + i % 4) + " " + (i % 2 ? "1" : "-1") + "\n";
  Json p = source(dir.write("x.svm", kFeatures), dir.write("y.txt", lines));
  p["test_fraction"] = 0.25;
  auto s = test::make<DataSource>(p, Kind::data_source);
  s->open(3);
  REQUIRE(s->test_set());
  const Batch& test = *s->test_set();
  CHECK(test.right->kind == DesignSide::Kind::index);  // observed labels only, not every label
  CHECK(test.instances() + *s->size() == 200);
  CHECK(test.instances() > 30);
}

TEST_CASE("observations: malformed lines and impossible combinations are refused, named", "[file_sources][observations]") {
  Scratch dir("observations_bad");
  const std::string features = dir.write("x.svm", kFeatures);
  auto opened = [&](const std::string& lines) {
    auto s = test::make<DataSource>(source(features, dir.write("y.txt", lines)), Kind::data_source);
    s->open(1);
  };
  CHECK_THROWS_WITH(opened("4 1 1\n"), Contains("y.txt:1") && Contains("a row of") && Contains("3 rows"));
  CHECK_THROWS_WITH(opened("1 1 0\n"), Contains("y.txt:1") && Contains("a nonzero answer"));
  CHECK_THROWS_WITH(opened("1 1\n"), Contains("3 fields 'row label answer'"));
  CHECK_THROWS_WITH(opened("0 1 1\n"), Contains("a row number ≥ 1"));
  CHECK_THROWS_WITH(opened("1 5 1\n"), Contains("an observed label below classes = 4"));

  const std::string observations = dir.write("ok.txt", "1 1 1\n");
  Json regression = source(features, observations);
  regression.erase("classes");
  regression["operator"] = "symmetric_rank_one";
  CHECK_THROWS_WITH(test::make<DataSource>(regression, Kind::data_source), Contains("/observations") && Contains("single_label"));
  Json full = source(features, observations);
  full["label_view"] = "full";
  CHECK_THROWS_WITH(test::make<DataSource>(full, Kind::data_source), Contains("/label_view"));
  Json with_test = source(features, observations);
  with_test["test_file"] = features;
  CHECK_THROWS_WITH(test::make<DataSource>(with_test, Kind::data_source), Contains("/test_file"));
}

TEST_CASE("observations: scoring with a saved model reads the feature file, every label", "[file_sources][observations]") {
  Scratch dir("observations_scoring");
  const Json p = source(dir.write("x.svm", kFeatures), dir.write("y.txt", "1 1 1\n2 2 -1\n"));
  auto trained = test::make<DataSource>(p, Kind::data_source);
  trained->open(1);
  auto scoring = test::make<DataSource>(p, Kind::data_source);
  scoring->score_with(trained->preparation());
  scoring->open(0);
  const Batch b = scoring->next(10);
  CHECK(b.instances() == 3);  // the feature file's rows, not the observations
  CHECK(b.right->kind == DesignSide::Kind::all);
}
