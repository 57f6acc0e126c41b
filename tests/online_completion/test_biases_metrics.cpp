// bias_baseline and the offset of the completion estimators (biases.hpp), and the completion metrics
// (test_relative_error, test_psnr, export_matrix), on entries with planted biases and on hand values.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../../plugins/online_completion/biases.hpp"
#include "../../plugins/online_completion/completion_metrics.hpp"
#include "rankone/rankone.hpp"
#include "test_support.hpp"

using namespace rankone;

namespace {

/// Planted M_ij = μ + b_i + c_j + σ ξ_ij with b, c centred (so the minimum-norm fit is identifiable),
/// written as a ratings file with a fraction `observed` of the entries.
struct PlantedBiases {
  Index d1 = 60, d2 = 40;
  double mu = 3.5, sigma = 0.1;
  Vector b, c;
  std::string file;

  PlantedBiases(const std::filesystem::path& dir, double observed, double noise, std::uint64_t seed) : sigma(noise) {
    Rng rng(seed);
    b.resize(d1);
    c.resize(d2);
    rng.fill_normal(b.data(), d1);
    rng.fill_normal(c.data(), d2);
    b.array() -= b.mean();
    c.array() -= c.mean();
    std::ostringstream text;
    text.precision(17);
    for (Index i = 0; i < d1; ++i)
      for (Index j = 0; j < d2; ++j)
        if (rng.uniform() < observed) text << i << ',' << j << ',' << mu + b(i) + c(j) + sigma * rng.normal() << '\n';
    std::filesystem::create_directories(dir);
    file = (dir / "biases.csv").string();
    std::ofstream(file) << text.str();
  }
  Json source() const {
    return {{"name", "ratings"}, {"file", file}, {"ids", "zero_based"}, {"users", d1}, {"items", d2},
            {"test_fraction", 0.0}};
  }
};

struct Fitted {
  double mu;
  Vector b, c;
};

Fitted fit_bias_baseline(const Json& source_ref, double regularization) {
  auto source = test::make<DataSource>(source_ref, Kind::data_source);
  source->open(1);
  auto estimator = test::make<Estimator>(
      Json{{"name", "bias_baseline"}, {"regularization", regularization}, {"max_iterations", 5000}, {"tolerance", 1e-14}},
      Kind::estimator);
  Rng rng(2);
  estimator->start(*source, rng);
  REQUIRE(estimator->summary().status == Status::running);
  while (estimator->step(*source)) {
  }
  REQUIRE(estimator->summary().status == Status::converged);
  const Estimate e = estimator->estimate();
  REQUIRE(e.left.cols() == 3);  // the zero column, then [b, 1] × [1, c]
  return {e.bias, e.left.col(1), e.right.col(2)};
}

}  // namespace

TEST_CASE("bias_baseline recovers planted biases within their sampling error", "[online_completion][biases]") {
  // Every entry observed: the fit is μ̂ = mean, b̂_i = row mean − μ̂, ĉ_j = column mean − μ̂, shrunk by
  // d/(d + λ). The noise part of b̂_i − b_i has sd σ √(1/d2 − 1/(d1 d2)) (σ √(1/d1 − 1/(d1 d2)) for ĉ);
  // the shrinkage adds at most λ |b_i| / (d2 + λ) ≤ 0.01 · 4 / 40 = 1e-3. Bounds: 5 sd + 1e-3 (a
  // normal beyond 5 sd has probability 6e-7, i.e. 6e-5 over the 100 biases).
  const PlantedBiases planted(std::filesystem::temp_directory_path() / "rankone_omc_biases_full", 1.0, 0.1, 11);
  const double lambda = 0.01;
  const Fitted fit = fit_bias_baseline(planted.source(), lambda);
  const double d1 = static_cast<double>(planted.d1), d2 = static_cast<double>(planted.d2);
  const double sd_b = planted.sigma * std::sqrt(1.0 / d2 - 1.0 / (d1 * d2));
  const double sd_c = planted.sigma * std::sqrt(1.0 / d1 - 1.0 / (d1 * d2));
  CHECK(std::abs(fit.mu - planted.mu) < 5.0 * planted.sigma / std::sqrt(d1 * d2));
  CHECK((fit.b - planted.b).cwiseAbs().maxCoeff() < 5.0 * sd_b + 1e-3);
  CHECK((fit.c - planted.c).cwiseAbs().maxCoeff() < 5.0 * sd_c + 1e-3);
  // And the errors are of the predicted size, not much smaller (which would mean the noise was not there).
  const double rms_b = (fit.b - planted.b).norm() / std::sqrt(d1);
  CHECK(rms_b > 0.6 * sd_b);
  CHECK(rms_b < 1.4 * sd_b);
}

