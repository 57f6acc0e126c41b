// The completion literature's observation model in the `synthetic` source: entries without
// replacement with a minimum per row and column, held-out entries distinct from the training set,
// and condition-controlled spectra (geometric or linear spacing between scale and scale / κ).
#include <catch2/catch.hpp>

#include <cmath>
#include <map>
#include <tuple>
#include <set>
#include <utility>

#include "../../plugins/sources/entry_set.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

Json completion(Index d1, Index d2, Index size, Index min_per_line, Index test_size = 300, Index validation_size = 100) {
  return Json{{"name", "synthetic"},      {"operator", "entry"},
              {"sampler", "one_hot"},     {"d", d1},
              {"d2", d2},                 {"truth", "general"},
              {"rank", 2},                {"size", size},
              {"test_size", test_size},   {"validation_size", validation_size},
              {"entries", "without_replacement"}, {"min_per_line", min_per_line}};
}

std::set<std::pair<Index, Index>> entries_of(const Batch& b) {
  std::set<std::pair<Index, Index>> out;
  for (Index t = 0; t < b.size(); ++t) out.insert({b.left.index(t), b.right->index(t)});
  return out;
}

std::string refusal(const Json& ref) {
  try {
    test::make<DataSource>(ref, Kind::data_source);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "accepted";
}

}  // namespace

TEST_CASE("draw_entries: distinct, the minimum on every line, held-out entries apart", "[synthetic][entries]") {
  // Sparse sets (rejection) and dense ones (a shuffle of the rest), with and without a minimum.
  for (const auto& [d1, d2, count, m, held_out] : std::vector<std::tuple<Index, Index, Index, Index, Index>>{
           {40, 30, 400, 3, 50}, {40, 30, 1000, 5, 50}, {12, 9, 50, 2, 50}, {5, 5, 10, 1, 10}, {30, 30, 850, 0, 50}}) {
    INFO(d1 << " × " << d2 << ", " << count << " entries, " << m << " per line, " << held_out << " held out");
    Rng rng(11);
    const sources::EntrySet set = sources::draw_entries(rng, d1, d2, count, m, held_out);
    REQUIRE(set.size() == count + held_out);
    std::set<std::pair<Index, Index>> distinct;
    std::map<Index, Index> per_row, per_col;
    for (Index t = 0; t < set.size(); ++t) {
      CHECK(distinct.insert({set.rows(t), set.cols(t)}).second);
      CHECK((set.rows(t) >= 0 && set.rows(t) < d1 && set.cols(t) >= 0 && set.cols(t) < d2));
      if (t < count) {
        ++per_row[set.rows(t)];
        ++per_col[set.cols(t)];
      }
    }
    for (Index i = 0; i < d1 && m > 0; ++i) CHECK(per_row[i] >= m);
    for (Index j = 0; j < d2 && m > 0; ++j) CHECK(per_col[j] >= m);
  }
  Rng rng(3);
  CHECK_THROWS_AS(sources::draw_entries(rng, 10, 10, 30, 2, 0), std::invalid_argument);   // < m (d1 + d2)
  CHECK_THROWS_AS(sources::draw_entries(rng, 10, 10, 90, 1, 11), std::invalid_argument);  // > d1 d2
}

TEST_CASE("draw_entries: beyond the minimum the entries are uniform", "[synthetic][entries]") {
  // 6 × 5 = 30 cells, 12 entries and no minimum, 20 000 draws: each cell is taken with probability
  // 12/30 = 0.4; the standard error of a frequency is 0.0035, and 5 of them bound every cell.
  std::vector<double> hits(30, 0.0);
  const int draws = 20000;
  for (int r = 0; r < draws; ++r) {
    Rng rng(derive_seed(5, "draw/" + std::to_string(r)));
    const sources::EntrySet set = sources::draw_entries(rng, 6, 5, 12, 0, 0);
    for (Index t = 0; t < set.size(); ++t) hits[static_cast<std::size_t>(set.rows(t) * 5 + set.cols(t))] += 1.0;
  }
  for (double h : hits) CHECK(std::abs(h / draws - 0.4) < 5 * std::sqrt(0.4 * 0.6 / draws));
}

