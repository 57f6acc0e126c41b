// Honest outcomes of the completion estimators: the progressive-validation fit, the best estimate
// after divergence and the hints. Fixed seeds.
#include <catch2/catch.hpp>

#include <vector>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

Json psd_source(Index d, Index rank) {
  return Json{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", d}, {"rank", rank},
              {"truth", "psd"}};
}

struct OutcomeRun {
  Summary summary;
  std::vector<double> fits;         ///< after each step: fits[t] judges estimates[t]
  std::vector<Estimate> estimates;  ///< after each batch that did not diverge
  Estimate final_estimate;
};

OutcomeRun run_outcome(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  test::SteppedRun stepped = test::run_stepwise(source_ref, estimator_ref, seed);
  return OutcomeRun{stepped.summary, std::move(stepped.fits), std::move(stepped.estimates), std::move(stepped.final_estimate)};
}

}  // namespace

TEST_CASE("omc_psd and omc_general: a small progressive-validation fit on healthy runs", "[online_completion][outcomes]") {
  for (const std::string name : {"omc_psd", "omc_general"}) {
    CAPTURE(name);
    const OutcomeRun r = run_outcome(psd_source(200, 2), Json{{"name", name}, {"rank", 2}, {"batch_size", 1000}, {"max_iterations", 100}}, 7);
    CHECK(r.summary.status == Status::max_iterations);
    CHECK(r.summary.fit < 1e-6);  // measured 2e-16 (psd) and 2e-12 (general)
    CHECK_THAT(r.summary.fit_measure, Contains("each predicted before its own update"));
  }
}

TEST_CASE("omc_psd: divergence returns the estimate after the batch with the best fit", "[online_completion][outcomes]") {
  // A gain of 1.1 overshoots: measured divergence at iteration 8, the best fit (0.335) after batch 1.
  const OutcomeRun r = run_outcome(psd_source(200, 2),
                    Json{{"name", "omc_psd"}, {"rank", 2}, {"batch_size", 200}, {"max_iterations", 200}, {"step_size", 1.1}}, 7);
  CAPTURE(r.summary.message, r.fits);
  REQUIRE(r.summary.status == Status::diverged);
  CHECK_THAT(r.summary.message, Contains("the estimate returned is the best seen on fresh entries (after batch "));
  REQUIRE(r.fits.size() >= 2);
  std::size_t best = 0;
  for (std::size_t t = 0; t + 1 < r.fits.size(); ++t)
    if (r.fits[t] < r.fits[best]) best = t;
  REQUIRE(best < r.estimates.size());
  CHECK((r.final_estimate.left - r.estimates[best].left).norm() == 0.0);
  CHECK(r.summary.fit == r.fits[best]);
  // The estimate before the diverging batch, which the rollback used to return, is another one.
  REQUIRE(r.estimates.size() >= 3);
  CHECK((r.final_estimate.left - r.estimates.back().left).norm() > 0.0);
}

TEST_CASE("omc_psd on a non-symmetric matrix: its hint says so", "[online_completion][outcomes]") {
  // Measured fit 0.96 – 0.996 (below the no-skill 1), so the run is not stalled by stall_fit 1; with
  // stall_fit 0.9 it is, and the hint names the asymmetry of the warm-start entries.
  Json source = psd_source(200, 2);
  source["truth"] = "general";
  const OutcomeRun r = run_outcome(source, Json{{"name", "omc_psd"}, {"rank", 2}, {"batch_size", 1000}, {"max_iterations", 100},
                                 {"stall_fit", 0.9}}, 7);
  CAPTURE(r.summary.message);
  REQUIRE(r.summary.status == Status::stalled);
  CHECK_THAT(r.summary.message, Contains("the matrix is not symmetric"));
  CHECK_THAT(r.summary.message, Contains("use omc_general"));
}

