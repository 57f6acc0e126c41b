// The generic file source: byte streams, lines, the split, the shuffle buffer, standardisation and
// the batch views shared by every file format.
#include "file_source.hpp"

#include <zlib.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <utility>

namespace rankone::sources {

// ---- Byte input ----

namespace {

class GzipFileStream final : public ByteStream {
 public:
  explicit GzipFileStream(std::string path) : path_(std::move(path)) {
    if (!std::filesystem::is_regular_file(path_)) throw DataError(path_ + ": no such file (expected a data file)");
    file_ = gzopen(path_.c_str(), "rb");
    if (!file_) throw DataError(path_ + ": cannot open: " + std::strerror(errno));
    gzbuffer(file_, 1 << 16);
  }
  ~GzipFileStream() override {
    if (file_) gzclose(file_);
  }
  std::size_t read(char* out, std::size_t n) override {
    const int got = gzread(file_, out, static_cast<unsigned>(std::min<std::size_t>(n, 1u << 30)));
    int code = Z_OK;
    const char* message = gzerror(file_, &code);
    // zlib reports a truncated gzip member as Z_BUF_ERROR ("unexpected end of file").
    if (got < 0 || (code != Z_OK && code != Z_STREAM_END))
      throw DataError(path_ + ": corrupt or truncated compressed data (" + message + ")");
    return static_cast<std::size_t>(got);
  }
  const std::string& name() const override { return path_; }

 private:
  std::string path_;
  gzFile file_ = nullptr;
};

class MemoryStream final : public ByteStream {
 public:
  MemoryStream(std::shared_ptr<const std::string> bytes, std::string name)
      : bytes_(std::move(bytes)), name_(std::move(name)) {}
  std::size_t read(char* out, std::size_t n) override {
    const std::size_t take = std::min(n, bytes_->size() - position_);
    std::memcpy(out, bytes_->data() + position_, take);
    position_ += take;
    return take;
  }
  const std::string& name() const override { return name_; }

 private:
  std::shared_ptr<const std::string> bytes_;
  std::string name_;
  std::size_t position_ = 0;
};

}  // namespace

std::unique_ptr<ByteStream> open_file(const std::string& path) { return std::make_unique<GzipFileStream>(path); }

std::unique_ptr<ByteStream> memory_stream(std::string bytes, std::string name) {
  return std::make_unique<MemoryStream>(std::make_shared<const std::string>(std::move(bytes)), std::move(name));
}

StreamOpener file_opener(const std::string& path) {
  return [path] { return open_file(path); };
}

StreamOpener memory_opener(std::string bytes, std::string name) {
  auto shared = std::make_shared<const std::string>(std::move(bytes));
  return [shared, name] { return std::unique_ptr<ByteStream>(std::make_unique<MemoryStream>(shared, name)); };
}

// ---- Lines ----

LineReader::LineReader(std::unique_ptr<ByteStream> stream) : stream_(std::move(stream)), buffer_(1 << 16) {}

bool LineReader::fill() {
  if (eof_) return false;
  // Keep the unfinished line at the front; grow the buffer when a single line fills it.
  if (begin_ > 0) {
    std::memmove(buffer_.data(), buffer_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (end_ == buffer_.size()) {
    // A line is held whole (and a CSV line split into fields): a longer one is refused, not buffered.
    if (buffer_.size() >= kMaxLineBytes)
      data_error(name(), line_number_ + 1, "a line of at most " + grouped(static_cast<std::int64_t>(kMaxLineBytes >> 20)) + " MiB",
                 "a longer line");
    buffer_.resize(buffer_.size() * 2);
  }
  const std::size_t got = stream_->read(buffer_.data() + end_, buffer_.size() - end_);
  if (got == 0) eof_ = true;
  end_ += got;
  bytes_ += got;
  return got > 0;
}

bool LineReader::next(std::string& line) {
  std::size_t scanned = begin_;
  for (;;) {
    const char* start = buffer_.data() + scanned;
    const void* newline = std::memchr(start, '\n', end_ - scanned);
    if (newline) {
      const std::size_t at = static_cast<std::size_t>(static_cast<const char*>(newline) - buffer_.data());
      line.assign(buffer_.data() + begin_, at - begin_);
      begin_ = at + 1;
      break;
    }
    const std::size_t consumed = end_ - begin_;
    if (!fill()) {
      if (end_ == begin_) return false;
      line.assign(buffer_.data() + begin_, end_ - begin_);  // last line without a terminator
      begin_ = end_;
      break;
    }
    scanned = begin_ + consumed;
  }
  if (!line.empty() && line.back() == '\r') line.pop_back();
  ++line_number_;
  const std::size_t bad = invalid_utf8_at(line);
  if (bad != std::string::npos) {
    char hex[8];
    std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(line[bad]));
    data_error(name(), line_number_, "UTF-8 text (invalid byte " + std::string(hex) + " at column " +
                                         std::to_string(bad + 1) + ")",
               line.substr(0, bad));
  }
  return true;
}

std::size_t invalid_utf8_at(std::string_view s) {
  std::size_t i = 0;
  const std::size_t n = s.size();
  while (i < n) {
    // ASCII (nearly all of a data file) is skipped eight bytes at a time: no byte has its high bit.
    for (std::uint64_t word; i + 8 <= n; i += 8) {
      std::memcpy(&word, s.data() + i, 8);
      if (word & 0x8080808080808080ull) break;
    }
    if (i == n) break;
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint32_t code = 0;
    if ((c & 0xE0) == 0xC0) { length = 2; code = c & 0x1F; }
    else if ((c & 0xF0) == 0xE0) { length = 3; code = c & 0x0F; }
    else if ((c & 0xF8) == 0xF0) { length = 4; code = c & 0x07; }
    else return i;
    if (i + length > n) return i;
    for (std::size_t k = 1; k < length; ++k) {
      const auto next = static_cast<unsigned char>(s[i + k]);
      if ((next & 0xC0) != 0x80) return i;
      code = (code << 6) | (next & 0x3F);
    }
    // Overlong encodings, surrogates and code points beyond U+10FFFF are invalid.
    const std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || (code >= 0xD800 && code <= 0xDFFF) || code > 0x10FFFF) return i;
    i += length;
  }
  return std::string::npos;
}

void data_error(const std::string& where, std::int64_t line, const std::string& expected, std::string_view found) {
  std::string shown(found.substr(0, 80));
  if (found.size() > 80) shown += "…";
  const std::string location = line > 0 ? where + ":" + std::to_string(line) : where;
  throw DataError(location + ": expected " + expected + ", found '" + shown + "'");
}

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

double parse_finite(std::string_view token, const std::string& where, std::int64_t line, const char* what) {
  const std::string_view t = trim(token);
  double value = 0.0;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  // from_chars rejects a leading '+'; skipped unless a sign follows ("+-1" is not a number).
  if (t.size() > 1 && *first == '+' && first[1] != '-') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (t.empty() || ec != std::errc() || end != last)
    data_error(where, line, std::string("a number (") + what + ")", token);
  if (!std::isfinite(value)) data_error(where, line, std::string("a finite number (") + what + ")", token);
  return value;
}

std::int64_t parse_integer(std::string_view token, const std::string& where, std::int64_t line, const char* what) {
  const std::string_view t = trim(token);
  std::int64_t value = 0;
  const char* first = t.data();
  const char* last = t.data() + t.size();
  if (t.size() > 1 && *first == '+' && first[1] != '-') ++first;
  const auto [end, ec] = std::from_chars(first, last, value);
  if (t.empty() || ec != std::errc() || end != last)
    data_error(where, line, std::string("an integer (") + what + ")", token);
  return value;
}

void Record::clear() {
  target = 0.0;
  labels.clear();
  feature_index.clear();
  feature_value.clear();
  row = col = -1;
  observed_label = -1;
  timestamp = 0.0;
  part.reset();
}

// ---- Split ----

namespace {

/// A 64-bit mix of two words (splitmix64 finaliser): independent-looking values for nearby inputs.
std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  std::uint64_t state = a ^ (b * 0x9E3779B97F4A7C15ull);
  return splitmix64(state);
}

double unit_interval(std::uint64_t h) { return static_cast<double>(h >> 11) * 0x1.0p-53; }

}  // namespace

