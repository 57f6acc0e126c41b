// The shared starts (docs/plugins/initializers.md): each gives a model of the data's shape that an
// estimator runs from, through gfm_one_pass's `init`; near_truth's distance is exact; warm_start
// continues from a model `rankone model` wrote; the refusals name the JSON path.
#include <catch2/catch.hpp>

#include <algorithm>

#include "rankone/store/results_store.hpp"
#include "rankone/store/saved_model.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;
namespace fs = std::filesystem;

namespace {

Json gfm_source(const std::string& op = "symmetric_rank_one") {
  return Json{{"name", "synthetic"}, {"d", 20}, {"rank", 2}, {"truth", op == "symmetric_rank_one" ? "symmetric" : "general"},
              {"operator", op}};
}

Json gfm(const Json& init, int iterations = 25) {
  Json e{{"name", "gfm_one_pass"}, {"rank", 2}, {"batch_size", 1500}, {"max_iterations", iterations}, {"tolerance", 0}};
  if (!init.is_null()) e["init"] = init;
  return e;
}

/// The start of `init_ref` on `source_ref` (opened with seed 3), for rank 2.
Start start_of(const Json& source_ref, const Json& init_ref) {
  auto data = test::make<DataSource>(source_ref, Kind::data_source);
  data->open(3);
  auto init = test::make<Initializer>(init_ref, Kind::initializer);
  StartRequest request;
  request.rank = 2;
  request.first_order = true;
  request.batch_size = 1000;
  request.read = [&](Index n) { return data->next(n); };
  Rng rng(4);
  return init->initialize(*data, request, rng);
}

double relative_error(const Estimate& e, const GroundTruth& truth) {
  return (e.dense() - truth.dense()).norm() / truth.dense().norm();
}

}  // namespace

TEST_CASE("spectral_init is gfm_one_pass's start: the default, named or with the estimator's batch, is one run",
          "[initializers]") {
  const auto by_default = test::run_stepwise(gfm_source(), gfm(Json()), 7);
  const auto named = test::run_stepwise(gfm_source(), gfm("spectral_init"), 7);
  const auto explicit_batch = test::run_stepwise(gfm_source(), gfm({{"name", "spectral_init"}, {"batch_size", 1500}}), 7);
  CHECK(by_default.final_estimate.dense() == named.final_estimate.dense());
  CHECK(by_default.final_estimate.dense() == explicit_batch.final_estimate.dense());
  CHECK(by_default.start_estimate.dense() == named.start_estimate.dense());
}

TEST_CASE("every start leads gfm_one_pass to the planted truth on a noiseless problem", "[initializers]") {
  for (const Json& init : {Json("spectral_init"), Json{{"name", "random_init"}, {"std", 0.1}},
                           Json{{"name", "near_truth"}, {"distance", 0.5}}}) {
    for (const std::string op : {"symmetric_rank_one", "asymmetric_rank_one"}) {
      INFO(init.dump() << " on " << op);
      auto data = test::make<DataSource>(gfm_source(op), Kind::data_source);
      data->open(7);
      const auto run = test::run_stepwise(gfm_source(op), gfm(init, 40), 7);
      CHECK(run.summary.status != Status::failed);
      CHECK(relative_error(run.final_estimate, *data->truth()) < 1e-6);
    }
  }
}

TEST_CASE("gfm_one_pass on u'Mv starts at the start's model, whatever its left factor", "[initializers]") {
  // near_truth's left factor is L Σ^½, not orthonormal: gfm keeps U orthonormal and V = R (L' U).
  auto data = test::make<DataSource>(gfm_source("asymmetric_rank_one"), Kind::data_source);
  data->open(7);
  const auto at_truth = test::run_stepwise(gfm_source("asymmetric_rank_one"), gfm({{"name", "near_truth"}, {"distance", 0.0}}, 0), 7);
  CHECK(relative_error(at_truth.start_estimate, *data->truth()) < 1e-12);
  const auto random = test::run_stepwise(gfm_source("asymmetric_rank_one"), gfm({{"name", "random_init"}, {"std", 0.3}}, 0), 7);
  const Start drawn = [&] {  // the same draw: gfm's rng is seeded from the run's seed
    auto source = test::make<DataSource>(gfm_source("asymmetric_rank_one"), Kind::data_source);
    source->open(7);
    auto init = test::make<Initializer>(Json{{"name", "random_init"}, {"std", 0.3}}, Kind::initializer);
    Rng rng(derive_seed(7, "estimator"));
    StartRequest request;
    request.rank = 2;
    return init->initialize(*source, request, rng);
  }();
  const Matrix M = drawn.model.dense();
  CHECK((random.start_estimate.dense() - M).norm() < 1e-12 * M.norm());
}

