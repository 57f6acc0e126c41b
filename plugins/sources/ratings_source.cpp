// The `ratings` source: triplet parsing, identifier mapping, timestamp order, registration.
#include "ratings_source.hpp"
#include "parsed_cache.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace rankone::sources {

std::string detect_delimiter(std::string_view line) {
  if (line.find("::") != std::string_view::npos) return "::";
  if (line.find('\t') != std::string_view::npos) return "\t";
  if (line.find(',') != std::string_view::npos) return ",";
  return kWhitespace;
}

bool parse_rating_line(std::string_view line, std::string_view delimiter, RatingLine& out, const std::string& where,
                       std::int64_t line_number) {
  std::string_view fields[5];
  std::size_t count = 0;
  std::string_view rest = line;
  const bool whitespace = delimiter == kWhitespace;
  const auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\r'; };
  if (whitespace) rest = trim(rest);
  for (;;) {
    const std::size_t at = whitespace ? std::size_t(std::find_if(rest.begin(), rest.end(), blank) - rest.begin())
                                      : rest.find(delimiter);
    if (count == 5) data_error(where, line_number, "3 or 4 fields 'user,item,rating[,timestamp]'", line);
    fields[count++] = rest.substr(0, at);
    if (at >= rest.size()) break;  // no delimiter left (npos, or the end of the blanks' search)
    if (whitespace) {
      rest.remove_prefix(at);
      rest.remove_prefix(std::size_t(std::find_if_not(rest.begin(), rest.end(), blank) - rest.begin()));
    } else {
      rest.remove_prefix(at + delimiter.size());
    }
  }
  const std::string_view first = trim(fields[0]);
  const bool numeric = !first.empty() && std::all_of(first.begin(), first.end(), [](char c) {
    return (c >= '0' && c <= '9') || c == '-' || c == '+';
  });
  if (line_number == 1 && !numeric) return false;  // a header such as userId,movieId,rating,timestamp
  if (count < 3 || count > 4) data_error(where, line_number, "3 or 4 fields 'user,item,rating[,timestamp]'", line);
  out.user = parse_integer(fields[0], where, line_number, "a user id");
  out.item = parse_integer(fields[1], where, line_number, "an item id");
  out.rating = parse_finite(fields[2], where, line_number, "a rating");
  out.timestamp = count == 4 ? parse_finite(fields[3], where, line_number, "a timestamp") : 0.0;
  return true;
}

ChronologicalBounds chronological_bounds(const std::vector<double>& timestamps, double validation_fraction,
                                         double test_fraction) {
  const std::size_t n = timestamps.size();
  const auto count = [n](double fraction) {
    return static_cast<std::size_t>(std::llround(fraction * static_cast<double>(n)));
  };
  // A boundary inside a run of equal timestamps moves to the run's end: ties stay in the earlier part.
  const auto after_ties = [&](std::size_t at) {
    while (at > 0 && at < n && timestamps[at] == timestamps[at - 1]) ++at;
    return at;
  };
  ChronologicalBounds b;
  b.test_begin = after_ties(n - std::min(n, count(test_fraction)));
  const std::size_t validation_count = std::min(b.test_begin, count(validation_fraction));
  b.validation_begin = std::min(b.test_begin, after_ties(b.test_begin - validation_count));
  return b;
}

RatingsReader::RatingsReader(StreamOpener opener, RatingsOptions options, std::shared_ptr<RatingIdMaps> shared_ids)
    : opener_(std::move(opener)),
      options_(std::move(options)),
      ids_(shared_ids ? std::move(shared_ids) : std::make_shared<RatingIdMaps>()) {}

std::int64_t RatingsReader::index_of(std::int64_t id, std::unordered_map<std::int64_t, std::int64_t>& ids,
                                     std::int64_t declared, const char* what, std::int64_t line) {
  std::int64_t index = id;
  // The most negative id has no predecessor (id - 1 would overflow); it is rejected below either way.
  if (options_.ids == RatingIds::one_based) index = id == std::numeric_limits<std::int64_t>::min() ? -1 : id - 1;
  if (options_.ids == RatingIds::remap) {
    // First appearance order; the map persists across passes, so indices never move.
    const auto found = ids.find(id);
    index = found != ids.end() ? found->second : ids.emplace(id, static_cast<std::int64_t>(ids.size())).first->second;
  }
  const std::string base = options_.ids == RatingIds::one_based ? "1" : "0";
  if (index < 0) data_error(name_, line, std::string(what) + " ids ≥ " + base + " (parameter ids)", std::to_string(id));
  if (declared > 0 && index >= declared)
    data_error(name_, line, std::string(what) + " ids below the declared count " + std::to_string(declared) +
                                " (" + base + "-based)",
               std::to_string(id));
  if (index >= (std::int64_t{1} << 31) - 1)
    data_error(name_, line, std::string(what) + " ids below 2^31 (use ids \"remap\")", std::to_string(id));
  return index;
}