Part part_of(std::int64_t number, std::uint64_t seed, double validation_fraction, double test_fraction) {
  const double u = unit_interval(mix(seed, static_cast<std::uint64_t>(number)));
  if (u < test_fraction) return Part::test;
  if (u < test_fraction + validation_fraction) return Part::validation;
  return Part::train;
}

std::int64_t fold_of(std::int64_t number, std::uint64_t seed, std::int64_t folds) {
  const double u = unit_interval(mix(seed, static_cast<std::uint64_t>(number)));
  // u < 1, so u·folds < folds up to rounding; the min guards the rounding.
  return std::min<std::int64_t>(folds - 1, static_cast<std::int64_t>(u * static_cast<double>(folds)));
}

Part SplitRule::part(std::int64_t number, std::uint64_t open_seed) const {
  const std::uint64_t s = seed.value_or(open_seed);
  if (folds == 0) return part_of(number, s, validation_fraction, test_fraction);
  const std::int64_t fold = fold_of(number, s, folds);
  if (fold == test_fold) return Part::test;
  if (fold == validation_fold) return Part::validation;
  return Part::train;
}

// ---- FileSource ----

namespace {

/// Reservoir sampling: after `seen` records offered, `reservoir` is a uniform subsample of at most
/// `cap` of them.
void keep_sample(std::vector<Record>& reservoir, const Record& r, std::int64_t seen, std::int64_t cap, Rng& rng) {
  if (static_cast<std::int64_t>(reservoir.size()) < cap) {
    reservoir.push_back(r);
    return;
  }
  const auto slot = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(seen)));
  if (slot < cap) reservoir[static_cast<std::size_t>(slot)] = r;
}

}  // namespace

FileSource::FileSource(std::string name, FileSourceConfig config, std::unique_ptr<RecordReader> reader,
                       std::unique_ptr<SensingOperator> op, std::unique_ptr<RecordReader> test_reader)
    : name_(std::move(name)), config_(config), reader_(std::move(reader)), op_(std::move(op)),
      test_reader_(std::move(test_reader)), layout_(reader_->layout()) {
  const SplitRule& split = config_.split;
  if (test_reader_ && (split.folds > 0 ? split.test_fold >= 0 : split.test_fraction > 0.0))
    throw std::logic_error(name_ + " source: a test file and a test part of the training file");
  auto check = [this](std::int64_t size, std::int64_t columns, const std::string& what) { check_header(size, columns, what); };
  reader_->set_header_check(check);
  if (test_reader_) test_reader_->set_header_check(check);
}

FileSource::~FileSource() = default;

Link FileSource::link() const {
  return layout_.has_labels && config_.classes > 0 ? Link::sign : Link::identity;
}

ProblemShape FileSource::shape() const { return {d1_, d2_, op_->symmetric()}; }

std::optional<Index> FileSource::size() const {
  return counts_[static_cast<int>(config_.serve_validation ? Part::validation : Part::train)];
}

void FileSource::open(std::uint64_t seed) {
  seed_ = seed;
  scan();
  opened_ = true;
  pass_ = -1;
  rewind();
}

void FileSource::rewind() {
  ++pass_;
  reader_->start(derive_seed(seed_, "order"));
  reader_done_ = false;
  shuffle_.clear();
  shuffle_rng_ = Rng(derive_seed(seed_, "shuffle/" + std::to_string(pass_)));
}

void FileSource::prepare(Record& r, const RecordReader& from) const {
  const std::string file = from.source_name();
  if (imposed_ && !r.feature_index.empty() && r.feature_index.back() >= imposed_dimension_) {
    // Scoring: a feature the model has no weight for contributes nothing; dropped, not allocated for.
    const auto keep = static_cast<std::size_t>(
        std::lower_bound(r.feature_index.begin(), r.feature_index.end(), imposed_dimension_) - r.feature_index.begin());
    dropped_features_ += static_cast<std::int64_t>(r.feature_index.size() - keep);
    r.feature_index.resize(keep);
    r.feature_value.resize(keep);
  }
  if (layout_.entries) {
    if (layout_.rows > 0 && r.row >= layout_.rows)
      data_error(file, r.line, "a row index below the declared " + std::to_string(layout_.rows), std::to_string(r.row));
    if (layout_.cols > 0 && r.col >= layout_.cols)
      data_error(file, r.line, "a column index below the declared " + std::to_string(layout_.cols),
                 std::to_string(r.col));
    return;
  }
  if (config_.classes > 0 && r.observed_label >= config_.classes)
    data_error(file, r.line, "an observed label below classes = " + std::to_string(config_.classes),
               std::to_string(r.observed_label));
  if (config_.classes > 0) {
    for (std::int32_t& label : r.labels) label = static_cast<std::int32_t>(label - config_.first_label);
    for (std::int32_t label : r.labels)
      if (label < 0 || label >= config_.classes)
        data_error(file, r.line,
                   "class labels in [" + std::to_string(config_.first_label) + ", " +
                       std::to_string(config_.first_label + config_.classes) + ") (parameters first_label, classes)",
                   std::to_string(label + config_.first_label));
  }
}

ProblemShape FileSource::declared_shape(std::int64_t max_feature, std::int64_t max_row, std::int64_t max_col) const {
  if (layout_.entries)
    return ProblemShape{layout_.rows > 0 ? layout_.rows : max_row + 1, layout_.cols > 0 ? layout_.cols : max_col + 1, false};
  const Index d1 = layout_.dim > 0 ? layout_.dim : max_feature + 1;
  return ProblemShape{d1, config_.classes > 0 ? config_.classes : d1, op_->symmetric()};
}

