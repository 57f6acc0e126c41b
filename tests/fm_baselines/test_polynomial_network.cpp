// polynomial_network: its coordinate-descent epochs agree with the numpy reference
// (tests/references/polynomial_network.py) step by step; the registered estimator is that solver
// from its documented start; it recovers an indefinite M* with its diagonal, w* and b*, which the
// conventional FM cannot represent; sources it cannot read are refused by name.
#include <catch2/catch.hpp>

#include "fm_data.hpp"
#include "lifted_cd.hpp"

namespace {

using namespace rankone;
using Catch::Matchers::Contains;

constexpr std::uint64_t kNetworkSeed = 29;

/// The estimator's start: random_init's L then R ~ N(0, std²) (d × k each) from the generator its
/// start() seeds as P's and Q's first d rows; the constant feature's row (rows = d + 1) at 0.
std::pair<Matrix, Matrix> documented_start(Index d, Index rows, Index k, double std_dev) {
  Rng trial(derive_seed(kNetworkSeed, "estimator"));
  Rng own(trial());
  Matrix L(d, k), R(d, k);
  own.fill_normal(L.data(), L.size());
  own.fill_normal(R.data(), R.size());
  Matrix P = Matrix::Zero(rows, k), Q = Matrix::Zero(rows, k);
  P.topRows(d) = std_dev * L;
  Q.topRows(d) = std_dev * R;
  return {P, Q};
}

}  // namespace

TEST_CASE("polynomial_network's epochs agree with the numpy reference, and the estimator is that solver",
          "[polynomial_network][reference]") {
  const int epochs = 6;
  for (const bool fit_lower : {true, false}) {
    for (const double reg_v : {0.0, 1e-3}) {
      const std::string label = std::string("polynomial_network_") + (fit_lower ? "lower" : "plain") + (reg_v > 0 ? "_reg" : "");
      INFO(label);
      const Json source = test::fm_source(8, 400, "symmetric");
      const Json estimator{{"name", "polynomial_network"}, {"rank", 3}, {"reg_v", reg_v}, {"fit_lower", fit_lower},
                           {"max_iterations", epochs}, {"tolerance", 0.0}};
      const test::SteppedRun run = test::run_stepwise(source, estimator, kNetworkSeed);
      REQUIRE(static_cast<int>(run.estimates.size()) == epochs);

      const Batch train = test::training_set(source, kNetworkSeed);
      Matrix Xt = fm_baselines::instances_by_features(train, fit_lower);
      auto [P0, Q0] = documented_start(train.left.dense.rows(), Xt.cols(), 3, 0.1);
      fm_baselines::LiftedCd solver(Xt, train.y, P0, Q0, reg_v);
      const auto dir = test::agreement_dir(label);
      write_npy(dir / "X.npy", NamedArray::of(train.left.dense));
      write_npy(dir / "y.npy", NamedArray::of(train.y));
      const auto write_state = [&](int t) {
        write_npy(dir / ("P_" + std::to_string(t) + ".npy"), NamedArray::of(solver.P()));
        write_npy(dir / ("Q_" + std::to_string(t) + ".npy"), NamedArray::of(solver.Q()));
      };
      write_state(0);
      const Index d = train.left.dense.rows();
      for (int t = 1; t <= epochs; ++t) {
        // The estimate before epoch t's step is recorded after it: estimates[t-1] is after t epochs.
        solver.epoch();
        write_state(t);
        const Estimate& e = run.estimates[static_cast<std::size_t>(t - 1)];
        CHECK((e.left - solver.P().topRows(d)).norm() <= 1e-13 * solver.P().norm());
        CHECK((e.right - solver.Q().topRows(d)).norm() <= 1e-13 * solver.Q().norm());
        if (fit_lower) {
          const Vector a = solver.P().row(d).transpose(), b = solver.Q().row(d).transpose();
          CHECK((e.w - (solver.Q().topRows(d) * a + solver.P().topRows(d) * b)).norm() <= 1e-12 * std::max(1.0, e.w.norm()));
          CHECK(std::abs(e.bias - a.dot(b)) <= 1e-12 * std::max(1.0, std::abs(e.bias)));
        } else {
          CHECK(e.w.norm() == 0.0);
          CHECK(e.bias == 0.0);
        }
      }
      test::replay_in_numpy(dir, Json{{"method", "polynomial_network"}, {"rank", 3}, {"reg_v", reg_v},
                                      {"fit_lower", fit_lower}, {"iterations", epochs}, {"tolerance", 1e-9}});
    }
  }
}

TEST_CASE("polynomial_network recovers an indefinite M* with its diagonal, w* and b*; the conventional FM cannot",
          "[polynomial_network][recovery]") {
  const Json source = test::fm_source(10, 2000, "symmetric");
  auto network = test::run_to_end(source, Json{{"name", "polynomial_network"}, {"rank", 2}, {"tolerance", 1e-12}}, kNetworkSeed);
  const Summary s = network.estimator->summary();
  INFO(s.message);
  CHECK(s.status == Status::converged);
  const Estimate e = network.estimator->estimate();
  const GroundTruth& truth = *network.data->truth();
  CHECK(test::relative_error(e, truth) < 1e-6);
  CHECK((e.w - truth.w).norm() < 1e-6);
  CHECK(s.fit < 1e-6);  // relative residual on the held-out test set
  // libFM's model class (M = UU' − D(UU'), PSD, no diagonal) on the same rows stays far off.
  auto fm = test::run_to_end(source, Json{{"name", "fm"}, {"rank", 2}, {"solver", "als"}, {"max_iterations", 50}}, kNetworkSeed);
  INFO(fm.estimator->summary().message);
  CHECK(fm.estimator->summary().fit > 0.2);
}

TEST_CASE("polynomial_network and fm_mcmc refuse sources they cannot read, naming why", "[polynomial_network][fm_mcmc]") {
  const Json asymmetric{{"name", "synthetic"}, {"operator", "asymmetric_rank_one"}, {"d", 6}, {"d2", 5}, {"rank", 2},
                        {"truth", "general"}, {"size", 100}};
  for (const char* name : {"polynomial_network", "fm_mcmc"}) {
    auto run = test::run_to_end(asymmetric, Json{{"name", name}, {"rank", 2}}, kNetworkSeed);
    CHECK(run.estimator->summary().status == Status::failed);
    CHECK_THAT(run.estimator->summary().message, Contains("symmetric operator x'Mx"));
  }
}
