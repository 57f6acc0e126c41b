// fm_moment_elimination, ifm, fm and ridge through the real registry (synthetic source, symmetric
// rank-one operator, samplers, metrics).
//
// Recovery tests are noise-free: the truth is then an exact fixed point of the alternating
// iterations, which converge linearly (measured contraction per iteration ≈ 0.25 at d = 100, k = 3,
// n = 10 000, see docs/plugins/fm_moment_elimination.md), so 40 iterations reach ~1e-10 and the
// 1e-5 threshold leaves five orders of margin. The fm tests have noise σ = 0.1 with N = 5 000
// training instances and p = d k + d + 1 = 91 parameters: the least-squares excess test error is
// about σ √(p/N) = 0.013, i.e. RMSE ≈ σ √(1 + p/N) = 1.009 σ against the bound 1.05 σ.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

Json source(const std::string& sampler, const std::string& truth, Index d, Index rank) {
  Json s{{"name", "synthetic"},
         {"d", d},
         {"rank", rank},
         {"truth", truth},
         {"w_norm", 1.0},
         {"operator", {{"name", "symmetric_rank_one"}, {"first_order", true}}},
         {"sampler", sampler}};
  if (truth == "symmetric") s["signs"] = "mixed";
  return s;
}

struct Outcome {
  Summary summary;
  double combined_error = 0.0;
  double test_rmse = 0.0;
};

/// Runs an estimator to the end on a freshly opened source, as the runner does.
Outcome run(const Json& source_ref, const Json& estimator_ref, std::uint64_t seed) {
  auto data = test::make<DataSource>(source_ref, Kind::data_source);
  data->open(seed);
  auto estimator = test::make<Estimator>(estimator_ref, Kind::estimator);
  Rng rng(derive_seed(seed, "estimator"));
  estimator->start(*data, rng);
  if (estimator->summary().status == Status::running)
    while (estimator->step(*data)) {
    }
  Outcome out;
  out.summary = estimator->summary();
  const Estimate estimate = estimator->estimate();
  const MetricContext ctx{estimate, data->truth(), data->test_set(), data->sensing_operator(), data->link(),
                          data->samples_drawn(), 0.0, out.summary.iterations};
  out.combined_error = test::make<Metric>("combined_error", Kind::metric)->evaluate(ctx).at(0).second;
  if (data->test_set()) out.test_rmse = test::make<Metric>("test_rmse", Kind::metric)->evaluate(ctx).at(0).second;
  return out;
}

Json moment_elimination(Index rank = 3) {
  return Json{{"name", "fm_moment_elimination"}, {"rank", rank}, {"batch_size", 10000}, {"max_iterations", 40}};
}

}  // namespace

TEST_CASE("fm_moment_elimination recovers w*, M* on tau-MIP data", "[fm_subgaussian][moment_elimination]") {
  // d = 100, k = 3, eigenvalues (1, −0.56, 0.32)·… of mixed signs, ‖w*‖ = 1, no noise.
  for (const char* sampler : {"gaussian", "uniform", "exponential"}) {
    INFO("sampler " << sampler);
    const Outcome o = run(source(sampler, "symmetric", 100, 3), moment_elimination(), 21);
    CHECK(o.summary.status == Status::converged);
    CHECK(o.combined_error < 1e-5);
  }
}

TEST_CASE("fm_moment_elimination refuses Rademacher data (tau = 0)", "[fm_subgaussian][moment_elimination]") {
  const Outcome o = run(source("bernoulli", "symmetric", 100, 3), moment_elimination(), 22);
  CHECK(o.summary.status == Status::failed);
  CHECK_THAT(o.summary.message, Catch::Contains("tau") && Catch::Contains("below tau_threshold") &&
                                    Catch::Contains("Proposition 1"));
  CHECK(o.summary.iterations == 0);
}

TEST_CASE("ifm recovers a zero-diagonal truth on Rademacher data", "[fm_subgaussian][ifm]") {
  // M* = U V' − D(U V') with independent Gaussian U, V (rank 3): its symmetric part, which is what
  // x'Mx sees, has rank 6 with eigenvalues of both signs, so the estimator needs rank 6.
  const Json ifm{{"name", "ifm"}, {"rank", 6}, {"batch_size", 10000}, {"max_iterations", 40}};
  const Outcome o = run(source("bernoulli", "zero_diagonal", 100, 3), ifm, 23);
  CHECK(o.summary.status == Status::converged);
  CHECK(o.combined_error < 1e-5);
}

