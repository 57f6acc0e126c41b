#pragma once
/// \file One-bit observations as LEML keeps them: a feature file (one instance per line, libsvm or
/// csv) and an observations file of `row label answer` lines, each an asked label of an instance
/// and its ±1 answer. The `observations` parameter of the feature sources.
#include <memory>
#include <string>
#include <vector>

#include "file_source.hpp"

namespace rankone::sources {

/// Parses `row label answer` (blank- or comma-separated; `base` is subtracted from row and label);
/// false for an empty line. The answer must be a nonzero number (its sign is the bit). Throws
/// DataError naming `where:line`.
bool parse_observation_line(std::string_view line, int base, std::int64_t& row, std::int64_t& label, double& answer,
                            const std::string& where, std::int64_t line_number);

/// Serves one record per observation: the features of its row (the feature file is held in memory),
/// `observed_label` the asked label and `target` its answer ±1. Scoring with a saved model
/// (use_preparation) serves the feature file's records instead, every label of each to be scored.
class ObservationsReader final : public RecordReader {
 public:
  ObservationsReader(std::unique_ptr<RecordReader> features, StreamOpener observations, int base);
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override;
  std::string source_name() const override;
  /// The feature file's notes and how many observations of how many rows and labels.
  std::vector<std::string> notes() const override;
  void describe_preparation(DataPreparation& preparation) const override { features_->describe_preparation(preparation); }
  void use_preparation(const DataPreparation& preparation) override;

 private:
  std::unique_ptr<RecordReader> features_;
  StreamOpener observations_;
  int base_;
  bool scoring_ = false;  ///< use_preparation: the feature file's records, no observations
  std::vector<Record> rows_;  ///< the feature file, loaded on the first start
  bool loaded_ = false;
  std::unique_ptr<LineReader> lines_;
  std::string line_, name_;
  std::int64_t observations_read_ = 0, largest_label_ = -1;
  std::uint64_t bytes_ = 0;
};

/// Declares `observations` and `observations_indexing` (feature sources).
void declare_observation_parameters(Schema& s);
/// `features` wrapped in an ObservationsReader when `observations` is given (else returned as is).
std::unique_ptr<RecordReader> with_observations(const Params& p, std::unique_ptr<RecordReader> features);
/// With `observations`: checks the combination (operator single_label, no test_file, label view
/// one_bit without balance) and makes the test part observations too (test_full_labels false).
void check_observations(const Params& p, FileSourceConfig& config);

}  // namespace rankone::sources