TEST_CASE("random_init: N(0, std²) factors from the generator, one factor (right = left) when asked", "[initializers]") {
  for (const bool one_factor : {false, true}) {
    INFO("one_factor " << one_factor);
    auto data = test::make<DataSource>(gfm_source(), Kind::data_source);
    data->open(3);
    auto init = test::make<Initializer>(Json{{"name", "random_init"}, {"std", 0.3}}, Kind::initializer);
    StartRequest request;
    request.rank = 2;
    request.one_factor = one_factor;
    Rng rng(4), same(4);
    const Start s = init->initialize(*data, request, rng);
    REQUIRE(s.ok);
    Matrix L(20, 2), R(20, 2);
    same.fill_normal(L.data(), L.size());
    CHECK(s.model.left == 0.3 * L);
    if (one_factor) {
      CHECK(s.model.right == s.model.left);
      CHECK(rng() == same());  // one factor drawn: the generators are at the same place
    } else {
      same.fill_normal(R.data(), R.size());
      CHECK(s.model.right == 0.3 * R);
    }
  }
}

TEST_CASE("near_truth: distance 0 is the truth, and each factor moves by exactly the distance", "[initializers]") {
  for (const std::string op : {"symmetric_rank_one", "asymmetric_rank_one"}) {
    INFO(op);
    auto data = test::make<DataSource>(gfm_source(op), Kind::data_source);
    data->open(3);
    const Start exact = start_of(gfm_source(op), Json{{"name", "near_truth"}, {"distance", 0.0}});
    REQUIRE(exact.ok);
    CHECK(relative_error(exact.model, *data->truth()) < 1e-12);
    const Start moved = start_of(gfm_source(op), Json{{"name", "near_truth"}, {"distance", 0.2}});
    CHECK((moved.model.left - exact.model.left).norm() == Approx(0.2 * exact.model.left.norm()).epsilon(1e-12));
    CHECK((moved.model.right - exact.model.right).norm() == Approx(0.2 * exact.model.right.norm()).epsilon(1e-12));
    CHECK(moved.basis.cols() == 2);
  }
}

TEST_CASE("warm_start continues from a model rankone model wrote; a model that does not fit is refused",
          "[initializers][cli]") {
  test::ScratchDir s("warm_start");
  const Json study{{"name", "first"}, {"seed", 2}, {"data", gfm_source("asymmetric_rank_one")},
                   {"estimators", Json::array({gfm(Json(), 3)})}, {"metrics", Json::array({"relative_error_M"})}};
  const auto file = s.write("first.json", study.dump());
  REQUIRE(test::rankone_cli("run " + file.string() + " --out " + (s / "first").string() + " --quiet").code == 0);
  const ResultsStore store(s / "first", ResultsStore::Access::read_only);
  const std::string key = store.trials(false).at(0).key;
  const auto model = test::rankone_cli("model " + (s / "first").string() + " --trial " + key + " --output " +
                                       (s / "model").string());
  INFO(model.text);
  REQUIRE(model.code == 0);
  const Estimate saved = SavedModel::read_folder(s / "model").estimate();

  const Start start = start_of(gfm_source("asymmetric_rank_one"), Json{{"name", "warm_start"}, {"model", (s / "model").string()}});
  REQUIRE(start.ok);
  CHECK(start.model.dense() == saved.dense());
  // gfm_one_pass on u'Mv starts from the start's model itself: its start estimate is the saved one.
  const auto again = test::run_stepwise(gfm_source("asymmetric_rank_one"),
                                        gfm(Json{{"name", "warm_start"}, {"model", (s / "model").string()}}, 3), 2);
  CHECK((again.start_estimate.dense() - saved.dense()).norm() < 1e-12 * saved.dense().norm());
  // What the start chose is among the trial's notes (IterativeEstimator::initial_model).
  CHECK(std::find(again.summary.notes.begin(), again.summary.notes.end(),
                  "warm start from the model in " + (s / "model").string()) != again.summary.notes.end());

  CHECK_THROWS_WITH(start_of(gfm_source("asymmetric_rank_one"), Json{{"name", "warm_start"}, {"model", (s / "none").string()}}),
                    Contains("at /model: ") && Contains("none"));
  Json wider = gfm_source("asymmetric_rank_one");
  wider["d"] = 21;
  CHECK_THROWS_WITH(start_of(wider, Json{{"name", "warm_start"}, {"model", (s / "model").string()}}),
                    Contains("is 20 × 20, the data's matrix is 21 × 21"));
}

TEST_CASE("near_truth without a planted truth, and a start that cannot read its batch, say why", "[initializers]") {
  Json fm_truth = gfm_source();
  fm_truth["truth"] = "fm";
  CHECK_THROWS_WITH(start_of(fm_truth, Json{{"name", "near_truth"}}), Contains("removes its diagonal"));
  Json finite = gfm_source();
  finite["size"] = 500;
  const auto run = test::run_stepwise(finite, gfm({{"name", "spectral_init"}, {"batch_size", 400}}), 1);
  CHECK(run.summary.status == Status::failed);
  CHECK_THAT(run.summary.message, Contains("batch_size 1500 is larger than the finite training set of 500 instances"));
  // Retired names say what to write instead.
  Json old = gfm(Json());
  old["init_tolerance"] = 1e-4;
  CHECK_THROWS_WITH(test::make<Estimator>(old, Kind::estimator), Contains("\"init\": {\"name\": \"spectral_init\", \"tolerance\": t}"));
}
