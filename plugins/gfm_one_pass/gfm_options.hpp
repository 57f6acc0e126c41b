#pragma once
/// \file The settings of `gfm_one_pass`: declared once, in `GfmOptions::table()` (type, default,
/// range and doc of each, bound to its field); the struct reads them, from an experiment's validated
/// parameters or, for C++ callers, from the schema's defaults, and checks itself Ceres-style with
/// `is_valid` (core/options_table.hpp).
#include <optional>
#include <string>

#include "rankone/core/options_table.hpp"

namespace rankone::gfm {

struct GfmOptions : DeclaredOptions<GfmOptions> {
  Index rank;
  std::optional<Index> batch_size;  ///< unset: from the data (BatchReader::choose)
  int max_iterations;
  std::optional<Index> passes;  ///< passes allowed over a finite source (unset: from the data, BatchReader::choose)
  double tolerance;
  bool first_order;
  bool intercept;  ///< also estimate b in y = b + x'w + x'Mx (refitted on each batch after the update)
  double divergence_factor;
  int threads;            ///< threads for the dense products (0: every hardware thread); results do not depend on it

  /// The declaration: each parameter bound to its field.
  static const OptionsTable<GfmOptions>& table();
  /// The schema's defaults.
  GfmOptions() { read_defaults(); }
  /// Validated parameters (Schema::validate has filled in the defaults).
  explicit GfmOptions(const Params& params) { read(params); }
};

}  // namespace rankone::gfm
