// The `csv` source: field splitting, column selection, missing values, registration.
#include "csv_source.hpp"
#include "observations.hpp"
#include "parsed_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankone::sources {

void split_csv_line(std::string_view line, char delimiter, std::vector<std::string>& fields, const std::string& where,
                    std::int64_t line_number) {
  fields.clear();
  const std::size_t n = line.size();
  std::size_t i = 0;
  for (;;) {
    std::string field;
    std::size_t j = i;
    while (j < n && line[j] != delimiter && (line[j] == ' ' || line[j] == '\t')) ++j;
    if (j < n && line[j] == '"') {
      // Quoted field: "" is a literal quote; only blanks may follow the closing quote.
      bool closed = false;
      for (++j; j < n;) {
        if (line[j] != '"') {
          field += line[j++];
        } else if (j + 1 < n && line[j + 1] == '"') {
          field += '"';
          j += 2;
        } else {
          closed = true;
          ++j;
          break;
        }
      }
      if (!closed) data_error(where, line_number, "a closing '\"' (quoted fields cannot span lines)", line.substr(i));
      for (; j < n && line[j] != delimiter; ++j)
        if (line[j] != ' ' && line[j] != '\t')
          data_error(where, line_number, "a delimiter after a quoted field", line.substr(j));
      i = j;
    } else {
      const std::size_t end = std::min(line.find(delimiter, i), n);
      field.assign(line.substr(i, end - i));
      i = end;
    }
    fields.push_back(std::move(field));
    if (i >= n) break;
    ++i;  // past the delimiter; a trailing one yields a last empty field
  }
}

bool is_missing_token(std::string_view token) {
  const std::string_view t = trim(token);
  // Every field is asked: longer tokens (most numbers) leave at once, without a lower-case copy.
  if (t.size() > 4) return false;  // the longest missing token is "null"
  char lower[4];
  for (std::size_t i = 0; i < t.size(); ++i)
    lower[i] = t[i] >= 'A' && t[i] <= 'Z' ? static_cast<char>(t[i] - 'A' + 'a') : t[i];
  const std::string_view l(lower, t.size());
  return l.empty() || l == "na" || l == "n/a" || l == "?" || l == "null";
}

CsvReader::CsvReader(StreamOpener opener, CsvOptions options) : opener_(std::move(opener)), options_(std::move(options)) {}

void CsvReader::resolve_columns(const std::vector<std::string>& header, std::int64_t line_number) {
  width_ = header.size();
  const auto position = [&](const std::string& column) -> std::size_t {
    if (options_.header) {
      for (std::size_t k = 0; k < header.size(); ++k)
        if (trim(header[k]) == trim(column)) return k;
    }
    // Without a header (or a name not in it): a 0-based position.
    std::int64_t at = -1;
    const std::string_view t = trim(column);
    if (!t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; }) && t.size() < 10)
      at = std::stoll(std::string(t));
    if (at < 0 || at >= static_cast<std::int64_t>(header.size())) {
      std::string names;
      for (const std::string& h : header) names += (names.empty() ? "" : ",") + h;
      data_error(lines_->name(), line_number,
                 "a column '" + column + "' in the " + (options_.header ? "header" : "first row") + " (" +
                     std::to_string(header.size()) + " columns)",
                 names);
    }
    return static_cast<std::size_t>(at);
  };
  label_at_.clear();
  feature_at_.clear();
  if (scoring_ && options_.header && !model_features_.empty()) {
    // A saved model's features by name, wherever they are now; labels only when present.
    for (const std::string& c : model_features_) {
      const auto at = std::find_if(header.begin(), header.end(), [&](const std::string& h) { return trim(h) == trim(c); });
      if (at == header.end())
        data_error(lines_->name(), line_number, "a column '" + c + "' (a feature of the model's training data)",
                   "a header without it");
      feature_at_.push_back(static_cast<std::size_t>(at - header.begin()));
    }
    for (const std::string& c : options_.label_columns)
      for (std::size_t k = 0; k < header.size(); ++k)
        if (trim(header[k]) == trim(c)) label_at_.push_back(k);
    if (label_at_.size() != options_.label_columns.size()) label_at_.clear();  // unlabelled data: targets 0
    resolved_ = true;
    return;
  }
  for (const std::string& c : options_.label_columns) label_at_.push_back(position(c));
  if (options_.feature_columns.empty()) {
    for (std::size_t k = 0; k < header.size(); ++k)
      if (std::find(label_at_.begin(), label_at_.end(), k) == label_at_.end()) feature_at_.push_back(k);
  } else {
    for (const std::string& c : options_.feature_columns) feature_at_.push_back(position(c));
  }
  if (feature_at_.empty()) data_error(lines_->name(), line_number, "at least one feature column", "none left");
  resolved_ = true;
}