void FileSource::check_declared(const ProblemShape& shape, const Record& r, const RecordReader& from) {
  if (shape.d1 <= fits_up_to_.d1 && shape.d2 <= fits_up_to_.d2) return;
  const auto twice = [](Index d) { return d > std::numeric_limits<Index>::max() / 2 ? std::numeric_limits<Index>::max() : 2 * d; };
  const ProblemShape doubled{std::max(shape.d1, twice(fits_up_to_.d1)), std::max(shape.d2, twice(fits_up_to_.d2)), shape.symmetric};
  if (over_budget(doubled).empty()) {
    fits_up_to_ = doubled;
    return;
  }
  const std::string over = over_budget(shape);
  if (over.empty()) {
    fits_up_to_ = shape;
    return;
  }
  std::string what;
  if (layout_.entries) what = "its ids make the matrix " + grouped(shape.d1) + " × " + grouped(shape.d2);
  else if (!r.feature_index.empty()) what = "its largest feature index makes the dimension " + grouped(shape.d1);
  else what = "its " + grouped(static_cast<std::int64_t>(r.feature_value.size())) + " features make the dimension " + grouped(shape.d1);
  throw DataError(from.source_name() + ":" + std::to_string(r.line) + ": " + what + ", and then " + over);
}

void FileSource::scan() {
  reader_->start(derive_seed(seed_, "order"));
  fits_up_to_ = ProblemShape{};
  if (layout_.dim > 0 || layout_.rows > 0 || layout_.cols > 0) {  // a dimension given as a parameter
    const std::string over = over_budget(declared_shape(-1, -1, -1));
    if (!over.empty()) throw DataError(reader_->source_name() + ": the dimension its parameters declare is too large: " + over);
  }
  std::fill(std::begin(counts_), std::end(counts_), 0);
  // Scoring with a saved model: its statistics, not this data's (adopt_preparation).
  const bool want_stats =
      !imposed_ && (config_.standardize != Standardize::none || layout_.may_have_missing) && !layout_.entries;
  std::int64_t max_feature = -1, max_row = -1, max_col = -1;
  double stored_values = 0;  // of a sparse format's records: how full its rows are (design "auto")
  // Training statistics: dense features by Welford's update, sparse ones by sums over the stored
  // values (the implicit zeros are added at the end).
  std::vector<double> mean, m2;
  std::vector<std::int64_t> present;  // dense: training records where each feature is not missing
  std::int64_t train_count = 0;
  std::vector<Record> reservoir;
  // Reserved (address space only, until filled): growing by doubling would briefly hold the sample twice.
  reservoir.reserve(static_cast<std::size_t>(std::min<std::int64_t>(config_.test_cap, std::int64_t{1} << 20)));
  Rng reservoir_rng(derive_seed(seed_, "test-reservoir"));
  const Part served = config_.serve_validation ? Part::validation : Part::train;
  const Part held_out = config_.evaluate_validation ? Part::validation : Part::test;
  // The validation part, when neither served nor scored by the metrics, is early stopping's.
  const bool keep_validation = !config_.serve_validation && !config_.evaluate_validation;
  std::vector<Record> validation;
  Rng validation_rng(derive_seed(seed_, "validation-reservoir"));

  Record r;
  while (reader_->next(r)) {
    prepare(r, *reader_);
    const Part part = part_of_record(r);
    ++counts_[static_cast<int>(part)];
    if (layout_.entries) {
      max_row = std::max(max_row, r.row);
      max_col = std::max(max_col, r.col);
    } else if (!r.feature_index.empty()) {
      max_feature = std::max(max_feature, r.feature_index.back());
      stored_values += static_cast<double>(r.feature_index.size());
    } else {
      max_feature = std::max(max_feature, static_cast<std::int64_t>(r.feature_value.size()) - 1);
    }
    check_declared(declared_shape(max_feature, max_row, max_col), r, *reader_);
    if (part == Part::train && want_stats) {
      ++train_count;
      if (r.feature_index.empty()) {
        if (mean.size() < r.feature_value.size()) {
          mean.resize(r.feature_value.size(), 0.0);
          m2.resize(mean.size(), 0.0);
          present.resize(mean.size(), 0);
        }
        for (std::size_t j = 0; j < r.feature_value.size(); ++j) {
          const double x = r.feature_value[j];
          if (std::isnan(x)) continue;  // missing: imputed later with the mean of the others
          const double delta = x - mean[j];
          mean[j] += delta / static_cast<double>(++present[j]);
          m2[j] += delta * (x - mean[j]);
        }
      } else {
        const auto needed = static_cast<std::size_t>(r.feature_index.back() + 1);
        if (mean.size() < needed) mean.resize(needed, 0.0), m2.resize(needed, 0.0);
        for (std::size_t k = 0; k < r.feature_index.size(); ++k) {
          const auto j = static_cast<std::size_t>(r.feature_index[k]);
          mean[j] += r.feature_value[k];  // running sums here, turned into moments below
          m2[j] += r.feature_value[k] * r.feature_value[k];
        }
      }
    }
    if (part == held_out)
      keep_sample(reservoir, r, counts_[static_cast<int>(held_out)], config_.test_cap, reservoir_rng);
    else if (part == Part::validation && keep_validation)
      keep_sample(validation, r, counts_[static_cast<int>(Part::validation)], config_.test_cap, validation_rng);
  }
  const std::string& file = reader_->source_name();
  const std::int64_t total = counts_[0] + counts_[1] + counts_[2];
  if (total == 0) data_error(file, 0, "at least one record", "an empty file");
  if (test_reader_) {
    // Dense records of the test file must have the training file's width (sparse ones may reach
    // beyond it, as test records of one file may: the dimension is then the larger).
    const bool dense = !layout_.entries && !layout_.sparse && layout_.dim == 0;
    scan_test_file(reservoir, reservoir_rng, dense ? max_feature + 1 : 0, max_feature, max_row, max_col);
  }
  if (counts_[static_cast<int>(served)] == 0)
    data_error(file, 0, std::string("at least one ") + (config_.serve_validation ? "validation" : "training") +
                            " record after the split",
               std::to_string(total) + " records, none in that part");

  // Dimensions: declared by the reader, else one past the largest index seen.
  if (layout_.entries) {
    d1_ = layout_.rows > 0 ? layout_.rows : max_row + 1;
    d2_ = layout_.cols > 0 ? layout_.cols : max_col + 1;
  } else {
    d1_ = layout_.dim > 0 ? layout_.dim : max_feature + 1;
    if (d1_ <= 0) data_error(file, 0, "at least one feature", "records without features");
    d2_ = config_.classes > 0 ? config_.classes : d1_;
    if (config_.design_chosen && layout_.sparse) {
      fill_ = stored_values / (static_cast<double>(total) * static_cast<double>(d1_));
      config_.sparse_design = fill_ < kDenseDesignFill;
    }
  }

  mean_ = Vector();
  scale_ = Vector();
  impute_ = Vector();
  if (want_stats) {
    mean_ = Vector::Zero(d1_);
    scale_ = Vector::Ones(d1_);
    const auto n = static_cast<double>(std::max<std::int64_t>(train_count, 1));
    for (Index j = 0; j < d1_ && static_cast<std::size_t>(j) < mean.size(); ++j) {
      const auto u = static_cast<std::size_t>(j);
      double mu = mean[u];
      double variance = present.empty() ? 0.0 : m2[u] / static_cast<double>(std::max<std::int64_t>(present[u], 1));
      if (layout_.sparse) {
        mu = mean[u] / n;
        variance = std::max(0.0, m2[u] / n - mu * mu);
      }
      mean_(j) = mu;
      // A constant feature keeps scale 1: dividing by ~0 would blow up rounding noise.
      const double sd = std::sqrt(variance);
      scale_(j) = sd > 1e-12 * std::max(1.0, std::abs(mu)) ? 1.0 / sd : 1.0;
    }
    impute_ = mean_;
    if (config_.standardize == Standardize::none) {
      mean_ = Vector();
      scale_ = Vector();
    } else if (config_.standardize == Standardize::scale) {
      mean_.setZero();
    }
  }

  if (imposed_) adopt_preparation();
  record_notes(held_out, train_count);
  std::sort(reservoir.begin(), reservoir.end(), [](const Record& a, const Record& b) { return a.number < b.number; });
  for (Record& t : reservoir) standardize_in_place(t);
  test_ = reservoir.empty() ? Batch{} : assemble(reservoir, /*test=*/true, derive_seed(seed_, "test-labels"));
  std::sort(validation.begin(), validation.end(), [](const Record& a, const Record& b) { return a.number < b.number; });
  for (Record& v : validation) standardize_in_place(v);
  validation_ = validation.empty() ? Batch{} : assemble(validation, /*test=*/true, derive_seed(seed_, "validation-labels"));
}

