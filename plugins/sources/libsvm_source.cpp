// The `libsvm` source: parser, reader and registration.
#include "libsvm_source.hpp"
#include "observations.hpp"
#include "parsed_cache.hpp"

#include <limits>

namespace rankone::sources {

namespace {

/// Larger indices are typos or corrupt files: d1 = 2^31 dense features would not fit in memory.
constexpr std::int64_t kMaxFeatureIndex = (std::int64_t{1} << 31) - 1;

/// The next whitespace-separated token of `rest` (consumed), or an empty view.
std::string_view next_token(std::string_view& rest) {
  std::size_t begin = 0;
  while (begin < rest.size() && (rest[begin] == ' ' || rest[begin] == '\t')) ++begin;
  std::size_t end = begin;
  while (end < rest.size() && rest[end] != ' ' && rest[end] != '\t') ++end;
  const std::string_view token = rest.substr(begin, end - begin);
  rest.remove_prefix(end);
  return token;
}

bool is_comment_or_blank(std::string_view line) {
  const std::string_view t = trim(line);
  return t.empty() || t.front() == '#';
}

/// Class labels of a label token: integers separated by commas. False when not all integral.
bool parse_labels(std::string_view token, std::vector<std::int32_t>& labels, const std::string& where,
                  std::int64_t line) {
  labels.clear();
  while (!token.empty()) {
    const std::size_t comma = token.find(',');
    const std::string_view part = token.substr(0, comma);
    const double value = parse_finite(part, where, line, "a class label");
    if (value != std::floor(value) || std::abs(value) > std::numeric_limits<std::int32_t>::max()) return false;
    labels.push_back(static_cast<std::int32_t>(value));
    if (comma == std::string_view::npos) break;
    token.remove_prefix(comma + 1);
    if (token.empty()) data_error(where, line, "a class label after ','", "");
  }
  return true;
}

}  // namespace

void parse_libsvm_line(std::string_view line, int index_base, std::int64_t dimension, Record& record,
                       const std::string& where, std::int64_t line_number) {
  const std::size_t hash = line.find('#');
  if (hash != std::string_view::npos) line = line.substr(0, hash);
  std::string_view rest = line;
  std::string_view token = next_token(rest);
  record.labels.clear();
  record.feature_index.clear();
  record.feature_value.clear();
  record.target = 0.0;
  if (token.find(':') == std::string_view::npos) {
    if (token.find(',') != std::string_view::npos) {
      if (!parse_labels(token, record.labels, where, line_number))
        data_error(where, line_number, "integer class labels separated by ','", token);
    } else {
      record.target = parse_finite(token, where, line_number, "the label");
      if (record.target == std::floor(record.target) && std::abs(record.target) < 2e9)
        record.labels.push_back(static_cast<std::int32_t>(record.target));
    }
    token = next_token(rest);
  }
  std::int64_t previous = -1;
  for (; !token.empty(); token = next_token(rest)) {
    const std::size_t colon = token.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 == token.size())
      data_error(where, line_number, "a feature 'index:value'", token);
    const std::string_view key = token.substr(0, colon);
    if (key == "qid") continue;  // ranking query ids carry no feature
    const std::int64_t raw = parse_integer(key, where, line_number, "a feature index");
    if (raw > kMaxFeatureIndex) data_error(where, line_number, "feature indices below 2^31", token);
    // Compared before subtracting the base: raw - 1 overflows for the most negative integer.
    const std::int64_t index = raw < index_base ? -1 : raw - index_base;
    if (index < 0)
      data_error(where, line_number, "feature indices ≥ " + std::to_string(index_base) +
                                         (index_base == 1 ? " (the file is read as 1-based)" : ""),
                 token);
    if (dimension > 0 && index >= dimension)
      data_error(where, line_number, "feature indices below the declared dimension " + std::to_string(dimension) +
                                         " (" + std::to_string(index_base) + "-based)",
                 token);
    if (index <= previous) data_error(where, line_number, "strictly increasing feature indices", token);
    previous = index;
    const double value = parse_finite(token.substr(colon + 1), where, line_number, "a feature value");
    record.feature_index.push_back(index);
    record.feature_value.push_back(value);
  }
}

LibsvmReader::LibsvmReader(StreamOpener opener, LibsvmOptions options)
    : opener_(std::move(opener)), options_(options) {
  if (options_.indexing == LibsvmIndexing::zero_based) base_ = 0;
  if (options_.indexing == LibsvmIndexing::one_based) base_ = 1;
}

void LibsvmReader::describe_preparation(DataPreparation& preparation) const {
  preparation.header["index_base"] = base_;
}

void LibsvmReader::use_preparation(const DataPreparation& preparation) {
  if (preparation.header.contains("index_base")) base_ = preparation.header["index_base"].get<int>();
}