TEST_CASE("bias_baseline reaches the minimiser of the ridge problem on partly observed entries",
          "[online_completion][biases]") {
  // 60 % observed: the block coordinate descent must converge to the solution of the normal equations
  // of Σ_Ω (m − μ − b_i − c_j)² + λ(‖b‖² + ‖c‖²), solved densely here (1 + d1 + d2 unknowns).
  const PlantedBiases planted(std::filesystem::temp_directory_path() / "rankone_omc_biases_partial", 0.6, 0.3, 12);
  const double lambda = 2.0;
  const Fitted fit = fit_bias_baseline(planted.source(), lambda);

  const Index n = 1 + planted.d1 + planted.d2;
  Matrix normal = Matrix::Zero(n, n);
  Vector rhs = Vector::Zero(n);
  std::ifstream in(planted.file);
  std::string line;
  while (std::getline(in, line)) {
    Index i = 0, j = 0;
    double m = 0.0;
    REQUIRE(std::sscanf(line.c_str(), "%ld,%ld,%lf", &i, &j, &m) == 3);
    const Index slots[3] = {0, 1 + i, 1 + planted.d1 + j};
    for (Index a : slots) {
      rhs(a) += m;
      for (Index b : slots) normal(a, b) += 1.0;
    }
  }
  normal.diagonal().tail(n - 1).array() += lambda;
  const Vector exact = normal.ldlt().solve(rhs);
  CHECK(std::abs(fit.mu - exact(0)) < 1e-9);
  CHECK((fit.b - exact.segment(1, planted.d1)).cwiseAbs().maxCoeff() < 1e-9);
  CHECK((fit.c - exact.tail(planted.d2)).cwiseAbs().maxCoeff() < 1e-9);
}

TEST_CASE("running biases: exact mean and column biases, row biases near the batch fit", "[online_completion][biases]") {
  // Streamed row by row: μ and b_col(j) = Σ(m − μ)/(λ + n_j) are exact for the current μ; the row
  // biases use the column biases known when each entry arrived, so they are approximate.
  const Index d1 = 30, d2 = 20;
  Rng rng(5);
  Matrix M(d1, d2);
  Vector b(d1), c(d2);
  rng.fill_normal(b.data(), d1);
  rng.fill_normal(c.data(), d2);
  for (Index i = 0; i < d1; ++i)
    for (Index j = 0; j < d2; ++j) M(i, j) = 3.0 + b(i) + c(j);
  const double lambda = 1.0;
  online_completion::RunningBiases running(online_completion::OffsetKind::biases, lambda, d1, d2);
  for (Index i = 0; i < d1; ++i)
    for (Index j = 0; j < d2; ++j) running.observe(i, j, M(i, j));
  const online_completion::Biases estimate = running.biases();
  const double mean = M.mean();
  CHECK(estimate.mean == Approx(mean).epsilon(1e-14));
  for (Index j = 0; j < d2; ++j)
    CHECK(estimate.col(j) == Approx((M.col(j).sum() - d1 * mean) / (lambda + d1)).margin(1e-12));
  // Full data, noise-free: the rows' residuals are exact once the columns are known; the early
  // entries of the stream saw unsettled column biases, which costs (measured) ≈ 0.2 RMS here.
  Vector row_truth(d1);
  for (Index i = 0; i < d1; ++i) row_truth(i) = (M.row(i).sum() - d2 * mean - estimate.col.sum()) / (lambda + d2);
  CHECK((estimate.row - row_truth).norm() / std::sqrt(static_cast<double>(d1)) < 0.5);
  CHECK(running(3, 4) == Approx(estimate.mean + estimate.row(3) + estimate.col(4)));
}