bool RatingsReader::read_line(Record& record) {
  RatingLine parsed;
  while (lines_->next(line_)) {
    if (trim(line_).empty()) continue;
    const std::int64_t line_number = lines_->line_number();
    if (delimiter_.empty()) delimiter_ = options_.delimiter == kAutoDelimiter ? detect_delimiter(line_) : options_.delimiter;
    if (!parse_rating_line(line_, delimiter_, parsed, name_, line_number)) {
      header_ = std::string(trim(line_));
      if (options_.delimiter == kAutoDelimiter) delimiter_.clear();  // a header's separators may differ: decide on a rating
      continue;
    }
    record.clear();
    record.number = records_++;
    record.line = line_number;
    record.row = index_of(parsed.user, ids_->users, options_.users, "user", line_number);
    record.col = index_of(parsed.item, ids_->items, options_.items, "item", line_number);
    record.target = options_.value_scale * parsed.rating;
    record.timestamp = parsed.timestamp;
    return true;
  }
  bytes_ = lines_->bytes();
  return false;
}

void RatingsReader::start(std::uint64_t) {
  lines_ = std::make_unique<LineReader>(opener_());
  name_ = lines_->name();
  records_ = 0;
  bytes_ = 0;
  sorted_at_ = 0;
  if (options_.by_timestamp && !loaded_) {
    // Timestamp order needs every triplet at once: the only file source that holds its file.
    Record r;
    while (read_line(r)) sorted_.push_back(r);
    std::stable_sort(sorted_.begin(), sorted_.end(),
                     [](const Record& a, const Record& b) { return a.timestamp < b.timestamp; });
    if (options_.chronological) {
      std::vector<double> times(sorted_.size());
      for (std::size_t t = 0; t < sorted_.size(); ++t) times[t] = sorted_[t].timestamp;
      const ChronologicalBounds b = chronological_bounds(times, options_.chronological->validation_fraction,
                                                         options_.chronological->test_fraction);
      for (std::size_t t = 0; t < sorted_.size(); ++t)
        sorted_[t].part = t >= b.test_begin ? Part::test : t >= b.validation_begin ? Part::validation : Part::train;
    }
    loaded_ = true;
  }
}

bool RatingsReader::next(Record& record) {
  if (options_.by_timestamp) {
    if (sorted_at_ >= sorted_.size()) return false;
    record = sorted_[sorted_at_++];
    return true;
  }
  return read_line(record);
}

std::vector<std::string> RatingsReader::notes() const {
  std::vector<std::string> notes;
  if (options_.delimiter == kAutoDelimiter && !delimiter_.empty())
    notes.push_back("fields of " + name_ + " separated by " +
                    (delimiter_ == kWhitespace ? std::string("blanks")
                     : delimiter_ == "\t"      ? std::string("tabs")
                                               : "'" + delimiter_ + "'") +
                    " (delimiter \"auto\": decided on its first rating)");
  if (!header_.empty()) notes.push_back("first line of " + name_ + " ('" + header_ + "') is not a rating: skipped as a header");
  const std::size_t users = ids_->users.size(), items = ids_->items.size();
  if (options_.ids == RatingIds::remap && scoring_)
    notes.push_back("user and item ids mapped to the model's rows and columns by its row_ids and col_ids");
  else if (options_.ids == RatingIds::remap)
    notes.push_back("user and item ids remapped to 0.." + std::to_string(users - (users == 0 ? 0 : 1)) + " and 0.." +
                    std::to_string(items - (items == 0 ? 0 : 1)) +
                    " in order of first appearance (ids \"remap\")");
  return notes;
}

namespace {

/// The ids of a map, by index (index → id).
std::vector<std::int64_t> ids_by_index(const std::unordered_map<std::int64_t, std::int64_t>& ids) {
  std::vector<std::int64_t> out(ids.size());
  for (const auto& [id, index] : ids) out[static_cast<std::size_t>(index)] = id;
  return out;
}

/// The map of a saved model's ids (`name`: one int64 id per index, as many as `count`, each once).
void fill_map(std::unordered_map<std::int64_t, std::int64_t>& ids, const DataPreparation& preparation,
              const char* name, const char* count) {
  const auto found = preparation.arrays.find(name);
  const Json& expected = preparation.header.value(count, Json());
  if (found == preparation.arrays.end() || !found->second.integral || found->second.shape.size() != 1 ||
      (expected.is_number_integer() && found->second.elements() != expected.get<std::int64_t>()))
    throw ConfigError(std::string("the saved model's preparation needs an int64 array ") + name + " with one id per " +
                      (std::string(count) == "rows" ? "row" : "column") +
                      (expected.is_number_integer() ? " (" + expected.dump() + ")" : ""));
  ids.clear();
  const std::vector<std::int64_t>& by_index = found->second.integers;
  for (std::size_t i = 0; i < by_index.size(); ++i)
    if (!ids.emplace(by_index[i], static_cast<std::int64_t>(i)).second)
      throw ConfigError(std::string("the saved model's ") + name + " names id " + std::to_string(by_index[i]) + " twice");
}

}  // namespace

void RatingsReader::describe_preparation(DataPreparation& preparation) const {
  if (options_.ids != RatingIds::remap) return;
  preparation.arrays["row_ids"] = NamedArray::of(ids_by_index(ids_->users));
  preparation.arrays["col_ids"] = NamedArray::of(ids_by_index(ids_->items));
}

