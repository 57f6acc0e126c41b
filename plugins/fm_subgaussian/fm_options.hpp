#pragma once
/// \file The settings of fm_moment_elimination and ifm (AlternatingOptions), fm (ConventionalFmOptions)
/// and ridge (RidgeOptions). Each is declared once, in its `table()` (type, default, range and doc,
/// bound to its field: core/options_table.hpp); the struct reads it, from an experiment's validated
/// parameters or, for C++ callers, from the schema's defaults, and checks itself Ceres-style with
/// `is_valid`.
#include <optional>
#include <string>

#include "rankone/core/options_table.hpp"

namespace rankone::fm_subgaussian {

/// Settings common to both alternating estimators (docs/plugins/fm_moment_elimination.md).
struct AlternatingOptions : DeclaredOptions<AlternatingOptions> {
  Index rank;
  std::optional<Index> batch_size;  ///< unset: from the data (BatchReader::choose)
  int max_iterations;
  double tolerance;
  std::optional<Index> passes;      ///< unset: from the data (BatchReader::choose)
  bool standardize;
  /// Without standardize, refuse features far from E x x' = I (StandardisationCheck); false runs anyway.
  bool require_standardized;
  bool intercept;  ///< as given; the fit has one also when standardize is (fits_intercept)
  /// Step η of the moment updates (1: the paper's update). Below 1 it damps the iteration for data
  /// whose moments are far from the sub-gaussian model (the unit step then overshoots).
  double step_size;
  double divergence_factor;  ///< the shared divergence rule (IterativeEstimator::end_if_diverged)

  /// Whether the model has an intercept: asked for, or created by centring (standardize).
  bool fits_intercept() const { return intercept || standardize; }
  static const OptionsTable<AlternatingOptions>& table();
  AlternatingOptions() { read_defaults(); }  ///< the schema's defaults
  explicit AlternatingOptions(const Params& p) { read(p); }
};

/// Settings of `fm_moment_elimination`: the alternating ones and its τ-MIP test
/// (docs/plugins/fm_moment_elimination.md, "The τ test").
struct MomentEliminationOptions : AlternatingOptions {
  double tau_threshold;   ///< the smallest τ the estimator runs on
  double tau_confidence;  ///< confidence level of the lower bound on τ that must clear tau_threshold

  static const OptionsTable<MomentEliminationOptions>& table();
  static Schema schema() { return table().schema(); }
  MomentEliminationOptions() : MomentEliminationOptions(Params(schema().defaults())) {}  ///< the schema's defaults
  explicit MomentEliminationOptions(const Params& p) { table().read(*this, p); }
  Json to_json() const { return table().write(*this); }
  bool is_valid(std::string* error = nullptr) const { return schema().is_valid(to_json(), error); }
};

/// Settings of `fm` (docs/plugins/fm.md).
struct ConventionalFmOptions : DeclaredOptions<ConventionalFmOptions> {
  enum class Solver { sgd, als };
  Index rank;
  Solver solver;
  double learning_rate;  ///< SGD step η₀
  double decay;          ///< SGD step in epoch t (from 0): η₀ / (1 + decay · t)
  double reg_w;
  double reg_v;
  int max_iterations;    ///< epochs
  double tolerance;
  std::optional<Index> training_size;  ///< none: a whole pass of a finite source, else endless_training_size
  bool standardize;
  bool intercept;        ///< as given; the fit has one also when standardize is (fits_intercept)

  static constexpr Index endless_training_size = 10000;  ///< the training set drawn from an endless source
  /// Whether the model has an intercept: asked for, or created by centring (standardize).
  bool fits_intercept() const { return intercept || standardize; }
  static const OptionsTable<ConventionalFmOptions>& table();
  ConventionalFmOptions() { read_defaults(); }  ///< the schema's defaults
  explicit ConventionalFmOptions(const Params& p) { read(p); }
};

/// Settings of `ridge` (docs/plugins/ridge.md).
struct RidgeOptions : DeclaredOptions<RidgeOptions> {
  double l2;
  Index batch_size;
  std::optional<Index> training_size;  ///< none: a whole pass of a finite source, else endless_training_size
  bool standardize;     ///< penalise standardised coefficients (scikit-learn's scaler + ridge)

  static constexpr Index endless_training_size = 100000;  ///< the training set drawn from an endless source
  static const OptionsTable<RidgeOptions>& table();
  RidgeOptions() { read_defaults(); }  ///< the schema's defaults
  explicit RidgeOptions(const Params& p) { read(p); }
};

}  // namespace rankone::fm_subgaussian
