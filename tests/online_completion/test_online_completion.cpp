// The online matrix-completion estimators (omc_psd, omc_general, omc_general_theoretical) and the
// offline baselines (als_completion, sgd_mf) on planted low-rank matrices, through the registry
// (synthetic source, operator "entry", sampler "one_hot").
//
// Exact low-rank truths and noise-free entries: the algorithms converge linearly to M*, so the
// recovery bounds (1e-6) are far below any statistical floor and far above rounding (~1e-13); the
// budgets are the measured need plus a margin of ≥ 30 % (see docs/plugins/omc_psd.md).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

Json entry_source(Index d1, Index d2, Index rank, const std::string& truth, double condition_number = 2.0) {
  Json s{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", d1}, {"rank", rank},
         {"truth", truth},      {"condition_number", condition_number}};
  if (d2 != d1) s["d2"] = d2;
  return s;
}

double relative_error(const Estimate& estimate, const GroundTruth& truth) {
  return difference_norms(estimate, &truth).frobenius / difference_norms(truth, nullptr).frobenius;
}

struct Run {
  std::unique_ptr<DataSource> source;
  std::unique_ptr<Estimator> estimator;
  std::vector<double> errors;  ///< relative Frobenius error after start and after each iteration
};

/// Opens a source, starts the estimator and runs it to the end, recording the error every iteration.
Run run(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  Run r;
  r.source = test::make<DataSource>(source_ref, Kind::data_source);
  r.source->open(seed);
  r.estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(seed, "estimator"));
  r.estimator->start(*r.source, rng);
  REQUIRE(r.estimator->summary().status == Status::running);
  r.errors.push_back(relative_error(r.estimator->estimate(), *r.source->truth()));
  while (r.estimator->step(*r.source)) r.errors.push_back(relative_error(r.estimator->estimate(), *r.source->truth()));
  r.errors.push_back(relative_error(r.estimator->estimate(), *r.source->truth()));
  return r;
}

}  // namespace

TEST_CASE("Algorithms 2 and 3 give the same U V' on the same observations (Lemma 3.2)", "[online_completion]") {
  const Json source = entry_source(80, 60, 3, "general");
  const Json common{{"rank", 3}, {"batch_size", 1000}, {"max_iterations", 10}};
  Json theoretical = common;
  theoretical["name"] = "omc_general_theoretical";
  Json practical = common;
  practical["name"] = "omc_general";
  const Run a = run(source, theoretical, 5);
  const Run b = run(source, practical, 5);
  REQUIRE(a.estimator->summary().status == Status::max_iterations);
  REQUIRE(b.estimator->summary().status == Status::max_iterations);
  REQUIRE(a.source->samples_drawn() == b.source->samples_drawn());

  const Matrix Ma = a.estimator->estimate().dense();
  const Matrix Mb = b.estimator->estimate().dense();
  const double difference = (Ma - Mb).norm() / Ma.norm();
  INFO("relative difference " << difference << ", error " << a.errors.front() << " -> " << a.errors.back());
  CHECK(difference < 1e-8);
  // Not a trivial agreement: 10 000 steps moved the estimate far from the warm start, and it is not yet exact.
  CHECK(a.errors.back() < 0.5 * a.errors.front());
  CHECK(a.errors.back() > 1e-6);
}

TEST_CASE("omc_psd recovers a rank-3 PSD matrix, d = 500, condition number 2, to 1e-6", "[online_completion]") {
  // Measured: 1e-6 after ~102 000 observations past the warm start (28 000); budget 150 000.
  const Json estimator{{"name", "omc_psd"}, {"rank", 3}, {"batch_size", 2000}, {"max_iterations", 75}};
  const Run r = run(entry_source(500, 500, 3, "psd"), estimator, 11);
  INFO(r.estimator->summary().message << "; errors " << r.errors.front() << " -> " << r.errors.back());
  CHECK(r.errors.back() <= 1e-6);

  // Roughly geometric decrease in the number of observations after the warm start: over each
  // sixth of the run the error falls by a factor, and these factors agree within a factor 3 in log.
  std::vector<double> rates;
  const std::size_t blocks = 6;
  const std::size_t width = (r.errors.size() - 2) / blocks;
  for (std::size_t b = 0; b < blocks; ++b) {
    const double from = r.errors[b * width];
    const double to = r.errors[(b + 1) * width];
    rates.push_back(std::log(to / from));
  }
  for (double rate : rates) CHECK(rate < std::log(0.5));
  const auto [slowest, fastest] = std::minmax_element(rates.begin(), rates.end(), [](double x, double y) { return x > y; });
  CHECK(*fastest / *slowest < 3.0);
}

