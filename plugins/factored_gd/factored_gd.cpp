#include "factored_gd.hpp"

#include <Eigen/Cholesky>
#include <cmath>

#include "rankone/linalg/balanced_factors.hpp"

namespace rankone::factored_gd {

using Options = FactoredGdOptions;

const OptionsTable<Options>& Options::table() {
  static const OptionsTable<Options> t = [] {
    OptionsTable<Options> t;
    Schema& s = t.schema();
    t.bind(&Options::rank, s.integer("rank", 2, "rank k of the factors").at_least(1));
    t.bind_choice(&Options::preconditioner,
                  s.choice("preconditioner", "scaled", {"none", "scaled"},
                           "scaled: ScaledGD, each factor's gradient times the inverse Gram matrix of the other "
                           "(Tong, Ma & Chi 2021); none: vanilla GD with the balancing term (1/8)‖L'L − R'R‖² (Tu et al. "
                           "2016), its step η/σ_1 of the start"),
                  {{"none", Preconditioner::none}, {"scaled", Preconditioner::scaled}});
    t.bind_choice(&Options::factorization,
                  s.choice("factorization", "general", {"general", "psd"},
                           "general: M = L R' (any truth; on a symmetric operator the estimate is sym(L R')); psd: M = X X' "
                           "(a square positive semi-definite truth)"),
                  {{"general", Factorization::general}, {"psd", Factorization::psd}});
    t.bind(&Options::step_size, s.number("step_size", std::nullopt,
                                         "step η; default 0.5 for general, 0.25 for psd (whose gradient carries a factor 2)")
                                    .above(0.0)
                                    .make_nullable());
    bind_fixed_sample_settings(t, 1000, "one gradient step each");
    return t;
  }();
  return t;
}

double Options::step() const {
  if (step_size) return *step_size;
  return factorization == Factorization::psd ? 0.25 : 0.5;
}

namespace {
/// What a message says of the estimate when a step could not be taken and no best iterate is kept.
constexpr const char* kUnchanged = "; the estimate returned is the iterate this step started from";

struct Factors {
  Matrix L, R;
};
}  // namespace

FactoredGd::FactoredGd(Options options)
    : FixedSampleEstimator(options),
      options_(std::move(options)) {}

void FactoredGd::start(DataSource& data, Rng& rng) {
  if (!read_training_set(data, "factored_gd") || !rank_fits(options_.rank)) return;
  const ProblemShape shape = problem();
  symmetrize_ = sensing().symmetric();
  if (psd() && shape.d1 != shape.d2)
    return finish(Status::failed, "factorization \"psd\" (M = X X') needs a square matrix; the data's is " +
                                      std::to_string(shape.d1) + " × " + std::to_string(shape.d2));
  StartRequest request = start_request(options_.rank);
  request.one_factor = psd();  // M = X X'
  const Start s = initial_model(data, request, rng);
  if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
  // The start in the factored form: balanced (U Σ^½, V Σ^½) factors, or the PSD part of sym(M0).
  const BalancedFactors f = psd() ? psd_factor(s.model, options_.rank) : balanced_factors(s.model, options_.rank);
  L_ = f.left;
  R_ = f.right;
  sigma_ = f.values(0);
  if (!(sigma_ > 0.0) || !std::isfinite(sigma_))
    return finish(Status::failed, "the start is the zero matrix" +
                                      std::string(psd() ? " in its PSD part (no positive eigenvalue: is the truth PSD?)" : ""));
}

Estimate FactoredGd::estimate() const {
  Estimate e;
  e.left = L_;
  e.right = psd() ? L_ : R_;
  e.symmetrize = symmetrize_;
  return e;
}

bool FactoredGd::right_solve(const Matrix& G, const Matrix& P, Matrix& out) const {
  const Eigen::LLT<Matrix> llt(P);
  if (llt.info() != Eigen::Success) return false;
  out = llt.solve(G.transpose()).transpose();
  return out.allFinite();
}

double FactoredGd::advance(const Vector& r) {
  const Estimate before = estimate();
  const double eta = options_.step();
  const bool scaled = options_.preconditioner == Options::Preconditioner::scaled;
  const int t = iteration() + 1;
  if (psd()) {
    // ∇_X f = (S + S')X; a symmetric operator's S is symmetric: 2 S X, one product.
    const Matrix G = sensing().symmetric() ? Matrix(2.0 * gradient_times(r, L_))
                                           : Matrix(gradient_times(r, L_) + gradient_transpose_times(r, L_));
    if (scaled) {
      Matrix step;
      if (!right_solve(G, L_.transpose() * L_, step)) {
        finish(Status::diverged, "X'X is singular at iteration " + std::to_string(t) +
                                     " (X lost rank: fewer than k positive eigenvalues in the start? use factorization "
                                     "\"general\" for an indefinite truth)" + restore_best(kUnchanged));
        return -1.0;
      }
      L_ -= eta * step;
    } else {
      L_ -= (eta / sigma_) * G;
    }
  } else {
    const auto [GL, GR] = gradient_pair(r, R_, L_);  // S R, S' L
    if (scaled) {
      Matrix stepL, stepR;
      if (!right_solve(GL, R_.transpose() * R_, stepL) || !right_solve(GR, L_.transpose() * L_, stepR)) {
        finish(Status::diverged, "L'L or R'R is singular at iteration " + std::to_string(t) + " (a factor lost rank)" +
                                     restore_best(kUnchanged));
        return -1.0;
      }
      L_ -= eta * stepL;
      R_ -= eta * stepR;
    } else {
      // The balancing term (1/8)‖L'L − R'R‖²_F: gradients ½ L D and −½ R D.
      const Matrix D = L_.transpose() * L_ - R_.transpose() * R_;
      const Matrix nextL = L_ - (eta / sigma_) * (GL + 0.5 * L_ * D);
      R_ -= (eta / sigma_) * (GR - 0.5 * R_ * D);
      L_ = nextL;
    }
  }
  const Estimate after = estimate();
  return difference_norms(after, &before).frobenius / std::max(difference_norms(before, nullptr).frobenius, 1e-300);
}

std::any FactoredGd::snapshot() const { return Factors{L_, R_}; }

void FactoredGd::restore(const std::any& state) {
  const auto& f = std::any_cast<const Factors&>(state);
  L_ = f.L;
  R_ = f.R;
}

std::string FactoredGd::stall_hint() const {
  const ProblemShape s = problem();
  const double needed = 3.0 * static_cast<double>(options_.rank) * static_cast<double>(s.d1 + s.d2);
  if (static_cast<double>(training().size()) < needed)
    return "few measurements for the rank: " + std::to_string(training().size()) + " against 3·k·(d1 + d2) = " +
           std::to_string(static_cast<long long>(needed)) + " (the degrees of freedom are k·(d1 + d2 − k))";
  if (options_.preconditioner == Options::Preconditioner::none)
    return "vanilla GD slows with the condition number of M; preconditioner \"scaled\" does not";
  return "";
}

}  // namespace rankone::factored_gd
