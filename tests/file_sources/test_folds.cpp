// K-fold cross-validation of the file sources: folds, test_fold, validation_fold, split_seed,
// evaluate_on (docs/plugins/file_sources.md, "Cross-validation").
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

namespace {

/// A csv file whose label is the record number, so a batch tells which records it holds.
std::string numbered_csv(const Scratch& dir, int records) {
  std::string text = "a,b,id\n";
  for (int i = 0; i < records; ++i)
    text += std::to_string(i % 7) + "," + std::to_string((i * 13) % 5) + "," + std::to_string(i) + "\n";
  return dir.write("numbered.csv", text);
}

Json fold_params(const std::string& file, int test_fold) {
  return {{"name", "csv"}, {"file", file}, {"labels", "id"}, {"folds", 5}, {"test_fold", test_fold}, {"split_seed", 11}};
}

std::string config_error_of(const Json& params) {
  try {
    open_source(params);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no ConfigError";
}

}  // namespace

TEST_CASE("the test folds partition the records exactly, whatever the data seed", "[file_sources][folds]") {
  Scratch dir("folds_partition");
  const int n = 2000;
  const std::string file = numbered_csv(dir, n);
  std::set<int> seen;
  std::size_t total = 0;
  for (int t = 0; t < 5; ++t) {
    // A different open seed per fold, as a sweep over data.test_fold gives: split_seed fixes the deal.
    auto s = open_source(fold_params(file, t), /*seed=*/100 + static_cast<std::uint64_t>(t));
    const std::set<int> test_ids = ids(*s->test_set());
    const std::set<int> train_ids = ids(test::whole_pass(*s));
    total += test_ids.size();
    seen.insert(test_ids.begin(), test_ids.end());
    // Train is exactly the complement of the test fold.
    CHECK(train_ids.size() + test_ids.size() == static_cast<std::size_t>(n));
    for (int id : test_ids) CHECK_FALSE(train_ids.count(id));
    for (int id : test_ids) CHECK(sources::fold_of(id, 11, 5) == t);
    // Multinomial fold sizes: within 4 standard deviations of n/5.
    CHECK(std::abs(static_cast<double>(test_ids.size()) - n / 5.0) < 4 * std::sqrt(n * 0.2 * 0.8));
  }
  CHECK(total == static_cast<std::size_t>(n));  // disjoint ...
  CHECK(seen.size() == static_cast<std::size_t>(n));  // ... and covering
}

TEST_CASE("folds are deterministic in split_seed and change with it", "[file_sources][folds]") {
  Scratch dir("folds_seed");
  const std::string file = numbered_csv(dir, 500);
  const std::set<int> a = ids(*open_source(fold_params(file, 2), 1)->test_set());
  const std::set<int> b = ids(*open_source(fold_params(file, 2), 2)->test_set());
  CHECK(a == b);
  Json other = fold_params(file, 2);
  other["split_seed"] = 12;
  const std::set<int> c = ids(*open_source(other, 1)->test_set());
  CHECK(a != c);
  // Without folds, split_seed also fixes the fraction split.
  const Json fractions = {{"name", "csv"}, {"file", file}, {"labels", "id"}, {"split_seed", 4}};
  CHECK(ids(*open_source(fractions, 1)->test_set()) == ids(*open_source(fractions, 9)->test_set()));
}

TEST_CASE("a validation fold is disjoint from the test fold, served or evaluated on", "[file_sources][folds]") {
  Scratch dir("folds_validation");
  const int n = 1000;
  const std::string file = numbered_csv(dir, n);
  Json params = fold_params(file, 1);
  params["validation_fold"] = 3;
  auto s = open_source(params, 7);
  const auto& fs = static_cast<const sources::FileSource&>(*s);
  const std::set<int> test_ids = ids(*s->test_set());
  const std::set<int> train_ids = ids(test::whole_pass(*s));
  for (int id : test_ids) CHECK(sources::fold_of(id, 11, 5) == 1);
  for (int id : train_ids) CHECK((sources::fold_of(id, 11, 5) != 1 && sources::fold_of(id, 11, 5) != 3));

  params["serve"] = "validation";
  auto served = open_source(params, 7);
  const std::set<int> validation_ids = ids(test::whole_pass(*served));
  CHECK(static_cast<std::int64_t>(validation_ids.size()) == fs.records_in(sources::Part::validation));
  for (int id : validation_ids) CHECK(sources::fold_of(id, 11, 5) == 3);
  CHECK(train_ids.size() + test_ids.size() + validation_ids.size() == static_cast<std::size_t>(n));

  // evaluate_on "validation": test_set() holds the validation fold; training is unchanged.
  params["serve"] = "train";
  params["evaluate_on"] = "validation";
  auto selecting = open_source(params, 7);
  CHECK(ids(*selecting->test_set()) == validation_ids);
  CHECK(ids(test::whole_pass(*selecting)) == train_ids);
}

TEST_CASE("fold parameters are checked with the JSON path", "[file_sources][folds][errors]") {
  Scratch dir("folds_errors");
  const std::string file = numbered_csv(dir, 50);
  Json p = fold_params(file, 5);
  CHECK_THAT(config_error_of(p), Contains("/test_fold") && Contains("[0, 5)") && Contains("found 5"));
  p = fold_params(file, 0);
  p["validation_fold"] = 7;
  CHECK_THAT(config_error_of(p), Contains("/validation_fold") && Contains("[0, 5)"));
  p["validation_fold"] = 0;
  CHECK_THAT(config_error_of(p), Contains("/validation_fold") && Contains("differ from test_fold"));
  p = fold_params(file, 0);
  p.erase("split_seed");
  CHECK_THAT(config_error_of(p), Contains("/split_seed") && Contains("fixed split_seed"));
  p = fold_params(file, 0);
  p.erase("test_fold");
  CHECK_THAT(config_error_of(p), Contains("/test_fold") && Contains("needs test_fold"));
  p = {{"name", "csv"}, {"file", file}, {"labels", "id"}, {"test_fold", 1}};
  CHECK_THAT(config_error_of(p), Contains("/test_fold") && Contains("need folds"));
  p = fold_params(file, 0);
  p["evaluate_on"] = "validation";
  CHECK_THAT(config_error_of(p), Contains("/evaluate_on") && Contains("validation_fold"));
  p = fold_params(file, 0);
  p["validation_fraction"] = 0.1;
  CHECK_THAT(config_error_of(p), Contains("/validation_fraction") && Contains("not both"));
  p = fold_params(file, 0);
  p["folds"] = 2;
  p["validation_fold"] = 1;
  CHECK_THAT(config_error_of(p), Contains("/folds") && Contains("no fold is left to train on"));
  p = fold_params(file, 0);
  p["folds"] = 1;  // the schema's bound
  CHECK_THROWS_AS(open_source(p), ConfigError);
  p = {{"name", "csv"}, {"file", file}, {"labels", "id"}, {"validation_fraction", 0.2}, {"serve", "validation"},
       {"evaluate_on", "validation"}};
  CHECK_THAT(config_error_of(p), Contains("/evaluate_on") && Contains("both"));
}
