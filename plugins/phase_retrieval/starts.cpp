#include "starts.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "phase_flow.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/estimation/start_batch.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/linalg/balanced_factors.hpp"
#include "rankone/linalg/eigensolvers.hpp"

namespace rankone::phase_retrieval {

namespace {

/// ‖a_i‖ for every design.
Vector design_norms(const DesignSide& side) {
  switch (side.kind) {
    case DesignSide::Kind::dense: return side.dense.colwise().norm().transpose();
    case DesignSide::Kind::sparse: {
      Vector out = Vector::Zero(side.sparse.cols());
      for (Index i = 0; i < side.sparse.outerSize(); ++i)
        for (SparseMatrix::InnerIterator it(side.sparse, i); it; ++it) out(it.col()) += it.value() * it.value();
      return out.cwiseSqrt();
    }
    default: return Vector::Constant(side.count(), std::abs(side.scale));
  }
}

/// The k indices of largest (or smallest) `c`, ties to the smaller index: the same set on every platform.
std::vector<Index> extreme(const Vector& c, Index k, bool largest) {
  std::vector<Index> order(static_cast<std::size_t>(c.size()));
  std::iota(order.begin(), order.end(), Index{0});
  std::stable_sort(order.begin(), order.end(), [&](Index a, Index b) { return largest ? c(a) > c(b) : c(a) < c(b); });
  order.resize(static_cast<std::size_t>(std::clamp<Index>(k, 1, c.size())));
  return order;
}

/// ⌈f·m⌉ and ⌊f·m⌋ of a fraction given in decimal (1/6 of 96 is 16, not the 17 its rounding would give).
Index ceil_count(double fraction, Index m) { return static_cast<Index>(std::ceil(fraction * static_cast<double>(m) - 1e-9)); }
Index floor_count(double fraction, Index m) { return static_cast<Index>(std::floor(fraction * static_cast<double>(m) + 1e-9)); }

/// T_i = weight_i · m/K on the selected indices, 0 elsewhere: Y = (1/K) Σ_S weight_i a_i a_i'.
Vector on_selection(const std::vector<Index>& selected, Index m, const std::function<double(Index)>& weight) {
  Vector T = Vector::Zero(m);
  const double per = static_cast<double>(m) / static_cast<double>(selected.size());
  for (Index i : selected) T(i) = weight(i) * per;
  return T;
}

}  // namespace

StartWeights truncated_spectral_weights(double alpha_y) {
  return [alpha_y](const StartBatch& d, std::string&) {
    const double bound = alpha_y * alpha_y * d.y.mean();
    return Vector(d.y.unaryExpr([bound](double v) { return std::abs(v) <= bound ? v : 0.0; }));
  };
}

StartWeights orthogonality_weights(double fraction) {
  return [fraction](const StartBatch& d, std::string&) {
    const Index m = d.y.size();
    const Vector ratio = d.psi.cwiseQuotient(d.design_norms.cwiseMax(1e-300));
    const auto& norms = d.design_norms;
    return on_selection(extreme(ratio, ceil_count(fraction, m), true), m,
                        [&norms](Index i) { return 1.0 / std::max(norms(i) * norms(i), 1e-300); });
  };
}

StartWeights weighted_correlation_weights(double fraction, double exponent) {
  return [fraction, exponent](const StartBatch& d, std::string&) {
    const Index m = d.y.size();
    const auto& psi = d.psi;
    return on_selection(extreme(d.y, std::max<Index>(floor_count(fraction, m), 1), true), m,
                        [&psi, exponent](Index i) { return std::pow(psi(i), exponent); });
  };
}

StartWeights optimal_spectral_weights() {
  return [](const StartBatch& d, std::string& refusal) -> Vector {
    const double delta = static_cast<double>(d.y.size()) / static_cast<double>(d.dimension);
    if (delta <= 1.0) {
      refusal = "optimal_spectral_init needs more measurements than unknowns (m/n = " + short_number(delta) +
                "): its weights (y − 1)/(y + √δ − 1) have a pole otherwise";
      return {};
    }
    const double mean = d.y.mean(), root = std::sqrt(delta);
    return d.y.unaryExpr([mean, root](double v) {
      const double y = std::max(v, 0.0) / mean;
      return mean * (y - 1.0) / (y + root - 1.0);
    });
  };
}

StartWeights null_vector_weights(double fraction) {
  return [fraction](const StartBatch& d, std::string& refusal) -> Vector {
    const Index m = d.y.size();
    const Index kept = std::clamp<Index>(ceil_count(fraction, m), 1, m);
    if (kept < d.dimension) {
      // Fewer designs than dimensions span a proper subspace: every vector orthogonal to it is a bottom eigenvector.
      refusal = "null_vector_init keeps ⌈f·m⌉ = " + std::to_string(kept) + " measurements, fewer than n = " +
                std::to_string(d.dimension) + ": their bottom eigenvector is not determined (raise fraction or m)";
      return {};
    }
    return on_selection(extreme(d.psi, kept, false), m, [](Index) { return 1.0; });
  };
}

Start WeightedSpectralStart::initialize(const DataSource& data, const StartRequest& request, Rng& rng) const {
  if (request.rank != 1)
    return failed_start(s_.name + " starts a rank-1 model M = z z' (phase retrieval); the estimator asks for rank " +
                  std::to_string(request.rank));
  Batch batch;
  if (auto refused = read_start_batch(request, s_.batch_size.value_or(request.batch_size), batch)) return *refused;
  if (const std::string why = not_phase_retrieval(data, batch, s_.name); !why.empty()) return failed_start(why);
  // The norm estimate and the weights' normalisations need intensities of positive mean.
  if (!(batch.y.mean() > 0.0))
    return failed_start(s_.name + ": the responses' mean is " + short_number(batch.y.mean()) + ", not the positive mean of "
                  "intensities (a_i'x)²");
  const Index d = data.shape().d1;
  const Vector psi = amplitudes_of(batch.y);
  const Vector norms = design_norms(batch.left);
  std::string refusal;
  const Vector T = s_.weights(StartBatch{batch.y, psi, norms, d}, refusal);
  if (!refusal.empty()) return failed_start(refusal);
  const double m = static_cast<double>(batch.instances());
  const double sign = s_.bottom ? -1.0 : 1.0;  // the bottom eigenvector is the top one of −Y
  const LinearMap Y = [&](const Matrix& Z) -> Matrix {
    return (sign / m) * batch.left.accumulate(T.asDiagonal() * batch.left.project(Z));
  };
  EigenOptions solver;
  solver.tolerance = s_.tolerance;
  const EigenResult eig = top_k_algebraic(Y, d, 1, rng, solver);
  if (!eig.converged)
    return failed_start(s_.name + ": the eigensolver did not converge in " + std::to_string(eig.iterations) + " iterations");
  const Vector v = eig.vectors.col(0);
  double scale = norm_estimate(batch.y);
  if (s_.scale == StartScale::least_squares) {
    const Vector Av = batch.left.project(v).col(0).cwiseAbs();
    const double denominator = Av.squaredNorm();
    scale = denominator > 0.0 ? Av.dot(psi) / denominator : 0.0;
  }
  if (!(scale > 0.0) || !std::isfinite(scale))
    return failed_start(s_.name + ": the norm estimate is " + short_number(scale) + " (are the responses intensities (a'x)²?)");
  Start s;
  s.ok = true;
  s.model.left = scale * v;
  s.model.right = s.model.left;
  s.model.symmetrize = data.shape().symmetric;
  s.basis = v;
  s.batch = std::move(batch);
  return s;
}

Start TruthAngleStart::initialize(const DataSource& data, const StartRequest& request, Rng& rng) const {
  const GroundTruth* truth = data.truth();
  if (truth == nullptr) throw ConfigError("at " + path_ + ": truth_angle_init needs a planted truth, and the data source has none");
  if (request.rank != 1 || truth->rank() != 1 || truth->rows() != truth->cols())
    throw ConfigError("at " + path_ + ": truth_angle_init rotates a planted signal x of M* = x x': it needs a rank-1 square "
                      "truth and a rank-1 estimator (truth rank " + std::to_string(truth->rank()) + ", estimator rank " +
                      std::to_string(request.rank) + ")");
  const BalancedFactors f = psd_factor(*truth, 1);
  const Vector x = f.left.col(0);
  if (!(x.norm() > 0.0)) throw ConfigError("at " + path_ + ": truth_angle_init: the planted truth has no positive eigenvalue");
  const Vector unit = x / x.norm();
  Vector u(x.size());
  rng.fill_normal(u.data(), u.size());
  u -= unit.dot(u) * unit;
  if (!(u.norm() > 0.0)) throw ConfigError("at " + path_ + ": truth_angle_init needs a signal of length 2 or more");
  u /= u.norm();
  Start s;
  s.ok = true;
  s.model.left = x.norm() * (std::cos(angle_) * unit + std::sin(angle_) * u);
  s.model.right = s.model.left;
  s.model.symmetrize = data.shape().symmetric;
  s.basis = s.model.left / s.model.left.norm();
  s.note = "start at " + short_number(angle_) + " rad from the planted signal";
  return s;
}

}  // namespace rankone::phase_retrieval
