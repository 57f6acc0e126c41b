#include "solvers.hpp"

#include <cmath>

namespace rankone::one_bit {

namespace {

/// log(1 + exp(−t)) without overflow.
double log1p_exp_neg(double t) { return t > 0 ? std::log1p(std::exp(-t)) : -t + std::log1p(std::exp(t)); }

/// 1 / (1 + exp(t)), stable for large |t|.
double sigmoid_neg(double t) {
  if (t >= 0) {
    const double e = std::exp(-t);
    return e / (1.0 + e);
  }
  return 1.0 / (1.0 + std::exp(t));
}

}  // namespace

double Loss::value(double y, double s) const {
  switch (kind) {
    case LossKind::squared: return (y - s) * (y - s);
    case LossKind::logistic: return log1p_exp_neg(y * s);
    case LossKind::squared_hinge: {
      const double slack = std::max(0.0, 1.0 - y * s);
      return slack * slack;
    }
  }
  return 0.0;
}

double Loss::gradient(double y, double s) const {
  switch (kind) {
    case LossKind::squared: return 2.0 * (s - y);
    case LossKind::logistic: return -y * sigmoid_neg(y * s);
    case LossKind::squared_hinge: return -2.0 * y * std::max(0.0, 1.0 - y * s);
  }
  return 0.0;
}

double Loss::hessian(double y, double s) const {
  switch (kind) {
    case LossKind::squared: return 2.0;
    case LossKind::logistic: {
      const double p = sigmoid_neg(y * s);
      return p * (1.0 - p);
    }
    case LossKind::squared_hinge: return y * s < 1.0 ? 2.0 : 0.0;  // generalised Hessian
  }
  return 0.0;
}

double Loss::mean(const Vector& y, const Vector& s) const {
  double sum = 0.0;
  for (Index i = 0; i < y.size(); ++i) sum += value(y(i), s(i));
  return y.size() > 0 ? sum / static_cast<double>(y.size()) : 0.0;
}

Matrix newton_cg(const LinearScores& map, const Loss& loss, const Vector& y, double penalty, Matrix theta,
                 const NewtonOptions& options, double* objective) {
  const double n = static_cast<double>(y.size());
  auto objective_at = [&](const Vector& s, const Matrix& t) { return loss.mean(y, s) + penalty * t.squaredNorm(); };

  Vector s = map.scores(theta);
  double f = objective_at(s, theta);
  for (int step = 0; step < options.newton_steps; ++step) {
    Vector g(y.size()), h(y.size());
    for (Index i = 0; i < y.size(); ++i) {
      g(i) = loss.gradient(y(i), s(i)) / n;
      h(i) = loss.hessian(y(i), s(i)) / n;
    }
    const Matrix gradient = map.adjoint(g) + 2.0 * penalty * theta;
    const double gradient_norm = gradient.norm();
    if (!(gradient_norm > options.gradient_tolerance)) break;

    // Conjugate gradients on H d = −∇F, H = A' diag(h) A + 2·penalty·I (positive definite).
    // H d, with the scores of d (A d) written to scores_of_d.
    auto hessian_times = [&](const Matrix& d, Vector& scores_of_d) -> Matrix {
      if (map.curvature) return map.curvature(d, h, scores_of_d) + 2.0 * penalty * d;
      scores_of_d = map.scores(d);
      return map.adjoint(h.cwiseProduct(scores_of_d)) + 2.0 * penalty * d;
    };
    Matrix direction = Matrix::Zero(theta.rows(), theta.cols());
    Vector s_direction = Vector::Zero(y.size());  // A d = Σ α A(search)
    Vector s_search;
    Matrix residual = -gradient;
    Matrix search = residual;
    double residual_sq = residual.squaredNorm();
    const double stop_sq = std::pow(options.cg_tolerance * gradient_norm, 2);
    for (int it = 0; it < options.cg_iterations && residual_sq > stop_sq; ++it) {
      const Matrix h_search = hessian_times(search, s_search);
      const double curvature = inner(search, h_search);
      if (!(curvature > 0.0)) break;
      const double alpha = residual_sq / curvature;
      direction += alpha * search;
      s_direction += alpha * s_search;
      residual -= alpha * h_search;
      const double next_sq = residual.squaredNorm();
      search = residual + (next_sq / residual_sq) * search;
      residual_sq = next_sq;
    }

    // Backtracking (Armijo) along the Newton direction; scores are linear in θ.
    const double slope = inner(gradient, direction);
    if (!(slope < 0.0)) break;
    double t = 1.0;
    bool accepted = false;
    for (int halving = 0; halving < 30; ++halving, t *= 0.5) {
      const Vector s_trial = s + t * s_direction;
      const Matrix theta_trial = theta + t * direction;
      const double f_trial = objective_at(s_trial, theta_trial);
      if (f_trial <= f + 1e-4 * t * slope) {
        theta = theta_trial;
        s = s_trial;
        f = f_trial;
        accepted = true;
        break;
      }
    }
    if (!accepted) break;
  }
  if (objective) *objective = f;
  return theta;
}

std::optional<Batch> gather_training_set(DataSource& data, std::optional<Index> instances, std::string& why) {
  if (!instances) {
    if (!data.finite() || !data.size()) {
      why = "the source is endless: give training_size (instances to learn from)";
      return std::nullopt;
    }
    instances = *data.size();
  }
  Batch batch = data.next(*instances);
  if (batch.empty()) {
    why = "the source gave no training data";
    return std::nullopt;
  }
  return batch;
}

}  // namespace rankone::one_bit
