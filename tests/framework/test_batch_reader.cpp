// BatchReader, the one batch rule of the estimators that read fresh batches: every batch has exactly
// the size asked for, a short last batch is dropped and counted, re-use of a finite set only as allowed.
#include <catch2/catch.hpp>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

std::unique_ptr<DataSource> source(std::optional<Index> size) {
  Json ref{{"name", "synthetic"}, {"d", 6}, {"rank", 1}, {"operator", {{"name", "symmetric_rank_one"}}}};
  if (size) ref["size"] = *size;
  auto data = test::make<DataSource>(ref, Kind::data_source);
  data->open(1);
  return data;
}

}  // namespace

TEST_CASE("BatchReader: full batches only; a short last batch is dropped and said", "[framework][batches]") {
  SECTION("endless source: every batch is full and fresh") {
    auto data = source(std::nullopt);
    BatchReader reader;
    for (int i = 0; i < 3; ++i) CHECK(reader.next(*data, 700).instances() == 700);
    CHECK_FALSE(reader.ended());
    CHECK(reader.dropped() == 0);
  }
  SECTION("finite source, one pass: 10 500 = 5 × 2000 + 500 dropped") {
    auto data = source(10500);
    BatchReader reader;
    for (int i = 0; i < 5; ++i) CHECK(reader.next(*data, 2000).instances() == 2000);
    CHECK(reader.next(*data, 2000).instances() == 0);
    CHECK(reader.ended());
    CHECK(reader.dropped() == 500);
    CHECK(reader.next(*data, 10).instances() == 0);  // ended stays ended, even for a smaller request
    CHECK(reader.exhausted_message(*data, 4) ==
          "one pass over the data: the source ran out after 10500 samples (4 iterations; the partial last batch "
          "of 500 instances is not used)");
    CHECK(reader.dropped_note("ifm", 2000) ==
          "ifm: the partial last batch of 500 instances was not used (every batch has batch_size = 2000 instances)");
    CHECK(reader.reuse_note(*data).empty());
  }
  SECTION("finite source, passes = 3: batches straddle the pass boundary, nothing dropped") {
    auto data = source(10000);
    BatchReader reader(3);
    int batches = 0;
    while (reader.next(*data, 3000).instances() == 3000) ++batches;
    CHECK(batches == 10);  // 30 000 instances
    CHECK(reader.dropped() == 0);
    CHECK(reader.passes_started() == 3);
    CHECK(reader.dropped_note("gfm_one_pass", 3000).empty());
    CHECK(reader.exhausted_message(*data, 9) ==
          "3 passes over the data (passes = 3): the source ran out after 30000 samples (9 iterations)");
    CHECK(reader.reuse_note(*data) == "; re-used the finite training set (3 passes over 10000 instances, as allowed by "
                                      "passes = 3)");
  }
  SECTION("a finite source smaller than one batch gives no batch at all") {
    auto data = source(1000);
    BatchReader reader;
    CHECK(reader.next(*data, 2000).instances() == 0);
    CHECK(reader.dropped() == 1000);
  }
}

TEST_CASE("BatchReader::refusal: a batch larger than a finite set is refused, naming the parameter",
          "[framework][batches]") {
  auto finite = source(300);
  CHECK(BatchReader::refusal(*finite, 300, "batch_size").empty());
  CHECK(BatchReader::refusal(*finite, 301, "init_batch_size") ==
        "init_batch_size 301 is larger than the finite training set of 300 instances (a batch would hold some of them "
        "twice): lower it");
  CHECK(BatchReader::refusal(*source(std::nullopt), 1000000, "batch_size").empty());  // endless: any size
}
