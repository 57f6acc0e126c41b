// factored_gd (vanilla factored GD and ScaledGD): step-by-step agreement with the numpy reference
// tests/references/factored_gd.py on the C++ run's own data, for every operator it claims; planted
// truths recovered; ScaledGD's iteration count flat in the condition number while vanilla GD's
// grows (Tong, Ma & Chi 2021, Section 5); refusals.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "agreement.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;
using test::baseline_source;
using test::relative_error;

/// factored_gd for `iterations` steps against tests/references/factored_gd.py.
void check_factored_gd_agreement(const std::string& label, const Json& source_ref, Json estimator, int iterations, double c) {
  estimator["name"] = "factored_gd";
  const bool psd = estimator.value("factorization", "general") == "psd";
  test::check_agreement(label, source_ref, estimator, iterations, c,
                        Json{{"preconditioner", estimator.value("preconditioner", "scaled")},
                             {"factorization", estimator.value("factorization", "general")},
                             {"eta", estimator.value("step_size", psd ? 0.25 : 0.5)}});
}

}  // namespace

TEST_CASE("factored_gd agrees step by step with its numpy reference on every operator", "[factored_gd][reference]") {
  const Json scaled{{"rank", 2}}, vanilla{{"rank", 2}, {"preconditioner", "none"}};
  check_factored_gd_agreement("asymmetric_scaled", baseline_source("asymmetric_rank_one", 12, 9, 600, "general"), scaled, 8, 1.0);
  check_factored_gd_agreement("asymmetric_vanilla", baseline_source("asymmetric_rank_one", 12, 9, 600, "general"), vanilla, 8, 1.0);
  Json psd_scaled = scaled, psd_vanilla = vanilla;
  psd_scaled["factorization"] = "psd";
  psd_vanilla["factorization"] = "psd";
  // Symmetric rank-one sensing: c = ½ (its isotropic scale), the general form on an indefinite truth.
  check_factored_gd_agreement("symmetric_psd_scaled", baseline_source("symmetric_rank_one", 10, 10, 800, "psd"), psd_scaled, 8, 0.5);
  check_factored_gd_agreement("symmetric_general_vanilla", baseline_source("symmetric_rank_one", 10, 10, 800, "symmetric"), vanilla, 8, 0.5);
  check_factored_gd_agreement("entry_scaled", baseline_source("entry", 20, 16, 200, "general"), scaled, 8, 20.0 * 16.0);
  const Json ensemble = baseline_source("gaussian_ensemble", 8, 6, 150, "general");
  check_factored_gd_agreement("ensemble_scaled", ensemble, scaled, 8, 1.0);
  check_factored_gd_agreement("ensemble_vanilla", ensemble, vanilla, 8, 1.0);
  const Json symmetric_ensemble = test::symmetric_ensemble_source(7, 120, "psd");
  check_factored_gd_agreement("symmetric_ensemble_psd_vanilla", symmetric_ensemble, psd_vanilla, 8, 1.0);
}

TEST_CASE("factored_gd recovers planted truths on every operator", "[factored_gd][recovery]") {
  struct Case {
    const char* label;
    Json source;
    Json estimator;
  };
  const Json symmetric_ensemble = test::symmetric_ensemble_source(15, 300, "psd");
  const std::vector<Case> cases{
      {"asymmetric rank-one", baseline_source("asymmetric_rank_one", 30, 20, 1500, "general"), Json{{"rank", 2}}},
      {"symmetric rank-one, psd", baseline_source("symmetric_rank_one", 20, 20, 1200, "psd"), Json{{"rank", 2}, {"factorization", "psd"}}},
      {"symmetric rank-one, indefinite", baseline_source("symmetric_rank_one", 20, 20, 1200, "symmetric"), Json{{"rank", 2}}},
      {"entries", baseline_source("entry", 60, 50, 1500, "general"), Json{{"rank", 2}}},
      {"Gaussian ensemble", baseline_source("gaussian_ensemble", 20, 15, 300, "general"), Json{{"rank", 2}}},
      {"symmetric Gaussian ensemble, psd", symmetric_ensemble, Json{{"rank", 2}, {"factorization", "psd"}}},
  };
  for (const auto& c : cases) {
    INFO(c.label);
    Json estimator = c.estimator;
    estimator["name"] = "factored_gd";
    const test::FinishedRun run = test::run_to_end(c.source, estimator, 41);
    const Estimator* est = run.estimator.get();
    const DataSource* data = run.data.get();
    INFO(est->summary().message);
    CHECK(est->summary().status == Status::converged);
    CHECK(relative_error(est->estimate(), *data->truth()) < 1e-6);
    CHECK(est->summary().fit < 1e-6);  // on the held-out test set
    CHECK_THAT(est->summary().fit_measure, Contains("held-out test set"));
  }
}

