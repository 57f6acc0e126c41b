#pragma once
/// \file Model selection on validation results (rankone select): per estimator label and outer
/// unit (e.g. the outer cross-validation fold), the tuned sweep coordinates that minimise the mean
/// validation score, and the test score of that choice. Validation and test trials live in the
/// same results folder and are told apart by one coordinate (e.g. data.evaluate_on).
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "rankone/store/summary.hpp"

namespace rankone {

struct SelectionOptions {
  std::string metric;                   ///< the score, lower is better (e.g. test_rmse)
  std::vector<std::string> tune;        ///< sweep coordinates chosen on validation (e.g. estimators.0.rank)
  std::string validation_path;          ///< the coordinate that marks validation trials ...
  Json validation_value;                ///< ... by having this value; every other value is a test trial
  std::vector<std::string> average;     ///< coordinates the validation score is averaged over (inner folds)
  std::optional<std::string> outer;     ///< a coordinate selected separately per value, then averaged over
};

struct Selection {
  std::string label;
  Json group = Json::object();  ///< the other coordinates shared by the compared configurations
  Json outer;                   ///< the outer value (null without --outer)
  Json chosen;                  ///< tuned values (object path → value); null when nothing could be chosen
  double validation = 0.0;      ///< mean validation score of the choice
  std::size_t validation_rows = 0;   ///< validation cells averaged for the choice
  std::size_t candidates = 0;        ///< configurations compared
  std::size_t failed_candidates = 0; ///< configurations excluded: a validation trial failed, diverged or is missing
  std::optional<double> test;        ///< test score of the choice (absent: no test trial, or it failed)
  std::string status;                ///< "ok", "test failed", "no test trial", "all candidates failed"
};

/// Selections per label × group × outer value, in a deterministic order. Throws UsageError when a
/// path is not a sweep coordinate or the test trial of a choice is ambiguous.
std::vector<Selection> select_on_validation(const std::vector<SummaryRow>& rows, const SelectionOptions& options);

/// The selections, then per label × group the mean, sd and count of the test scores over the outer
/// values, as an aligned table or JSON ({"selections": [...], "aggregate": [...]}).
void write_selection(const std::vector<Selection>& selections, const SelectionOptions& options,
                     const std::string& format, std::ostream& out);

}  // namespace rankone
