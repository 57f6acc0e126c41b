// The built-in starts (initializers.hpp).
#include "initializers.hpp"

#include <algorithm>
#include <cmath>
#include <exception>

#include "rankone/core/errors.hpp"
#include "rankone/estimation/spectral.hpp"
#include "rankone/estimation/start_batch.hpp"
#include "rankone/interfaces/estimator.hpp"
#include "rankone/linalg/balanced_factors.hpp"
#include "rankone/linalg/eigensolvers.hpp"
#include "rankone/store/saved_model.hpp"

namespace rankone::initializers {

namespace {

/// A start of `model`, with the basis of its left factor's column space.
Start started(LowRankModel model) {
  Start s;
  s.ok = true;
  s.basis = orthonormalize(model.left);
  s.model = std::move(model);
  return s;
}

Matrix gaussian(Rng& rng, Index rows, Index cols) {
  Matrix G(rows, cols);
  rng.fill_normal(G.data(), G.size());
  return G;
}

std::string shape_text(Index rows, Index cols) { return std::to_string(rows) + " × " + std::to_string(cols); }

/// `x` moved by Gaussian noise of norm `distance`·‖x‖ (of norm `distance` when x = 0).
Matrix perturbed(const Matrix& x, double distance, Rng& rng) {
  const Matrix g = gaussian(rng, x.rows(), x.cols());
  const double norm = g.norm();
  if (!(norm > 0.0)) return x;
  const double size = x.norm() > 0.0 ? x.norm() : 1.0;
  return x + (distance * size / norm) * g;
}

/// Why a start that draws k columns cannot serve a request without a rank, or "".
std::string needs_rank(const StartRequest& request, const std::string& start) {
  if (request.rank > 0) return "";
  return "the estimator's model has no rank (a convex solver), and " + start +
         " draws a rank-k start: use zero_init, warm_start or near_truth";
}

}  // namespace

Start SpectralStart::initialize(const DataSource& data, const StartRequest& request, Rng& rng) const {
  if (const std::string why = needs_rank(request, "spectral_init"); !why.empty()) return failed_start(why);
  Batch batch;
  if (auto refused = read_start_batch(request, batch_size_.value_or(request.batch_size), batch)) return *refused;
  EigenOptions solver;
  solver.tolerance = tolerance_ ? *tolerance_ : request.eigen_tolerance > 0.0 ? request.eigen_tolerance : kDefaultTolerance;
  if (request.moment) {
    const EigenResult eig = top_k_symmetric(request.moment(batch), data.shape().d1, request.rank, rng, solver);
    if (!eig.converged)
      return failed_start("spectral initialisation failed: the eigensolver did not converge in " +
                    std::to_string(eig.iterations) + " iterations");
    Start s;
    s.ok = true;
    s.model = LowRankModel::symmetric_from_eigen(eig.vectors, eig.values);
    s.model.symmetrize = data.sensing_operator().symmetric();
    s.basis = eig.vectors;
    s.batch = std::move(batch);
    s.from_moment = true;
    return s;
  }
  // A one-factor estimator's start is a PSD part: of the top algebraic eigenpairs, not the top singular triplets.
  SpectralResult r = request.one_factor ? spectral_psd_estimate(batch, data.sensing_operator(), data.shape(), request.rank,
                                                                request.first_order, rng, solver)
                                        : spectral_estimate(batch, data.sensing_operator(), data.shape(), request.rank,
                                                            request.first_order, rng, solver);
  if (!r.ok) return failed_start("spectral initialisation failed: " + r.failure);
  Start s;
  s.ok = true;
  s.model = std::move(r.model);
  if (request.one_factor) {
    // X = U max(λ, floor·λ1)^½ along M̂'s own eigenvectors (a floored column keeps its direction).
    const double lowest = request.psd_floor * std::max(r.values(0), 0.0);
    s.model.left = r.left_vectors * r.values.cwiseMax(lowest).cwiseSqrt().asDiagonal();
    s.model.right = s.model.left;
  }
  s.basis = std::move(r.left_vectors);
  s.batch = std::move(batch);
  return s;
}

Start ZeroStart::initialize(const DataSource& data, const StartRequest& request, Rng&) const {
  const ProblemShape shape = data.shape();
  LowRankModel model;
  model.left = Matrix::Zero(shape.d1, request.rank);
  model.right = Matrix::Zero(shape.symmetric ? shape.d1 : shape.d2, request.rank);
  model.symmetrize = shape.symmetric;
  if (request.first_order && data.sensing_operator().has_first_order()) model.w = Vector::Zero(shape.d1);
  return started(std::move(model));
}

Start RandomStart::initialize(const DataSource& data, const StartRequest& request, Rng& rng) const {
  if (const std::string why = needs_rank(request, "random_init"); !why.empty()) return failed_start(why);
  const ProblemShape shape = data.shape();
  LowRankModel model;
  if (request.one_factor && !shape.symmetric && shape.d1 != shape.d2)
    return failed_start("a one-factor start (M = L L') needs a square matrix; the data's is " + shape_text(shape.d1, shape.d2));
  const bool from_estimator = !std_ && request.random_std > 0.0;
  const double std_dev = std_ ? *std_ : from_estimator ? request.random_std : kDefaultStd;
  const Index d2 = shape.symmetric ? shape.d1 : shape.d2;
  if (request.solves_left_first && !request.one_factor) {
    model.left = Matrix::Zero(shape.d1, request.rank);
    model.right = std_dev * gaussian(rng, d2, request.rank);
  } else {
    model.left = std_dev * gaussian(rng, shape.d1, request.rank);
    model.right = request.one_factor ? model.left : Matrix(std_dev * gaussian(rng, d2, request.rank));
  }
  model.symmetrize = shape.symmetric;
  if (request.first_order && data.sensing_operator().has_first_order()) model.w = Vector::Zero(shape.d1);
  Start s = started(std::move(model));
  if (from_estimator) s.note = "random start with the estimator's std " + short_number(std_dev);
  return s;
}

WarmStart::WarmStart(std::filesystem::path folder, std::string path) : folder_(std::move(folder)), path_(std::move(path)) {
  try {
    model_ = SavedModel::read_folder(folder_).estimate();
  } catch (const std::exception& e) {
    throw ConfigError("at " + path_ + ": " + e.what());
  }
}

Start WarmStart::initialize(const DataSource& data, const StartRequest& request, Rng&) const {
  Estimate model = model_;
  const ProblemShape shape = data.shape();
  const Index d2 = shape.symmetric ? shape.d1 : shape.d2;
  if (model.rows() != shape.d1 || model.cols() != d2)
    throw ConfigError("at " + path_ + ": the model in " + folder_.string() + " is " + shape_text(model.rows(), model.cols()) +
                      ", the data's matrix is " + shape_text(shape.d1, d2));
  if (request.rank > 0 && model.rank() != request.rank)
    throw ConfigError("at " + path_ + ": the model in " + folder_.string() + " has rank " + std::to_string(model.rank()) +
                      ", the estimator asks for rank " + std::to_string(request.rank));
  if (request.first_order && data.sensing_operator().has_first_order() && !model.has_first_order())
    model.w = Vector::Zero(shape.d1);
  Start s = started(std::move(model));
  s.note = "warm start from the model in " + folder_.string();
  return s;
}

Start NearTruthStart::initialize(const DataSource& data, const StartRequest& request, Rng& rng) const {
  const GroundTruth* truth = data.truth();
  if (truth == nullptr) throw ConfigError("at " + path_ + ": near_truth needs a planted truth, and the data source has none");
  if (truth->zero_diagonal)
    throw ConfigError("at " + path_ + ": near_truth: the planted truth removes its diagonal (fm, zero_diagonal) and has "
                      "no low-rank factors to start near");
  const BalancedFactors balanced = balanced_factors(*truth, request.rank > 0 ? request.rank : truth->rank());
  LowRankModel model;
  model.left = perturbed(balanced.left, distance_, rng);
  model.right = perturbed(balanced.right, distance_, rng);
  model.symmetrize = data.shape().symmetric;
  if (request.first_order && data.sensing_operator().has_first_order()) {
    const Vector w = truth->has_first_order() ? truth->w : Vector::Zero(data.shape().d1);
    model.w = perturbed(w, distance_, rng);
  }
  return started(std::move(model));
}

}  // namespace rankone::initializers