TEST_CASE("offset biases: als_completion fits the biases of bias_baseline first; omc_psd rejects them",
          "[online_completion][biases]") {
  // The offset of als_completion is the same ridge fit as bias_baseline (to convergence), carried in
  // the estimate as the columns [b, 1] × [1, c] after the rank-k factors, and μ as the bias.
  const PlantedBiases planted(std::filesystem::temp_directory_path() / "rankone_omc_biases_offset", 0.7, 0.1, 13);
  const double lambda = 2.0;
  const Fitted baseline = fit_bias_baseline(planted.source(), lambda);
  auto source = test::make<DataSource>(planted.source(), Kind::data_source);
  source->open(1);
  auto als = test::make<Estimator>(Json{{"name", "als_completion"}, {"rank", 2}, {"offset", "biases"},
                                        {"offset_regularization", lambda}, {"max_iterations", 5}},
                                   Kind::estimator);
  Rng rng(3);
  als->start(*source, rng);
  REQUIRE(als->summary().status == Status::running);
  while (als->step(*source)) {
  }
  const Estimate e = als->estimate();
  REQUIRE(e.left.cols() == 4);
  CHECK(std::abs(e.bias - baseline.mu) < 1e-9);
  CHECK((e.left.col(2) - baseline.b).cwiseAbs().maxCoeff() < 1e-9);
  CHECK((e.right.col(3) - baseline.c).cwiseAbs().maxCoeff() < 1e-9);
  CHECK(e.left.col(3).isOnes());
  CHECK(e.right.col(2).isOnes());

  CHECK_THROWS_WITH(test::make<Estimator>(Json{{"name", "omc_psd"}, {"offset", "biases"}}, Kind::estimator),
                    Catch::Contains("offset") && Catch::Contains("symmetr"));
}

