// nuclear_norm (proximal gradient, accelerated, Soft-Impute over a λ path): step-by-step agreement
// with the numpy reference tests/references/nuclear_norm.py across the stages of a path, planted
// truths recovered to the accuracy λ_min allows, refusals.
#include <catch2/catch.hpp>

#include <string>

#include "agreement.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;
using test::baseline_source;
using test::relative_error;

/// Three values of λ, four steps each (the stages end by count: no rounding-sensitive comparison).
void check_nuclear_agreement(const std::string& label, const Json& source_ref, const std::string& method, double c) {
  test::check_agreement(label, source_ref,
                        Json{{"name", "nuclear_norm"}, {"method", method}, {"path_length", 3}, {"lambda_ratio", 0.01},
                             {"stage_iterations", 4}},
                        12, c,
                        Json{{"variant", method}, {"lambda", nullptr}, {"lambda_ratio", 0.01}, {"path_length", 3},
                             {"stage_tolerance", 0.0}, {"stage_iterations", 4}});
}

}  // namespace

TEST_CASE("nuclear_norm agrees step by step with its numpy reference along its λ path", "[nuclear_norm][reference]") {
  check_nuclear_agreement("asymmetric_accelerated", baseline_source("asymmetric_rank_one", 12, 9, 600, "general"), "accelerated", 1.0);
  check_nuclear_agreement("symmetric_proximal", baseline_source("symmetric_rank_one", 10, 10, 800, "symmetric"), "proximal", 0.5);
  check_nuclear_agreement("ensemble_proximal", baseline_source("gaussian_ensemble", 8, 6, 150, "general"), "proximal", 1.0);
  check_nuclear_agreement("ensemble_accelerated", baseline_source("gaussian_ensemble", 8, 6, 150, "general"), "accelerated", 1.0);
  check_nuclear_agreement("entry_soft_impute", baseline_source("entry", 20, 16, 200, "general"), "soft_impute", 20.0 * 16.0);
  check_nuclear_agreement("entry_accelerated", baseline_source("entry", 20, 16, 200, "general"), "accelerated", 20.0 * 16.0);
}

TEST_CASE("nuclear_norm recovers planted truths to the accuracy of its last λ", "[nuclear_norm][recovery]") {
  const std::vector<std::tuple<const char*, Json, std::string>> cases{
      {"Gaussian ensemble, accelerated", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "accelerated"},
      {"Gaussian ensemble, proximal", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "proximal"},
      {"asymmetric rank-one, accelerated", baseline_source("asymmetric_rank_one", 20, 15, 700, "general"), "accelerated"},
      {"entries, Soft-Impute", baseline_source("entry", 50, 50, 1000, "general"), "soft_impute"},
      {"entries, accelerated", baseline_source("entry", 50, 50, 1000, "general"), "accelerated"},
  };
  for (const auto& [label, source, method] : cases) {
    INFO(label);
    const test::FinishedRun run = test::run_to_end(source, Json{{"name", "nuclear_norm"}, {"method", method}}, 41);
    const double error = relative_error(run.estimator->estimate(), *run.data->truth());
    INFO(run.estimator->summary().message << "; relative error " << error);
    CHECK(run.estimator->summary().status == Status::converged);
    CHECK(error < 1e-3);
    CHECK(run.estimator->estimate().rank() == 2);  // the shrinkage leaves the truth's rank
    CHECK_THAT(run.estimator->summary().notes.back(), Contains("λ path: 10 value(s)"));
  }
}

TEST_CASE("nuclear_norm: its step rules hold where they are hardest", "[nuclear_norm]") {
  SECTION("tolerance 0: a converged λ does not inflate L by rounding") {
    const test::FinishedRun run = test::run_to_end(
        baseline_source("gaussian_ensemble", 10, 10, 150, "general"),
        Json{{"name", "nuclear_norm"}, {"method", "proximal"}, {"lambda", 1e-5}, {"tolerance", 0.0}, {"stage_iterations", 1500}}, 5);
    INFO(run.estimator->summary().notes.back());
    CHECK(run.estimator->summary().status == Status::max_iterations);  // the last λ's step cap
    CHECK_THAT(run.estimator->summary().message, Contains("stage_iterations (1500) reached at the last λ"));
    CHECK(run.estimator->summary().iterations == 1500);
    CHECK_THAT(run.estimator->summary().notes.back(), Contains("final L = "));
    const std::string note = run.estimator->summary().notes.back();
    const double L = std::stod(note.substr(note.find("final L = ") + 10));
    CHECK(L < 8.0);  // (c/n)‖𝒜‖² is near 1 here; noise-driven doubling would reach 1e11
  }
  SECTION("Soft-Impute on entries drawn with replacement: the constant counts the most repeated entry") {
    Json source = baseline_source("entry", 50, 50, 1000, "general");
    source.erase("entries");
    const test::FinishedRun run = test::run_to_end(source, Json{{"name", "nuclear_norm"}, {"method", "soft_impute"}}, 41);
    INFO(run.estimator->summary().message);
    CHECK(run.estimator->summary().status == Status::converged);
  }
}

TEST_CASE("nuclear_norm refuses what does not apply, naming the reason", "[nuclear_norm][errors]") {
  const test::FinishedRun run = test::run_to_end(baseline_source("gaussian_ensemble", 6, 5, 60, "general"),
                                                 Json{{"name", "nuclear_norm"}, {"method", "soft_impute"}}, 1);
  CHECK(run.estimator->summary().status == Status::failed);
  CHECK_THAT(run.estimator->summary().message, Contains("\"soft_impute\" is for entries"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "nuclear_norm"}, {"lambda", 0.1}, {"path_length", 3}}, Kind::estimator),
                    Contains("violated constraint on /lambda"));
}
