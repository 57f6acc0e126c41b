#pragma once
/// \file Shared machinery of the file sources (`libsvm`, `csv`, `idx`, `ratings`, `image`).
///
/// Each format is a `RecordReader`: a parser over a byte stream (`ByteStream`), independent of the
/// plugin glue so that tests and fuzz targets can drive it from memory. `FileSource` turns any
/// reader into a DataSource: a validation/statistics pass at `open`, a deterministic
/// train/validation/test split by a hash of (record number, seed), a bounded shuffle buffer,
/// standardisation with training statistics, and the operator-specific views (regression features,
/// one-bit single-label, full labels, matrix entries).
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "rankone/core/errors.hpp"
#include "rankone/core/rng.hpp"
#include "rankone/interfaces/data_source.hpp"
#include "rankone/plugin/registry.hpp"

namespace rankone::sources {

// ---- Byte input ----

/// A forward-only source of bytes (a file, gzip-compressed or not, or a memory buffer).
class ByteStream {
 public:
  virtual ~ByteStream() = default;
  /// Reads up to n bytes into `out`; returns 0 at the end. Throws DataError on a corrupt stream
  /// (e.g. a truncated gzip member).
  virtual std::size_t read(char* out, std::size_t n) = 0;
  /// What the stream is, for error messages ("data.svm.gz", "<memory>").
  virtual const std::string& name() const = 0;
};

/// Opens a file through zlib: gzip-compressed files are inflated, plain files are read as they are.
/// A missing file is a DataError.
std::unique_ptr<ByteStream> open_file(const std::string& path);
/// A stream over a copy of `bytes` (tests and fuzz targets).
std::unique_ptr<ByteStream> memory_stream(std::string bytes, std::string name = "<memory>");

/// Something that opens a fresh stream at the start of the data (called once per pass).
using StreamOpener = std::function<std::unique_ptr<ByteStream>()>;
StreamOpener file_opener(const std::string& path);
StreamOpener memory_opener(std::string bytes, std::string name = "<memory>");

/// Splits a byte stream into lines ('\n' or "\r\n"), checking that each is valid UTF-8.
class LineReader {
 public:
  /// The longest line read (a line of 10⁶ sparse features is about 16 MiB).
  static constexpr std::size_t kMaxLineBytes = std::size_t{64} << 20;
  explicit LineReader(std::unique_ptr<ByteStream> stream);
  /// The next line without its terminator; false at the end of the stream.
  bool next(std::string& line);
  /// 1-based number of the line last returned.
  std::int64_t line_number() const { return line_number_; }
  const std::string& name() const { return stream_->name(); }
  /// Bytes consumed from the (decompressed) stream.
  std::uint64_t bytes() const { return bytes_; }