void CsvReader::start(std::uint64_t) {
  lines_ = std::make_unique<LineReader>(opener_());
  name_ = lines_->name();
  records_ = 0;
  if (options_.header) {
    if (!lines_->next(line_)) data_error(name_, 0, "a header line", "an empty file");
    header_line_ = line_;
    split_csv_line(line_, options_.delimiter, fields_, name_, lines_->line_number());
    const std::size_t expected_width = width_;
    const std::vector<std::size_t> labels = label_at_, features = feature_at_;
    resolve_columns(fields_, lines_->line_number());
    header_names_.clear();
    for (const std::size_t k : feature_at_) header_names_.emplace_back(trim(fields_[k]));
    // Another pass must see the same header (the file changed under us otherwise).
    if (expected_width != 0 && (expected_width != width_ || labels != label_at_ || features != feature_at_))
      data_error(name_, 1, "the header read in the previous pass", line_);
  }
}

std::vector<std::string> CsvReader::notes() const {
  if (!options_.header || header_line_.empty()) return {};
  // Long headers (hundreds of feature names) are cut: the note says what was read, not all of it.
  const std::string shown = header_line_.size() > 80 ? header_line_.substr(0, 77) + "..." : header_line_;
  return {"first line of " + name_ + " read as the header (" + std::to_string(width_) + " columns: '" + shown + "')"};
}

bool CsvReader::next(Record& record) {
  while (lines_->next(line_)) {
    if (trim(line_).empty()) continue;
    const std::int64_t line_number = lines_->line_number();
    split_csv_line(line_, options_.delimiter, fields_, name_, line_number);
    if (!resolved_) resolve_columns(fields_, line_number);
    if (fields_.size() != width_)
      data_error(name_, line_number,
                 std::to_string(width_) + " fields (as the " + (options_.header ? "header" : "first row") + ")",
                 std::to_string(fields_.size()) + " fields in '" + line_ + "'");
    record.clear();
    record.number = records_++;
    record.line = line_number;
    bool skip = false;
    record.feature_value.resize(feature_at_.size());
    for (std::size_t k = 0; k < feature_at_.size(); ++k) {
      const std::string& field = fields_[feature_at_[k]];
      if (is_missing_token(field)) {
        switch (options_.missing) {
          case CsvMissing::error:
            data_error(name_, line_number, "a value in column " + std::to_string(feature_at_[k] + 1) +
                                               " (missing values: parameter missing)",
                       field);
          case CsvMissing::skip:
            if (scoring_)  // every record is scored: a dropped one would shift the prediction lines
              data_error(name_, line_number, "a value in column " + std::to_string(feature_at_[k] + 1) +
                                                 " (scoring gives every record a line; missing \"skip\" would drop "
                                                 "this one: give the source option missing=zero or missing=mean)",
                         field);
            skip = true;
            break;
          case CsvMissing::zero: record.feature_value[k] = 0.0; break;
          case CsvMissing::mean: record.feature_value[k] = std::numeric_limits<double>::quiet_NaN(); break;
        }
        continue;
      }
      record.feature_value[k] = options_.value_scale * parse_finite(field, name_, line_number, "a feature value");
    }
    if (label_at_.size() == 1) {
      const std::string& field = fields_[label_at_[0]];
      if (is_missing_token(field)) {
        if (options_.missing != CsvMissing::skip && !scoring_)
          data_error(name_, line_number, "a label in column " + std::to_string(label_at_[0] + 1), field);
        skip = !scoring_;  // a record to score needs no label
      } else {
        record.target = parse_finite(field, name_, line_number, "the label");
        if (record.target == std::floor(record.target) && std::abs(record.target) < 2e9)
          record.labels.push_back(static_cast<std::int32_t>(record.target));
      }
    } else {
      for (std::size_t k = 0; k < label_at_.size(); ++k) {
        const std::string& field = fields_[label_at_[k]];
        if (is_missing_token(field)) data_error(name_, line_number, "a 0/1 label value", field);
        if (parse_finite(field, name_, line_number, "a label value") > 0.0)
          record.labels.push_back(static_cast<std::int32_t>(k));
      }
    }
    if (skip) continue;  // the record keeps its number: the split of the others does not move
    return true;
  }
  return false;
}

