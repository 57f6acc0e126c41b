// nuclear_norm (proximal gradient, accelerated, Soft-Impute over a λ path; squared or logistic loss):
// step-by-step agreement with the numpy reference tests/references/nuclear_norm.py across the stages
// of a path, planted truths recovered to the accuracy λ_min allows, the one-bit presets
// trace_logistic / trace_squared as the configurations they are, its starts, refusals.
#include <catch2/catch.hpp>

#include <string>

#include "agreement.hpp"
#include "rankone/store/saved_model.hpp"

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

TEST_CASE("nuclear_norm's logistic loss and growing step agree with the numpy reference", "[nuclear_norm][reference]") {
  Json signs = baseline_source("gaussian_ensemble", 8, 6, 200, "general");
  signs["link"] = "sign";
  // One λ, the trace-norm presets' step rule (L / 1.5 after each accepted step, so backtracking
  // recurs), then a path with momentum.
  test::check_agreement("logistic_growing_step", signs,
                        Json{{"name", "nuclear_norm"}, {"method", "proximal"}, {"loss", "logistic"}, {"lambda", 0.02},
                             {"step_growth", 1.5}, {"initial_step", 4.0}},
                        12, 1.0,
                        Json{{"variant", "proximal"}, {"lambda", 0.02}, {"lambda_ratio", 1e-4}, {"path_length", 10},
                             {"stage_tolerance", 0.0}, {"stage_iterations", 500}, {"loss", "logistic"}, {"step_growth", 1.5},
                             {"initial_step", 4.0}});
  test::check_agreement("logistic_accelerated_path", signs,
                        Json{{"name", "nuclear_norm"}, {"loss", "logistic"}, {"path_length", 3}, {"lambda_ratio", 0.01},
                             {"stage_iterations", 4}},
                        12, 1.0,
                        Json{{"variant", "accelerated"}, {"lambda", nullptr}, {"lambda_ratio", 0.01}, {"path_length", 3},
                             {"stage_tolerance", 0.0}, {"stage_iterations", 4}, {"loss", "logistic"}});
}

TEST_CASE("trace_logistic and trace_squared are nuclear_norm configured in the mean loss's units", "[nuclear_norm][trace]") {
  // Qiu et al.'s single-label operator has c = 1: the mean logistic loss is f, the mean (y − s)² is 2f,
  // so penalty μ and step t are λ = μ, 1/L = t (logistic) and λ = μ/2, 1/L = 2t (squared).
  const Json source{{"name", "synthetic"}, {"operator", "single_label"}, {"d", 30}, {"d2", 12}, {"rank", 2},
                    {"truth", "unit_columns"}, {"link", "sign"}, {"full_labels", true}, {"size", 300},
                    {"test_size", 100}, {"test_full_labels", true}};
  const Json common{{"method", "proximal"}, {"step_growth", 1.5}, {"max_iterations", 40}, {"stage_iterations", 40},
                    {"tolerance", 1e-5}};
  const std::vector<std::tuple<const char*, Json, Json>> cases{
      {"trace_logistic", Json{{"name", "trace_logistic"}, {"penalty", 0.02}, {"max_iterations", 40}, {"initial_step", 0.5}},
       Json{{"loss", "logistic"}, {"lambda", 0.02}, {"initial_step", 0.5}}},
      {"trace_squared", Json{{"name", "trace_squared"}, {"penalty", 0.02}, {"max_iterations", 40}, {"initial_step", 0.5}},
       Json{{"loss", "squared"}, {"lambda", 0.01}, {"initial_step", 1.0}}},
      // The same numbers on nuclear_norm's own mean-loss scale.
      {"trace_squared as objective mean",
       Json{{"name", "trace_squared"}, {"penalty", 0.02}, {"max_iterations", 40}, {"initial_step", 0.5}},
       Json{{"loss", "squared"}, {"objective", "mean"}, {"lambda", 0.02}, {"initial_step", 0.5}}},
      {"trace_logistic as objective mean",
       Json{{"name", "trace_logistic"}, {"penalty", 0.02}, {"max_iterations", 40}, {"initial_step", 0.5}},
       Json{{"loss", "logistic"}, {"objective", "mean"}, {"lambda", 0.02}, {"initial_step", 0.5}}},
  };
  for (const auto& [label, preset, own] : cases) {
    INFO(label);
    Json configured = common;
    configured.update(own);
    configured["name"] = "nuclear_norm";
    const test::FinishedRun a = test::run_to_end(source, preset, 7);
    const test::FinishedRun b = test::run_to_end(source, configured, 7);
    const Summary sa = a.estimator->summary(), sb = b.estimator->summary();
    INFO(sa.message << " | " << sb.message);
    CHECK(sa.status == sb.status);
    CHECK(sa.iterations == sb.iterations);
    const Estimate ea = a.estimator->estimate(), eb = b.estimator->estimate();
    const Matrix Ma = ea.left * ea.right.transpose(), Mb = eb.left * eb.right.transpose();
    CHECK((Ma - Mb).norm() <= 1e-12 * Mb.norm());
    // A sign link: the fit is the fraction of the held-out signs the estimate gets wrong.
    CHECK_THAT(sa.fit_measure, Contains("fraction of signs the estimate gets wrong on the held-out test set"));
    CHECK(sa.fit < 0.25);
  }
}