 private:
  bool fill();
  std::unique_ptr<ByteStream> stream_;
  std::vector<char> buffer_;
  std::size_t begin_ = 0, end_ = 0;
  bool eof_ = false;
  std::int64_t line_number_ = 0;
  std::uint64_t bytes_ = 0;
};

/// The byte offset of the first invalid UTF-8 sequence in `text`, or npos when it is valid.
std::size_t invalid_utf8_at(std::string_view text);

/// "file:LINE: expected EXPECTED, found 'TEXT'" (the text shortened to 80 characters).
[[noreturn]] void data_error(const std::string& where, std::int64_t line, const std::string& expected,
                             std::string_view found);

/// Strict number parsing: the whole (trimmed) token must be a finite number. NaN and infinities
/// are rejected with a DataError naming where they are.
double parse_finite(std::string_view token, const std::string& where, std::int64_t line, const char* what);
/// A whole token as a 64-bit integer, or a DataError.
std::int64_t parse_integer(std::string_view token, const std::string& where, std::int64_t line, const char* what);
/// `text` without leading and trailing spaces, tabs and carriage returns.
std::string_view trim(std::string_view text);

// ---- Records ----

/// Which part of the split a record belongs to.
enum class Part { train, validation, test };

/// One parsed record. Feature records fill `features` (dense: `feature_index` empty and
/// `feature_value` of the full dimension; sparse: sorted indices with their values) and `target`
/// and/or `labels`; entry records fill `row`, `col`, `target` (and `timestamp` for ratings).
struct Record {
  std::int64_t number = 0;  ///< 0-based position in the file: the key of the split hash
  double target = 0.0;
  std::vector<std::int32_t> labels;  ///< class labels (multi-label set), when the reader makes them
  std::vector<std::int64_t> feature_index;
  std::vector<double> feature_value;
  std::int64_t row = -1, col = -1;
  double timestamp = 0.0;
  std::int64_t observed_label = -1;  ///< a one-bit observation's asked label (target: its ±1 answer), or -1
  std::int64_t line = 0;  ///< 1-based line (text formats) or record number + 1, for error messages
  /// Set by a reader that splits the data itself (the chronological split of `ratings`); when
  /// empty the hash of (number, seed) decides (`part_of`).
  std::optional<Part> part;
  void clear();
};

/// What a reader yields.
struct RecordLayout {
  bool entries = false;      ///< matrix entries (row, col, value) instead of feature vectors
  bool sparse = false;       ///< feature records are sparse (index/value pairs)
  std::int64_t dim = 0;      ///< feature dimension (0: detected by the scan pass, sparse only)
  std::int64_t rows = 0;     ///< entry records: matrix rows (0: detected)
  std::int64_t cols = 0;     ///< entry records: matrix columns (0: detected)
  bool has_labels = false;   ///< records carry class labels
  bool may_have_missing = false;  ///< dense features may hold NaN for a missing value (mean imputation)
};

/// A format parser: yields records in file order, one pass at a time.
class RecordReader {
 public:
  virtual ~RecordReader() = default;
  /// Positions at the first record (another pass). `seed` is for readers that fix an order
  /// themselves (e.g. an image's pixels); most ignore it.
  virtual void start(std::uint64_t seed) = 0;
  /// The next record, or false at the end of the pass. Throws DataError on malformed input.
  virtual bool next(Record& record) = 0;
  virtual RecordLayout layout() const = 0;
  /// Bytes read from the data in this pass (for throughput figures).
  virtual std::uint64_t bytes_read() const = 0;
  /// The file (or stream) name, for error messages.
  virtual std::string source_name() const = 0;
  /// Choices the reader made about the data that the user did not spell out (a detected header,
  /// remapped ids), after a full pass; the source records them as its notes.
  virtual std::vector<std::string> notes() const { return {}; }
  /// What the reader decided from its data that new data must be read with again (a detected index
  /// base, the id maps), added to the source's preparation after a full pass.
  virtual void describe_preparation(DataPreparation&) const {}
  /// Reads new data as `preparation` says (scoring with a saved model), in file order. Before start.
  virtual void use_preparation(const DataPreparation&) {}

  /// What a header declares, checked before the reader allocates for it: `size` values a record
  /// (feature records), or a `size` × `columns` matrix (entries); `what` says where, for the
  /// DataError the check throws when that does not fit the trial's memory budget.
  using HeaderCheck = std::function<void(std::int64_t size, std::int64_t columns, const std::string& what)>;
  /// Virtual so that a decorating reader (parsed_cache.hpp) hands it to the reader it wraps.
  virtual void set_header_check(HeaderCheck check) { header_check_ = std::move(check); }

 protected:
  void check_header(std::int64_t size, std::int64_t columns, const std::string& what) const {
    if (header_check_) header_check_(size, columns, what);
  }

 private:
  HeaderCheck header_check_;
};

/// A count with a space between thousands ("50 000"), as the notes print it.
std::string grouped(std::int64_t n);
/// A fraction as a percentage with three significant digits ("97 %", "3.12 %", "< 0.01 %"), as the
/// notes print it.
std::string percent(double fraction);

/// design "auto" serves a sparse format's records as a dense design when they fill at least this
/// fraction of the n × d entries: a dense entry (8 bytes) then costs no more memory than a stored
/// sparse value (8 bytes and its 8-byte index), and dense products are faster.
inline constexpr double kDenseDesignFill = 0.5;

// ---- The generic file source ----

/// The part of record `number` under `seed`: a hash of both mapped to [0, 1) against the fractions.
Part part_of(std::int64_t number, std::uint64_t seed, double validation_fraction, double test_fraction);
/// The fold in [0, folds) of record `number` under `seed`: ⌊u·folds⌋ for the same hash u ∈ [0, 1),
/// so every record is in exactly one fold and fold sizes are multinomial around N/folds.
std::int64_t fold_of(std::int64_t number, std::uint64_t seed, std::int64_t folds);

/// How records are dealt into train, validation and test: by fractions, or by k-fold
/// cross-validation (`folds` > 0), where fold `test_fold` is the test part, fold `validation_fold`
/// (when ≥ 0) the validation part and the other folds the training part.
struct SplitRule {
  double validation_fraction = 0.0;
  double test_fraction = 0.0;
  std::int64_t folds = 0;             ///< 0: the fraction split
  std::int64_t test_fold = 0;
  std::int64_t validation_fold = -1;  ///< -1: no validation fold
  std::optional<std::uint64_t> seed;  ///< the hash's seed; default: the seed given to open()