namespace {

const char* standardize_name(Standardize s) {
  return s == Standardize::scale ? "scale" : s == Standardize::center_scale ? "center_scale" : "none";
}

/// The `standardize` value named `name` (the schema's choices), or none for another name.
std::optional<Standardize> standardize_of(const std::string& name) {
  for (const Standardize s : {Standardize::none, Standardize::scale, Standardize::center_scale})
    if (name == standardize_name(s)) return s;
  return std::nullopt;
}

}  // namespace

DataPreparation FileSource::preparation() const {
  DataPreparation p;
  p.header["source"] = name_;
  if (layout_.entries) {
    p.header["rows"] = d1_;
    p.header["cols"] = d2_;
  } else {
    p.header["dimension"] = d1_;
    p.header["design"] = config_.sparse_design ? "sparse" : "dense";
    if (config_.classes > 0) p.header["classes"] = config_.classes;
    p.header["standardize"] = standardize_name(config_.standardize);
    if (mean_.size() > 0) {
      p.arrays["feature_mean"] = NamedArray::of(mean_);
      p.arrays["feature_scale"] = NamedArray::of(scale_);
    }
    if (impute_.size() > 0 && layout_.may_have_missing) p.arrays["feature_impute"] = NamedArray::of(impute_);
  }
  reader_->describe_preparation(p);
  return p;
}

void FileSource::score_with(const DataPreparation& preparation) {
  if (opened_) throw std::logic_error(name_ + " source: score_with() after open()");
  imposed_ = preparation;
  config_.split = SplitRule{};  // every record is a training record, served in file order
  config_.serve_validation = false;
  config_.evaluate_validation = false;
  config_.shuffle_buffer = 0;
  config_.balance = false;
  config_.label_view = LabelView::full;  // every label of each instance is scored
  test_reader_.reset();
  const Json& h = preparation.header;
  if (!layout_.entries) {
    config_.design_chosen = false;
    config_.sparse_design = h.value("design", "dense") == "sparse";
    const std::string standardize = h.value("standardize", "none");
    const std::optional<Standardize> named = standardize_of(standardize);
    if (!named)
      throw ConfigError("the saved model's preparation says standardize \"" + standardize +
                        "\"; expected none, scale or center_scale");
    config_.standardize = *named;
    if (h.contains("classes")) config_.classes = h["classes"].get<std::int64_t>();
    if (!h.contains("dimension") || !h["dimension"].is_number_integer() || h["dimension"].get<Index>() < 1)
      throw ConfigError("the saved model's preparation has no feature dimension (dimension)");
    imposed_dimension_ = h["dimension"].get<Index>();
  }
  reader_->use_preparation(preparation);
}

void FileSource::adopt_preparation() {
  const Json& h = imposed_->header;
  const std::string& file = reader_->source_name();
  if (layout_.entries) {
    const Index rows = h.value("rows", d1_), cols = h.value("cols", d2_);
    if (d1_ > rows || d2_ > cols)
      note(file + " widens the model's " + grouped(rows) + " × " + grouped(cols) + " matrix to " +
           grouped(std::max(d1_, rows)) + " × " + grouped(std::max(d2_, cols)) +
           ": entries in rows or columns the model has not seen are scored with zero factors");
    d1_ = std::max(d1_, rows);
    d2_ = std::max(d2_, cols);
    return;
  }
  const Index dimension = imposed_dimension_;
  if (!layout_.sparse && d1_ != dimension)
    data_error(file, 0, std::to_string(dimension) + " features per record (as the data the model was trained on)",
               std::to_string(d1_) + " features");
  if (dropped_features_ > 0)
    note(file + ": " + grouped(dropped_features_) + " feature values at indices beyond the model's dimension " +
         grouped(dimension) + " were dropped (the model has no weight for them)");
  d1_ = dimension;
  d2_ = config_.classes > 0 ? config_.classes : d1_;
  // The saved statistics, checked against what the preparation says (a hand-edited model folder).
  const ArraySet& arrays = imposed_->arrays;
  const auto statistic = [&](const char* name) -> Vector {
    const auto found = arrays.find(name);
    if (found == arrays.end() || found->second.integral || found->second.elements() != dimension)
      throw ConfigError(std::string("the saved model's preparation needs a float64 array ") + name + " of " +
                        std::to_string(dimension) + " values (its dimension)");
    return found->second.vector();
  };
  if (config_.standardize != Standardize::none) {
    mean_ = statistic("feature_mean");
    scale_ = statistic("feature_scale");
  }
  if (arrays.count("feature_impute")) impute_ = statistic("feature_impute");
}

void FileSource::record_notes(Part held_out, std::int64_t train_count) {
  for (const std::string& n : reader_->notes()) note(n);
  if (test_reader_)
    for (const std::string& n : test_reader_->notes()) note(n);
  const std::int64_t held = counts_[static_cast<int>(held_out)];
  if (held > config_.test_cap)
    note(std::string(held_out == Part::validation ? "validation" : "test") + " set capped at " +
         grouped(config_.test_cap) + " of " + grouped(held) + " rows (test_cap; a uniform subsample)");
  if (!layout_.entries && config_.design_chosen)
    note(std::string("features served as a ") + (config_.sparse_design ? "sparse" : "dense") + " design (design \"auto\": " +
         (layout_.sparse ? "a sparse format whose rows fill " + percent(fill_) + " of the " + grouped(d1_) +
                               " columns; dense from " + percent(kDenseDesignFill) + ")"
                         : std::string("a dense format)")));
  if (config_.standardize != Standardize::none && !layout_.entries)
    note(std::string("features ") + (config_.standardize == Standardize::scale ? "scaled to unit variance"
                                                                               : "centred and scaled to unit variance") +
         (imposed_ ? std::string(" with the statistics of the model's training rows (standardize)")
                   : " with the statistics of the " + grouped(train_count) + " training rows (standardize)"));
}

