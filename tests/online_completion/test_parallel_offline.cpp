// The offline completion estimators on several threads: sgd_mf's block schedule and als_completion's
// parallel row solves give bitwise the same factors for any thread count, and the schedule still
// recovers a planted matrix (docs/plugins/sgd_mf.md, "The schedule").
#include <catch2/catch.hpp>

#include <string>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

/// A 600 × 500 rank-3 matrix observed on 30 000 entries: more rows than one ALS unit (256), and
/// enough entries for every block of a 4 × 4 grid.
Json observed_source() {
  return Json{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 600}, {"d2", 500},
              {"rank", 3},           {"truth", "general"},   {"size", 30000}};
}

struct Fit {
  Matrix estimate;
  Summary summary;
  double relative_error = 0.0;
};

Fit fit(Json estimator_ref, int threads) {
  estimator_ref["threads"] = threads;
  auto source = test::make<DataSource>(observed_source(), Kind::data_source);
  source->open(41);
  auto estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(41, "estimator"));
  estimator->start(*source, rng);
  while (estimator->step(*source)) {
  }
  Fit f;
  f.estimate = estimator->estimate().dense();
  f.summary = estimator->summary();
  const Matrix truth = source->truth()->dense();
  f.relative_error = (f.estimate - truth).norm() / truth.norm();
  return f;
}

}  // namespace

TEST_CASE("sgd_mf's block schedule gives the same factors on 1, 2 and 3 threads, and recovers M*",
          "[online_completion][threads]") {
  const Json sgd{{"name", "sgd_mf"}, {"rank", 3}, {"learning_rate", 0.1}, {"max_iterations", 150}, {"blocks", 4}};
  const Fit one = fit(sgd, 1);
  INFO(one.summary.message << "; relative error " << one.relative_error);
  CHECK(one.relative_error <= 1e-3);  // as plain SGD in test_online_completion.cpp
  for (const int threads : {2, 3}) {
    const Fit many = fit(sgd, threads);
    CHECK(many.summary.iterations == one.summary.iterations);
    CHECK(many.summary.fit == one.summary.fit);
    CHECK((many.estimate.array() == one.estimate.array()).all());  // bitwise, not approximately
  }
}

TEST_CASE("sgd_mf's schedule depends on blocks: another grid gives other (equally good) factors",
          "[online_completion][threads]") {
  const Json sgd{{"name", "sgd_mf"}, {"rank", 3}, {"learning_rate", 0.1}, {"max_iterations", 150}};
  Json plain = sgd, gridded = sgd;
  plain["blocks"] = 1;
  gridded["blocks"] = 3;
  const Fit a = fit(plain, 1), b = fit(gridded, 2);
  INFO("relative errors " << a.relative_error << " (1 block), " << b.relative_error << " (3 x 3 blocks)");
  CHECK(a.relative_error <= 1e-3);
  CHECK(b.relative_error <= 1e-3);
  CHECK((a.estimate - b.estimate).norm() > 0.0);  // the grid is part of the schedule, not a detail
}

TEST_CASE("als_completion solves its rows in parallel with the same result for any thread count",
          "[online_completion][threads]") {
  const Json als{{"name", "als_completion"}, {"rank", 3}, {"max_iterations", 25}};
  const Fit one = fit(als, 1);
  INFO(one.summary.message << "; relative error " << one.relative_error);
  CHECK(one.relative_error <= 1e-6);
  for (const int threads : {2, 3, 0}) {
    const Fit many = fit(als, threads);
    CHECK(many.summary.fit == one.summary.fit);
    CHECK((many.estimate.array() == one.estimate.array()).all());
  }
}

TEST_CASE("sgd_mf refuses threads with a single block: there is nothing to run side by side",
          "[online_completion][threads]") {
  const Json sgd{{"name", "sgd_mf"}, {"rank", 3}, {"threads", 2}};
  try {
    test::make<Estimator>(sgd, Kind::estimator);
    FAIL("expected a ConfigError");
  } catch (const ConfigError& e) {
    const std::string message = e.what();
    INFO(message);
    CHECK(message.find("/threads") != std::string::npos);
    CHECK(message.find("blocks") != std::string::npos);
  }
}
