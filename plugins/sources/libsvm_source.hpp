#pragma once
/// \file The `libsvm` source: sparse `label[,label…] idx:val idx:val … [# comment]` lines.
#include "file_source.hpp"

namespace rankone::sources {

/// How feature indices in a libsvm file are numbered.
enum class LibsvmIndexing { automatic, zero_based, one_based };

struct LibsvmOptions {
  LibsvmIndexing indexing = LibsvmIndexing::automatic;
  std::int64_t dimension = 0;  ///< declared feature dimension (0: one past the largest index)
  /// Automatic indexing also looks here (the other file of a train/test pair): one base for both.
  StreamOpener paired;
};

/// Parses one non-empty, non-comment line into `record` (features as sorted 0-based indices when
/// `index_base` is 0 or 1 is subtracted). Labels: a number (the target; also a class when integral)
/// or a comma-separated list of integer classes (multi-label); a first token `idx:val` means no
/// label. `qid:N` tokens are skipped. Throws DataError naming `where:line`.
void parse_libsvm_line(std::string_view line, int index_base, std::int64_t dimension, Record& record,
                       const std::string& where, std::int64_t line_number);

/// Streams records from libsvm text (plain or gzip).
class LibsvmReader final : public RecordReader {
 public:
  LibsvmReader(StreamOpener opener, LibsvmOptions options);
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override { return lines_ ? lines_->bytes() : 0; }
  std::string source_name() const override;
  /// The index base in use (0 or 1); with automatic indexing, known after the first start().
  int index_base() const { return base_; }
  /// The index base in use (decided by automatic indexing on the training file).
  void describe_preparation(DataPreparation& preparation) const override;
  /// New data is read with the training file's index base, whatever its own smallest index.
  void use_preparation(const DataPreparation& preparation) override;
  /// The paired file's index 0 when it decided the base.
  std::vector<std::string> notes() const override { return notes_; }

 private:
  /// Automatic indexing: one quick read for the smallest index (0 present: 0-based, else 1-based),
  /// of this file and then of the paired one.
  int detect_base();
  StreamOpener opener_;
  LibsvmOptions options_;
  int base_ = -1;
  std::unique_ptr<LineReader> lines_;
  std::int64_t records_ = 0;
  std::string line_;
  std::string name_;
  std::vector<std::string> notes_;
};

Registration libsvm_registration();

}  // namespace rankone::sources
