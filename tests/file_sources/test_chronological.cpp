// The chronological split of the `ratings` source (train = earliest ratings, test = latest).
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <tuple>

#include "../../plugins/sources/ratings_source.hpp"
#include "file_support.hpp"

using namespace rankone;
using test::open_source;
using test::Scratch;

namespace {

/// `n` ratings in a scrambled time order, timestamps with runs of equal values (t = ⌊π(r)/3⌋ for a
/// permutation π), the rating encoding the timestamp so a served entry tells its time: y = t + 0.5.
std::string scrambled_ratings(int n) {
  std::string text = "userId,movieId,rating,timestamp\n";
  for (int r = 0; r < n; ++r) {
    const int position = (r * 7919) % n;  // 7919 is prime, coprime with n below
    const int t = position / 3;
    text += std::to_string(r % 13) + "," + std::to_string(r % 17) + "," + std::to_string(t + 0.5) + "," +
            std::to_string(t) + "\n";
  }
  return text;
}

std::vector<double> times_of(const Batch& b) {
  std::vector<double> t(static_cast<std::size_t>(b.size()));
  for (Index i = 0; i < b.size(); ++i) t[static_cast<std::size_t>(i)] = b.y(i) - 0.5;
  return t;
}

}  // namespace

TEST_CASE("chronological_bounds: fractions of the count, ties kept in the earlier part", "[file_sources][chronological]") {
  const std::vector<double> distinct = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  auto b = sources::chronological_bounds(distinct, 0.1, 0.2);
  CHECK(b.validation_begin == 7);
  CHECK(b.test_begin == 8);
  // Positions 7..9 share a timestamp: the test boundary (8) moves past the run, to 10.
  const std::vector<double> tied = {1, 2, 3, 4, 5, 6, 7, 8, 8, 8};
  b = sources::chronological_bounds(tied, 0.0, 0.2);
  CHECK(b.test_begin == 10);
  CHECK(b.validation_begin == 10);
  b = sources::chronological_bounds(distinct, 0.0, 0.0);
  CHECK(b.test_begin == 10);
}

TEST_CASE("ratings split chronologically: every test rating is later than every training one",
          "[file_sources][chronological]") {
  Scratch dir("chronological");
  const int n = 3001;
  const std::string file = dir.write("r.csv", scrambled_ratings(n));
  const Json params = {{"name", "ratings"},    {"file", file},          {"order", "timestamp"},
                       {"split", "chronological"}, {"test_fraction", 0.2}, {"validation_fraction", 0.1},
                       {"test_cap", 100000}};
  auto s = open_source(params, 3);
  const Batch train = test::whole_pass(*s, 100);
  const Batch& held_out = *s->test_set();
  Json validation_params = params;
  validation_params["serve"] = "validation";
  auto v = open_source(validation_params, 3);
  const Batch validation = test::whole_pass(*v, 100);

  const std::vector<double> train_t = times_of(train), validation_t = times_of(validation), test_t = times_of(held_out);
  // Every rating in exactly one part, the parts in time order, strictly (boundaries inside a run of
  // equal timestamps move to the run's end).
  CHECK(train_t.size() + validation_t.size() + test_t.size() == static_cast<std::size_t>(n));
  CHECK(std::is_sorted(train_t.begin(), train_t.end()));  // served in time order
  CHECK(*std::max_element(train_t.begin(), train_t.end()) < *std::min_element(validation_t.begin(), validation_t.end()));
  CHECK(*std::max_element(validation_t.begin(), validation_t.end()) < *std::min_element(test_t.begin(), test_t.end()));
  // Sizes within one run (3 ratings) of the requested fractions.
  CHECK(std::abs(static_cast<double>(test_t.size()) - 0.2 * n) <= 3.0);
  CHECK(std::abs(static_cast<double>(validation_t.size()) - 0.1 * n) <= 3.0);

  // Deterministic: the same parts under another seed (the split does not use it), and again.
  auto again = open_source(params, 99);
  const Batch train_again = test::whole_pass(*again, 37);
  CHECK(times_of(train_again) == train_t);
  CHECK(times_of(*again->test_set()) == std::vector<double>(test_t));
}

TEST_CASE("a chronological split needs timestamp order", "[file_sources][chronological]") {
  Scratch dir("chronological_order");
  const std::string file = dir.write("r.csv", scrambled_ratings(30));
  CHECK_THROWS_WITH(test::make<DataSource>(Json{{"name", "ratings"}, {"file", file}, {"split", "chronological"}},
                                           Kind::data_source),
                    Catch::Contains("split") && Catch::Contains("timestamp"));
}