  /// The part of record `number`; `open_seed` is used when no seed is fixed.
  Part part(std::int64_t number, std::uint64_t open_seed) const;
};

enum class Standardize { none, scale, center_scale };
enum class LabelView { one_bit, full };
enum class MissingPolicy { error, skip, zero, mean };

struct FileSourceConfig {
  SplitRule split;
  bool serve_validation = false;  ///< next() serves the validation part instead of the training part
  bool evaluate_validation = false;  ///< test_set() holds the validation part (model selection)
  std::int64_t test_cap = 10000;  ///< at most this many test records (reservoir subsample beyond)
  std::int64_t shuffle_buffer = 0;
  Standardize standardize = Standardize::none;
  bool sparse_design = false;      ///< serve feature records as sparse designs
  bool design_chosen = false;      ///< `design` was "auto": the source chose sparse or dense itself
  std::int64_t classes = 0;        ///< single_label: the number of labels d2
  LabelView label_view = LabelView::one_bit;
  bool balance = false;            ///< one-bit view: ask a positive label half the time
  bool test_full_labels = true;    ///< single_label: the test set pairs each instance with every label
  std::int64_t first_label = 0;    ///< subtracted from class labels in the file
  double value_scale = 1.0;        ///< entries: multiplies every observed value
};

/// A DataSource over a RecordReader. See docs/plugins/file_sources.md.
class FileSource final : public DataSource {
 public:
  /// `test_reader`, when given, reads a separate test file (`test_file`): all its records are the
  /// test part and `reader`'s file is split into train and validation only (the config's split must
  /// then deal no record to test). Standardisation statistics come from `reader`'s training part.
  FileSource(std::string name, FileSourceConfig config, std::unique_ptr<RecordReader> reader,
             std::unique_ptr<SensingOperator> op, std::unique_ptr<RecordReader> test_reader = nullptr);
  ~FileSource() override;

  void open(std::uint64_t seed) override;
  ProblemShape shape() const override;
  const SensingOperator& sensing_operator() const override { return *op_; }
  Link link() const override;
  bool finite() const override { return true; }
  std::optional<Index> size() const override;
  void rewind() override;
  /// The held-out batch the prediction metrics score: the test part, or the validation part with
  /// `evaluate_on: "validation"`.
  const Batch* test_set() const override { return opened_ && test_.size() > 0 ? &test_ : nullptr; }
  /// The validation part when it is neither served nor the held-out set (early stopping scores it),
  /// capped at test_cap instances as the test set is.
  const Batch* validation_set() const override {
    return opened_ && validation_.size() > 0 ? &validation_ : nullptr;
  }
  /// The dimension, the design, the label count, standardisation statistics and imputed means, and
  /// what the reader decided (index base, id maps).
  DataPreparation preparation() const override;
  /// Every record of the file, in order, as training records (no split, shuffle or test part):
  /// standardised with the given statistics, the given design, dimension (a sparse format may
  /// reach beyond it; a dense one must match it) and labels (every label of each instance).
  void score_with(const DataPreparation& preparation) override;

  /// Counts of the open pass.
  std::int64_t records_in(Part part) const { return counts_[static_cast<int>(part)]; }
  /// Training mean and scale used for standardisation (empty when none).
  const Vector& feature_mean() const { return mean_; }
  const Vector& feature_scale() const { return scale_; }

 protected:
  Batch produce(Index n) override;

 private:
  bool next_served(Record& r);  ///< the next record of the served part, through the shuffle buffer
  void scan();                  ///< the open pass: validation, counts, dimensions, statistics, test set
  /// score_with: the saved preparation's dimensions and statistics in place of this data's (the
  /// data may widen a sparse dimension or a matrix: the model scores the new part with zeros).
  void adopt_preparation();
  /// Notes of the readers and of the choices the scan made (a capped held-out set, the design, standardisation).
  void record_notes(Part held_out, std::int64_t train_count);
  Batch assemble(std::vector<Record>& records, bool test, std::uint64_t label_seed) const;
  /// produce() for entry records: n entries read straight into the batch, no Record held for each.
  Batch produce_entries(Index n);
  Batch entry_batch(IndexVector rows, IndexVector cols, Vector y) const;
  void standardize_in_place(Record& r) const;
  Part part_of_record(const Record& r) const { return r.part ? *r.part : config_.split.part(r.number, seed_); }
  /// Shifts class labels by first_label and checks them and the entry indices (errors name `from`).
  void prepare(Record& r, const RecordReader& from) const;
  /// The open pass over the test file: every record is a test record. Checks that dense records
  /// have the training file's `train_dim` features; widens `max_feature` for sparse ones, and
  /// `max_row`, `max_col` for entries.
  void scan_test_file(std::vector<Record>& reservoir, Rng& reservoir_rng, std::int64_t train_dim,
                      std::int64_t& max_feature, std::int64_t& max_row, std::int64_t& max_col);
  /// The shape a record's largest feature index (or row and column ids) declares.
  ProblemShape declared_shape(std::int64_t max_feature, std::int64_t max_row, std::int64_t max_col) const;
  /// Checks the shape record `r` declares against the trial's memory budget before anything is
  /// allocated for it; a DataError names the record and the index. Checks twice the shape when it
  /// fits, so that a growing index is checked O(log d) times.
  void check_declared(const ProblemShape& shape, const Record& r, const RecordReader& from);
  /// The readers' HeaderCheck: what a header declares against the trial's memory budget.
  void check_header(std::int64_t size, std::int64_t columns, const std::string& what) const;
  ProblemShape fits_up_to_;  ///< shapes up to this one fit the budget

