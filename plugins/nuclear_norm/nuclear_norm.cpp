#include "nuclear_norm.hpp"

#include <Eigen/SVD>
#include <algorithm>
#include <cmath>
#include <limits>

namespace rankone::nuclear_norm {

using Options = NuclearNormOptions;

const OptionsTable<Options>& Options::table() {
  static const OptionsTable<Options> t = [] {
    OptionsTable<Options> t;
    Schema& s = t.schema();
    t.bind_choice(&Options::method,
                  s.choice("method", "accelerated", {"proximal", "accelerated", "soft_impute"},
                           "proximal: Ji & Ye's proximal gradient with backtracking; accelerated: their accelerated form "
                           "(FISTA momentum); soft_impute: Mazumder, Hastie & Tibshirani's step, the proximal step at the "
                           "exact Lipschitz constant 1/p of distinct entries"),
                  {{"proximal", Method::proximal}, {"accelerated", Method::accelerated}, {"soft_impute", Method::soft_impute}});
    t.bind_choice(&Options::loss,
                  s.choice("loss", "squared", {"squared", "logistic"},
                           "squared: f = (c/2n) Σ (<A_i, X> − y_i)²; logistic: f = (c/n) Σ log(1 + exp(−y_i <A_i, X>)) "
                           "on labels ±1 (c the operator's isotropic scale in both)"),
                  {{"squared", Loss::squared}, {"logistic", Loss::logistic}});
    s.constraint({"method", "loss"}, "method \"soft_impute\" is the exact step of the squared loss: loss must be \"squared\"",
                 [](const Params& p) { return p.string("method") != "soft_impute" || p.string("loss") == "squared"; });
    t.bind_choice(&Options::objective,
                  s.choice("objective", "normalised", {"normalised", "mean"},
                           "the scale of f that lambda and initial_step are given on. normalised: f as in `loss`, with "
                           "the operator's c, so that one λ and one step mean the same on every operator; mean: the "
                           "plain mean loss (1/n) Σ ℓ_i, ℓ = (y − s)² or log(1 + exp(−y s)) (Qiu et al.'s objective, "
                           "the presets' scale)"),
                  {{"normalised", Objective::normalised}, {"mean", Objective::mean}});
    t.bind(&Options::lambda, s.number("lambda", std::nullopt,
                                      "one regularisation weight λ, on the scale `objective` names; default the path from λ_max")
                                 .above(0.0)
                                 .make_nullable());
    t.bind(&Options::lambda_ratio,
           s.number("lambda_ratio", 1e-4, "the path ends at λ_max · lambda_ratio (λ_max = ‖∇f(0)‖₂, the smallest λ whose "
                                          "solution is 0)")
               .above(0.0)
               .below(1.0));
    t.bind(&Options::path_length,
           s.integer("path_length", 10, "values of λ, geometrically spaced after λ_max").at_least(1).at_most(10000));
    s.constraint({"lambda", "lambda_ratio", "path_length"}, "lambda gives one λ: the path's lambda_ratio and path_length do not apply",
                 [d = s.defaults()](const Params& p) {
                   return !p.has("lambda") || (p.raw("lambda_ratio") == d["lambda_ratio"] && p.raw("path_length") == d["path_length"]);
                 });
    t.bind(&Options::stage_iterations,
           s.integer("stage_iterations", 500, "proximal steps allowed per value of λ").at_least(1).at_most(kMaxCount));
    t.bind(&Options::initial_step,
           s.number("initial_step", 1.0, "1/L of the first trial step, on the scale `objective` names (the normalised one makes 1 the natural "
                                         "scale); "
                                         "backtracking doubles L until the step is accepted")
               .above(0.0));
    t.bind(&Options::step_growth,
           s.number("step_growth", 1.0, "after each accepted step L is divided by this: 1 keeps Ji & Ye's non-decreasing L, "
                                        "above 1 lets the step grow again (the trace-norm presets use " + short_number(kPresetStepGrowth) + ")")
               .at_least(1.0));
    s.constraint({"method", "initial_step", "step_growth"},
                 "method \"soft_impute\" steps at the exact Lipschitz constant: initial_step and step_growth do not apply",
                 [d = s.defaults()](const Params& p) {
                   return p.string("method") != "soft_impute" ||
                          (p.raw("initial_step") == d["initial_step"] && p.raw("step_growth") == d["step_growth"]);
                 });
    s.constraint({"method", "step_growth"},
                 "method \"accelerated\" needs a non-decreasing L (Ji & Ye's Algorithm 2 converges at that rate only "
                 "then): step_growth must be 1",
                 [d = s.defaults()](const Params& p) {
                   return p.string("method") != "accelerated" || p.raw("step_growth") == d["step_growth"];
                 });
    bind_fixed_sample_settings(t, 5000, "proximal steps over the whole path", 1e-6,
                               "each value of λ ends when ‖X_{t+1} − X_t‖_F / ‖X_t‖_F falls below this (the last: converged)");
    return t;
  }();
  return t;
}

template <NuclearNormOptions::Loss kLoss>
const OptionsTable<TraceNormOptions<kLoss>>& TraceNormOptions<kLoss>::table() {
  using T = TraceNormOptions<kLoss>;
  static const OptionsTable<T> t = [] {
    OptionsTable<T> t;
    Schema& s = t.schema();
    t.bind(&T::penalty, s.number("penalty", 1e-3, "μ in mean loss + μ‖W‖_* (the loss per measurement, not normalised)").above(0.0));
    bind_fixed_sample_settings(t, 200, "proximal steps", 1e-5, "converged when ‖W⁺ − W‖_F / ‖W‖_F falls below this");
    t.bind(&T::initial_step, s.number("initial_step", 1.0, "first step size tried on the mean loss; backtracking halves it, "
                                                           "each accepted step grows it by " + short_number(kPresetStepGrowth))
                                 .above(0.0));
    return t;
  }();
  return t;
}

template <NuclearNormOptions::Loss kLoss>
TraceNormOptions<kLoss>::operator NuclearNormOptions() const {
  NuclearNormOptions o;
  static_cast<FixedSampleSettings&>(o) = *this;
  o.method = Options::Method::proximal;
  o.loss = kLoss;
  o.lambda = penalty;
  o.stage_iterations = std::max(max_iterations, 1);
  o.initial_step = initial_step;
  o.step_growth = kPresetStepGrowth;
  o.objective = Options::Objective::mean;
  return o;
}

template struct TraceNormOptions<Options::Loss::logistic>;
template struct TraceNormOptions<Options::Loss::squared>;

namespace {
/// Rounding allowance of the backtracking test (Ji & Ye's F ≤ Q), so that L never doubles on noise.
constexpr double kBacktrackSlack = 1e-12;
/// Singular values below this × σ1 × max(d1, d2) are rounding (numpy's matrix_rank rule): a start's
/// SVD drops them.
constexpr double kRankCut = std::numeric_limits<double>::epsilon();
/// Doublings of L one step may take (a factor 2⁶⁰ ≈ 1e18): more means f is not smooth where it steps.
constexpr int kMaxDoublings = 60;

struct State {
  Matrix dense, left, right;
  double nuclear;
};

/// log(1 + exp(−m)) without overflow, and its derivative in m, −1/(1 + exp(m)).
double log1p_exp_neg(double m) { return m > 0.0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m)); }
double logistic_slope(double m) { return m > 0.0 ? -std::exp(-m) / (1.0 + std::exp(-m)) : -1.0 / (1.0 + std::exp(m)); }
}  // namespace