void RatingsReader::use_preparation(const DataPreparation& preparation) {
  options_.by_timestamp = false;
  options_.chronological.reset();
  scoring_ = true;
  if (options_.ids != RatingIds::remap) return;
  fill_map(ids_->users, preparation, "row_ids", "rows");
  fill_map(ids_->items, preparation, "col_ids", "cols");
}

RecordLayout RatingsReader::layout() const {
  RecordLayout l;
  l.entries = true;
  l.rows = options_.users;
  l.cols = options_.items;
  return l;
}

namespace {

std::unique_ptr<Component> make_ratings(const Params& p, const BuildContext& ctx) {
  std::string operator_name;
  auto op = make_operator(p, ctx, operator_name);
  RatingsOptions o;
  o.delimiter = p.string("delimiter");
  if (o.delimiter == "tab") o.delimiter = "\t";
  if (o.delimiter.empty()) reject_param(p, "delimiter", "must not be empty");
  const std::string ids = p.string("ids");
  o.ids = ids == "zero_based" ? RatingIds::zero_based : ids == "one_based" ? RatingIds::one_based : RatingIds::remap;
  if (p.has("users")) o.users = p.integer("users");
  if (p.has("items")) o.items = p.integer("items");
  o.by_timestamp = p.string("order") == "timestamp";
  o.value_scale = p.number("value_scale");
  if (p.string("split") == "chronological") {
    if (!o.by_timestamp) reject_param(p, "split", "a chronological split needs order \"timestamp\"");
    if (p.has("folds")) reject_param(p, "folds", "k-fold cross-validation deals records by a hash; it does not apply "
                                                 "to a chronological split");
    o.chronological = RatingsOptions::Chronological{p.number("validation_fraction"), p.number("test_fraction")};
  }
  auto reader = std::make_unique<RatingsReader>(file_opener(resolve_param_path(p, "file")), o);
  FileSourceConfig config = read_common_parameters(p, *op, operator_name, reader->layout());
  config.value_scale = 1.0;  // applied by the reader
  if (p.has("test_file") && o.chronological)
    reject_param(p, "test_file", "a chronological split makes its own test part (the latest ratings); give "
                                 "test_file with split \"random\"");
  // The test file is read in file order with the training file's options and id maps: an id is one
  // row or column in both.
  RatingsOptions test_options = o;
  test_options.by_timestamp = false;
  auto test_reader = make_test_reader(p, [&](const std::string& path) {
    return std::make_unique<RatingsReader>(file_opener(path), test_options, reader->id_maps());
  });
  // With a test file the two readers share live id maps, which a replayed parse would not fill: uncached.
  std::unique_ptr<RecordReader> training = std::move(reader);
  if (!test_reader) training = cache_parsed(std::move(training), parse_key(p, "ratings"));
  return std::make_unique<FileSource>("ratings", config, std::move(training), std::move(op), std::move(test_reader));
}

}  // namespace

Registration ratings_registration() {
  Registration r;
  r.kind = Kind::data_source;
  r.name = "ratings";
  r.summary = "Streams user,item,rating[,timestamp] triplets as observed matrix entries (operator entry)";
  r.citation = "Jin, Kakade & Netrapalli 2016 (online matrix completion), Section 2: observed entries P_Omega";
  r.doc_page = "docs/plugins/file_sources.md";
  Schema& s = r.schema;
  s.string("file", std::nullopt, "path of the file (gzip-compressed or plain); a non-numeric first line is a "
                                 "header").make_required();
  s.string("delimiter", kAutoDelimiter,
           "field delimiter: \"auto\" (decided on the first rating: '::', else a tab, else a comma, else blanks, "
           "as in LIBMF's 'row col value'), one character, \"tab\", \"whitespace\" (runs of spaces and tabs), or a "
           "string such as \"::\"");
  s.choice("ids", "remap", {"remap", "zero_based", "one_based"},
           "user/item ids: renumbered in order of first appearance | used as 0-based indices | 1-based");
  s.integer("users", std::nullopt, "rows d1 (default: detected); an index beyond it is an error").make_nullable()
      .at_least(1);
  s.integer("items", std::nullopt, "columns d2 (default: detected); an index beyond it is an error").make_nullable()
      .at_least(1);
  s.choice("order", "file", {"file", "timestamp"},
           "serve in file order (streaming), or by increasing timestamp (holds all triplets in memory)");
  s.number("value_scale", 1.0, "multiplies every rating");
  s.choice("split", "random", {"random", "chronological"},
           "random: each rating's part from a seeded hash; chronological (order \"timestamp\"): the earliest "
           "ratings train, then validation_fraction validate, the latest test_fraction test (ties at a boundary "
           "stay in the earlier part)");
  declare_common_parameters(s, "entry");
  declare_test_file(s);
  r.example = {{"file", "plugins/sources/examples/tiny.ratings.csv"}};
  r.factory = make_ratings;
  r.footprint = [](const Params& p, const FootprintContext& c) { return file_source_footprint(p, c, RecordShape::entries); };
  return r;
}

}  // namespace rankone::sources
