// Honest outcomes of gfm_one_pass: the fit on fresh data, the stall verdict with its hint, and the
// best estimate returned after divergence. Fixed seeds; the values are in docs/plugins/gfm_one_pass.md.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;
using Catch::Matchers::Contains;

namespace {

Json source(Index d, Index rank, double bias = 0.0) {
  return Json{{"name", "synthetic"}, {"d", d}, {"rank", rank}, {"w_norm", 1.0}, {"bias", bias},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

Json gfm_ref(Index rank, Index batch_size, int iterations) {
  return Json{{"name", "gfm_one_pass"}, {"rank", rank}, {"batch_size", batch_size}, {"max_iterations", iterations},
              {"tolerance", 0.0}};
}

struct Run {
  Summary summary;
  std::vector<double> fits;          ///< summary().fit after each step: fits[t] judges estimates[t]
  std::vector<Estimate> estimates;   ///< after start, then after each completed iteration
  Estimate final_estimate;
};

Run run(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  test::SteppedRun stepped = test::run_stepwise(source_ref, estimator_ref, seed);
  Run r{stepped.summary, std::move(stepped.fits), {std::move(stepped.start_estimate)}, std::move(stepped.final_estimate)};
  r.estimates.insert(r.estimates.end(), stepped.estimates.begin(), stepped.estimates.end());
  return r;
}

double distance(const Estimate& a, const Estimate& b) {
  return (a.left - b.left).norm() + (a.right - b.right).norm() + (a.w - b.w).norm();
}

}  // namespace

TEST_CASE("gfm_one_pass: healthy runs report a small fit on fresh data and stay max_iterations", "[gfm][outcomes]") {
  // n = 20·k·d: the relative residual falls to ~1e-12 in 25 iterations (measured 5e-13 – 9e-13).
  const Run r = run(source(100, 3), gfm_ref(3, 6000, 25), 1);
  CHECK(r.summary.status == Status::max_iterations);
  CHECK(r.summary.fit < 1e-9);
  CHECK_THAT(r.summary.fit_measure, Contains("fresh batch"));
  CHECK(r.fits.front() == Approx(1.0).epsilon(1e-12));  // the start has M = 0, w = 0: ŷ = 0
}

TEST_CASE("gfm_one_pass: a batch far below the phase transition ends stalled with the batch hint", "[gfm][outcomes]") {
  // n = 1.5·k·d = 750 for d = 100, k = 5: measured fit 2.5 and 5.9 on fresh data after 30
  // iterations (worse than ŷ = 0), where every run at n ≥ 8·k·d converges.
  const Run r = run(source(100, 5), gfm_ref(5, 750, 30), 3);
  CAPTURE(r.summary.message, r.fits);
  REQUIRE(r.summary.status == Status::stalled);
  CHECK(r.summary.fit > 1.0);
  CHECK_THAT(r.summary.message, Contains("reached the iteration budget (30); stalled: relative residual"));
  CHECK_THAT(r.summary.message, Contains("batch of 750 rows is small for d = 100, rank 5"));
  CHECK_THAT(r.summary.message, Contains("try ≥ 4000"));
}

TEST_CASE("gfm_one_pass: stall_fit is the threshold, in units of the no-skill fit", "[gfm][outcomes]") {
  Json lenient = gfm_ref(5, 750, 30);
  lenient["stall_fit"] = 1e6;
  lenient["stall_margin"] = 1e6;  // the source has a truth: lift the noise-floor rule too, to test stall_fit alone
  const Run r = run(source(100, 5), lenient, 3);
  CHECK(r.summary.status == Status::max_iterations);
  CHECK(r.summary.fit > 1.0);
}

TEST_CASE("gfm_one_pass: divergence returns the best estimate seen on fresh data", "[gfm][outcomes]") {
  // n = 1.5·d for k = 1 diverges (measured at iteration 10–19): the estimate returned is the one with
  // the lowest fresh-batch residual, not the one of the batch before the divergence.
  const Run r = run(source(100, 1), gfm_ref(1, 150, 30), 3);
  CAPTURE(r.summary.message, r.fits);
  REQUIRE(r.summary.status == Status::diverged);
  CHECK_THAT(r.summary.message, Contains("the estimate returned is the best seen on fresh data"));
  // fits[t] is the residual of estimates[t] (measured on batch t + 1 before its update).
  std::size_t best = 0;
  for (std::size_t t = 0; t + 1 < r.fits.size(); ++t)
    if (r.fits[t] < r.fits[best]) best = t;
  REQUIRE(best < r.estimates.size());
  CHECK(distance(r.final_estimate, r.estimates[best]) == 0.0);
  CHECK(r.summary.fit == r.fits[best]);
  // The previous batch's estimate, which the rollback used to return, is a different (worse) one.
  CHECK(distance(r.final_estimate, r.estimates.back()) > 0.0);
  CHECK(r.fits[r.fits.size() - 2] > r.fits[best]);
}

TEST_CASE("gfm_one_pass at n = 1.5·k·d (k = 10, d = 100): below the no-skill fit but far from the noise floor: stalled",
          "[gfm][outcomes][floor]") {
  // Measured fits 0.076 – 0.092 after 30 iterations (falling ≈ 1.4× over the last 5), the truth's own
  // residual 0 on the same batch: above stall_ratio × 0 + stall_margin = 0.05.
  const Run r = run(source(100, 10), gfm_ref(10, 1500, 30), 1);
  CAPTURE(r.summary.message, r.fits);
  REQUIRE(r.summary.status == Status::stalled);
  CHECK(r.summary.fit > 0.05);
  CHECK(r.summary.fit < 1.0);
  CHECK(r.summary.fit_floor == Approx(0.0).margin(1e-12));
  CHECK_THAT(r.summary.message, Contains("stopped far from a fit: relative residual"));
  // 0, or rounding (≈ 1e-16) where the truth's responses and its fit take different product paths (FMA builds).
  CHECK_THAT(r.summary.message, Catch::Matches(".*the truth's own is (0|[0-9.]+e-1[4-9]) \\(noise floor\\).*"));
  CHECK_THAT(r.summary.message, Contains("batch of 1500 rows is small for d = 100, rank 10"));
}

TEST_CASE("gfm_one_pass at n = 8·k·d stopped after 3 iterations while converging is not stalled", "[gfm][outcomes][floor]") {
  // Measured fits 1, 0.42, 0.17 (≈ 2.5× per iteration): 0.17 is above the floor threshold 0.05, but
  // the fit fell by more than 2× over the window: still converging, max_iterations.
  const Run r = run(source(100, 10), gfm_ref(10, 8000, 3), 1);
  CAPTURE(r.summary.message, r.fits);
  CHECK(r.summary.status == Status::max_iterations);
  CHECK_THAT(r.summary.message, Contains("still converging"));
}

TEST_CASE("gfm_one_pass on data with an intercept: stalled, the intercept hint", "[gfm][outcomes][floor]") {
  // The synthetic source's bias = 2: y = 2 + x'w + x'Mx, rank 3 = the model's rank, so only the
  // intercept is missing. Measured fit 0.52 on fresh data, the truth's own 0.
  const Run r = run(source(100, 3, 2.0), gfm_ref(3, 6000, 25), 1);
  CAPTURE(r.summary.message);
  REQUIRE(r.summary.status == Status::stalled);
  CHECK(r.summary.fit < 1.0);
  CHECK_THAT(r.summary.message, Contains("the responses have a nonzero mean/intercept the model has no term for"));
  CHECK_THAT(r.summary.message, Contains("set intercept: true"));
  for (const std::string& note : r.summary.notes) CHECK_THAT(note, !Contains("intercept"));  // said once, in the hint
}

TEST_CASE("gfm_one_pass: a run that ends well with an intercept it cannot fit says so in a note", "[gfm][outcomes]") {
  // The same data with the floor rule switched off (as for a file, which has no truth): the run ends
  // max_iterations, and the note names the missing intercept.
  Json estimator = gfm_ref(3, 6000, 5);
  estimator["stall_ratio"] = 1e6;
  const Run r = run(source(100, 3, 2.0), estimator, 1);
  CAPTURE(r.summary.message, r.summary.notes);
  REQUIRE(r.summary.status == Status::max_iterations);
  REQUIRE(r.summary.notes.size() == 1);
  CHECK_THAT(r.summary.notes[0], Contains("gfm_one_pass: the residual has mean"));
  CHECK_THAT(r.summary.notes[0], Contains("set intercept: true"));
}

TEST_CASE("gfm_one_pass with intercept on data with an intercept: not stalled, no note", "[gfm][outcomes][floor]") {
  Json estimator = gfm_ref(3, 6000, 25);
  estimator["intercept"] = true;
  const Run r = run(source(100, 3, 2.0), estimator, 1);
  CAPTURE(r.summary.message, r.summary.notes);
  CHECK(r.summary.status == Status::max_iterations);
  CHECK(r.summary.fit < 1e-6);  // noiseless: the fit on fresh data goes to round-off
  CHECK(r.summary.notes.empty());
  CHECK(std::abs(r.final_estimate.bias - 2.0) < 1e-6);
}
