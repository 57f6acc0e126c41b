// Moment estimates, the elimination coefficients G, H of Eqs. (8)–(9) and the feature scaling
// used by plugins/fm_subgaussian, against closed forms.
//
// Statistics: from n i.i.d. draws, the sample κ = mean(x³) has std √(E x⁶ / n) (Gaussian: √(15/n),
// uniform on [−√3, √3]: √(27/7 / n)), φ = mean(x⁴) has std √((E x⁸ − φ²)/n) (Gaussian: √(96/n),
// uniform: √((81/5 − 81/25)/n) ≈ √(12.96/n)). With n = 200 000 and d = 20 coordinates, the largest of
// 20 deviations is below 4 std with probability > 0.999: the tolerances are 4 std.
#include <catch2/catch.hpp>

#include <cmath>

#include "../../plugins/fm_subgaussian/fm_common.hpp"
#include "../../plugins/fm_subgaussian/moments.hpp"
#include "rankone/core/rng.hpp"

using namespace rankone;
using namespace rankone::fm_subgaussian;

namespace {

constexpr Index kDim = 20;
constexpr Index kSamples = 200000;

Matrix gaussian_designs(std::uint64_t seed) {
  Rng rng(seed);
  Matrix X(kDim, kSamples);
  rng.fill_normal(X.data(), X.size());
  return X;
}

Matrix uniform_designs(std::uint64_t seed) {
  Rng rng(seed);
  Matrix X(kDim, kSamples);
  rng.fill_uniform(X.data(), X.size());
  return (X.array() * 2.0 * std::sqrt(3.0) - std::sqrt(3.0)).matrix();
}

CoordinateMoments exact(double kappa, double phi) {
  return {Vector::Constant(kDim, kappa), Vector::Constant(kDim, phi)};
}

}  // namespace

TEST_CASE("G and H match their closed forms", "[fm_subgaussian][moments]") {
  SECTION("Gaussian: kappa = 0, phi = 3 -> G = (0, 0), H = (1, 0), tau = 2") {
    const CoordinateMoments m = exact(0.0, 3.0);
    const EliminationCoefficients c = elimination_coefficients(m);
    CHECK(m.tau() == Approx(2.0));
    CHECK(c.G.cwiseAbs().maxCoeff() < 1e-15);
    CHECK((c.H.col(0).array() - 1.0).abs().maxCoeff() < 1e-15);
    CHECK(c.H.col(1).cwiseAbs().maxCoeff() < 1e-15);
  }
  SECTION("uniform on [-sqrt 3, sqrt 3]: kappa = 0, phi = 9/5 -> G = (0, -3/2), H = (1, 0), tau = 0.8") {
    const CoordinateMoments m = exact(0.0, 9.0 / 5.0);
    const EliminationCoefficients c = elimination_coefficients(m);
    CHECK(m.tau() == Approx(0.8));
    CHECK(c.G(3, 0) == Approx(0.0).margin(1e-15));
    CHECK(c.G(3, 1) == Approx(-1.5));
    CHECK(c.H(3, 0) == Approx(1.0));
    CHECK(c.H(3, 1) == Approx(0.0).margin(1e-15));
  }
  SECTION("centred exponential: kappa = 2, phi = 9 -> G = (1, 1/2), H = (2, -1/2), tau = 4") {
    const CoordinateMoments m = exact(2.0, 9.0);
    const EliminationCoefficients c = elimination_coefficients(m);
    CHECK(m.tau() == Approx(4.0));
    CHECK(c.G(0, 0) == Approx(1.0));
    CHECK(c.G(0, 1) == Approx(0.5));
    CHECK(c.H(0, 0) == Approx(2.0));
    CHECK(c.H(0, 1) == Approx(-0.5));
  }
  SECTION("G and H solve B_j g = [kappa_j, phi_j - 3], B_j h = [1, 0] for arbitrary moments") {
    CoordinateMoments m{Vector(3), Vector(3)};
    m.kappa << 0.3, -1.1, 2.5;
    m.phi << 2.2, 4.0, 12.0;
    const EliminationCoefficients c = elimination_coefficients(m);
    for (Index j = 0; j < 3; ++j) {
      Eigen::Matrix2d B;
      B << 1.0, m.kappa(j), m.kappa(j), m.phi(j) - 1.0;
      const Eigen::Vector2d g = c.G.row(j).transpose();
      const Eigen::Vector2d h = c.H.row(j).transpose();
      CHECK((B * g - Eigen::Vector2d(m.kappa(j), m.phi(j) - 3.0)).norm() < 1e-12);
      CHECK((B * h - Eigen::Vector2d(1.0, 0.0)).norm() < 1e-12);
    }
  }
  SECTION("a two-point law has a singular B: NaN coefficients, tau = 0") {
    const CoordinateMoments m = exact(0.0, 1.0);  // Rademacher
    CHECK(m.tau() == 0.0);
    CHECK(std::isnan(elimination_coefficients(m).G(0, 0)));
  }
}