TEST_CASE("synthetic: entries without replacement serve the training set once, its held-out parts apart",
          "[synthetic][entries]") {
  auto source = test::make<DataSource>(completion(40, 30, 600, 4), Kind::data_source);
  source->open(9);
  const Batch first = source->next(250), second = source->next(1000);
  CHECK(first.size() == 250);
  CHECK(second.size() == 350);  // a finite set of `size` entries
  Batch all = first;
  all.append(second);
  const auto train = entries_of(all);
  CHECK(train.size() == 600);  // all distinct
  std::map<Index, int> rows, cols;
  for (const auto& [i, j] : train) {
    ++rows[i];
    ++cols[j];
  }
  CHECK(rows.size() == 40);
  CHECK(cols.size() == 30);
  for (const auto& [i, n] : rows) CHECK(n >= 4);
  for (const auto& [j, n] : cols) CHECK(n >= 4);
  const auto test = entries_of(*source->test_set()), validation = entries_of(*source->validation_set());
  CHECK(test.size() == 300);
  CHECK(validation.size() == 100);
  for (const auto& e : test) CHECK((!train.count(e) && !validation.count(e)));
  for (const auto& e : validation) CHECK(!train.count(e));
  // The responses are the planted entries.
  const Matrix M = source->truth()->dense();
  for (Index t = 0; t < first.size(); ++t) CHECK(first.y(t) == Approx(M(first.left.index(t), first.right->index(t))));
  // The same seed, the same set; rewinding replays it.
  auto again = test::make<DataSource>(completion(40, 30, 600, 4), Kind::data_source);
  again->open(9);
  CHECK(entries_of(again->next(600)) == train);
  source->rewind();
  CHECK(entries_of(source->next(250)) == entries_of(first));
}

TEST_CASE("synthetic: a generated spectrum falls geometrically or linearly from scale to scale / κ", "[synthetic]") {
  auto spectrum = [](const std::string& spacing) {
    auto source = test::make<DataSource>(Json{{"name", "synthetic"}, {"d", 20}, {"rank", 5}, {"truth", "psd"},
                                              {"scale", 2.0}, {"condition_number", 10.0}, {"spacing", spacing}},
                                         Kind::data_source);
    source->open(4);
    Eigen::SelfAdjointEigenSolver<Matrix> eig(source->truth()->dense());
    return Vector(eig.eigenvalues().reverse().head(5));
  };
  const Vector geometric = spectrum("geometric"), linear = spectrum("linear");
  for (Index i = 0; i < 5; ++i) {
    CHECK(geometric(i) == Approx(2.0 * std::pow(10.0, -static_cast<double>(i) / 4.0)).epsilon(1e-10));
    CHECK(linear(i) == Approx(2.0 - static_cast<double>(i) * (2.0 - 0.2) / 4.0).epsilon(1e-10));
  }
}

TEST_CASE("synthetic: what entries without replacement need is refused naming the parameter", "[synthetic][entries]") {
  Json no_size = completion(40, 30, 600, 0);
  no_size.erase("size");
  CHECK_THAT(refusal(no_size), Contains("at /entries: violated constraint on /entries and /size"));
  Json with_replacement = completion(40, 30, 600, 2);
  with_replacement["entries"] = "with_replacement";
  CHECK_THAT(refusal(with_replacement), Contains("at /min_per_line: violated constraint on /min_per_line and /entries"));
  CHECK_THAT(refusal(completion(40, 30, 200, 4)), Contains("at /size: 200 entries cannot hold min_per_line = 4"));
  CHECK_THAT(refusal(completion(10, 10, 90, 0)), Contains("at /size: size + test_size + validation_size = 490 distinct"));
  CHECK_THAT(refusal(completion(10, 10, 60, 11, 10, 10)), Contains("at /min_per_line: a line of the 10 × 10 matrix"));
  Json dense = completion(40, 30, 600, 0);
  dense["operator"] = "asymmetric_rank_one";
  dense["sampler"] = "gaussian";
  CHECK_THAT(refusal(dense), Contains("at /entries: entries are drawn without replacement for an entry operator"));
  CHECK_THAT(refusal(Json{{"name", "synthetic"}, {"d", 10}, {"eigenvalues", {1.0, 0.5}}, {"spacing", "linear"}}),
             Contains("at /spacing: violated constraint on /spacing and /eigenvalues"));
}