TEST_CASE("factored_gd: ScaledGD's iterations do not grow with the condition number; vanilla GD's do",
          "[factored_gd][conditioning]") {
  // Tong, Ma & Chi 2021, Section 5: singular values linear from 1 to 1/κ; iterations to 1e-8.
  const auto iterations_to = [](double kappa, const std::string& preconditioner) {
    const Json src = baseline_source("gaussian_ensemble", 20, 20, 400, "general", kappa);
    const test::SteppedRun run = test::run_stepwise(
        src, Json{{"name", "factored_gd"}, {"rank", 2}, {"preconditioner", preconditioner}, {"max_iterations", 3000},
                  {"tolerance", 0.0}},
        43);
    auto data = test::make<DataSource>(src, Kind::data_source);
    data->open(43);
    for (std::size_t t = 0; t < run.estimates.size(); ++t)
      if (relative_error(run.estimates[t], *data->truth()) < 1e-8) return static_cast<int>(t) + 1;
    return -1;
  };
  const int scaled1 = iterations_to(1.0, "scaled"), scaled10 = iterations_to(10.0, "scaled");
  const int vanilla1 = iterations_to(1.0, "none"), vanilla10 = iterations_to(10.0, "none");
  INFO("ScaledGD " << scaled1 << " → " << scaled10 << ", vanilla " << vanilla1 << " → " << vanilla10 << " iterations at κ = 1 → 10");
  REQUIRE(scaled1 > 0);
  REQUIRE(scaled10 > 0);
  REQUIRE(vanilla1 > 0);
  REQUIRE(vanilla10 > 0);
  CHECK(scaled10 <= scaled1 + scaled1 / 4);
  CHECK(vanilla10 >= 4 * vanilla1);
  CHECK(vanilla10 >= 4 * scaled10);
}

TEST_CASE("an experiment pairing a fixed-sample estimator with an endless source is refused before it runs",
          "[factored_gd][errors]") {
  const auto file = test::binary_dir() / "agreement" / "endless_source.json";
  std::filesystem::create_directories(file.parent_path());
  std::ofstream(file) << R"({"name": "endless", "seed": 1,
    "data": {"name": "synthetic", "operator": "gaussian_ensemble", "d": 6, "rank": 1},
    "estimators": [{"name": "spectral", "rank": 1}, {"name": "svp", "rank": 1}], "metrics": ["relative_error_M"]})";
  const auto out = test::rankone_cli("validate " + file.string());
  INFO(out.text);
  CHECK(out.code == 2);
  CHECK_THAT(out.text, Contains("at /estimators/1: estimator 'svp' fits one fixed training set, and the data source is "
                                "endless: give the source a size"));
}

TEST_CASE("factored_gd refuses what it cannot fit, naming the reason", "[factored_gd][errors]") {
  const auto message = [](const Json& src, const Json& estimator) {
    auto data = test::make<DataSource>(src, Kind::data_source);
    data->open(1);
    auto est = test::make<Estimator>(estimator, Kind::estimator);
    Rng rng(1);
    est->start(*data, rng);
    CHECK(est->summary().status == Status::failed);
    return est->summary().message;
  };
  Json endless = baseline_source("asymmetric_rank_one", 8, 6, 100, "general");
  endless.erase("size");
  CHECK_THAT(message(endless, Json{{"name", "factored_gd"}}), Contains("needs a finite source"));
  CHECK_THAT(message(baseline_source("asymmetric_rank_one", 8, 6, 100, "general"), Json{{"name", "factored_gd"}, {"factorization", "psd"}}),
             Contains("needs a square matrix; the data's is 8 × 6"));
  for (const char* name : {"factored_gd", "svp", "altmin_sensing"})  // a rank no start can have, whatever the init
    CHECK_THAT(message(baseline_source("asymmetric_rank_one", 8, 6, 100, "general"),
                       Json{{"name", name}, {"rank", 7}, {"init", "random_init"}}),
               Contains("rank 7 exceeds min(d1, d2) = 6 of the 8 × 6 matrix"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "factored_gd"}, {"max_iterations", 3000000000LL}}, Kind::estimator),
                    Contains("max_iterations"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "factored_gd"}, {"preconditioner", "newton"}}, Kind::estimator),
                    Contains("preconditioner"));
}
