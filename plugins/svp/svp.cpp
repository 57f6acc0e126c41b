#include "svp.hpp"

#include <Eigen/SVD>
#include <cmath>

#include "rankone/linalg/balanced_factors.hpp"

namespace rankone::svp {

using Options = SvpOptions;

const OptionsTable<Options>& Options::table() {
  static const OptionsTable<Options> t = [] {
    OptionsTable<Options> t;
    Schema& s = t.schema();
    t.bind(&Options::rank, s.integer("rank", 2, "rank k of the projection").at_least(1));
    t.bind_choice(&Options::step,
                  s.choice("step", "fixed", {"fixed", "normalized"},
                           "fixed: SVP's step 1/(1 + δ) (Jain, Meka & Dhillon 2010); normalized: NIHT's exact line "
                           "search along the gradient projected on the current column space (Tanner & Wei 2013)"),
                  {{"fixed", Step::fixed}, {"normalized", Step::normalized}});
    t.bind(&Options::delta, s.number("delta", 1.0 / 3.0, "δ of the fixed step 1/(1 + δ): the restricted isometry "
                                                          "constant the step assumes (SVP's theorem needs δ_2k < 1/3)")
                                .at_least(0.0));
    s.constraint({"delta", "step"}, "delta sets the fixed step only; NIHT chooses its own",
                 [](const Params& p) { return p.string("step") == "fixed" || p.number("delta") == 1.0 / 3.0; });
    bind_fixed_sample_settings(t, 1000, "one projected step each");
    return t;
  }();
  return t;
}

namespace {
struct State {
  Matrix U, V;
  Vector s;
};
}  // namespace

Svp::Svp(Options options)
    : FixedSampleEstimator(options),
      options_(std::move(options)) {}

void Svp::start(DataSource& data, Rng& rng) {
  if (!read_training_set(data, "svp") || !rank_fits(options_.rank)) return;
  symmetrize_ = sensing().symmetric();
  const Start s = initial_model(data, start_request(options_.rank), rng);
  if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
  // The start's rank-k SVD from its factors (exact, O(d k²)).
  const BalancedFactors f = balanced_factors(s.model, options_.rank);
  s_ = f.values;
  U_ = f.left;
  V_ = f.right;
  for (Index j = 0; j < s_.size(); ++j) {
    const double root = std::sqrt(s_(j));
    if (root > 0.0) {
      U_.col(j) /= root;
      V_.col(j) /= root;
    }
  }
}

Estimate Svp::estimate() const {
  Estimate e;
  e.left = U_ * s_.asDiagonal();
  e.right = V_;
  e.symmetrize = symmetrize_;
  return e;
}

void Svp::project(const Matrix& Y) {
  const Eigen::BDCSVD<Matrix> svd(Y, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Index k = options_.rank;
  U_ = svd.matrixU().leftCols(k);
  V_ = svd.matrixV().leftCols(k);
  s_ = svd.singularValues().head(k);
}

double Svp::advance(const Vector& r) {
  const Estimate before = estimate();
  const Matrix S = gradient_dense(r);  // (c/n) 𝒜'(r), the loss gradient at X
  double mu = 1.0 / (1.0 + options_.delta);
  if (options_.step == Options::Step::normalized) {
    // α = <∇f, P_U S> / (c/n)‖𝒜(P_U S)‖², the exact minimiser of f along −P_U S; <∇f, P_U S> =
    // ‖U'S‖² on an operator without a trace shift (Tanner & Wei's ratio).
    LowRankModel projected;
    projected.left = U_;
    projected.right = S.transpose() * U_;  // P_U S = U (U'S)
    const double trace = S.rows() == S.cols() ? (U_.transpose() * projected.right).trace() : 0.0;  // tr(U U'S)
    const double numerator = gradient_dot(r, projected.right.squaredNorm(), trace);
    const Vector image = sensing().forward(training(), projected);
    const double denominator = loss_scale() / static_cast<double>(r.size()) * image.squaredNorm();
    mu = denominator > 0.0 ? numerator / denominator : 0.0;
  }
  project(before.left * before.right.transpose() - mu * S);
  const Estimate after = estimate();
  return difference_norms(after, &before).frobenius / std::max(difference_norms(before, nullptr).frobenius, 1e-300);
}

std::any Svp::snapshot() const { return State{U_, V_, s_}; }

void Svp::restore(const std::any& state) {
  const auto& x = std::any_cast<const State&>(state);
  U_ = x.U;
  V_ = x.V;
  s_ = x.s;
}

}  // namespace rankone::svp