std::string percent(double fraction) {
  char text[32];
  const double value = 100.0 * fraction;
  if (value > 0.0 && value < 0.01) return "< 0.01 %";  // a fixed floor, not 1e-05 %
  std::snprintf(text, sizeof text, "%.3g %%", value);
  return text;
}

std::string grouped(std::int64_t n) {
  const std::string digits = std::to_string(n);
  const std::size_t sign = n < 0 ? 1 : 0;
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > sign && (digits.size() - i) % 3 == 0) out.push_back(' ');
    out.push_back(digits[i]);
  }
  return out;
}

void FileSource::check_header(std::int64_t size, std::int64_t columns, const std::string& what) const {
  const ProblemShape shape = layout_.entries ? ProblemShape{size, columns, false} : declared_shape(size - 1, -1, -1);
  const std::string over = over_budget(shape);
  if (!over.empty()) throw DataError(what + ", and then " + over);
}

void FileSource::scan_test_file(std::vector<Record>& reservoir, Rng& reservoir_rng, std::int64_t train_dim,
                                std::int64_t& max_feature, std::int64_t& max_row, std::int64_t& max_col) {
  const bool hold = !config_.evaluate_validation;  // else the test file is only validated and counted
  test_reader_->start(derive_seed(seed_, "order"));
  const std::int64_t train_rows = max_row + 1, train_cols = max_col + 1;
  std::int64_t& seen = counts_[static_cast<int>(Part::test)];
  Record r;
  while (test_reader_->next(r)) {
    prepare(r, *test_reader_);
    ++seen;
    if (layout_.entries) {  // a test entry may name a row or column the training file lacks
      max_row = std::max(max_row, r.row);
      max_col = std::max(max_col, r.col);
      check_declared(declared_shape(max_feature, max_row, max_col), r, *test_reader_);
    } else if (!r.feature_index.empty()) {
      max_feature = std::max(max_feature, r.feature_index.back());
      check_declared(declared_shape(max_feature, -1, -1), r, *test_reader_);
    } else if (train_dim > 0 && static_cast<std::int64_t>(r.feature_value.size()) != train_dim) {
      data_error(test_reader_->source_name(), r.line,
                 std::to_string(train_dim) + " features (as the records of " + reader_->source_name() + ")",
                 std::to_string(r.feature_value.size()) + " features");
    }
    if (hold) keep_sample(reservoir, r, seen, config_.test_cap, reservoir_rng);
  }
  if (seen == 0) data_error(test_reader_->source_name(), 0, "at least one test record (test_file)", "an empty file");
  if (layout_.entries && (max_row + 1 > train_rows || max_col + 1 > train_cols))
    note(test_reader_->source_name() + " (test_file) widens the matrix from " + grouped(train_rows) + " × " +
         grouped(train_cols) + " to " + grouped(max_row + 1) + " × " + grouped(max_col + 1) +
         ": its rows and columns beyond the training file's get no training data (cold start)");
}

void FileSource::standardize_in_place(Record& r) const {
  if (impute_.size() > 0 && r.feature_index.empty())
    for (std::size_t j = 0; j < r.feature_value.size(); ++j)
      if (std::isnan(r.feature_value[j])) r.feature_value[j] = impute_(static_cast<Index>(j));
  if (mean_.size() == 0) return;
  if (!r.feature_index.empty() && config_.standardize == Standardize::center_scale) {
    // Centering fills every coordinate: the record becomes dense (the design is dense then).
    std::vector<double> dense(static_cast<std::size_t>(d1_), 0.0);
    for (std::size_t k = 0; k < r.feature_index.size(); ++k)
      dense[static_cast<std::size_t>(r.feature_index[k])] = r.feature_value[k];
    r.feature_index.clear();
    r.feature_value = std::move(dense);
  }
  if (r.feature_index.empty()) {
    for (std::size_t j = 0; j < r.feature_value.size(); ++j) {
      const auto i = static_cast<Index>(j);
      r.feature_value[j] = (r.feature_value[j] - mean_(i)) * scale_(i);
    }
  } else {
    for (std::size_t k = 0; k < r.feature_index.size(); ++k) r.feature_value[k] *= scale_(r.feature_index[k]);
  }
}

bool FileSource::next_served(Record& out) {
  const Part served = config_.serve_validation ? Part::validation : Part::train;
  const auto read_served = [&](Record& r) {
    while (!reader_done_) {
      if (!reader_->next(r)) {
        reader_done_ = true;
        break;
      }
      if (part_of_record(r) == served) {
        prepare(r, *reader_);
        return true;
      }
    }
    return false;
  };
  if (config_.shuffle_buffer <= 1) return read_served(out);
  // Bounded shuffle: keep the buffer full, hand out a uniformly chosen element.
  while (static_cast<std::int64_t>(shuffle_.size()) < config_.shuffle_buffer) {
    Record r;
    if (!read_served(r)) break;
    shuffle_.push_back(std::move(r));
  }
  if (shuffle_.empty()) return false;
  const auto pick = static_cast<std::size_t>(shuffle_rng_.below(shuffle_.size()));
  std::swap(shuffle_[pick], shuffle_.back());
  out = std::move(shuffle_.back());
  shuffle_.pop_back();
  return true;
}

Batch FileSource::produce(Index n) {
  if (!opened_) throw std::logic_error(name_ + " source: next() called before open()");
  if (layout_.entries) return produce_entries(n);
  std::vector<Record> records;
  records.reserve(static_cast<std::size_t>(std::min<Index>(n, 1 << 16)));
  Record r;
  while (static_cast<Index>(records.size()) < n && next_served(r)) {
    standardize_in_place(r);
    records.push_back(std::move(r));
    r = Record{};
  }
  return assemble(records, /*test=*/false, derive_seed(seed_, "labels/" + std::to_string(pass_)));
}

Batch FileSource::produce_entries(Index n) {
  // Straight into the batch's arrays: 16 bytes an entry, where a held Record would cost ~150.
  const Index expected = std::min(n, records_in(config_.serve_validation ? Part::validation : Part::train));
  IndexVector rows(expected), cols(expected);
  Vector y(expected);
  Index count = 0;
  Record r;
  while (count < n && next_served(r)) {
    if (count == rows.size()) {  // more than the scan counted (not expected): grow
      const Index grown = std::min(n, std::max<Index>(2 * count, 1024));
      rows.conservativeResize(grown);
      cols.conservativeResize(grown);
      y.conservativeResize(grown);
    }
    rows(count) = static_cast<std::int32_t>(r.row);
    cols(count) = static_cast<std::int32_t>(r.col);
    y(count) = r.target * config_.value_scale;
    ++count;
    r = Record{};
  }
  rows.conservativeResize(count);
  cols.conservativeResize(count);
  y.conservativeResize(count);
  return entry_batch(std::move(rows), std::move(cols), std::move(y));
}

