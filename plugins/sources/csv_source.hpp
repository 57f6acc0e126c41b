#pragma once
/// \file The `csv` source: delimited text with a header, a choice of label and feature columns, and
/// a missing-value policy.
#include "file_source.hpp"

namespace rankone::sources {

enum class CsvMissing { error, skip, zero, mean };

struct CsvOptions {
  char delimiter = ',';
  bool header = true;
  /// Label columns: names (with a header) or 0-based positions. One column: a numeric target (and
  /// a class when integral); several: a multi-label set (the columns whose value is > 0).
  std::vector<std::string> label_columns;
  /// Feature columns, same convention; empty: every column that is not a label.
  std::vector<std::string> feature_columns;
  CsvMissing missing = CsvMissing::error;
  double value_scale = 1.0;  ///< multiplies every feature value
};

/// Splits one CSV line into fields (RFC 4180 quoting within a line: "a,b" and "" for a quote).
/// Throws DataError on an unterminated quote.
void split_csv_line(std::string_view line, char delimiter, std::vector<std::string>& fields, const std::string& where,
                    std::int64_t line_number);

/// True for the tokens read as a missing value: empty, NA, N/A, ?, and null (any case).
bool is_missing_token(std::string_view token);

/// Streams records from CSV text (plain or gzip).
class CsvReader final : public RecordReader {
 public:
  CsvReader(StreamOpener opener, CsvOptions options);
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override { return lines_ ? lines_->bytes() : 0; }
  std::string source_name() const override { return name_; }
  /// The header line that named the columns.
  std::vector<std::string> notes() const override;
  /// With a header: the names of the feature columns, in order (feature_columns).
  void describe_preparation(DataPreparation& preparation) const override;
  /// Scoring: feature columns found by the training file's names, labels not needed, and no record
  /// skipped (every record gets a prediction line).
  void use_preparation(const DataPreparation& preparation) override;

 private:
  /// Maps the configured column names to positions, given the header (or the first row's width).
  void resolve_columns(const std::vector<std::string>& header, std::int64_t line_number);
  StreamOpener opener_;
  CsvOptions options_;
  std::unique_ptr<LineReader> lines_;
  std::vector<std::string> fields_;
  std::vector<std::size_t> label_at_, feature_at_;
  std::size_t width_ = 0;
  bool resolved_ = false;
  std::int64_t records_ = 0;
  std::string line_, name_;
  std::string header_line_;  ///< the line read as the header
  std::vector<std::string> header_names_;  ///< the feature columns' names (with a header)
  bool scoring_ = false;
  std::vector<std::string> model_features_;  ///< scoring: the training file's feature column names
};

Registration csv_registration();

}  // namespace rankone::sources
