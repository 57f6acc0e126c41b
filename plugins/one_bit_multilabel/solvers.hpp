#pragma once
/// \file Numerical pieces shared by the baselines of the one-bit multi-label plugin: pointwise
/// losses on ±1 labels, a matrix-variable Newton–CG minimiser, singular value thresholding, and the
/// fixed training set the batch (non-streaming) estimators learn from.
#include <functional>
#include <optional>
#include <string>

#include "rankone/core/batch.hpp"
#include "rankone/core/types.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone::one_bit {

/// A loss ℓ(y, s) of a ±1 label y and a real score s, with its first two derivatives in s.
/// `hessian` is the generalised second derivative where ℓ is only once differentiable.
enum class LossKind { squared, logistic, squared_hinge };

struct Loss {
  LossKind kind = LossKind::squared;
  double value(double y, double s) const;
  double gradient(double y, double s) const;
  double hessian(double y, double s) const;
  /// Σ_i ℓ(y_i, s_i) / n.
  double mean(const Vector& y, const Vector& s) const;
};

/// A linear map from a matrix parameter θ to scores (one per measurement) and its adjoint:
/// `scores(θ)` and `adjoint(g) = Σ_i g_i ∂s_i/∂θ` (a matrix shaped like θ).
struct LinearScores {
  std::function<Vector(const Matrix&)> scores;
  std::function<Matrix(const Vector&)> adjoint;
  /// Optional: `adjoint(h ∘ scores(d))` in one call, with `scores(d)` written to `scores_of_d`, for a
  /// map that can form both in one pass over its data. When empty, newton_cg calls the two in turn.
  std::function<Matrix(const Matrix& d, const Vector& h, Vector& scores_of_d)> curvature;
};

struct NewtonOptions {
  int newton_steps = 1;          ///< outer (Newton) steps; one suffices for the squared loss
  int cg_iterations = 50;        ///< conjugate-gradient steps per Newton step
  double cg_tolerance = 1e-6;    ///< stop CG when ‖residual‖ ≤ cg_tolerance · ‖gradient‖
  double gradient_tolerance = 1e-8;  ///< stop Newton when ‖gradient‖_F ≤ this
};

/// Minimises  F(θ) = mean_i ℓ(y_i, s_i(θ)) + penalty·‖θ‖²_F  from `theta` by (inexact) Newton steps:
/// each solves H d = −∇F by conjugate gradients, Hessian products costing one `scores` and one
/// `adjoint` call (or one `curvature` call), then backtracks (Armijo) along d; the scores of d are
/// summed from those of the CG search directions (the map is linear), not formed again. Returns the
/// new θ; `objective` (if given) receives F at the result.
Matrix newton_cg(const LinearScores& map, const Loss& loss, const Vector& y, double penalty, Matrix theta,
                 const NewtonOptions& options, double* objective = nullptr);

/// The fixed training set of a batch estimator: `instances` instances from the source, or a whole
/// pass of a finite source when `instances` is empty. Fails (returns nullopt with `why` set) when the
/// source is endless and no size is given, or gives no data.
std::optional<Batch> gather_training_set(DataSource& data, std::optional<Index> instances, std::string& why);

/// Frobenius inner product <A, B>.
inline double inner(const Matrix& a, const Matrix& b) { return (a.array() * b.array()).sum(); }

}  // namespace rankone::one_bit