Batch FileSource::entry_batch(IndexVector rows, IndexVector cols, Vector y) const {
  Batch b;
  b.y = std::move(y);
  b.left = DesignSide::make_index(d1_, std::move(rows));
  b.right = DesignSide::make_index(d2_, std::move(cols));
  return b;
}

Batch FileSource::assemble(std::vector<Record>& records, bool test, std::uint64_t label_seed) const {
  const auto n = static_cast<Index>(records.size());
  Batch b;
  if (layout_.entries) {
    IndexVector rows(n), cols(n);
    Vector y(n);
    for (Index i = 0; i < n; ++i) {
      const Record& r = records[static_cast<std::size_t>(i)];
      rows(i) = static_cast<std::int32_t>(r.row);
      cols(i) = static_cast<std::int32_t>(r.col);
      y(i) = r.target * config_.value_scale;
    }
    return entry_batch(std::move(rows), std::move(cols), std::move(y));
  }

  // Left designs: the feature vectors.
  if (config_.sparse_design) {
    std::vector<Eigen::Triplet<double, std::int64_t>> triplets;
    for (Index i = 0; i < n; ++i) {
      const Record& r = records[static_cast<std::size_t>(i)];
      if (r.feature_index.empty()) {
        for (std::size_t j = 0; j < r.feature_value.size(); ++j)
          if (r.feature_value[j] != 0.0) triplets.emplace_back(static_cast<std::int64_t>(j), i, r.feature_value[j]);
      } else {
        for (std::size_t k = 0; k < r.feature_index.size(); ++k)
          triplets.emplace_back(r.feature_index[k], i, r.feature_value[k]);
      }
    }
    b.left.kind = DesignSide::Kind::sparse;
    b.left.dim = d1_;
    b.left.sparse.resize(d1_, n);
    b.left.sparse.setFromTriplets(triplets.begin(), triplets.end());
  } else {
    Matrix X = Matrix::Zero(d1_, n);
    for (Index i = 0; i < n; ++i) {
      const Record& r = records[static_cast<std::size_t>(i)];
      if (r.feature_index.empty()) {
        for (std::size_t j = 0; j < r.feature_value.size(); ++j) X(static_cast<Index>(j), i) = r.feature_value[j];
      } else {
        for (std::size_t k = 0; k < r.feature_index.size(); ++k) X(r.feature_index[k], i) = r.feature_value[k];
      }
    }
    b.left = DesignSide::make_dense(std::move(X));
  }

  if (config_.classes == 0) {  // regression: y is the target
    b.y.resize(n);
    for (Index i = 0; i < n; ++i) b.y(i) = records[static_cast<std::size_t>(i)].target;
    if (!op_->symmetric()) b.right = b.left;  // asymmetric sensing of one feature vector: u = v = x
    return b;
  }

  const Index classes = config_.classes;
  const auto has_label = [](const Record& r, Index j) {
    return std::find(r.labels.begin(), r.labels.end(), static_cast<std::int32_t>(j)) != r.labels.end();
  };
  if ((test && config_.test_full_labels) || (!test && config_.label_view == LabelView::full)) {
    // Full observation: every label of every instance, label-major (y(i + n·j)).
    b.right = DesignSide::make_all(classes);
    b.y.resize(n * classes);
    for (Index j = 0; j < classes; ++j)
      for (Index i = 0; i < n; ++i) b.y(i + n * j) = has_label(records[static_cast<std::size_t>(i)], j) ? 1.0 : -1.0;
    return b;
  }
  // One-bit view: one asked label per instance, from a hash of (seed, record number), so the same
  // instance is asked the same label whatever the batch sizes.
  IndexVector asked(n);
  b.y.resize(n);
  for (Index i = 0; i < n; ++i) {
    const Record& r = records[static_cast<std::size_t>(i)];
    if (r.observed_label >= 0) {  // an observation (observations file): its label and its answer
      asked(i) = static_cast<std::int32_t>(r.observed_label);
      b.y(i) = r.target;
      continue;
    }
    std::uint64_t state = mix(label_seed, static_cast<std::uint64_t>(r.number));
    Rng rng(splitmix64(state));
    Index j = static_cast<Index>(rng.below(static_cast<std::uint64_t>(classes)));
    if (config_.balance && !r.labels.empty()) {
      const bool ask_positive = rng.uniform() < 0.5 || static_cast<Index>(r.labels.size()) >= classes;
      if (ask_positive) {
        j = r.labels[static_cast<std::size_t>(rng.below(r.labels.size()))];
      } else {
        while (has_label(r, j)) j = static_cast<Index>(rng.below(static_cast<std::uint64_t>(classes)));
      }
    }
    asked(i) = static_cast<std::int32_t>(j);
    b.y(i) = has_label(r, j) ? 1.0 : -1.0;
  }
  b.right = DesignSide::make_index(classes, std::move(asked));
  return b;
}

// ---- Registration helpers ----

namespace {
constexpr double kDefaultTestFraction = 0.2;
}  // namespace

Footprint file_source_footprint(const Params& p, const FootprintContext& c, RecordShape records) {
  constexpr double kRecord = sizeof(Record);
  const bool entries = records == RecordShape::entries;
  const bool single_label = !entries && p.has("classes");
  const double classes = single_label ? static_cast<double>(p.integer("classes")) : 0.0;
  const bool dense = !entries && (p.has("design") ? p.string("design") == "dense" ||
                                                        (p.string("design") == "auto" && records == RecordShape::dense_features)
                                                  : records == RecordShape::dense_features);
  Footprint f;
  f.data.shape = c.data.shape;
  // Before reading, what the parameters declare: a dimension, a matrix's rows and columns, the labels.
  if (f.data.shape.d1 == 0 && p.has("dimension")) f.data.shape.d1 = p.integer("dimension");
  if (f.data.shape.d1 == 0 && p.has("users")) f.data.shape.d1 = p.integer("users");
  if (f.data.shape.d2 == 0 && p.has("items")) f.data.shape.d2 = p.integer("items");
  if (f.data.shape.d2 == 0 && single_label) f.data.shape.d2 = p.integer("classes");
  if (f.data.shape.d2 == 0 && !entries) f.data.shape.d2 = f.data.shape.d1;  // regression: M is d × d
  const double d1 = static_cast<double>(f.data.shape.d1);
  f.data.training_instances = c.data.training_instances;
  f.data.dense_designs = dense;
  f.data.measurements_per_instance = single_label && p.string("label_view") == "full" ? classes : 1.0;
  f.data.test_measurements_per_instance = single_label && p.boolean("test_full_labels") ? classes : 1.0;
  const double design = entries ? 2 * sizeof(std::int32_t) : dense ? dense_bytes(d1, 1) : 2 * sizeof(std::int64_t);
  // Regression on an asymmetric operator serves the design on both sides.
  const double sides = !entries && !single_label && !c.data.shape.symmetric && c.data.shape.d1 > 0 ? 2 : 1;
  const double served = sides * design + (single_label ? sizeof(std::int32_t) : 0.0);
  const double record = kRecord + (entries ? 0.0 : dense ? dense_bytes(d1, 1) : 0.0);
  f.data.instance_bytes = served + 8.0 * f.data.measurements_per_instance + record;
  const double test = static_cast<double>(p.integer("test_cap"));
  f.data.test_instances = test;
  f.add("held-out set of up to " + format_count(test) + " instances, sampled through a reservoir",
        test * (served + 8.0 * f.data.test_measurements_per_instance) + test * record);
  if (p.integer("shuffle_buffer") > 0)
    f.add("shuffle buffer", static_cast<double>(p.integer("shuffle_buffer")) * record);
  if (!entries && p.string("standardize") != "none") f.add("feature statistics", 3 * dense_bytes(d1, 1));
  return f;
}

