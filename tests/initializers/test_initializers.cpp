// The shared starts (docs/plugins/initializers.md): each gives a model of the data's shape that an
// estimator runs from, through gfm_one_pass's `init`; near_truth's distance is exact; warm_start
// continues from a model `rankone model` wrote; the refusals name the JSON path.
#include <catch2/catch.hpp>

#include <algorithm>
#include <vector>

#include "rankone/estimation/spectral.hpp"
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

/// The start of `init_ref` on `source_ref` (opened with seed 3), for rank 2 (0: an estimator without one).
Start start_of(const Json& source_ref, const Json& init_ref, Index rank = 2) {
  auto data = test::make<DataSource>(source_ref, Kind::data_source);
  data->open(3);
  auto init = test::make<Initializer>(init_ref, Kind::initializer);
  StartRequest request;
  request.rank = rank;
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

TEST_CASE("zero_init is the zero matrix; a request without a rank keeps the truth's and refuses drawn starts",
          "[initializers]") {
  const Start zero = start_of(gfm_source(), "zero_init");
  REQUIRE(zero.ok);
  CHECK(zero.model.rank() == 2);
  CHECK(zero.model.left.isZero(0.0));
  CHECK(zero.model.right.isZero(0.0));
  CHECK(start_of(gfm_source(), "zero_init", 0).model.rank() == 0);
  Json rank3 = gfm_source("asymmetric_rank_one");
  rank3["rank"] = 3;
  const Start planted = start_of(rank3, Json{{"name", "near_truth"}, {"distance", 0.0}}, 0);
  REQUIRE(planted.ok);
  CHECK(planted.model.rank() == 3);
  // An estimator that starts from the start's column space refuses 0, which spans none.
  const auto subspace = test::run_stepwise(gfm_source(), gfm("zero_init"), 7);
  CHECK(subspace.summary.status == Status::failed);
  CHECK_THAT(subspace.summary.message, Contains("the start's left factor is zero and spans no subspace"));
  for (const char* drawn : {"random_init", "spectral_init"}) {
    const Start s = start_of(gfm_source(), drawn, 0);
    CHECK_FALSE(s.ok);
    CHECK_THAT(s.failure, Contains("has no rank") && Contains("use zero_init, warm_start or near_truth"));
  }
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

TEST_CASE("random_init without a std draws with the estimator's; solves_left_first starts the left at 0", "[initializers]") {
  auto data = test::make<DataSource>(gfm_source("asymmetric_rank_one"), Kind::data_source);
  data->open(3);
  const auto start = [&](const Json& init_ref, const StartRequest& request) {
    Rng rng(4);
    return test::make<Initializer>(init_ref, Kind::initializer)->initialize(*data, request, rng);
  };
  StartRequest request;
  request.rank = 2;
  const Start fallback = start("random_init", request);
  CHECK(fallback.model.left == start(Json{{"name", "random_init"}, {"std", 0.1}}, request).model.left);
  CHECK(fallback.note.empty());
  request.random_std = 0.7;
  const Start estimators = start("random_init", request);
  const Start explicit_std = start(Json{{"name", "random_init"}, {"std", 0.7}}, request);
  CHECK(estimators.model.left == explicit_std.model.left);
  CHECK(estimators.model.right == explicit_std.model.right);
  CHECK_THAT(estimators.note, Contains("the estimator's std 0.7"));
  // A std the experiment gives wins over the estimator's.
  CHECK(start(Json{{"name", "random_init"}, {"std", 0.2}}, request).model.left.isApprox(0.2 / 0.7 * estimators.model.left, 1e-14));
  request.solves_left_first = true;
  const Start right_only = start("random_init", request);
  CHECK(right_only.model.left == Matrix::Zero(20, 2));
  CHECK(right_only.model.right == estimators.model.left);  // the same first draw, now the right factor's
}

TEST_CASE("spectral_init for a one-factor estimator takes the largest algebraic eigenpairs, not the largest in magnitude",
          "[initializers]") {
  // x'Mx with M* = U diag(2, -3, 1) U': at rank 2 the magnitude order keeps −3, which has no PSD factor.
  Json source{{"name", "synthetic"}, {"d", 10}, {"rank", 3}, {"truth", "symmetric"},
              {"eigenvalues", {2.0, -3.0, 1.0}}, {"operator", "symmetric_rank_one"}};
  auto data = test::make<DataSource>(source, Kind::data_source);
  data->open(5);
  const Batch batch = data->next(20000);
  const auto values_of = [&](bool one_factor) {
    StartRequest request;
    request.rank = 2;
    request.one_factor = one_factor;
    request.read = [&](Index) { return batch; };
    Rng rng(4);
    const Start s = test::make<Initializer>(Json{{"name", "spectral_init"}, {"tolerance", 1e-12}}, Kind::initializer)
                        ->initialize(*data, request, rng);
    REQUIRE(s.ok);
    // M = B diag(λ) B' with the orthonormal basis B: λ = diag(B' M B).
    const Matrix& U = s.basis;
    const Matrix core = U.transpose() * (s.model.left * s.model.right.transpose()) * U;
    std::vector<double> v{core(0, 0), core(1, 1)};
    std::sort(v.begin(), v.end());
    return v;
  };
  // The dense moment estimate M̂ and its exact eigenvalues (ascending).
  const MomentMaps maps = moment_maps(batch, data->sensing_operator(), data->shape(), batch.y);
  const Matrix dense = maps.times(Matrix::Identity(10, 10));
  const Eigen::SelfAdjointEigenSolver<Matrix> exact(0.5 * (dense + dense.transpose()));
  const Vector& lambda = exact.eigenvalues();
  REQUIRE(lambda(0) < -2.5);  // the planted −3 leads in magnitude, so the two orders differ
  const std::vector<double> psd = values_of(true), magnitude = values_of(false);
  CHECK(psd[0] == Approx(lambda(8)).margin(1e-8));
  CHECK(psd[1] == Approx(lambda(9)).margin(1e-8));
  CHECK(magnitude[0] == Approx(lambda(0)).margin(1e-8));
  CHECK(magnitude[1] == Approx(lambda(9)).margin(1e-8));
  // In 3 dimensions at rank 3 the third is −3's: with a floor its column keeps that eigenvector, at
  // squared length floor·λ1.
  source["d"] = 3;
  auto small = test::make<DataSource>(source, Kind::data_source);
  small->open(5);
  const Batch three = small->next(20000);
  const MomentMaps small_maps = moment_maps(three, small->sensing_operator(), small->shape(), three.y);
  const Matrix small_dense = small_maps.times(Matrix::Identity(3, 3));
  const Eigen::SelfAdjointEigenSolver<Matrix> small_exact(0.5 * (small_dense + small_dense.transpose()));
  REQUIRE(small_exact.eigenvalues()(0) < -2.5);
  StartRequest request;
  request.rank = 3;
  request.one_factor = true;
  request.psd_floor = 1e-6;
  request.read = [&](Index) { return three; };
  Rng rng(4);
  const Start s = test::make<Initializer>(Json{{"name", "spectral_init"}, {"tolerance", 1e-12}}, Kind::initializer)
                      ->initialize(*small, request, rng);
  REQUIRE(s.ok);
  CHECK(s.model.right == s.model.left);  // one factor: initial_model takes it as it is
  CHECK(s.model.left.col(2).squaredNorm() == Approx(1e-6 * small_exact.eigenvalues()(2)).epsilon(1e-6));
  CHECK(std::abs(s.model.left.col(2).normalized().dot(small_exact.eigenvectors().col(0))) == Approx(1.0).epsilon(1e-8));
}

TEST_CASE("spectral_init takes the estimator's own moment map when it hands one over", "[initializers]") {
  auto data = test::make<DataSource>(gfm_source(), Kind::data_source);
  data->open(3);
  Vector diagonal = Vector::Zero(20);
  diagonal(3) = 1.0;
  diagonal(7) = -4.0;
  diagonal(11) = 2.0;
  StartRequest request;
  request.rank = 2;
  request.batch_size = 100;
  request.read = [&](Index n) { return data->next(n); };
  Index seen = 0;
  request.moment = [&](const Batch& batch) -> LinearMap {
    seen = batch.instances();
    return [diagonal](const Matrix& Z) -> Matrix { return diagonal.asDiagonal() * Z; };
  };
  Rng rng(4);
  const Start s = test::make<Initializer>("spectral_init", Kind::initializer)->initialize(*data, request, rng);
  REQUIRE(s.ok);
  CHECK(seen == 100);                       // built from the batch the start read
  CHECK(s.batch.instances() == 100);
  CHECK(std::abs(s.basis(7, 0)) == Approx(1.0));   // −4 first (largest |value|), then 2
  CHECK(std::abs(s.basis(11, 1)) == Approx(1.0));
  const Matrix M = s.model.left * s.model.right.transpose();
  CHECK(M(7, 7) == Approx(-4.0));
  CHECK(M(11, 11) == Approx(2.0));
}

TEST_CASE("the completion estimators start from any initializer; retired start parameters say what to write",
          "[initializers]") {
  // near_truth at distance 0 is the planted truth: the start of each estimator is then the truth.
  Json entries{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 20}, {"rank", 2},
               {"truth", "psd"}, {"size", 400}};
  const Json at_truth{{"name", "near_truth"}, {"distance", 0.0}};
  for (const char* name : {"als_completion", "sgd_mf", "omc_psd", "omc_general"}) {
    INFO(name);
    Json est{{"name", name}, {"rank", 2}, {"max_iterations", 1}, {"init", at_truth}};
    auto data = test::make<DataSource>(entries, Kind::data_source);
    data->open(7);
    const auto run = test::run_stepwise(entries, est, 7);
    CHECK(relative_error(run.start_estimate, *data->truth()) < 1e-10);
  }
  // The retired names of the start's batch say what to write instead.
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "omc_general"}, {"warm_start_samples", 500}}, Kind::estimator),
                    Contains("\"init\": {\"name\": \"spectral_init\", \"batch_size\": N}"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "one_bit_mll"}, {"init_batch_size", 500}}, Kind::estimator),
                    Contains("\"init\": {\"name\": \"spectral_init\", \"batch_size\": N}"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "sgd_mf"}, {"init", "random"}}, Kind::estimator),
                    Contains("unknown initializer 'random'; did you mean 'random_init'"));
  // warm_start names the stored-model start: the online estimators' start settings are init_*.
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "omc_psd"}, {"warm_start_factor", 2}}, Kind::estimator),
                    Contains("'warm_start_factor' is now called 'init_batch_factor' (write \"init_batch_factor\": 2"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "omc_general"}, {"warm_start_fit", "scale"}}, Kind::estimator),
                    Contains("'warm_start_fit' is now called 'init_fit'"));
}
