// Early stopping (IterativeEstimator::declare_policy with early_stopping): every iterate is scored on the
// source's validation part, the best is kept and is the final estimate, the run stops after
// `patience` iterations without improvement, and asking for it without a validation part is refused.
#include <catch2/catch.hpp>

#include <algorithm>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

struct Trace {
  std::vector<Estimate> estimates;  ///< after the start (index 0) and after each iteration
  std::vector<double> losses;       ///< the validation losses early stopping recorded
  int kept = -1;
  Summary summary;
  Estimate final_estimate;
};

Trace run(const Json& source_ref, const Json& estimator_ref) {
  auto source = test::make<DataSource>(source_ref, Kind::data_source);
  source->open(3);
  auto estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(3, "estimator"));
  estimator->start(*source, rng);
  Trace trace;
  trace.estimates.push_back(estimator->estimate());
  int recorded = 0;
  bool more = estimator->summary().status == Status::running;
  while (more) {
    more = estimator->step(*source);
    if (estimator->summary().iterations > recorded && more) {
      recorded = estimator->summary().iterations;
      trace.estimates.push_back(estimator->estimate());
    }
  }
  const auto& iterative = dynamic_cast<const IterativeEstimator&>(*estimator);
  trace.losses = iterative.validation_losses();
  trace.kept = iterative.kept_iteration();
  trace.summary = estimator->summary();
  trace.final_estimate = estimator->estimate();
  return trace;
}

/// A small noisy training set and an over-specified conventional FM without regularisation: its
/// validation error falls, then rises as it fits the noise.
Json noisy_source() {
  return Json{{"name", "synthetic"},
              {"d", 30},
              {"rank", 1},
              {"noise_std", 1.0},
              {"size", 300},
              {"validation_size", 2000},
              {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}}};
}

Json overfitting_fm() {
  return Json{{"name", "fm"},          {"rank", 10},        {"solver", "als"},   {"training_size", 300},
              {"max_iterations", 200}, {"tolerance", 0.0},  {"early_stopping", true}, {"patience", 5}};
}

double max_difference(const Estimate& a, const Estimate& b) {
  const Matrix A = a.dense(), B = b.dense();
  double d = (A - B).cwiseAbs().maxCoeff();
  if (a.has_first_order() && b.has_first_order()) d = std::max(d, (a.w - b.w).cwiseAbs().maxCoeff());
  d = std::max(d, std::abs(a.bias - b.bias));
  return d;
}

}  // namespace

TEST_CASE("early stopping keeps the best iterate on the validation part and stops after patience", "[early_stopping]") {
  const Trace trace = run(noisy_source(), overfitting_fm());
  REQUIRE(trace.losses.size() >= 2);
  const auto best = std::min_element(trace.losses.begin(), trace.losses.end());
  const int argmin = static_cast<int>(best - trace.losses.begin());
  CHECK(trace.kept == argmin);
  // It overfits: the validation loss rose after its minimum, and the run stopped patience iterations later.
  CHECK(trace.losses.back() > *best);
  CHECK(trace.summary.status == Status::converged);
  CHECK(trace.summary.iterations == trace.kept + 5);
  CHECK(static_cast<int>(trace.losses.size()) == trace.summary.iterations + 1);
  CHECK_THAT(trace.summary.message, Catch::StartsWith("early stopping: the validation loss did not improve"));
  CHECK_THAT(trace.summary.message,
             Catch::Contains("early stopping kept iteration " + std::to_string(trace.kept) + " of " +
                             std::to_string(trace.summary.iterations)));
  // The final estimate is the kept iterate, whose validation loss is the minimum.
  REQUIRE(trace.kept < static_cast<int>(trace.estimates.size()));
  CHECK(max_difference(trace.final_estimate, trace.estimates[static_cast<std::size_t>(trace.kept)]) == 0.0);
  CHECK(trace.summary.fit == Approx(*best).epsilon(1e-12));
}

TEST_CASE("early stopping in gfm_one_pass: the kept iterate is the best on the validation part", "[early_stopping]") {
  Json source = noisy_source();
  source["size"] = 40000;
  source["noise_std"] = 0.1;
  const Json gfm{{"name", "gfm_one_pass"}, {"rank", 1},       {"batch_size", 2000},      {"max_iterations", 15},
                 {"tolerance", 0.0},       {"patience", 2},   {"early_stopping", true}};
  const Trace trace = run(source, gfm);
  REQUIRE(trace.losses.size() >= 2);
  const auto best = std::min_element(trace.losses.begin(), trace.losses.end());
  CHECK(trace.kept == static_cast<int>(best - trace.losses.begin()));
  CHECK(max_difference(trace.final_estimate, trace.estimates[static_cast<std::size_t>(trace.kept)]) == 0.0);
  CHECK(trace.losses.front() > *best);  // the iterations improved on the spectral start
}

TEST_CASE("early stopping without a validation part is a ConfigError naming the JSON path", "[early_stopping]") {
  Json source = noisy_source();
  source.erase("validation_size");
  auto data = test::make<DataSource>(source, Kind::data_source);
  data->open(3);
  auto estimator = test::make<Estimator>(overfitting_fm(), Kind::estimator);
  Rng rng(3);
  estimator->start(*data, rng);
  CHECK_THROWS_WITH(estimator->step(*data), Catch::Contains("early_stopping needs a validation part"));
  CHECK_THROWS_AS(estimator->step(*data), ConfigError);
}
