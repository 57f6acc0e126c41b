#include "altmin_sensing.hpp"

#include <Eigen/QR>
#include <cmath>

namespace rankone::altmin {

using Options = AltMinOptions;

const OptionsTable<Options>& Options::table() {
  static const OptionsTable<Options> t = [] {
    OptionsTable<Options> t;
    Schema& s = t.schema();
    t.bind(&Options::rank, s.integer("rank", 2, "rank k of the factors").at_least(1));
    bind_fixed_sample_settings(t, 100, "each solves for U, then for V");
    t.bind(&Options::solver_tolerance,
           s.number("solver_tolerance", 1e-12,
                    "each least-squares half-step runs conjugate gradients until the normal equations' residual is "
                    "below this fraction of their right-hand side")
               .above(0.0));
    t.bind(&Options::solver_iterations,
           s.integer("solver_iterations", std::nullopt,
                     "conjugate-gradient steps allowed per half-step; default the number of unknowns d·k, the "
                     "exact-arithmetic bound")
               .at_least(1)
               .at_most(kMaxCount)
               .make_nullable());
    return t;
  }();
  return t;
}

namespace {

Matrix orthonormal(const Matrix& F) {
  const Eigen::HouseholderQR<Matrix> qr(F);
  return qr.householderQ() * Matrix::Identity(F.rows(), F.cols());
}

double dot(const Matrix& a, const Matrix& b) { return (a.array() * b.array()).sum(); }

struct State {
  Matrix U, V_hat;
};

}  // namespace

AltMinSensing::AltMinSensing(Options options)
    : FixedSampleEstimator(options),
      options_(std::move(options)) {}

Matrix AltMinSensing::conjugate_gradients(const std::function<Matrix(const Matrix&)>& N, const Matrix& B) {
  ++solves_;
  Matrix X = Matrix::Zero(B.rows(), B.cols());
  Matrix R = B, P = B;
  double rr = dot(R, R);
  const double stop = options_.solver_tolerance * std::sqrt(rr);
  const int limit = options_.solver_iterations.value_or(static_cast<int>(B.size()));
  for (int step = 0; step < limit; ++step) {
    if (std::sqrt(rr) <= stop) return X;
    const Matrix NP = N(P);
    const double curvature = dot(P, NP);
    if (!(curvature > 0.0)) return X;  // P in the null space: X is the minimum-norm solution so far
    const double alpha = rr / curvature;
    X += alpha * P;
    R -= alpha * NP;
    const double next = dot(R, R);
    P = R + (next / rr) * P;
    rr = next;
    ++solver_steps_;
  }
  if (std::sqrt(rr) > stop) ++unconverged_solves_;
  return X;
}

Matrix AltMinSensing::solve(const Matrix& fixed, bool for_right) {
  const Batch& b = training();
  const SensingOperator& op = sensing();
  // 𝒜'(z) applied to the fixed factor: 𝒜'(z)' U for the unknown V of U V', 𝒜'(z) V for the unknown U.
  const auto adjoint = [&](const Vector& z) -> Matrix {
    return for_right ? op.adjoint_transpose_times(b, z, fixed) : op.adjoint_times(b, z, fixed);
  };
  // The normal equations of X ↦ 𝒜(U V') with X the unknown factor: adjoint(𝒜(U V')) = adjoint(y).
  const auto N = [&](const Matrix& X) -> Matrix {
    LowRankModel m;
    m.left = for_right ? fixed : X;
    m.right = for_right ? X : fixed;
    return adjoint(op.forward(b, m));
  };
  return conjugate_gradients(N, adjoint(b.y));
}

void AltMinSensing::start(DataSource& data, Rng& rng) {
  if (!read_training_set(data, "altmin_sensing") || !rank_fits(options_.rank)) return;
  symmetrize_ = sensing().symmetric();
  StartRequest request = start_request(options_.rank);
  request.subspace = true;  // U_0: the start's column space
  const Start s = initial_model(data, request, rng);
  if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
  U_ = s.basis.cols() == options_.rank ? s.basis : orthonormal(s.model.left);  // U_0: the start's column space
  V_hat_ = solve(U_, /*for_right=*/true);
}

Estimate AltMinSensing::estimate() const {
  Estimate e;
  e.left = U_;
  e.right = V_hat_;
  e.symmetrize = symmetrize_;
  return e;
}

Summary AltMinSensing::summary() const {
  Summary s = FixedSampleEstimator::summary();
  if (solves_ > 0)
    s.notes.push_back("conjugate gradients: " + short_number(static_cast<double>(solver_steps_) / solves_) +
                      " steps per least-squares solve on average" +
                      (unconverged_solves_ > 0 ? ", " + std::to_string(unconverged_solves_) + " of " + std::to_string(solves_) +
                                                     " solves stopped at solver_iterations above solver_tolerance"
                                               : std::string()));
  return s;
}

double AltMinSensing::advance(const Vector&) {
  const Estimate before = estimate();
  const Matrix U_hat = solve(orthonormal(V_hat_), /*for_right=*/false);
  U_ = orthonormal(U_hat);
  V_hat_ = solve(U_, /*for_right=*/true);
  const Estimate after = estimate();
  return difference_norms(after, &before).frobenius / std::max(difference_norms(before, nullptr).frobenius, 1e-300);
}

std::any AltMinSensing::snapshot() const { return State{U_, V_hat_}; }

void AltMinSensing::restore(const std::any& state) {
  const auto& x = std::any_cast<const State&>(state);
  U_ = x.U;
  V_hat_ = x.V_hat;
}

}  // namespace rankone::altmin
