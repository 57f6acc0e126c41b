#include "baselines.hpp"

#include <cmath>
#include <memory>
#include <string>

namespace rankone::one_bit {

namespace {

std::optional<Index> optional_size(const Params& p, const std::string& name) {
  if (!p.has(name)) return std::nullopt;
  return static_cast<Index>(p.integer(name));
}

NewtonOptions newton_options(const Params& p, int newton_steps) {
  NewtonOptions o;
  o.newton_steps = newton_steps;
  o.cg_iterations = static_cast<int>(p.integer("cg_iterations"));
  o.cg_tolerance = p.number("cg_tolerance");
  return o;
}

/// θ = W (d1 × d2) seen through the operator: scores 𝒜(W) and adjoint 𝒜'(g), with W stored as the
/// factored model (W, I). Costs O(n d1 d2): for the unconstrained baselines only.
LinearScores full_matrix_map(const Batch& batch, const SensingOperator& op, Index d2) {
  auto identity = std::make_shared<Matrix>(Matrix::Identity(d2, d2));
  LinearScores map;
  map.scores = [&batch, &op, identity](const Matrix& W) {
    LowRankModel m;
    m.left = W;
    m.right = *identity;
    return op.forward(batch, m);
  };
  map.adjoint = [&batch, &op, identity](const Vector& g) { return op.adjoint_times(batch, g, *identity); };
  return map;
}

}  // namespace

// ---- leml ----

Leml::Leml(const Params& params)
    : IterativeEstimator(static_cast<int>(params.integer("max_iterations")), params.number("tolerance")),
      rank_(params.integer("rank")),
      training_size_(optional_size(params, "training_size")),
      penalty_(params.number("penalty")),
      loss_{loss_from_string(params.string("loss"))},
      newton_(newton_options(params, static_cast<int>(params.integer("newton_steps")))) {}

Leml::~Leml() = default;

void Leml::start(DataSource& data, Rng& rng) {
  std::string why;
  std::optional<Batch> train = gather_training_set(data, training_size_, why);
  if (!train) {
    finish(Status::failed, "leml: " + why);
    return;
  }
  train_ = std::move(*train);
  op_ = &data.sensing_operator();
  const ProblemShape shape = data.shape();
  model_ = LowRankModel{};
  model_.left = Matrix::Zero(shape.d1, rank_);
  model_.right.resize(shape.d2, rank_);
  rng.fill_normal(model_.right.data(), model_.right.size());
  model_.right /= std::sqrt(static_cast<double>(rank_));
  objective_ = loss_.mean(train_.y, op_->forward(train_, model_)) + penalty_ * model_.right.squaredNorm();
}

double Leml::iterate(DataSource&) {
  const double before = objective_;
  // U-step: scores 𝒜(D V') are linear in D; the adjoint is 𝒜'(g) V. The V-penalty is a constant.
  LinearScores u_map;
  u_map.scores = [this](const Matrix& D) {
    LowRankModel m;
    m.left = D;
    m.right = model_.right;
    return op_->forward(train_, m);
  };
  u_map.adjoint = [this](const Vector& g) { return op_->adjoint_times(train_, g, model_.right); };
  model_.left = newton_cg(u_map, loss_, train_.y, penalty_, model_.left, newton_);

  // V-step: scores 𝒜(U E'), adjoint 𝒜'(g)' U.
  LinearScores v_map;
  v_map.scores = [this](const Matrix& E) {
    LowRankModel m;
    m.left = model_.left;
    m.right = E;
    return op_->forward(train_, m);
  };
  v_map.adjoint = [this](const Vector& g) { return op_->adjoint_transpose_times(train_, g, model_.left); };
  double v_objective = 0.0;
  model_.right = newton_cg(v_map, loss_, train_.y, penalty_, model_.right, newton_, &v_objective);
  objective_ = v_objective + penalty_ * model_.left.squaredNorm();

  if (!model_.all_finite() || !std::isfinite(objective_)) {
    finish(Status::diverged, "leml: non-finite factors at iteration " + std::to_string(iteration() + 1));
    return -1.0;
  }
  return std::abs(before - objective_) / std::max(std::abs(before), 1e-300);
}

/// The fraction of labels whose sign the scores get wrong (sign(0) = +1).
double sign_error(const Vector& y, const Vector& scores) {
  Index wrong = 0;
  for (Index i = 0; i < y.size(); ++i) wrong += (scores(i) >= 0.0 ? 1.0 : -1.0) != (y(i) >= 0.0 ? 1.0 : -1.0);
  return static_cast<double>(wrong) / static_cast<double>(std::max<Index>(y.size(), 1));
}

void Leml::measure_final_fit() {
  if (!op_ || train_.size() == 0) return;
  if (record_test_fit(estimate(), "fraction of the held-out test set's signs the estimate gets wrong")) return;
  record_fit(sign_error(train_.y, op_->forward(train_, model_)),
             "fraction of the training set's signs the estimate gets wrong (leml learns from one training set; no held-out test set)");
}

// ---- ova_svm ----

OneVsAllSvm::OneVsAllSvm(const Params& params)
    : training_size_(optional_size(params, "training_size")),
      penalty_(params.number("penalty")),
      newton_(newton_options(params, static_cast<int>(params.integer("newton_steps")))) {}

OneVsAllSvm::~OneVsAllSvm() = default;

void OneVsAllSvm::start(DataSource& data, Rng&) {
  std::string why;
  const std::optional<Batch> train = gather_training_set(data, training_size_, why);
  const ProblemShape shape = data.shape();
  model_ = LowRankModel{};
  model_.left = Matrix::Zero(shape.d1, shape.d2);
  model_.right = Matrix::Identity(shape.d2, shape.d2);
  if (!train) {
    summary_.status = Status::failed;
    summary_.message = "ova_svm: " + why;
    return;
  }
  const LinearScores map = full_matrix_map(*train, data.sensing_operator(), shape.d2);
  const Loss hinge{LossKind::squared_hinge};
  model_.left = newton_cg(map, hinge, train->y, penalty_, model_.left, newton_);
  if (!model_.all_finite()) {
    summary_.status = Status::diverged;
    summary_.message = "ova_svm: non-finite weights";
    return;
  }
  summary_.status = Status::converged;
  summary_.message = "ova_svm: " + std::to_string(shape.d2) + " L2-SVMs from " + std::to_string(train->size()) +
                     " labels (" + std::to_string(newton_.newton_steps) + " Newton steps at most)";
}

// ---- trace_logistic / trace_squared ----

TraceNormRegression::TraceNormRegression(const Params& params, LossKind loss)
    : IterativeEstimator(static_cast<int>(params.integer("max_iterations")), params.number("tolerance")),
      training_size_(optional_size(params, "training_size")),
      penalty_(params.number("penalty")),
      loss_{loss},
      step_(params.number("initial_step")) {}

TraceNormRegression::~TraceNormRegression() = default;

void TraceNormRegression::measure_final_fit() {
  if (!op_ || train_.size() == 0) return;
  if (record_test_fit(estimate(), "fraction of the held-out test set's signs the estimate gets wrong")) return;
  record_fit(sign_error(train_.y, scores_),
             "fraction of the training set's signs the estimate gets wrong (one training set; no held-out test set)");
}

void TraceNormRegression::start(DataSource& data, Rng&) {
  std::string why;
  std::optional<Batch> train = gather_training_set(data, training_size_, why);
  const ProblemShape shape = data.shape();
  model_ = LowRankModel{};
  model_.left = Matrix::Zero(shape.d1, 1);
  model_.right = Matrix::Zero(shape.d2, 1);
  if (!train) {
    finish(Status::failed, why);
    return;
  }
  train_ = std::move(*train);
  op_ = &data.sensing_operator();
  weights_ = Matrix::Zero(shape.d1, shape.d2);
  scores_ = Vector::Zero(train_.size());
  history_ = {loss_.mean(train_.y, scores_)};
}

double TraceNormRegression::iterate(DataSource&) {
  const double n = static_cast<double>(train_.y.size());
  const Index d2 = weights_.cols();
  Vector g(train_.y.size());
  for (Index i = 0; i < g.size(); ++i) g(i) = loss_.gradient(train_.y(i), scores_(i)) / n;
  const Matrix gradient = op_->adjoint_times(train_, g, Matrix::Identity(d2, d2));
  const double smooth = loss_.mean(train_.y, scores_);

  for (int halving = 0; halving < 60; ++halving) {
    const Thresholded next = singular_value_threshold(weights_ - step_ * gradient, step_ * penalty_);
    LowRankModel candidate;
    candidate.left = next.left.cols() > 0 ? next.left : Matrix::Zero(weights_.rows(), 1);
    candidate.right = next.right.cols() > 0 ? next.right : Matrix::Zero(d2, 1);
    const Vector scores = op_->forward(train_, candidate);
    const Matrix next_weights = candidate.left * candidate.right.transpose();
    const Matrix move = next_weights - weights_;
    const double next_smooth = loss_.mean(train_.y, scores);
    // Sufficient decrease of the smooth part's quadratic model: guarantees F(W⁺) ≤ F(W).
    if (next_smooth <= smooth + inner(gradient, move) + move.squaredNorm() / (2.0 * step_) + 1e-15 * std::abs(smooth)) {
      const double change = move.norm() / std::max(weights_.norm(), 1e-300);
      weights_ = next_weights;
      scores_ = scores;
      model_ = std::move(candidate);
      history_.push_back(next_smooth + penalty_ * next.nuclear_norm);
      step_ *= 1.5;  // let the step grow again; backtracking keeps every accepted step monotone
      if (!std::isfinite(history_.back())) {
        finish(Status::diverged, "non-finite objective at iteration " + std::to_string(iteration() + 1));
        return -1.0;
      }
      return change;
    }
    step_ *= 0.5;
  }
  finish(Status::failed, "backtracking found no step that decreases the objective at iteration " +
                             std::to_string(iteration() + 1));
  return -1.0;
}

}  // namespace rankone::one_bit

namespace rankone::one_bit {
double Leml::fit_of(const Vector& y, const Vector& predicted) const { return sign_error(y, predicted); }
double TraceNormRegression::fit_of(const Vector& y, const Vector& predicted) const { return sign_error(y, predicted); }
}  // namespace rankone::one_bit