void CsvReader::describe_preparation(DataPreparation& preparation) const {
  if (!header_names_.empty()) preparation.header["feature_columns"] = header_names_;
}

void CsvReader::use_preparation(const DataPreparation& preparation) {
  scoring_ = true;
  if (preparation.header.contains("feature_columns") && preparation.header["feature_columns"].is_array())
    for (const Json& name : preparation.header["feature_columns"])
      if (name.is_string()) model_features_.push_back(name.get<std::string>());
}

RecordLayout CsvReader::layout() const {
  RecordLayout l;
  l.dim = options_.feature_columns.empty() ? 0 : static_cast<std::int64_t>(options_.feature_columns.size());
  l.has_labels = !options_.label_columns.empty();
  l.may_have_missing = options_.missing == CsvMissing::mean;
  return l;
}

namespace {

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const std::size_t comma = text.find(',', start);
    const std::string item(trim(std::string_view(text).substr(start, comma == std::string::npos ? std::string::npos
                                                                                               : comma - start)));
    if (!item.empty()) out.push_back(item);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

std::unique_ptr<Component> make_csv(const Params& p, const BuildContext& ctx) {
  std::string operator_name;
  auto op = make_operator(p, ctx, operator_name);
  CsvOptions o;
  const std::string delimiter = p.string("delimiter");
  if (delimiter == "\\t" || delimiter == "tab") o.delimiter = '\t';
  else if (delimiter.size() == 1 && delimiter != "\"") o.delimiter = delimiter[0];
  else reject_param(p, "delimiter", "expected one character (or \"tab\"), found '" + delimiter + "'");
  o.header = p.boolean("header");
  o.label_columns = split_list(p.string("labels"));
  o.feature_columns = split_list(p.string("features"));
  const std::string missing = p.string("missing");
  o.missing = missing == "skip" ? CsvMissing::skip
              : missing == "zero" ? CsvMissing::zero
              : missing == "mean" ? CsvMissing::mean
                                  : CsvMissing::error;
  o.value_scale = p.number("value_scale");
  if (o.label_columns.empty()) reject_param(p, "labels", "give the label column(s)");
  auto reader = cache_parsed(with_observations(p, std::make_unique<CsvReader>(file_opener(resolve_param_path(p, "file")), o)),
                             parse_key(p, "csv"));
  FileSourceConfig config = read_common_parameters(p, *op, operator_name, reader->layout());
  check_observations(p, config);
  if (o.missing == CsvMissing::mean && config.sparse_design)
    reject_param(p, "missing", "mean imputation applies to dense designs");
  // The test file is read with the same columns (by name when there is a header) and options.
  auto test_reader = make_test_reader(
      p, [&](const std::string& path) {
        return cache_parsed(std::make_unique<CsvReader>(file_opener(path), o), parse_key(p, "csv", {path}));
      });
  return std::make_unique<FileSource>("csv", config, std::move(reader), std::move(op), std::move(test_reader));
}

}  // namespace

Registration csv_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "csv";
  r.summary = "Streams a delimited text file (header, label and feature columns, missing values) in one pass";
  r.citation = "";
  r.doc_page = "docs/plugins/file_sources.md";
  Schema& s = r.schema;
  s.string("file", std::nullopt, "path of the file (gzip-compressed or plain)").make_required();
  s.string("delimiter", ",", "field delimiter: one character, or \"tab\"");
  s.boolean("header", true, "the first line names the columns");
  s.string("labels", std::nullopt, "label column(s): names or 0-based positions, comma-separated; several "
                                  "columns make a multi-label set (value > 0: label present)").make_required();
  s.string("features", "", "feature columns, comma-separated names or 0-based positions (\"\": all but the "
                           "labels)");
  s.choice("missing", "error", {"error", "skip", "zero", "mean"},
           "missing values (empty, NA, N/A, ?, null): an error | drop the record | 0 | the training mean");
  s.number("value_scale", 1.0, "multiplies every feature value as read (e.g. 1/16 for pixel counts)");
  declare_common_parameters(s, "symmetric_rank_one");
  declare_feature_parameters(s);
  declare_observation_parameters(s);
  r.example = {{"file", "plugins/sources/examples/tiny.csv"}, {"labels", "y"}};
  r.factory = make_csv;
  r.footprint = [](const Params& p, const FootprintContext& c) { return file_source_footprint(p, c, RecordShape::dense_features); };
  return r;
}

}  // namespace rankone::sources