double NuclearNorm::smooth(const Vector& r) const {
  if (options_.loss == Options::Loss::squared) return loss(r);
  const Vector& y = training().y;
  double sum = 0.0;
  for (Index i = 0; i < r.size(); ++i) sum += log1p_exp_neg(y(i) * (r(i) + y(i)));
  return loss_scale() * sum / static_cast<double>(r.size());
}

Matrix NuclearNorm::smooth_gradient(const Vector& r) const {
  if (options_.loss == Options::Loss::squared) return loss_gradient_dense(r);
  // ∇f = (c/n) 𝒜'(g) with g_i = ∂ℓ/∂s_i = −y_i / (1 + exp(y_i s_i)): the base's (c/n) 𝒜' applied to g.
  const Vector& y = training().y;
  Vector g(r.size());
  for (Index i = 0; i < r.size(); ++i) g(i) = y(i) * logistic_slope(y(i) * (r(i) + y(i)));
  return loss_gradient_dense(g);
}

NuclearNorm::NuclearNorm(Options options) : FixedSampleEstimator(options), options_(std::move(options)) {}

NuclearNorm::Iterate NuclearNorm::threshold(const Matrix& Y, double tau) const {
  const Eigen::BDCSVD<Matrix> svd(Y, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const Vector shrunk = (svd.singularValues().array() - tau).max(0.0).matrix();
  Index r = 0;
  while (r < shrunk.size() && shrunk(r) > 0.0) ++r;
  Iterate x;
  x.left = svd.matrixU().leftCols(r) * shrunk.head(r).asDiagonal();
  x.right = svd.matrixV().leftCols(r);
  x.dense = x.left * x.right.transpose();
  x.nuclear = shrunk.head(r).sum();
  return x;
}

LowRankModel NuclearNorm::model_of(const Iterate& x) const {
  LowRankModel m;
  if (x.left.cols() == 0) {  // the zero matrix, as a rank-one model of zeros
    m.left = Matrix::Zero(x.dense.rows(), 1);
    m.right = Matrix::Zero(x.dense.cols(), 1);
  } else {
    m.left = x.left;
    m.right = x.right;
  }
  m.symmetrize = symmetrize_;
  return m;
}

void NuclearNorm::start(DataSource& data, Rng& rng) {
  x_residual_.reset();
  if (!read_training_set(data, "nuclear_norm")) return;
  const ProblemShape shape = problem();
  symmetrize_ = sensing().symmetric();
  if (options_.method == Options::Method::soft_impute) {
    const auto kinds = sensing().accepted_left();
    if (kinds != std::vector{DesignSide::Kind::index} || sensing().symmetric())
      return finish(Status::failed, "method \"soft_impute\" is for entries (operator \"entry\"), whose loss has the exact "
                                    "Lipschitz constant 1/p; use \"proximal\" or \"accelerated\" for this operator");
  }
  if (options_.loss == Options::Loss::logistic && !(training().y.array().abs() == 1.0).all())
    return finish(Status::failed, "loss \"logistic\" needs labels ±1 (a sign link); these responses are not all ±1");
  // The path begins at λ_max = ‖∇f(0)‖₂, whose solution is zero_init's 0; another start (a stored
  // model, near_truth) is where the first value of λ's steps begin, of whatever rank it has.
  const Start s = initial_model(data, start_request(0), rng);
  if (!s.ok) return finish(Status::failed, "no start: " + s.failure);
  if (s.model.has_first_order() || s.model.zero_diagonal)
    return finish(Status::failed, "no start: nuclear_norm's estimate is a matrix X alone, and the start's model has " +
                                      std::string(s.model.zero_diagonal ? "no diagonal" : "a first-order term w"));
  if (s.model.rank() == 0 || s.model.left.isZero(0.0) || s.model.right.isZero(0.0)) {
    X_.dense = Matrix::Zero(shape.d1, shape.d2);
    X_.left = Matrix(shape.d1, 0);
    X_.right = Matrix(shape.d2, 0);
    x_residual_ = Vector(-training().y);  // 𝒜(0) − y
  } else {
    if (!s.model.all_finite()) return finish(Status::failed, "no start: the start is not finite");
    Matrix X0 = s.model.dense();
    if (symmetrize_) X0 = (0.5 * (X0 + X0.transpose())).eval();  // a stored model of a general problem
    X_ = threshold(X0, 0.0);  // its thin SVD, cut at its numerical rank: no columns of rounding
    const double sigma1 = X_.left.cols() > 0 ? X_.left.col(0).norm() : 0.0;
    const double cut = kRankCut * sigma1 * static_cast<double>(std::max(shape.d1, shape.d2));
    const Index kept = (X_.left.colwise().norm().array() > cut).count();  // σ_j, decreasing
    X_.left = X_.left.leftCols(kept).eval();
    X_.right = X_.right.leftCols(kept).eval();
    X_.dense = X_.left * X_.right.transpose();
    X_.nuclear = X_.left.colwise().norm().sum();
    x_residual_ = residual(model_of(X_));
  }
  Y_ = X_.dense;
  const Matrix g0 = smooth_gradient(-training().y);
  const double top = Eigen::BDCSVD<Matrix>(g0).singularValues()(0);
  if (!(top > 0.0))
    return finish(Status::failed, "∇f(0) = 0 (𝒜'(y) = 0: the responses are zero or cancel on every design): the "
                                  "solution is 0 for every λ");
  // The mean loss is f / u: u = c/2 for (y − s)² against (c/2)(y − s)², c for the logistic loss.
  units_ = options_.objective == Options::Objective::normalised ? 1.0
           : options_.loss == Options::Loss::squared             ? 0.5 * loss_scale()
                                                                  : loss_scale();
  if (options_.lambda) {
    lambdas_ = {units_ * *options_.lambda};
  } else {
    for (Index j = 1; j <= options_.path_length; ++j)
      lambdas_.push_back(top * std::pow(options_.lambda_ratio, static_cast<double>(j) / static_cast<double>(options_.path_length)));
  }
  // Soft-Impute: L = m·c/n, the exact Lipschitz constant of f (never backtracked), m the largest
  // number of times one entry was drawn (1 for distinct entries: Mazumder et al.'s step).
  L_ = options_.method == Options::Method::soft_impute ? largest_multiplicity() * loss_scale() / static_cast<double>(training().size())
                                                      : units_ / options_.initial_step;
}

double NuclearNorm::largest_multiplicity() const {
  const Batch& b = training();
  std::vector<std::int64_t> cells(static_cast<std::size_t>(b.size()));
  for (Index t = 0; t < b.size(); ++t)
    cells[static_cast<std::size_t>(t)] = static_cast<std::int64_t>(b.left.index(t)) * b.right->dim + b.right->index(t);
  std::sort(cells.begin(), cells.end());
  std::size_t most = cells.empty() ? 0 : 1;
  for (std::size_t i = 0, run = 1; i + 1 < cells.size(); ++i) {
    run = cells[i + 1] == cells[i] ? run + 1 : 1;
    most = std::max(most, run);
  }
  return static_cast<double>(std::max<std::size_t>(most, 1));
}

Estimate NuclearNorm::estimate() const { return model_of(X_); }

Summary NuclearNorm::summary() const {
  Summary s = FixedSampleEstimator::summary();
  if (!lambdas_.empty())
    s.notes.push_back("λ path: " + std::to_string(lambdas_.size()) + " value(s) from " + short_number(lambdas_.front() / units_) +
                      " to " + short_number(lambdas_.back() / units_) + ", reached λ = " +
                      short_number(lambdas_[std::min(stage_, lambdas_.size() - 1)] / units_) + "; estimate rank " +
                      std::to_string(X_.left.cols()) + "; " + std::to_string(backtracks_) +
                      " backtracking step(s), final L = " + short_number(L_ / units_));
  return s;
}

double NuclearNorm::advance(const Vector& r) {
  const double lambda = lambdas_[stage_];
  if (path_done_) {
    finish(Status::max_iterations, "stage_iterations (" + std::to_string(options_.stage_iterations) +
                                       ") reached at the last λ = " + short_number(lambda));
    return -1.0;
  }
  const bool accelerated = options_.method == Options::Method::accelerated;
  // The step starts from Y (the momentum point), whose residual the last step combined, or from X,
  // whose residual the base already has.
  const bool at_x = !accelerated || momentum_ == 1.0;
  const Vector& rY = at_x ? r : y_residual_;
  const Matrix gY = smooth_gradient(rY);
  const double fY = smooth(rY);
  Iterate Z;
  Vector rZ;
  for (int doublings = 0;; ++doublings) {
    if (doublings == kMaxDoublings) {
      finish(Status::failed, "backtracking found no step in " + std::to_string(kMaxDoublings) + " doublings of L (L = " +
                                 short_number(L_ / units_) + "): is f finite and smooth at the start? a smaller "
                                 "initial_step starts nearer");
      return -1.0;
    }
    Z = threshold(Y_ - gY / L_, lambda / L_);
    if (options_.method == Options::Method::soft_impute) break;
    const Matrix D = Z.dense - Y_;
    const double Q = fY + (D.array() * gY.array()).sum() + 0.5 * L_ * D.squaredNorm() + lambda * Z.nuclear;
    rZ = residual(model_of(Z));  // from Z's thin factors: O(n (d1 + d2) r), not a dense product
    const double F = smooth(rZ) + lambda * Z.nuclear;
    // Relative slack: at a converged stage D ≈ 0 and F, Q are the same number computed two ways.
    if (F <= Q + kBacktrackSlack * std::max(std::abs(F), std::abs(Q))) break;
    L_ *= 2.0;
    ++backtracks_;
  }
  const double change = (Z.dense - X_.dense).norm() / std::max(X_.dense.norm(), 1e-300);
  if (accelerated) {
    const double next = 0.5 * (1.0 + std::sqrt(1.0 + 4.0 * momentum_ * momentum_));
    const double beta = (momentum_ - 1.0) / next;
    Y_ = Z.dense + beta * (Z.dense - X_.dense);
    // 𝒜 is linear: Y's residual from those of Z and X, without the O(n d1 d2) product of dense Y.
    y_residual_ = rZ + beta * (rZ - r);
    momentum_ = next;
  } else {
    Y_ = Z.dense;
  }
  X_ = std::move(Z);
  if (options_.method == Options::Method::soft_impute) x_residual_.reset();  // its step computes none
  else x_residual_ = std::move(rZ);
  L_ /= options_.step_growth;  // 1: Ji & Ye's L never decreases
  ++stage_steps_;
  const bool stage_done = change < options_.tolerance || stage_steps_ >= options_.stage_iterations;
  if (stage_done && stage_ + 1 == lambdas_.size() && !(change < options_.tolerance)) {
    path_done_ = true;  // this step counts; the run ends before the next one
    return change;
  }
  if (stage_done && stage_ + 1 < lambdas_.size()) {
    ++stage_;  // warm start: the next λ from this solution, the momentum reset
    stage_steps_ = 0;
    Y_ = X_.dense;
    momentum_ = 1.0;
    return std::numeric_limits<double>::infinity();
  }
  return change;
}

Vector NuclearNorm::training_residual() const { return x_residual_ ? *x_residual_ : residual(estimate()); }

std::any NuclearNorm::snapshot() const { return State{X_.dense, X_.left, X_.right, X_.nuclear}; }

void NuclearNorm::restore(const std::any& state) {
  const auto& s = std::any_cast<const State&>(state);
  X_.dense = s.dense;
  X_.left = s.left;
  X_.right = s.right;
  X_.nuclear = s.nuclear;
  Y_ = X_.dense;
  x_residual_.reset();
  momentum_ = 1.0;
}

}  // namespace rankone::nuclear_norm