namespace {

/// Whether the libsvm text behind `opener` has a feature index 0 (read 0-based, no dimension check).
bool has_index_zero(const StreamOpener& opener, std::string& name) {
  LineReader lines(opener());
  name = lines.name();
  std::string line;
  Record scratch;
  while (lines.next(line)) {
    if (is_comment_or_blank(line)) continue;
    parse_libsvm_line(line, 0, 0, scratch, lines.name(), lines.line_number());
    if (!scratch.feature_index.empty() && scratch.feature_index.front() == 0) return true;
  }
  return false;
}

}  // namespace

int LibsvmReader::detect_base() {
  std::string name, paired_name;
  if (has_index_zero(opener_, name)) return 0;
  if (options_.paired && has_index_zero(options_.paired, paired_name)) {
    notes_.push_back(name + " is read 0-based although it has no index 0: the file it is paired with (" + paired_name +
                     ") has one, and the two take one index base");
    return 0;
  }
  return 1;
}

void LibsvmReader::start(std::uint64_t) {
  if (base_ < 0) base_ = detect_base();
  lines_ = std::make_unique<LineReader>(opener_());
  name_ = lines_->name();
  records_ = 0;
}

bool LibsvmReader::next(Record& record) {
  while (lines_->next(line_)) {
    if (is_comment_or_blank(line_)) continue;
    parse_libsvm_line(line_, base_, options_.dimension, record, lines_->name(), lines_->line_number());
    record.number = records_++;
    record.line = lines_->line_number();
    return true;
  }
  return false;
}

RecordLayout LibsvmReader::layout() const {
  RecordLayout l;
  l.sparse = true;
  l.dim = options_.dimension;
  l.has_labels = true;
  return l;
}

std::string LibsvmReader::source_name() const { return name_; }

namespace {

std::unique_ptr<Component> make_libsvm(const Params& p, const BuildContext& ctx) {
  std::string operator_name;
  auto op = make_operator(p, ctx, operator_name);
  LibsvmOptions options;
  const std::string indexing = p.string("indexing");
  options.indexing = indexing == "zero" ? LibsvmIndexing::zero_based
                     : indexing == "one" ? LibsvmIndexing::one_based
                                         : LibsvmIndexing::automatic;
  if (p.has("dimension")) options.dimension = p.integer("dimension");
  const std::string file = resolve_param_path(p, "file");
  // Detected per file, a test file without an index 0 could be read 1-based beside a 0-based
  // training file: with a test file the base is detected on the two (and both keyed by the cache).
  const bool paired = p.has("test_file") && options.indexing == LibsvmIndexing::automatic;
  const std::string test_file = p.has("test_file") ? resolve_param_path(p, "test_file") : "";
  LibsvmOptions train_options = options;
  if (paired) train_options.paired = file_opener(test_file);
  std::vector<std::string> keyed = {file};
  if (p.has("observations")) keyed.push_back(resolve_param_path(p, "observations"));
  if (paired) keyed.push_back(test_file);
  auto reader = cache_parsed(with_observations(p, std::make_unique<LibsvmReader>(file_opener(file), train_options)),
                             parse_key(p, "libsvm", keyed));
  FileSourceConfig config = read_common_parameters(p, *op, operator_name, reader->layout());
  check_observations(p, config);
  auto test_reader = make_test_reader(p, [&](const std::string& path) {
    LibsvmOptions test_options = options;
    if (paired) test_options.paired = file_opener(file);
    return cache_parsed(std::make_unique<LibsvmReader>(file_opener(path), test_options),
                        parse_key(p, "libsvm", paired ? std::vector<std::string>{path, file} : std::vector<std::string>{path}));
  });
  return std::make_unique<FileSource>("libsvm", config, std::move(reader), std::move(op), std::move(test_reader));
}

}  // namespace

Registration libsvm_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "libsvm";
  r.summary = "Streams a libsvm/svmlight file (sparse 'label idx:val …', plain or gzip) in one pass";
  r.citation = "";
  r.doc_page = "docs/plugins/file_sources.md";
  Schema& s = r.schema;
  s.string("file", std::nullopt, "path of the file (gzip-compressed or plain)").make_required();
  s.choice("indexing", "auto", {"auto", "zero", "one"},
           "feature index base: detected (0 present: 0-based, else 1-based; costs one extra read; with test_file, "
           "one base for both files, 0 when either has an index 0), or declared");
  s.integer("dimension", std::nullopt, "feature dimension; indices beyond it are an error (default: one past the "
                                       "largest index in the file)").make_nullable().at_least(1);
  declare_common_parameters(s, "symmetric_rank_one");
  declare_feature_parameters(s);
  declare_observation_parameters(s);
  r.example = {{"file", "plugins/sources/examples/tiny.svm"}};
  r.factory = make_libsvm;
  r.footprint = [](const Params& p, const FootprintContext& c) { return file_source_footprint(p, c, RecordShape::sparse_features); };
  return r;
}

}  // namespace rankone::sources
