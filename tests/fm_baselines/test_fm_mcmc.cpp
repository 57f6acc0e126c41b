// fm_mcmc: its Gibbs sweeps agree with the numpy reference (tests/references/fm_mcmc.py) step by
// step on the same random numbers; the registered estimator is that chain from its documented start,
// its estimate the mean of the kept samples; on data of its own model class it predicts held-out
// rows to the noise.
#include <catch2/catch.hpp>

#include <cmath>

#include "fm_data.hpp"
#include "gibbs_fm.hpp"

#include <Eigen/Eigenvalues>  // after RankOne's headers: Eigen first comes through rankone/core/types.hpp

namespace {

using namespace rankone;

constexpr std::uint64_t kSeed = 29;

/// A sample's model (bias, w, M = ½(VV' − D(VV'))) in mean_t.npy's layout: [b, w, M row-major].
Vector flat_model(double bias, const Vector& w, const Matrix& M) {
  const Index d = M.rows();
  Vector out(1 + d + d * d);
  out(0) = bias;
  out.segment(1, d) = w;
  for (Index i = 0; i < d; ++i) out.segment(1 + d + i * d, d) = M.row(i).transpose();
  return out;
}

Matrix sample_matrix(const Matrix& V) {
  Matrix M = 0.5 * V * V.transpose();
  M.diagonal().setZero();
  return M;
}

/// state_t.npy's layout: [α, w0, μ_w, λ_w, μ_f (k), λ_f (k), w (d), V factor-major].
Vector flat_state(const fm_baselines::GibbsState& s) {
  const Index d = s.V.rows(), k = s.V.cols();
  Vector out(4 + 2 * k + d + d * k);
  out << s.alpha, s.w0, s.mu_w, s.lambda_w, s.mu_v, s.lambda_v, s.w, s.V.reshaped();
  return out;
}

}  // namespace

TEST_CASE("fm_mcmc's sweeps agree with the numpy reference on the same random numbers, and the estimator is that chain",
          "[fm_mcmc][reference]") {
  const int sweeps = 6;
  for (const int burn_in : {0, 2}) {
    const std::string label = "fm_mcmc_burn_in_" + std::to_string(burn_in);
    INFO(label);
    const Json source = test::fm_source(6, 300, "fm", 0.1);
    const Json estimator{{"name", "fm_mcmc"}, {"rank", 2}, {"burn_in", burn_in}, {"max_iterations", sweeps}};
    const test::SteppedRun run = test::run_stepwise(source, estimator, kSeed);
    REQUIRE(static_cast<int>(run.estimates.size()) == sweeps);

    // The documented start: the chain's generator seeded from the trial's, random_init's one factor
    // L ~ N(0, 0.1²) from it, V = √2 L (M0 = L L' = ½ V V').
    const Batch train = test::training_set(source, kSeed);
    const Index d = train.left.dense.rows(), k = 2;
    Rng trial(derive_seed(kSeed, "estimator"));
    Rng chain(trial());
    fm_baselines::GibbsState start;
    start.mu_v = Vector::Zero(k);
    start.lambda_v = Vector::Zero(k);
    start.w = Vector::Zero(d);
    Matrix G(d, k);
    chain.fill_normal(G.data(), G.size());
    start.V = std::sqrt(2.0) * Matrix(0.1 * G);
    fm_baselines::GibbsFm sampler(fm_baselines::instances_by_features(train, false), train.y, start);

    const auto dir = test::agreement_dir(label);
    write_npy(dir / "X.npy", NamedArray::of(train.left.dense));
    write_npy(dir / "y.npy", NamedArray::of(train.y));
    write_npy(dir / "state_0.npy", NamedArray::of(flat_state(sampler.state())));
    Vector sum = Vector::Zero(1 + d + d * d);
    int kept = 0;
    for (int t = 1; t <= sweeps; ++t) {
      const Vector variates = sampler.draw_variates(chain);
      sampler.sweep(variates);
      const auto& s = sampler.state();
      const Vector sample = flat_model(s.w0, s.w, sample_matrix(s.V));
      Vector mean = sample;
      if (t > burn_in) {
        sum += sample;
        mean = sum / ++kept;
      }
      write_npy(dir / ("variates_" + std::to_string(t) + ".npy"), NamedArray::of(variates));
      write_npy(dir / ("state_" + std::to_string(t) + ".npy"), NamedArray::of(flat_state(s)));
      write_npy(dir / ("mean_" + std::to_string(t) + ".npy"), NamedArray::of(mean));
      // The estimator's estimate after sweep t is that posterior mean.
      const Estimate& e = run.estimates[static_cast<std::size_t>(t - 1)];
      const Vector estimated = flat_model(e.bias, e.w, e.dense());
      CHECK((estimated - mean).norm() <= 1e-12 * mean.norm());
      // The incrementally kept residual is the state's.
      CHECK((sampler.residual() - sampler.recomputed_residual()).norm() <= 1e-10 * train.y.norm());
    }
    test::replay_in_numpy(dir, Json{{"method", "fm_mcmc"}, {"rank", k}, {"burn_in", burn_in}, {"iterations", sweeps},
                                    {"tolerance", 1e-9}});
  }
}

