#pragma once
/// \file The settings of the completion estimators: OnlineOptions (omc_psd, omc_general,
/// omc_general_theoretical), OfflineOptions (als_completion, sgd_mf) and BiasBaselineOptions
/// (bias_baseline). Each is declared once, in its `schema()` (type, default, range and doc); the
/// struct reads it, from an experiment's validated parameters or, for C++ callers, from the schema's
/// defaults, and checks itself Ceres-style with `is_valid`.
#include <optional>
#include <string>

#include "rankone/core/options_table.hpp"

namespace rankone::online_completion {

/// What the completion estimators subtract from each observed entry before the low-rank fit
/// (biases.hpp): nothing, the global mean, or the mean and regularised row/column biases.
enum class OffsetKind { none, mean, biases };
std::string to_string(OffsetKind kind);

/// Settings shared by the three online estimators.
struct OnlineOptions : DeclaredOptions<OnlineOptions> {
  Index rank;
  double init_batch_factor;             ///< the default batch |Ω_init| of a data-driven start, in units of d k log d
  double trim;                          ///< warm-start rows capped at ‖u_i‖² ≤ trim · ‖U0‖²_F/d1 (0: off)
  double step_size;                     ///< gain α: η = α / (2 d1 d2 (‖U0‖²_F/d1 + ‖V0‖²_F/d2))
  std::optional<double> learning_rate;  ///< the paper's η, used as given (overrides step_size)
  Index batch_size;                     ///< observations per iteration
  double divergence_factor;
  int max_iterations;
  double tolerance;
  bool init_fit;                        ///< rescale U0 V0' by least squares on the entries the start read
  OffsetKind offset;                    ///< subtracted from each entry before the low-rank update
  double offset_regularization;         ///< λ of the running biases

  /// The declaration: each parameter bound to its field (core/options_table.hpp).
  static const OptionsTable<OnlineOptions>& table();
  OnlineOptions() { read_defaults(); }  ///< the schema's defaults
  explicit OnlineOptions(const Params& p) { read(p); }
  /// |Ω_init| = ⌈init_batch_factor · d k log d⌉, d = max(d1, d2): the paper's warm-start size, the
  /// default batch of a data-driven start.
  Index init_batch(Index d1, Index d2) const;
};

/// Settings shared by the offline estimators; their defaults differ by estimator.
struct OfflineOptions {
  enum class Method { als_completion, sgd_mf };
  Method method;
  Index rank;
  double regularization;
  double learning_rate = 0.0;  ///< sgd_mf only (als_completion has no step)
  double divergence_factor;
  int max_iterations;
  double tolerance;
  OffsetKind offset;             ///< fitted on Ω, subtracted before U V'
  double offset_regularization;  ///< λ of the bias fit
  int threads;                   ///< threads for a pass (resolve_threads; 0: every hardware thread)
  Index blocks = 1;              ///< sgd_mf only: the schedule's grid is blocks × blocks (1: plain SGD)

  /// The declaration of each estimator (their defaults differ): each parameter bound to its field.
  static const OptionsTable<OfflineOptions>& table(Method method);
  static Schema schema(Method method) { return table(method).schema(); }
  explicit OfflineOptions(Method method);  ///< the schema's defaults for `method`
  OfflineOptions(Method method, const Params& p);
  Json to_json() const { return table(method).write(*this); }
  bool is_valid(std::string* error = nullptr) const { return schema(method).is_valid(to_json(), error); }
};

/// Settings of `bias_baseline` (docs/plugins/bias_baseline.md).
struct BiasBaselineOptions : DeclaredOptions<BiasBaselineOptions> {
  OffsetKind terms;       ///< mean: μ alone; biases: μ + b_row(i) + b_col(j) (never none)
  double regularization;  ///< λ of the row and column biases
  int max_iterations;     ///< sweeps
  double tolerance;

  static const OptionsTable<BiasBaselineOptions>& table();
  BiasBaselineOptions() { read_defaults(); }  ///< the schema's defaults
  explicit BiasBaselineOptions(const Params& p) { read(p); }
};

}  // namespace rankone::online_completion
