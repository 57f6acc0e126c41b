// The finite-data defaults (BatchReader::choose): batch_size and passes left unset follow a finite
// source's size, explicit values are obeyed, an endless source keeps 10 000 and one pass, and the
// choice is a note of the trial.
#include <catch2/catch.hpp>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

Json small_source(std::optional<Index> size) {
  Json ref{{"name", "synthetic"},
           {"d", 20},
           {"rank", 2},
           {"eigenvalues", {1.0, -0.7}},
           {"operator", {{"name", "symmetric_rank_one"}, {"first_order", false}}}};
  if (size) ref["size"] = *size;
  return ref;
}

std::unique_ptr<DataSource> open(const Json& ref) {
  auto data = test::make<DataSource>(ref, Kind::data_source);
  data->open(1);
  return data;
}

struct DefaultsRun {
  Summary summary;
  Index samples = 0;
};

DefaultsRun run_defaults(const Json& source_ref, const Json& estimator_ref) {
  auto source = open(source_ref);
  auto estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(1, "estimator"));
  estimator->start(*source, rng);
  while (estimator->step(*source)) {
  }
  return DefaultsRun{estimator->summary(), source->samples_drawn()};
}

}  // namespace

TEST_CASE("BatchReader::choose: the rule's numbers", "[gfm][batches]") {
  const int T = 30;
  SECTION("30 000 instances, minimum 400: N / (T + 1) = 967 per batch, one pass") {
    auto data = open(small_source(30000));
    const BatchReader::Plan plan = BatchReader::choose(*data, std::nullopt, std::nullopt, T, 400, "gfm_one_pass");
    CHECK(plan.batch_size == 967);
    CHECK(plan.passes == 1);
    CHECK(plan.note ==
          "gfm_one_pass: batch_size 967 and passes 1 chosen from the 30000 training instances (max(10·d·k = 400, "
          "N / (T + 1) = 967), at most 10000 and N; passes: the fewest that supply T + 1 = 31 batches); set "
          "batch_size and passes to override");
  }
  SECTION("the moment estimates' minimum wins over N / (T + 1); passes supply the T + 1 batches") {
    auto data = open(small_source(30000));
    const BatchReader::Plan plan = BatchReader::choose(*data, std::nullopt, std::nullopt, T, 3000, "gfm_one_pass");
    CHECK(plan.batch_size == 3000);
    CHECK(plan.passes == 4);  // 31 × 3000 = 93 000 instances = 3.1 passes
  }
  SECTION("a large file: at most 10 000 per batch") {
    auto data = open(small_source(1000000));
    const BatchReader::Plan plan = BatchReader::choose(*data, std::nullopt, std::nullopt, T, 400, "ifm");
    CHECK(plan.batch_size == 10000);
    CHECK(plan.passes == 1);
  }
  SECTION("a file smaller than the minimum: the whole file per batch") {
    auto data = open(small_source(300));
    const BatchReader::Plan plan = BatchReader::choose(*data, std::nullopt, std::nullopt, T, 400, "ifm");
    CHECK(plan.batch_size == 300);
    CHECK(plan.passes == 31);
  }
  SECTION("an endless source: 10 000 and one pass, no note") {
    auto data = open(small_source(std::nullopt));
    const BatchReader::Plan plan = BatchReader::choose(*data, std::nullopt, std::nullopt, T, 400, "gfm_one_pass");
    CHECK(plan.batch_size == 10000);
    CHECK(plan.passes == 1);
    CHECK(plan.note.empty());
  }
  SECTION("explicit values are obeyed") {
    auto data = open(small_source(30000));
    const BatchReader::Plan both = BatchReader::choose(*data, Index{500}, Index{2}, T, 400, "gfm_one_pass");
    CHECK(both.batch_size == 500);
    CHECK(both.passes == 2);
    CHECK(both.note.empty());
    const BatchReader::Plan batch = BatchReader::choose(*data, Index{12000}, std::nullopt, T, 400, "gfm_one_pass");
    CHECK(batch.batch_size == 12000);
    CHECK(batch.passes == 1);  // the papers' one pass when only batch_size is given
    CHECK(batch.note.empty());
    const BatchReader::Plan passes = BatchReader::choose(*data, std::nullopt, Index{3}, T, 400, "gfm_one_pass");
    CHECK(passes.batch_size == 967);
    CHECK(passes.passes == 3);
    CHECK(passes.note ==
          "gfm_one_pass: batch_size 967 chosen from the 30000 training instances (max(10·d·k = 400, N / (T + 1) = "
          "967), at most 10000 and N); set batch_size and passes to override");
  }
}

TEST_CASE("gfm_one_pass on a finite source: the default batch gives the iteration budget, and says so", "[gfm][batches]") {
  const Json estimator{{"name", "gfm_one_pass"}, {"rank", 2}, {"max_iterations", 30}, {"tolerance", 0.0}};
  const DefaultsRun finite = run_defaults(small_source(30000), estimator);
  CHECK(finite.summary.iterations == 30);  // with batch_size 10 000 it was 2
  CHECK(finite.samples == 31 * 967);
  REQUIRE_FALSE(finite.summary.notes.empty());
  CHECK_THAT(finite.summary.notes[0], Catch::StartsWith("gfm_one_pass: batch_size 967 and passes 1 chosen from the "
                                                        "30000 training instances"));

  Json explicit_batch = estimator;
  explicit_batch["batch_size"] = 10000;
  const DefaultsRun obeyed = run_defaults(small_source(30000), explicit_batch);
  CHECK(obeyed.summary.iterations == 2);
  CHECK(obeyed.summary.notes.empty());

  Json short_budget = estimator;
  short_budget["max_iterations"] = 2;
  const DefaultsRun endless = run_defaults(small_source(std::nullopt), short_budget);
  CHECK(endless.samples == 3 * 10000);  // unchanged: 10 000 per batch on an endless source
  CHECK(endless.summary.notes.empty());
}

TEST_CASE("fm_moment_elimination and ifm on a finite source: the same rule", "[gfm][batches]") {
  for (const char* name : {"fm_moment_elimination", "ifm"}) {
    INFO(name);
    Json source{{"name", "synthetic"}, {"d", 10}, {"rank", 1}, {"size", 20000},
                {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
    const Json estimator{{"name", name}, {"rank", 1}, {"max_iterations", 9}, {"tolerance", 0.0}};
    const DefaultsRun r = run_defaults(source, estimator);
    bool noted = false;
    for (const std::string& note : r.summary.notes)
      noted = noted || note.find(std::string(name) + ": batch_size 2000 and passes 1 chosen from the 20000") == 0;
    CHECK(noted);
  }
}