TEST_CASE("completion metrics against hand values", "[online_completion][metrics]") {
  using online_completion::psnr;
  using online_completion::relative_error;
  Vector observed(3), predicted(3);
  observed << 1.0, 2.0, 5.0;
  predicted << 1.0, 2.0, 3.0;
  CHECK(relative_error(predicted, observed) == Approx(2.0 / std::sqrt(30.0)).epsilon(1e-14));
  CHECK(relative_error(predicted, Vector::Zero(3)) == Approx(std::sqrt(14.0)).epsilon(1e-14));
  CHECK(std::isnan(relative_error(Vector(), Vector())));
  Vector a(2), b(2);
  a << 0.5, 0.5;
  b << 0.4, 0.7;  // MSE (0.01 + 0.04)/2 = 0.025: 10 log10(1/0.025) = 10 log10(40)
  CHECK(psnr(a, b, 1.0) == Approx(10.0 * std::log10(40.0)).epsilon(1e-12));
  CHECK(psnr(255.0 * a, 255.0 * b, 255.0) == Approx(10.0 * std::log10(40.0)).epsilon(1e-12));
  CHECK(psnr(a, a, 1.0) == Approx(3000.0));  // exact: the MSE floor keeps it finite

  // Through the registry, on a 2 × 3 estimate and three held-out entries of the `entry` operator.
  auto op = test::make<SensingOperator>(Json("entry"), Kind::sensing_operator);
  Estimate e;
  e.left = Matrix(2, 1);
  e.left << 1.0, 2.0;
  e.right = Matrix(3, 1);
  e.right << 1.0, 0.0, -1.0;
  e.bias = 0.5;  // M = [[1.5, 0.5, -0.5], [2.5, 0.5, -1.5]]
  Batch test_set;
  IndexVector rows(3), cols(3);
  rows << 0, 1, 1;
  cols << 0, 1, 2;
  test_set.left = DesignSide::make_index(2, rows);
  test_set.right = DesignSide::make_index(3, cols);
  test_set.y.resize(3);
  test_set.y << 1.5, 1.5, -1.5;  // errors 0, -1, 0
  const MetricContext ctx{e, nullptr, &test_set, *op, Link::identity, 0, 0.0, 0};
  auto relative = test::make<Metric>(Json("test_relative_error"), Kind::metric);
  CHECK(relative->evaluate(ctx).at(0).second == Approx(1.0 / std::sqrt(1.5 * 1.5 * 3)).epsilon(1e-14));
  auto peak = test::make<Metric>(Json{{"name", "test_psnr"}, {"peak", 2.0}}, Kind::metric);
  CHECK(peak->evaluate(ctx).at(0).second == Approx(10.0 * std::log10(4.0 / (1.0 / 3.0))).epsilon(1e-12));

  const auto dir = std::filesystem::temp_directory_path() / "rankone_omc_export";
  std::filesystem::create_directories(dir);
  auto dump = test::make<Metric>(Json{{"name", "export_matrix"}, {"path", (dir / "m.csv").string()},
                                      {"test_path", (dir / "t.csv").string()}},
                                 Kind::metric);
  CHECK(dump->evaluate(ctx).empty());
  std::ifstream matrix(dir / "m.csv"), held(dir / "t.csv");
  std::stringstream m_text, t_text;
  m_text << matrix.rdbuf();
  t_text << held.rdbuf();
  CHECK(m_text.str() == "1.5,0.5,-0.5\n2.5,0.5,-1.5\n");
  CHECK(t_text.str() == "row,col,value\n0,0,1.5\n1,1,1.5\n1,2,-1.5\n");
  std::filesystem::remove_all(dir);
}

TEST_CASE("init_fit scale: the warm start rescaled by least squares, recovery unchanged on uniform entries",
          "[online_completion][warm_start]") {
  // On a planted 400 × 300 rank-3 matrix (entries sampled uniformly, where d1 d2/|Ω| is the right
  // scale) the rescaled warm start must still converge like the paper's (the budget of the omc_general
  // recovery test: ≤ 1e-6 within 60 batches of 10 000), and its start error must not be worse than
  // the paper's by more than a few per cent (it fits the scale on the warm-start entries only).
  const Json source{{"name", "synthetic"}, {"operator", "entry"}, {"sampler", "one_hot"}, {"d", 400}, {"d2", 300},
                    {"rank", 3},           {"truth", "general"},  {"condition_number", 2.0}};
  std::vector<double> start_error;
  for (const char* fit : {"none", "scale"}) {
    auto data = test::make<DataSource>(source, Kind::data_source);
    data->open(12);
    auto estimator = test::make<Estimator>(
        Json{{"name", "omc_general"}, {"rank", 3}, {"batch_size", 10000}, {"max_iterations", 60}, {"init_fit", fit}},
        Kind::estimator);
    Rng rng(derive_seed(12, "estimator"));
    estimator->start(*data, rng);
    REQUIRE(estimator->summary().status == Status::running);
    const auto error = [&] {
      return difference_norms(estimator->estimate(), data->truth()).frobenius /
             difference_norms(*data->truth(), nullptr).frobenius;
    };
    start_error.push_back(error());
    while (estimator->step(*data)) {
    }
    CHECK(error() <= 1e-6);
  }
  CHECK(start_error[1] <= 1.05 * start_error[0]);
}
