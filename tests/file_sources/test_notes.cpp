// Nothing that changes the data is silent: the file sources note a capped test set, the header they
// read or skipped, remapped ids, the design they chose and standardisation.
#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

#include "file_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

bool has_note(const DataSource& s, const std::string& text) {
  const auto& notes = s.notes();
  return std::any_of(notes.begin(), notes.end(), [&](const std::string& n) { return n.find(text) != std::string::npos; });
}

std::string all_notes(const DataSource& s) {
  std::string text;
  for (const auto& n : s.notes()) text += n + "\n";
  return text;
}

}  // namespace

TEST_CASE("a test set cut by test_cap is noted with both counts", "[file_sources][notes]") {
  test::Scratch dir("notes_cap");
  std::ostringstream train, test;
  for (int i = 0; i < 100; ++i) train << (i % 3) << " 1:" << i << " 2:" << (i % 7) << "\n";
  for (int i = 0; i < 12000; ++i) test << (i % 5) << " 1:" << (i % 11) << " 2:" << (i % 13) << "\n";
  const std::string train_file = dir.write("train.libsvm", train.str());
  const std::string test_file = dir.write("test.libsvm", test.str());
  auto capped = test::open_source({{"name", "libsvm"}, {"file", train_file}, {"test_file", test_file}, {"test_fraction", 0.0}, {"indexing", "one"}});
  INFO(all_notes(*capped));
  CHECK(capped->test_set()->instances() == 10000);
  CHECK(has_note(*capped, "test set capped at 10 000 of 12 000 rows (test_cap"));
  // A sparse format whose rows are full is served dense: a choice the experiment did not spell out.
  CHECK(has_note(*capped, "features served as a dense design (design \"auto\": a sparse format whose rows fill 100 % "
                          "of the 2 columns; dense from 50 %)"));

  auto whole = test::open_source({{"name", "libsvm"}, {"file", train_file}, {"test_file", test_file},
                                  {"test_fraction", 0.0}, {"indexing", "one"}, {"test_cap", 20000}, {"design", "dense"}});
  INFO(all_notes(*whole));
  CHECK(whole->test_set()->instances() == 12000);
  CHECK_FALSE(has_note(*whole, "capped"));
  CHECK_FALSE(has_note(*whole, "design"));
}

TEST_CASE("the header a csv source reads is noted; a ratings header it detects and skips is noted", "[file_sources][notes]") {
  test::Scratch dir("notes_header");
  const std::string csv = dir.write("data.csv", "y,a,b\n1,2,3\n4,5,6\n7,8,9\n");
  auto with_header = test::open_source({{"name", "csv"}, {"file", csv}, {"labels", "y"}});
  INFO(all_notes(*with_header));
  CHECK(has_note(*with_header, "read as the header (3 columns: 'y,a,b')"));
  const std::string bare = dir.write("bare.csv", "1,2,3\n4,5,6\n");
  auto without = test::open_source({{"name", "csv"}, {"file", bare}, {"labels", "0"}, {"header", false}});
  CHECK_FALSE(has_note(*without, "header"));

  const std::string ratings = dir.write("ratings.csv", "userId,movieId,rating\n10,7,4\n20,7,3\n10,9,5\n");
  auto detected = test::open_source({{"name", "ratings"}, {"file", ratings}});
  INFO(all_notes(*detected));
  CHECK(has_note(*detected, "('userId,movieId,rating') is not a rating: skipped as a header"));
  CHECK(has_note(*detected, "user and item ids remapped to 0..1 and 0..1"));
}

TEST_CASE("standardisation applied by a source is noted", "[file_sources][notes]") {
  test::Scratch dir("notes_standardize");
  const std::string csv = dir.write("data.csv", "y,a\n1,2\n4,5\n7,9\n");
  auto s = test::open_source({{"name", "csv"}, {"file", csv}, {"labels", "y"}, {"standardize", "center_scale"}});
  INFO(all_notes(*s));
  CHECK(has_note(*s, "features centred and scaled to unit variance with the statistics of the 3 training rows"));
}

TEST_CASE("design auto serves a sparse format dense when its rows fill half the columns", "[file_sources][notes]") {
  test::Scratch dir("notes_design");
  std::ostringstream sparse, half;
  for (int i = 0; i < 40; ++i) sparse << (i % 3) << " " << (i % 10) << ":1.5\n";            // 1 of 10 columns
  for (int i = 0; i < 40; ++i) half << (i % 3) << " 0:1 2:2 4:3 6:4 " << (8 + i % 2) << ":5\n";  // 5 of 10
  auto s = test::open_source({{"name", "libsvm"}, {"file", dir.write("sparse.libsvm", sparse.str())}, {"test_fraction", 0.0}});
  INFO(all_notes(*s));
  CHECK(has_note(*s, "features served as a sparse design (design \"auto\": a sparse format whose rows fill 10 % of "
                     "the 10 columns; dense from 50 %)"));
  CHECK(s->next(5).left.kind == DesignSide::Kind::sparse);
  auto d = test::open_source({{"name", "libsvm"}, {"file", dir.write("half.libsvm", half.str())}, {"test_fraction", 0.0}});
  INFO(all_notes(*d));
  CHECK(has_note(*d, "features served as a dense design"));
  const Batch b = d->next(5);
  REQUIRE(b.left.kind == DesignSide::Kind::dense);
  CHECK(b.left.dense(0, 0) == 1.0);  // the same values, zeros filled in
  CHECK(b.left.dense(1, 0) == 0.0);
  CHECK(b.left.dense(8, 0) == 5.0);
  CHECK(b.left.dense(9, 0) == 0.0);
  CHECK(b.left.dense(9, 1) == 5.0);
}