  std::string name_;
  FileSourceConfig config_;
  double fill_ = 0.0;  ///< a sparse format's stored values over n × d (design "auto" decides on it)
  std::unique_ptr<RecordReader> reader_;
  std::unique_ptr<SensingOperator> op_;
  std::unique_ptr<RecordReader> test_reader_;  ///< the test file's reader, or null (test part by the split)
  RecordLayout layout_;

  /// score_with: the saved preparation the data is read with (its header null otherwise).
  std::optional<DataPreparation> imposed_;
  Index imposed_dimension_ = std::numeric_limits<Index>::max();  ///< the model's feature dimension
  mutable std::int64_t dropped_features_ = 0;  ///< scoring: feature values beyond it, dropped

  bool opened_ = false;
  std::uint64_t seed_ = 0;
  std::int64_t counts_[3] = {0, 0, 0};
  Index d1_ = 0, d2_ = 0;
  Vector mean_, scale_;
  Vector impute_;  ///< training means that replace missing (NaN) features
  Batch test_;
  Batch validation_;

  std::int64_t pass_ = 0;
  bool reader_done_ = false;
  std::vector<Record> shuffle_;
  Rng shuffle_rng_;
};

// ---- Registration helpers shared by the formats ----

/// The layout of a format's records, as far as its footprint needs it.
enum class RecordShape { dense_features, sparse_features, entries };
/// What a file source holds and serves, from its parameters and what it has read (the dimension
/// and, once open, the training instances): the held-out set (twice while it is sampled), the shuffle
/// buffer, standardisation statistics, and per served instance its design plus the parsed record
/// that `produce` holds while it assembles the batch. Sparse records count their fixed part only:
/// their nonzeros are not known before reading (the trial's memory limit still applies).
Footprint file_source_footprint(const Params& p, const FootprintContext& c, RecordShape records);
/// The image source's: a file source's, the decoded pixels and their shuffled order.
Footprint image_footprint(const Params& p, const FootprintContext& c);

/// Declares the parameters every file source has (operator, split, shuffle, test cap).
void declare_common_parameters(Schema& s, const std::string& default_operator);
/// Declares the parameters of feature records (design, standardise, labels and their views,
/// `test_file`).
void declare_feature_parameters(Schema& s);
/// Declares `test_file`, a separate file of test records in the source's format.
void declare_test_file(Schema& s);
/// The reader of the `test_file` parameter, or null when it is not given. `make_reader` builds a
/// reader of the format over a resolved path, with the same options as the training file's. A
/// missing file is an InputError naming the path and /data/test_file (JSON path of `p`).
std::unique_ptr<RecordReader> make_test_reader(
    const Params& p, const std::function<std::unique_ptr<RecordReader>(const std::string& path)>& make_reader);
/// `resolve_data_path` of the path in parameter `name`; a missing file is a ConfigError that starts
/// with the parameter's JSON path ("at /data/test_file: …").
std::string resolve_param_path(const Params& p, const std::string& name);
/// Reads the parameters (feature ones when declared), checking combinations against the operator
/// and the reader's layout.
FileSourceConfig read_common_parameters(const Params& p, const SensingOperator& op, const std::string& operator_name,
                                        const RecordLayout& layout);
/// The path of a data file: absolute as given; a relative path is looked up in the working
/// directory, then $RANKONE_DATA, then ~/.cache/rankone/datasets (where scripts/fetch-datasets puts
/// data sets), then the source tree RankOne was built from (the plugins' example files). A
/// DataError lists the places tried.
std::string resolve_data_path(const std::string& path);
/// Builds the operator named by the `operator` parameter.
std::unique_ptr<SensingOperator> make_operator(const Params& p, const BuildContext& ctx, std::string& name);
[[noreturn]] void reject_param(const Params& p, const std::string& name, const std::string& message);

}  // namespace rankone::sources