TEST_CASE("a damped ifm step keeps the fixed point and only slows the contraction", "[fm_subgaussian][ifm]") {
  // step_size η scales the w and M updates; the truth stays a fixed point (zero residuals), so η = 0.5
  // reaches the same accuracy as the paper's η = 1, in more iterations.
  const Json paper{{"name", "ifm"}, {"rank", 6}, {"batch_size", 10000}, {"max_iterations", 200}};
  Json damped = paper;
  damped["step_size"] = 0.5;
  const Outcome full = run(source("bernoulli", "zero_diagonal", 100, 3), paper, 23);
  const Outcome half = run(source("bernoulli", "zero_diagonal", 100, 3), damped, 23);
  CHECK(half.summary.status == Status::converged);
  CHECK(half.combined_error < 1e-5);
  CHECK(half.summary.iterations > full.summary.iterations);
}

TEST_CASE("ifm with standardize learns from badly scaled features", "[fm_subgaussian][ifm][scaling]") {
  // x ~ N(0.5, 0.1²) per coordinate (the Figure 1 scale plus an offset): standardisation estimated on
  // the first batch, model folded back to raw coordinates (bias and w absorb the centring).
  Json data = source("gaussian", "fm", 60, 2);
  data["sampler"] = Json{{"name", "gaussian"}, {"mean", 0.5}, {"std", 0.1}};
  const Json ifm{{"name", "ifm"}, {"rank", 2}, {"batch_size", 8000}, {"max_iterations", 60}, {"standardize", true}};
  const Outcome o = run(data, ifm, 24);
  CHECK(o.summary.status == Status::converged);
  CHECK(o.combined_error < 1e-5);
}

TEST_CASE("fm fits conventional-FM data to the noise floor with SGD and ALS", "[fm_subgaussian][fm]") {
  Json data = source("gaussian", "fm", 30, 2);
  data["noise_std"] = 0.1;
  data["size"] = 5000;
  data["test_size"] = 2000;
  data["test_noise"] = true;  // the floor is then the noise std itself
  const Json als{{"name", "fm"}, {"rank", 2}, {"solver", "als"}, {"max_iterations", 100}};
  const Json sgd{{"name", "fm"}, {"rank", 2}, {"solver", "sgd"}, {"learning_rate", 0.002}, {"decay", 0.2}, {"max_iterations", 100}};
  for (const Json& fm : {als, sgd}) {
    INFO("solver " << fm["solver"]);
    const Outcome o = run(data, fm, 25);
    CHECK((o.summary.status == Status::converged || o.summary.status == Status::max_iterations));
    CHECK_THAT(o.summary.message, Catch::Contains("5000 instances (one pass of the finite source) held in memory"));
    CHECK(o.test_rmse <= 1.05 * 0.1);
  }
  // Without interactions the same data are far from the floor (Var x'M*x ≈ 2 k = 4).
  const Outcome linear = run(data, Json{{"name", "ridge"}}, 25);
  CHECK(linear.summary.status == Status::converged);
  CHECK(linear.test_rmse > 10 * 0.1);
}

TEST_CASE("fm: an SGD step so long its parameters overflow ends diverged by the shared non-finite rule",
          "[fm_subgaussian][fm]") {
  Json data = source("gaussian", "fm", 30, 2);
  data["size"] = 2000;
  const Outcome o = run(data, Json{{"name", "fm"}, {"rank", 2}, {"solver", "sgd"}, {"learning_rate", 1e6}, {"max_iterations", 50}}, 25);
  INFO(o.summary.message);
  CHECK(o.summary.status == Status::diverged);
  CHECK_THAT(o.summary.message, Catch::Contains("produced non-finite parameters; the estimate returned is the one before "
                                                "this epoch; reduce learning_rate"));
  CHECK(std::isfinite(o.test_rmse));  // the epoch before the overflow, finite
  CHECK(o.summary.iterations <= 50);
}

