#pragma once
/// \file A trial's final model as stored and exported: the estimate, what scores with it (the data
/// source's configuration, operator and link) and the preparation of the data it was trained on,
/// kept as a JSON header and named arrays. Stored with the trial (results store), exported by
/// `rankone model` as a folder numpy reads (model.json and one .npy per array), read back by
/// `rankone predict`. The format: docs/models.md.
#include <filesystem>
#include <string>

#include "rankone/core/arrays.hpp"
#include "rankone/core/model.hpp"
#include "rankone/core/params.hpp"
#include "rankone/interfaces/data_source.hpp"

namespace rankone {

struct SavedModel {
  /// format, version, trial, estimator, data (the resolved source configuration), operator, link,
  /// model (shape, rank, symmetrize, zero_diagonal, bias), preparation, arrays (name → dtype,
  /// shape, role "model" or "preparation").
  Json header = Json::object();
  ArraySet arrays;  ///< left, right, w (when present) and the preparation's arrays

  static constexpr const char* kFormat = "rankone-model";
  static constexpr int kVersion = 2;  ///< 2: model.json carries checksums

  /// The model of a finished trial: its final estimate and its source's preparation.
  static SavedModel of(const Estimate& estimate, const DataSource& source, const Json& data_config,
                       const std::string& estimator, const std::string& trial_key);
  Estimate estimate() const;
  DataPreparation preparation() const;
  /// The resolved configuration of the data source the model was trained on.
  const Json& data_config() const { return header.at("data"); }

  /// With the arrays inline, to ship between processes (doubles round-trip exactly).
  Json to_json() const;
  static SavedModel from_json(const Json& j);
  /// The arrays' elements, little-endian, one after another in name order (the store's blob).
  std::string pack() const;
  /// A stored header and blob; an InputError when they do not match.
  static SavedModel unpack(const Json& header, const std::string& blob);

  /// Writes `folder`/model.json and `folder`/NAME.npy per array, whole or not at all: a folder
  /// beside it, synced, replaces it in one rename (an existing folder must be a model folder).
  /// model.json records each array's checksum and its own. A non-finite value is refused.
  void write_folder(const std::filesystem::path& folder) const;
  /// Reads a folder `write_folder` wrote, checking both checksums, every array against the header
  /// and finite values; errors name the file and the field (InputError).
  static SavedModel read_folder(const std::filesystem::path& folder);
  /// model.json's text with its own checksum filled in: over the bytes with the digits of its
  /// top-level "checksum" line read as zeros (how write_folder seals it and read_folder checks it).
  static std::string sealed(std::string text);
  /// InputError at `where` naming the array and element of a non-finite value, or a non-finite bias.
  void check_finite(const std::string& where) const;

 private:
  static SavedModel read_checked(const std::filesystem::path& folder);
};

}  // namespace rankone