TEST_CASE("objective mean converts λ and the first step by the operator's c", "[nuclear_norm][trace]") {
  // Entries: c = d1 d2 = 320, so the mean squared loss is f / u with u = c/2 = 160, and
  // (mean, λ μ, step t) is (normalised, λ u μ, step t/u): a wrong factor of c shows here.
  const double u = 0.5 * 20.0 * 16.0, mu = 2e-4, t = 0.5;
  const Json source = baseline_source("entry", 20, 16, 200, "general");
  const Json common{{"name", "nuclear_norm"}, {"method", "proximal"}, {"max_iterations", 30}, {"stage_iterations", 30}};
  Json mean = common, normalised = common;
  mean.update(Json{{"objective", "mean"}, {"lambda", mu}, {"initial_step", t}});
  normalised.update(Json{{"lambda", u * mu}, {"initial_step", t / u}});
  const test::FinishedRun a = test::run_to_end(source, mean, 7);
  const test::FinishedRun b = test::run_to_end(source, normalised, 7);
  INFO(a.estimator->summary().message << " | " << b.estimator->summary().message);
  CHECK(a.estimator->summary().iterations == b.estimator->summary().iterations);
  const Matrix Ma = a.estimator->estimate().dense(), Mb = b.estimator->estimate().dense();
  REQUIRE(Mb.norm() > 0.0);
  CHECK((Ma - Mb).norm() <= 1e-12 * Mb.norm());
}