TEST_CASE("omc_psd on a non-symmetric matrix ends stalled at the default stall settings (noise floor)",
          "[online_completion][outcomes][floor]") {
  // The truth's own residual on the last fresh batch is 0 (noiseless); the fit (≈ 0.96 – 0.996) is far
  // above stall_ratio × 0 + stall_margin.
  Json source = psd_source(200, 2);
  source["truth"] = "general";
  const OutcomeRun r = run_outcome(source, Json{{"name", "omc_psd"}, {"rank", 2}, {"batch_size", 1000}, {"max_iterations", 100}}, 7);
  CAPTURE(r.summary.message);
  REQUIRE(r.summary.status == Status::stalled);
  CHECK(r.summary.fit_floor == Approx(0.0).margin(1e-12));
  CHECK_THAT(r.summary.message, Contains("stopped far from a fit"));
  CHECK_THAT(r.summary.message, Contains("(noise floor)"));
  CHECK_THAT(r.summary.message, Contains("the matrix is not symmetric"));
  CHECK_THAT(r.summary.message, Contains("use omc_general"));
}

TEST_CASE("omc_psd / omc_general on a source that runs out inside the warm start: stalled, too few entries",
          "[online_completion][outcomes][floor]") {
  for (const std::string name : {"omc_psd", "omc_general"}) {
    CAPTURE(name);
    Json source = psd_source(200, 2);
    source["size"] = 1500;  // the warm start asks for 10·d·k·log d ≈ 21 000 entries
    const OutcomeRun r = run_outcome(source, Json{{"name", name}, {"rank", 2}, {"batch_size", 1000}, {"max_iterations", 100}}, 7);
    CAPTURE(r.summary.message);
    CHECK(r.summary.status == Status::stalled);
    CHECK_THAT(r.summary.message, Contains("the source ran out inside the warm start (1500 of "));
    CHECK_THAT(r.summary.message, Contains("too few observed entries for d and rank (1500 entries"));
    CHECK_THAT(r.summary.message, Contains("need of order"));
  }
}

TEST_CASE("als_completion / sgd_mf with too few entries and a test set: fit on the test set, stalled, too few entries",
          "[online_completion][outcomes][floor]") {
  for (const std::string name : {"als_completion", "sgd_mf"}) {
    CAPTURE(name);
    Json source = psd_source(200, 2);
    source["truth"] = "general";
    source["size"] = 800;
    source["test_size"] = 2000;
    const OutcomeRun r = run_outcome(source, Json{{"name", name}, {"rank", 2}, {"max_iterations", 50}}, 7);
    CAPTURE(r.summary.message, r.summary.fit);
    CHECK_THAT(r.summary.fit_measure, Contains("held-out test set"));
    CHECK((r.summary.status == Status::stalled || r.summary.status == Status::failed));
    CHECK_THAT(r.summary.message, Contains("too few observed entries for d and rank (800 entries"));
  }
}

TEST_CASE("sgd_mf: an overshooting step ends diverged by the shared rule, with a finite estimate",
          "[online_completion][outcomes]") {
  // learning_rate 50 (500 × the default) overshoots from the first epoch: the shared rule
  // (IterativeEstimator::end_if_diverged) fires on the observed entries' residual.
  Json source = psd_source(100, 2);
  source["truth"] = "general";
  source["size"] = 3000;
  const OutcomeRun r = run_outcome(source, Json{{"name", "sgd_mf"}, {"rank", 2}, {"learning_rate", 50.0}, {"max_iterations", 100}}, 7);
  CAPTURE(r.summary.message, r.fits);
  REQUIRE(r.summary.status == Status::diverged);
  CHECK_THAT(r.summary.message, Contains("on the observed entries after pass "));
  CHECK((r.summary.message.find("exceeds divergence_factor × the entries' RMS (1e+03 × ") != std::string::npos ||
         r.summary.message.find("is not finite") != std::string::npos));
  CHECK(r.final_estimate.left.allFinite());
  CHECK(r.final_estimate.right.allFinite());
}