TEST_CASE("fm_mcmc starts from any start's M0, a two-factor one by its PSD part; init_std is retired with a hint",
          "[fm_mcmc][init]") {
  // near_truth at distance 0 is M* itself, indefinite (eigenvalues 1, −0.7): the one-factor start is
  // its positive part λ₁ u₁u₁', seen without its diagonal (an FM's M).
  const Json source = test::fm_source(6, 300, "symmetric");
  const test::SteppedRun run = test::run_stepwise(
      source, Json{{"name", "fm_mcmc"}, {"rank", 2}, {"max_iterations", 1}, {"init", {{"name", "near_truth"}, {"distance", 0.0}}}},
      kSeed);
  auto data = test::make<DataSource>(source, Kind::data_source);
  data->open(kSeed);
  const Eigen::SelfAdjointEigenSolver<Matrix> eig(data->truth()->dense());
  Matrix positive = eig.eigenvectors() * eig.eigenvalues().cwiseMax(0.0).asDiagonal() * eig.eigenvectors().transpose();
  positive.diagonal().setZero();
  CHECK((run.start_estimate.dense() - positive).norm() <= 1e-12 * positive.norm());
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "fm_mcmc"}, {"init_std", 0.1}}, Kind::estimator),
                    Catch::Matchers::Contains("random_init") && Catch::Matchers::Contains("s/√2"));
}

TEST_CASE("fm_mcmc predicts held-out rows of its own model class to the noise", "[fm_mcmc][recovery]") {
  // y = w0* + w*'x + x'M*x + ξ with M* = UU' − D(UU') (libFM's model class), noise sd 0.1; the noise
  // is left out of the test rows, so the relative test residual measures the estimate alone.
  const Json source = test::fm_source(10, 3000, "fm", 0.1);
  auto run = test::run_to_end(source, Json{{"name", "fm_mcmc"}, {"rank", 2}, {"max_iterations", 200}, {"burn_in", 20}}, kSeed);
  const Summary s = run.estimator->summary();
  INFO(s.message);
  CHECK(s.status == Status::max_iterations);
  CHECK(s.fit < 0.02);
  const Estimate e = run.estimator->estimate();
  CHECK(test::relative_error(e, *run.data->truth()) < 0.05);
}

TEST_CASE("fm_mcmc's burn_in must leave a sweep to average", "[fm_mcmc]") {
  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "fm_mcmc"}, {"burn_in", 10}, {"max_iterations", 10}}, Kind::estimator),
                    Catch::Matchers::Contains("violated constraint on /burn_in and /max_iterations"));
}

TEST_CASE("fm_mcmc without a first-order term samples no w, and runs zero sweeps at its default burn_in", "[fm_mcmc]") {
  Json source = test::fm_source(8, 1500, "fm", 0.1);
  source["operator"] = "symmetric_rank_one";  // x'Mx alone
  source.erase("w_norm");
  auto run = test::run_to_end(source, Json{{"name", "fm_mcmc"}, {"rank", 2}, {"max_iterations", 100}, {"burn_in", 10}}, kSeed);
  INFO(run.estimator->summary().message);
  CHECK(run.estimator->summary().status == Status::max_iterations);
  CHECK_FALSE(run.estimator->estimate().has_first_order());
  CHECK(run.estimator->summary().fit < 0.05);
  auto none = test::run_to_end(source, Json{{"name", "fm_mcmc"}, {"max_iterations", 0}}, kSeed);
  CHECK(none.estimator->summary().status == Status::max_iterations);
}