Footprint image_footprint(const Params& p, const FootprintContext& c) {
  Footprint f = file_source_footprint(p, c, RecordShape::entries);
  // Every pixel is an entry: the decoded bytes and a shuffled order of them (8 bytes each) are held.
  const double entries = static_cast<double>(c.data.shape.d1) * static_cast<double>(c.data.shape.d2);
  if (f.data.training_instances == 0) f.data.training_instances = entries;
  f.add("decoded image and its entry order", 9 * entries);
  return f;
}

std::string resolve_data_path(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path given(path);
  if (given.is_absolute()) return path;
  std::vector<fs::path> tried{fs::current_path() / given};
  if (const char* data = std::getenv("RANKONE_DATA")) tried.push_back(fs::path(data) / given);
  if (const char* home = std::getenv("HOME")) tried.push_back(fs::path(home) / ".cache/rankone/datasets" / given);
#ifdef RANKONE_SOURCE_TREE
  tried.push_back(fs::path(RANKONE_SOURCE_TREE) / given);
#endif
  std::string list;
  for (const fs::path& candidate : tried) {
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    list += "\n  " + candidate.string();
  }
  throw DataError(path + ": no such file; looked in" + list + "\n(run scripts/fetch-datasets for the real data sets)");
}

std::string resolve_param_path(const Params& p, const std::string& name) {
  std::string path;
  try {
    path = resolve_data_path(p.string(name));
  } catch (const DataError& e) {  // a ConfigError: the CLI then names the experiment file too
    throw ConfigError("at " + p.path_of(name) + ": " + e.what());
  }
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);  // an absolute path is returned unchecked
  if (!std::filesystem::exists(status))
    throw ConfigError("at " + p.path_of(name) + ": " + path + ": no such file (expected a data file)");
  if (std::filesystem::is_directory(status))
    throw ConfigError("at " + p.path_of(name) + ": " + path + ": a folder (expected a data file)");
  if (!std::filesystem::is_regular_file(status))  // read twice (statistics, then batches): a pipe cannot be
    throw ConfigError("at " + p.path_of(name) + ": " + path + ": not a regular file (a pipe or a device; expected a data file, which is read more than once)");
  return path;
}

std::unique_ptr<RecordReader> make_test_reader(
    const Params& p, const std::function<std::unique_ptr<RecordReader>(const std::string& path)>& make_reader) {
  if (!p.has("test_file")) return nullptr;
  return make_reader(resolve_param_path(p, "test_file"));
}

void reject_param(const Params& p, const std::string& name, const std::string& message) {
  throw ConfigError("at " + p.path_of(name) + ": " + message);
}

std::unique_ptr<SensingOperator> make_operator(const Params& p, const BuildContext& ctx, std::string& name) {
  const Json& ref = p.raw("operator");
  name = ref.is_string() ? ref.get<std::string>() : ref.value("name", "");
  return ctx.registry.create<SensingOperator>(ref, Kind::sensing_operator, p.path_of("operator"));
}

void declare_common_parameters(Schema& s, const std::string& default_operator) {
  s.plugin("operator", "operator", default_operator, "sensing operator the records are served for")
      .sets_defaults_of_referenced([](const Json&) { return Json{{"first_order", true}}; },
                                   "the operator's first_order defaults to true: a file's features carry an FM's "
                                   "linear term, which an estimator fitting none ignores");
  s.number("validation_fraction", 0.0, "fraction of records in the validation part").at_least(0.0).below(1.0);
  s.number("test_fraction", kDefaultTestFraction,
           "fraction of records in the test part (test_set()); 0 with test_file, whose records are the test part")
      .at_least(0.0).below(1.0).defaults_to_when_given(0.0, "test_file");
  s.choice("serve", "train", {"train", "validation"}, "the part next() streams");
  s.integer("folds", std::nullopt, "k-fold cross-validation: records are dealt into this many folds by the split "
                                   "hash (replaces validation_fraction and test_fraction; needs split_seed)")
      .make_nullable().at_least(2);
  s.integer("test_fold", std::nullopt, "with folds: the fold that is the test part, in [0, folds)")
      .make_nullable().at_least(0);
  s.integer("validation_fold", std::nullopt, "with folds: the fold that is the validation part, in [0, folds), "
                                             "not test_fold (default: none, every other fold trains)")
      .make_nullable().at_least(0);
  s.integer("split_seed", std::nullopt, "seed of the split hash (default: the trial's data seed); fix it so that "
                                        "every cell of a sweep deals the records into the same parts")
      .make_nullable().at_least(0);
  s.choice("evaluate_on", "test", {"test", "validation"},
           "the held-out part test_set() holds, which the prediction metrics score (validation: model selection; "
           "the test part is then never read past the open pass)");
  s.integer("test_cap", 10000, "at most this many test records are held; a larger test part is subsampled "
                               "uniformly (reservoir sampling)").at_least(1);
  s.integer("shuffle_buffer", 0, "records held for shuffling within a bounded buffer (0 or 1: file order)")
      .at_least(0);
}

void declare_feature_parameters(Schema& s) {
  s.choice("design", "auto", {"auto", "dense", "sparse"},
           "design kind of the feature vectors (auto: a sparse format is dense when its rows fill at least half "
           "the columns, else sparse; a dense format is dense)");
  s.choice("standardize", "none", {"none", "scale", "center_scale"},
           "features divided by their training std (scale), after subtracting the training mean (center_scale)");
  s.integer("classes", std::nullopt, "number of labels d2 (operator single_label); labels are integers in "
                                     "[first_label, first_label + classes)").make_nullable().at_least(1);
  s.integer("first_label", 0, "the smallest class label in the file (e.g. 1 for labels 1..K)");
  s.choice("label_view", "one_bit", {"one_bit", "full"},
           "single_label training view: one random label asked per instance (±1), or every label");
  s.boolean("balance", false, "one-bit view: ask one of the instance's labels with probability 1/2, else a "
                              "uniformly random other label");
  s.boolean("test_full_labels", true, "single_label: pair each test instance with every label");
  declare_test_file(s);
}

