#pragma once
/// \file Predictions as text, one line per record: what `rankone predict` writes for a data file and
/// the `export_predictions` metric for a test set, in the same format so the two compare byte for
/// byte. A score is the operator's `𝒜(M) + a'w + b` of the model, before any link; a batch that
/// pairs each instance with every label (a multi-label set) gives one line per instance with its
/// labels' scores separated by spaces. Numbers are printed with 17 significant digits (exact).
#include <ostream>

#include "rankone/core/batch.hpp"

namespace rankone {

/// Writes `scores` (one per measurement of `batch`, as SensingOperator::forward returns them).
void write_predictions(std::ostream& out, const Batch& batch, const Vector& scores);

}  // namespace rankone
