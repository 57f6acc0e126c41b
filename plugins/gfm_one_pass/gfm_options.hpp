#pragma once
/// \file The settings of `gfm_one_pass`: declared once, in `GfmOptions::schema()` (type, default,
/// range and doc of each); the struct reads them, from an experiment's validated parameters or, for
/// C++ callers, from the schema's defaults, and checks itself Ceres-style with `is_valid`.
#include <optional>
#include <string>

#include "rankone/core/params.hpp"

namespace rankone::gfm {

struct GfmOptions {
  Index rank;
  std::optional<Index> batch_size;  ///< unset: from the data (BatchReader::choose)
  std::optional<Index> init_batch_size;  ///< unset: batch_size
  int max_iterations;
  std::optional<Index> passes;  ///< passes allowed over a finite source (unset: from the data, BatchReader::choose)
  double tolerance;
  bool first_order;
  bool intercept;  ///< also estimate b in y = b + x'w + x'Mx (refitted on each batch after the update)
  double divergence_factor;
  double init_tolerance;  ///< the spectral start's eigensolver tolerance (EigenOptions::tolerance)
  int threads;            ///< threads for the dense products (0: every hardware thread); results do not depend on it

  /// The declared parameters, the one place their defaults and ranges are written.
  static Schema schema();
  /// The schema's defaults.
  GfmOptions();
  /// Validated parameters (Schema::validate has filled in the defaults).
  explicit GfmOptions(const Params& params);

  /// The options as parameters, keyed as in the schema.
  Json to_json() const;
  /// False, with the first violation in `error` (if given), when a value is outside its declared range.
  bool is_valid(std::string* error = nullptr) const { return schema().is_valid(to_json(), error); }
};

}  // namespace rankone::gfm