void declare_test_file(Schema& s) {
  s.string("test_file", std::nullopt, "a separate test file in the same format (e.g. MNIST's t10k): all its "
                                      "records are the test part; the file is then split into train and validation "
                                      "only (test_fraction is then 0; folds take validation_fold, no test_fold)")
      .make_nullable();
}

FileSourceConfig read_common_parameters(const Params& p, const SensingOperator& op, const std::string& operator_name,
                                        const RecordLayout& layout) {
  FileSourceConfig c;
  SplitRule& split = c.split;
  split.validation_fraction = p.number("validation_fraction");
  split.test_fraction = p.number("test_fraction");
  const bool test_file = p.has("test_file");
  // A separate test file replaces the test part: no record of the training file may be dealt to it
  // (test_fraction defaults to 0 with a test file, so only a value given is refused here).
  if (test_file && !p.has("folds") && split.test_fraction != 0.0)
    reject_param(p, "test_fraction", "with " + p.path_of("test_file") + " the test part is that file; drop "
                                     "test_fraction or set it to 0 (found " + Json(split.test_fraction).dump() + ")");
  if (p.has("split_seed")) split.seed = static_cast<std::uint64_t>(p.integer("split_seed"));
  if (p.has("folds")) {
    split.folds = p.integer("folds");
    const auto fold_index = [&](const std::string& name) {
      const std::int64_t fold = p.integer(name);
      if (fold >= split.folds)
        reject_param(p, name, "expected a fold index in [0, " + std::to_string(split.folds) + ") (folds = " +
                                  std::to_string(split.folds) + "), found " + std::to_string(fold));
      return fold;
    };
    if (test_file && p.has("test_fold"))
      reject_param(p, "test_fold", "with " + p.path_of("test_file") + " the test part is that file; the folds split "
                                   "the training file into validation_fold and training folds (drop test_fold)");
    if (test_file && !p.has("validation_fold"))
      reject_param(p, "validation_fold", "folds with " + p.path_of("test_file") + " need validation_fold: the "
                                         "training file's fold held out for validation");
    if (!test_file && !p.has("test_fold"))
      reject_param(p, "test_fold", "folds needs test_fold: the fold that is the test part");
    if (!split.seed)
      reject_param(p, "split_seed", "folds needs a fixed split_seed: the data seed changes with every data.* sweep "
                                    "coordinate (test_fold included), which would deal the folds anew in each cell");
    split.test_fold = test_file ? -1 : fold_index("test_fold");
    if (p.has("validation_fold")) {
      split.validation_fold = fold_index("validation_fold");
      if (split.validation_fold == split.test_fold)
        reject_param(p, "validation_fold", "the validation fold must differ from test_fold (" +
                                               std::to_string(split.test_fold) + ")");
    }
    if (split.folds - (split.validation_fold >= 0 ? 1 : 0) - (split.test_fold >= 0 ? 1 : 0) < 1)
      reject_param(p, "folds", "no fold is left to train on: folds = " + std::to_string(split.folds) +
                                   " with a test and a validation fold");
    // The fractions do not apply; a value other than the default would be silently ignored otherwise.
    if (split.validation_fraction != 0.0)
      reject_param(p, "validation_fraction", "give either folds or validation_fraction, not both");
    if (split.test_fraction != (test_file ? 0.0 : kDefaultTestFraction))
      reject_param(p, "test_fraction", "give either folds or test_fraction, not both");
  } else {
    if (p.has("test_fold") || p.has("validation_fold"))
      reject_param(p, p.has("test_fold") ? "test_fold" : "validation_fold", "fold indices need folds (k ≥ 2)");
    if (split.validation_fraction + split.test_fraction >= 1.0)
      reject_param(p, "test_fraction",
                   "validation_fraction + test_fraction must be below 1 (nothing left to train on)");
  }
  const bool has_validation = split.folds > 0 ? split.validation_fold >= 0 : split.validation_fraction > 0.0;
  const std::string needs_validation = split.folds > 0 ? "validation_fold" : "validation_fraction > 0";
  c.serve_validation = p.string("serve") == "validation";
  if (c.serve_validation && !has_validation)
    reject_param(p, "serve", "serving the validation part needs " + needs_validation);
  c.evaluate_validation = p.string("evaluate_on") == "validation";
  if (c.evaluate_validation && !has_validation)
    reject_param(p, "evaluate_on", "evaluating on the validation part needs " + needs_validation);
  if (c.evaluate_validation && c.serve_validation)
    reject_param(p, "evaluate_on", "the validation part cannot be both served for training and evaluated on");
  c.test_cap = p.integer("test_cap");
  c.shuffle_buffer = p.integer("shuffle_buffer");

  const auto accepts = [](const std::vector<DesignSide::Kind>& kinds, DesignSide::Kind k) {
    return std::find(kinds.begin(), kinds.end(), k) != kinds.end();
  };
  const std::string op_text = "operator '" + operator_name + "'";
  if (layout.entries) {
    if (!accepts(op.accepted_left(), DesignSide::Kind::index) || op.symmetric() ||
        !accepts(op.accepted_right(), DesignSide::Kind::index))
      reject_param(p, "operator", "this source serves matrix entries (index designs on both sides); " + op_text +
                                      " does not take them (use \"entry\")");
    return c;
  }
  if (!accepts(op.accepted_left(), DesignSide::Kind::dense))
    reject_param(p, "operator", "this source serves feature vectors; " + op_text +
                                    " does not take dense/sparse left designs");
  const std::string design = p.string("design");
  c.sparse_design = design == "sparse" || (design == "auto" && layout.sparse);
  c.design_chosen = design == "auto";
  c.standardize = *standardize_of(p.string("standardize"));  // one of the schema's choices
  if (c.standardize == Standardize::center_scale && c.sparse_design)
    reject_param(p, "standardize", "centering sparse designs would make them dense; use \"scale\" or design \"dense\"");
  c.first_label = p.integer("first_label");
  c.label_view = p.string("label_view") == "full" ? LabelView::full : LabelView::one_bit;
  c.balance = p.boolean("balance");
  c.test_full_labels = p.boolean("test_full_labels");
  const bool labels_on_right = !op.symmetric() && accepts(op.accepted_right(), DesignSide::Kind::index);
  if (labels_on_right) {
    if (!p.has("classes")) reject_param(p, "classes", op_text + " puts labels on the right: give the number of classes");
    if (!layout.has_labels) reject_param(p, "operator", op_text + " needs class labels, which this file has none of");
    c.classes = p.integer("classes");
  } else {
    if (p.has("classes"))
      reject_param(p, "classes", op_text + " serves the target as a number; classes apply to \"single_label\"");
    if (p.string("label_view") != "one_bit" || c.balance)
      reject_param(p, "label_view", "label views apply to operator \"single_label\"");
  }
  return c;
}

}  // namespace rankone::sources