TEST_CASE("fm and ridge learn from the first training_size instances of a finite source, and refuse more",
          "[fm_subgaussian][fm][ridge][finite]") {
  Json data = source("gaussian", "fm", 10, 2);
  data["size"] = 1000;
  const Outcome part = run(data, Json{{"name", "fm"}, {"rank", 2}, {"solver", "als"}, {"training_size", 300}, {"max_iterations", 2}}, 3);
  CHECK(part.summary.status == Status::max_iterations);
  CHECK_THAT(part.summary.message, Catch::Contains("the first 300 instances of the finite source held in memory"));
  const Outcome whole = run(data, Json{{"name", "fm"}, {"rank", 2}, {"solver", "als"}, {"max_iterations", 2}}, 3);
  CHECK_THAT(whole.summary.message, Catch::Contains("1000 instances (one pass of the finite source) held in memory"));
  const Outcome too_many = run(data, Json{{"name", "fm"}, {"rank", 2}, {"training_size", 1001}}, 3);
  CHECK(too_many.summary.status == Status::failed);
  CHECK_THAT(too_many.summary.message,
             Catch::Contains("training_size 1001 is larger than the finite training set of 1000 instances"));

  const Outcome ridge_part = run(data, Json{{"name", "ridge"}, {"batch_size", 200}, {"training_size", 300}}, 3);
  CHECK(ridge_part.summary.status == Status::converged);
  CHECK_THAT(ridge_part.summary.message, Catch::Contains("exact solution on 300 instances"));
  const Outcome ridge_too_many = run(data, Json{{"name", "ridge"}, {"training_size", 1001}}, 3);
  CHECK(ridge_too_many.summary.status == Status::failed);
  CHECK_THAT(ridge_too_many.summary.message,
             Catch::Contains("training_size 1001 is larger than the finite training set of 1000 instances"));
}

TEST_CASE("fm starts from the shared init's M0 in the data's coordinates, standardised or not; init_std is retired",
          "[fm_subgaussian][fm][init]") {
  // A PSD M* (eigenvalues 1, 0.5) as near_truth at distance 0, features of std 2: with standardize
  // the factor learnt is U = S L, and the start estimate (raw coordinates) is M* off its diagonal.
  Json data = source("gaussian", "symmetric", 8, 2);
  data["sampler"] = {{"name", "gaussian"}, {"std", 2.0}};
  data["eigenvalues"] = Json::array({1.0, 0.5});
  data["size"] = 2000;
  for (const bool standardize : {false, true}) {
    INFO("standardize " << standardize);
    const test::SteppedRun r = test::run_stepwise(
        data, Json{{"name", "fm"}, {"rank", 2}, {"solver", "als"}, {"max_iterations", 1}, {"standardize", standardize},
                   {"init", {{"name", "near_truth"}, {"distance", 0.0}}}},
        3);
    auto truth_source = test::make<DataSource>(data, Kind::data_source);
    truth_source->open(3);
    Matrix expected = truth_source->truth()->dense();
    expected.diagonal().setZero();
    CHECK((r.start_estimate.dense() - expected).norm() <= 1e-12 * expected.norm());
  }
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "fm"}, {"init_std", 0.1}}, Kind::estimator),
                    Catch::Contains("random_init"));
}

