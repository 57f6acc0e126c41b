#pragma once
/// \file `rankone model` (export a stored trial's model) and `rankone predict` (score a data file
/// with an exported model). The format: docs/models.md.
#include <filesystem>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rankone::cli {

/// Writes the model of trial `trial` (its key, as the export's `trial` column) stored in `results`
/// to the folder `output`. An InputError when the trial does not exist or stored no model.
void export_model(const std::filesystem::path& results, const std::string& trial, const std::filesystem::path& output);

/// Scores every record of `data` with the model folder `model`: the data is read by the source the
/// model was trained with (its configuration, with `file` set to `data` and the `key=value`
/// `source_options` applied), prepared as the model's training data was (saved statistics, id maps,
/// design), and each record's prediction written as a line to `out`. Notes go to `notes`.
void predict(const std::filesystem::path& model, const std::string& data, const std::vector<std::string>& source_options,
             std::ostream& out, std::ostream& notes);

}  // namespace rankone::cli
