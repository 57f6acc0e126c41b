#pragma once
/// \file `rankone fit ESTIMATOR TRAIN [--test TEST] [key=value …]`: the one-trial experiment it
/// composes. Running it, the model and the predictions are the commands' own (main.cpp, models.hpp).
#include <optional>
#include <string>
#include <vector>

#include "rankone/core/params.hpp"

namespace rankone {
class Registry;
}

namespace rankone::cli {

/// The data source that reads `file` for data served by the operator `op`: entries (`entry`) from
/// `ratings` triplets, or `image` for a .png/.jpg/.jpeg; feature vectors from `csv` (.csv),
/// `idx` (.idx, -ubyte) or `libsvm` (anything else). A trailing .gz is looked through.
std::string source_for(const std::string& file, const std::string& op);

/// The experiment `rankone fit` runs: one repetition of `estimator` on `train` (and `test` as the
/// source's test_file), the source chosen by source_for, the operator the estimator's own example
/// data uses (resolved, so its first-order term is the one the estimator's model has), and the
/// metrics of its kind (test_rmse, or auc / hamming_loss / precision@1 for one-bit labels).
Json fit_experiment(const Registry& registry, const std::string& estimator, const std::string& train,
                    const std::optional<std::string>& test);

/// A `key=value` of `rankone fit` as an experiment override: a key under one of the experiment's
/// top-level names (seed, data.…, stop.…) as it is, any other key a parameter of the estimator
/// (`rank=3` → `estimators.0.rank=3`).
std::string fit_override(const std::string& key_value);

}  // namespace rankone::cli