TEST_CASE("omc_general recovers a 400 × 300 rank-3 matrix to 1e-6", "[online_completion]") {
  const Json estimator{{"name", "omc_general"}, {"rank", 3}, {"batch_size", 10000}, {"max_iterations", 60}};
  const Run r = run(entry_source(400, 300, 3, "general"), estimator, 12);
  INFO(r.estimator->summary().message << "; errors " << r.errors.front() << " -> " << r.errors.back());
  CHECK(r.errors.back() <= 1e-6);
}

TEST_CASE("a step size too large is reported as divergence, with the last good estimate", "[online_completion]") {
  for (const char* name : {"omc_psd", "omc_general"}) {
    const Json estimator{{"name", name}, {"rank", 2}, {"step_size", 50.0}, {"max_iterations", 20}};
    const Run r = run(entry_source(100, 100, 2, "psd"), estimator, 3);
    const Summary s = r.estimator->summary();
    INFO(name << ": " << s.message);
    CHECK(s.status == Status::diverged);
    // The shared rule's message: a non-finite residual, or one above divergence_factor × the batch's RMS.
    CHECK(s.message.find("on the fresh batch of iteration") != std::string::npos);
    CHECK(s.message.find("Lower step_size") != std::string::npos);
    CHECK(r.estimator->estimate().all_finite());
  }
}

TEST_CASE("sources that do not observe entries are rejected with a reason", "[online_completion]") {
  auto check_failed = [](const Json& source_ref, const Json& estimator_ref, const std::string& expected) {
    auto source = test::make<DataSource>(source_ref, Kind::data_source);
    source->open(1);
    auto estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
    Rng rng(1);
    estimator->start(*source, rng);
    INFO(estimator->summary().message);
    CHECK(estimator->summary().status == Status::failed);
    CHECK(estimator->summary().message.find(expected) != std::string::npos);
    CHECK_FALSE(estimator->step(*source));
  };
  const Json gaussian{{"name", "synthetic"}, {"d", 20}, {"rank", 2}};
  check_failed(gaussian, Json{{"name", "omc_psd"}}, "operator 'entry'");
  check_failed(gaussian, Json{{"name", "als_completion"}}, "operator 'entry'");
  check_failed(entry_source(30, 20, 2, "general"), Json{{"name", "omc_psd"}}, "square");
  check_failed(entry_source(30, 20, 2, "general"), Json{{"name", "sgd_mf"}}, "finite source");
}

TEST_CASE("als_completion and sgd_mf recover a planted matrix from a fixed observed set", "[online_completion]") {
  // 200 × 150, rank 3: |Ω| = 6000 is 20 % of the entries, about 4.3 d k log d.
  Json source = entry_source(200, 150, 3, "general");
  source["size"] = 6000;
  SECTION("als_completion, spectral start") {
    const Run r = run(source, Json{{"name", "als_completion"}, {"rank", 3}, {"max_iterations", 40}}, 21);
    INFO(r.estimator->summary().message << "; errors " << r.errors.front() << " -> " << r.errors.back());
    CHECK(r.errors.back() <= 1e-6);
    CHECK(r.source->samples_drawn() == 6000);
  }
  SECTION("sgd_mf, random start") {
    const Run r = run(source, Json{{"name", "sgd_mf"}, {"rank", 3}, {"learning_rate", 0.1}, {"max_iterations", 300}}, 21);
    INFO(r.estimator->summary().message << "; errors " << r.errors.front() << " -> " << r.errors.back());
    CHECK(r.errors.front() > 0.9);  // a random start knows nothing of M*
    CHECK(r.errors.back() <= 1e-3);
  }
}

TEST_CASE("an experiment pairing als_completion, sgd_mf or bias_baseline with an endless source is refused before it runs",
          "[online_completion]") {
  for (const char* name : {"als_completion", "sgd_mf", "bias_baseline"}) {
    INFO(name);
    const auto file = test::binary_dir() / "online_completion" / (std::string("endless_") + name + ".json");
    std::filesystem::create_directories(file.parent_path());
    std::ofstream(file) << R"({"name": "endless", "seed": 1,
      "data": {"name": "synthetic", "operator": "entry", "sampler": "one_hot", "d": 20, "rank": 2},
      "estimators": [{"name": ")" << name << R"("}], "metrics": ["relative_error_M"]})";
    const auto out = test::rankone_cli("validate " + file.string());
    INFO(out.text);
    CHECK(out.code == 2);
    CHECK_THAT(out.text, Catch::Matchers::Contains(std::string("at /estimators/0: estimator '") + name +
                                                   "' fits one fixed training set, and the data source is endless"));
  }
}