TEST_CASE("nuclear_norm recovers planted truths to the accuracy of its last λ", "[nuclear_norm][recovery]") {
  const std::vector<std::tuple<const char*, Json, std::string>> cases{
      {"Gaussian ensemble, accelerated", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "accelerated"},
      {"Gaussian ensemble, proximal", baseline_source("gaussian_ensemble", 20, 20, 320, "general"), "proximal"},
      {"asymmetric rank-one, accelerated", baseline_source("asymmetric_rank_one", 20, 15, 700, "general"), "accelerated"},
      {"symmetric rank-one, accelerated", baseline_source("symmetric_rank_one", 20, 20, 1200, "symmetric"), "accelerated"},
      {"symmetric Gaussian ensemble, accelerated", test::symmetric_ensemble_source(20, 320), "accelerated"},
      {"symmetric Gaussian ensemble, proximal", test::symmetric_ensemble_source(20, 320), "proximal"},
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

TEST_CASE("nuclear_norm starts from init: 0 by default, a stored model of any rank continues a solve",
          "[nuclear_norm][init]") {
  const Json source = baseline_source("gaussian_ensemble", 20, 20, 320, "general");
  const Json solve{{"name", "nuclear_norm"}, {"lambda", 1e-3}, {"stage_iterations", 5000}, {"max_iterations", 5000},
                   {"tolerance", 1e-10}};
  const test::FinishedRun first = test::run_to_end(source, solve, 41);
  const Summary cold = first.estimator->summary();
  INFO(cold.message);
  REQUIRE(cold.status == Status::converged);
  const Matrix solution = first.estimator->estimate().dense();

  Json zero = solve;
  zero["init"] = "zero_init";
  CHECK(test::run_to_end(source, zero, 41).estimator->estimate().dense() == solution);  // the default, bitwise

  test::ScratchDir s("nuclear_norm_warm_start");
  SavedModel::of(first.estimator->estimate(), *first.data, source, "nuclear_norm", "cold").write_folder(s / "model");
  REQUIRE(first.estimator->estimate().rank() > 1);  // the estimator asks for no rank: the model's is kept
  Json warm = solve;
  warm["init"] = Json{{"name", "warm_start"}, {"model", (s / "model").string()}};
  const test::FinishedRun again = test::run_to_end(source, warm, 41);
  const Summary resumed = again.estimator->summary();
  INFO(resumed.message);
  CHECK(resumed.status == Status::converged);
  CHECK(cold.iterations > 20);
  CHECK(resumed.iterations <= 10);  // measured 6 (479 from 0): the solution is a fixed point of the step at every L
  CHECK((again.estimator->estimate().dense() - solution).norm() < 1e-8 * solution.norm());
  CHECK(again.estimator->estimate().rank() == first.estimator->estimate().rank());

  // near_truth starts at the truth's rank: the same solution, sooner than from 0.
  Json near = solve;
  near["init"] = Json{{"name", "near_truth"}, {"distance", 0.0}};
  const test::FinishedRun planted = test::run_to_end(source, near, 41);
  CHECK(planted.estimator->summary().status == Status::converged);
  CHECK(planted.estimator->summary().iterations < cold.iterations);
  CHECK((planted.estimator->estimate().dense() - solution).norm() < 1e-6 * solution.norm());

  for (const char* drawn : {"random_init", "spectral_init"}) {
    Json ranked = solve;
    ranked["init"] = drawn;
    const test::FinishedRun refused = test::run_to_end(source, ranked, 41);
    CHECK(refused.estimator->summary().status == Status::failed);
    CHECK_THAT(refused.estimator->summary().message,
               Contains("no start: the estimator's model has no rank") && Contains(std::string(drawn) + " draws a rank-k start"));
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
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "nuclear_norm"}, {"method", "soft_impute"}, {"loss", "logistic"}},
                                          Kind::estimator),
                    Contains("loss must be \"squared\""));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "nuclear_norm"}, {"method", "soft_impute"}, {"step_growth", 1.5}},
                                          Kind::estimator),
                    Contains("initial_step and step_growth do not apply"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "nuclear_norm"}, {"step_growth", 1.5}}, Kind::estimator),
                    Contains("\"accelerated\" needs a non-decreasing L") && Contains("step_growth must be 1"));
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "trace_logistic"}, {"penalty", 0.0}}, Kind::estimator),
                    Contains("/penalty"));
  // A first trial step 1e30 needs ~100 doublings of L: the cap ends the run failed, naming it.
  const test::FinishedRun huge = test::run_to_end(baseline_source("gaussian_ensemble", 6, 5, 60, "general"),
                                                  Json{{"name", "nuclear_norm"}, {"method", "proximal"}, {"initial_step", 1e30}}, 1);
  CHECK(huge.estimator->summary().status == Status::failed);
  CHECK_THAT(huge.estimator->summary().message, Contains("backtracking found no step in 60 doublings"));
  // The logistic loss reads labels ±1: real responses are refused at the start, not fitted.
  const test::FinishedRun real = test::run_to_end(baseline_source("gaussian_ensemble", 6, 5, 60, "general"),
                                                  Json{{"name", "nuclear_norm"}, {"loss", "logistic"}}, 1);
  CHECK(real.estimator->summary().status == Status::failed);
  CHECK_THAT(real.estimator->summary().message, Contains("needs labels ±1"));
}