TEST_CASE("ridge equals the dense normal-equation solution", "[fm_subgaussian][ridge]") {
  // Features with large means (mean 5, std 2) stress the streamed statistics; 7 batches of 700.
  Json data = source("gaussian", "fm", 12, 2);
  data["sampler"] = Json{{"name", "gaussian"}, {"mean", 5.0}, {"std", 2.0}};
  data["size"] = 4900;
  data["noise_std"] = 0.5;
  for (bool standardize : {false, true}) {
    const double l2 = 0.3;
    auto source_for_truth = test::make<DataSource>(data, Kind::data_source);
    source_for_truth->open(26);
    const Batch all = source_for_truth->next(4900);
    const Matrix X = all.left.dense;
    const double n = static_cast<double>(X.cols());
    const Vector mu = X.rowwise().mean();
    const Matrix Xc = X.colwise() - mu;
    const Vector yc = all.y.array() - all.y.mean();
    const Vector s = standardize ? Vector((Xc.array().square().rowwise().sum() / n).sqrt()) : Vector::Ones(12);
    const Matrix Zc = s.cwiseInverse().asDiagonal() * Xc;
    Matrix A = Zc * Zc.transpose() / n;
    A.diagonal().array() += l2;
    const Vector w = s.cwiseInverse().cwiseProduct(A.ldlt().solve(Zc * yc / n));

    auto data_source = test::make<DataSource>(data, Kind::data_source);
    data_source->open(26);
    auto ridge = test::make<Estimator>(Json{{"name", "ridge"}, {"l2", l2}, {"batch_size", 700}, {"standardize", standardize}},
                                       Kind::estimator);
    Rng rng(1);
    ridge->start(*data_source, rng);
    int steps = 0;
    while (ridge->step(*data_source)) ++steps;
    CHECK(steps == 7);
    CHECK(ridge->summary().status == Status::converged);
    const Estimate e = ridge->estimate();
    CHECK((e.w - w).norm() < 1e-10 * w.norm());
    CHECK(e.bias == Approx(all.y.mean() - w.dot(mu)).epsilon(1e-10));
  }
}

TEST_CASE("one-pass estimators re-use a finite set only when told to", "[fm_subgaussian][passes]") {
  Json data = source("gaussian", "symmetric", 40, 2);
  data["size"] = 12000;
  const Json once{{"name", "fm_moment_elimination"}, {"rank", 2}, {"batch_size", 3000}, {"max_iterations", 50}, {"tolerance", 0.0}};
  const Outcome single = run(data, once, 27);
  // 12 000 instances: moments, initialisation and 2 iterations of 3 000, then the data end.
  CHECK(single.summary.status == Status::max_iterations);
  CHECK(single.summary.iterations == 2);
  CHECK_THAT(single.summary.message, Catch::StartsWith("one pass over the data: the source ran out after 12000 samples "
                                                       "(2 iterations)"));
  CHECK_THAT(single.summary.message, !Catch::Contains("re-used"));

  Json reuse = once;
  reuse["passes"] = 5;
  reuse["name"] = "ifm";
  const Outcome several = run(data, reuse, 27);
  CHECK(several.summary.iterations == 19);  // 5 passes × 4 batches, minus ifm's one initial batch
  CHECK_THAT(several.summary.message, Catch::Contains("re-used the finite training set (5 passes over 12000 instances"));
}

TEST_CASE("the moment estimators use full batches only, and ifm starts on its first batch", "[fm_subgaussian][passes]") {
  // 10 500 instances in batches of 2000: fm_moment_elimination reads a moments batch, a start batch
  // and 3 iterations; ifm, which estimates no moments, a start batch and 4 iterations. The last 500
  // instances cannot make a batch: they are not used, and the notes say so (BatchReader's rule).
  Json data = source("gaussian", "symmetric", 20, 2);
  data["size"] = 10500;
  for (const char* name : {"fm_moment_elimination", "ifm"}) {
    CAPTURE(name);
    const Json estimator{{"name", name}, {"rank", 2}, {"batch_size", 2000}, {"max_iterations", 50}, {"tolerance", 0.0}};
    const Outcome o = run(data, estimator, 28);
    CAPTURE(o.summary.message);
    CHECK(o.summary.status != Status::failed);
    CHECK(o.summary.iterations == (std::string(name) == "ifm" ? 4 : 3));
    CHECK_THAT(o.summary.message, Catch::Contains("the partial last batch of 500 instances is not used"));
    REQUIRE(o.summary.notes.size() == 1);
    CHECK(o.summary.notes[0] == std::string(name) + ": the partial last batch of 500 instances was not used (every "
                                                     "batch has batch_size = 2000 instances)");
  }
  // A source smaller than one batch: refused before anything runs, saying why.
  data["size"] = 1500;
  const Outcome tiny = run(data, Json{{"name", "ifm"}, {"rank", 2}, {"batch_size", 2000}}, 28);
  CHECK(tiny.summary.status == Status::failed);
  CHECK(tiny.summary.message == "batch_size 2000 is larger than the finite training set of 1500 instances (a batch "
                                 "would hold some of them twice): lower it");
}