TEST_CASE("sample moments converge to the closed forms", "[fm_subgaussian][moments]") {
  const double n = static_cast<double>(kSamples);
  SECTION("Gaussian") {
    const CoordinateMoments m = estimate_moments(gaussian_designs(11));
    CHECK(m.kappa.cwiseAbs().maxCoeff() < 4.0 * std::sqrt(15.0 / n));
    CHECK((m.phi.array() - 3.0).abs().maxCoeff() < 4.0 * std::sqrt(96.0 / n));
    const EliminationCoefficients c = elimination_coefficients(m);
    // G2 = (φ − 3 − κ²)/(φ − 1 − κ²): |ΔG2| ≈ |Δφ|/2, G1 = 2κ/det ≈ κ.
    CHECK(c.G.cwiseAbs().maxCoeff() < 4.0 * std::sqrt(96.0 / n));
    CHECK(std::abs(m.tau() - 2.0) < 4.0 * std::sqrt(96.0 / n) + 1e-12);
  }
  SECTION("uniform") {
    const CoordinateMoments m = estimate_moments(uniform_designs(12));
    CHECK(m.kappa.cwiseAbs().maxCoeff() < 4.0 * std::sqrt(27.0 / 7.0 / n));
    CHECK((m.phi.array() - 1.8).abs().maxCoeff() < 4.0 * std::sqrt(12.96 / n));
    const EliminationCoefficients c = elimination_coefficients(m);
    // G2 = (φ − 3)/(φ − 1) at κ = 0: dG2/dφ = 2/(φ − 1)² = 3.125.
    CHECK((c.G.col(1).array() + 1.5).abs().maxCoeff() < 3.2 * 4.0 * std::sqrt(12.96 / n) + 0.01);
    CHECK(std::abs(m.tau() - 0.8) < 4.0 * std::sqrt(12.96 / n) + 1e-3);
  }
}

TEST_CASE("feature scaling folds back into the model exactly", "[fm_subgaussian][scaling]") {
  Rng rng(5);
  const Index d = 7, k = 2, n = 50;
  Matrix X(d, n);
  rng.fill_normal(X.data(), X.size());
  X = (X.array().colwise() * Eigen::ArrayXd::LinSpaced(d, 0.5, 3.0)).colwise() + Eigen::ArrayXd::LinSpaced(d, -2, 4);
  const FeatureScaling scaling = FeatureScaling::estimate(X);
  CHECK((scaling.apply(X).rowwise().mean()).cwiseAbs().maxCoeff() < 1e-12);
  for (bool zero_diagonal : {false, true}) {
    LowRankModel z;
    z.left = Matrix(d, k);
    z.right = Matrix(d, k);
    rng.fill_normal(z.left.data(), z.left.size());
    rng.fill_normal(z.right.data(), z.right.size());
    z.w = Vector(d);
    rng.fill_normal(z.w.data(), d);
    z.bias = 0.7;
    z.symmetrize = true;
    z.zero_diagonal = zero_diagonal;
    const Vector in_z = predict(scaling.apply(X), z);
    const Vector in_x = predict(X, scaling.to_raw(z));
    CHECK((in_z - in_x).cwiseAbs().maxCoeff() < 1e-10 * (1.0 + in_z.cwiseAbs().maxCoeff()));
  }
}
