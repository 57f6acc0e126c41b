#pragma once
/// \file The built-in starts (docs/plugins/initializers.md): every iterative estimator that declares
/// `init` accepts each of them.
#include <filesystem>
#include <optional>
#include <string>

#include "rankone/interfaces/initializer.hpp"

namespace rankone::initializers {

/// `spectral_init`: the rank-k spectral (moment) estimate of one batch, `scale·(𝒜'(y)/n − shift·mean(y)·I)`
/// (rankone/estimation/spectral.hpp), with its eigen- or singular vectors as the basis.
class SpectralStart final : public Initializer {
 public:
  static constexpr double kDefaultTolerance = 1e-3;
  SpectralStart(std::optional<Index> batch_size, std::optional<double> tolerance)
      : batch_size_(batch_size), tolerance_(tolerance) {}
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  std::optional<Index> batch_size_;  ///< unset: the estimator's batch size
  std::optional<double> tolerance_;  ///< unset: the estimator's (StartRequest::eigen_tolerance), else kDefaultTolerance
};

/// `zero_init`: the zero matrix (k zero columns, w = 0): a convex solver's start, where its path
/// of λ begins, and SVP's X0 = 0. A subspace start (StartRequest::subspace) refuses it: 0 spans none.
class ZeroStart final : public Initializer {
 public:
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;
};

/// `random_init`: Gaussian factors with i.i.d. N(0, std²) entries (w = 0); the basis is that of the left factor.
/// Without a std: the estimator's (StartRequest::random_std), else kDefaultStd.
class RandomStart final : public Initializer {
 public:
  static constexpr double kDefaultStd = 0.1;
  explicit RandomStart(std::optional<double> std_dev) : std_(std_dev) {}
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  std::optional<double> std_;
};

/// `warm_start`: a model written by `rankone model` (docs/models.md), read when the start is built
/// (a ConfigError at `path` when it cannot be read); one of another shape or rank than the data and
/// the estimator is a ConfigError at the start.
class WarmStart final : public Initializer {
 public:
  WarmStart(std::filesystem::path folder, std::string path);
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  std::filesystem::path folder_;
  std::string path_;  ///< JSON path of `model`, for the refusals
  Estimate model_;
};

/// `near_truth`: the planted truth's balanced factors (w* too), each moved by Gaussian noise of
/// relative Frobenius norm `distance`: local-convergence studies that skip the initialisation.
/// Data without a planted truth is a ConfigError.
class NearTruthStart final : public Initializer {
 public:
  NearTruthStart(double distance, std::string path) : distance_(distance), path_(std::move(path)) {}
  Start initialize(const DataSource& data, const StartRequest& request, Rng& rng) const override;

 private:
  double distance_;
  std::string path_;  ///< JSON path of the start, for the refusal
};

}  // namespace rankone::initializers
