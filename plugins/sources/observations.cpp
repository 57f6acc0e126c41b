#include "observations.hpp"

#include <algorithm>

namespace rankone::sources {

bool parse_observation_line(std::string_view line, int base, std::int64_t& row, std::int64_t& label, double& answer,
                            const std::string& where, std::int64_t line_number) {
  std::string_view fields[4];
  std::size_t count = 0;
  std::string_view rest = trim(line);
  if (rest.empty()) return false;
  const auto separator = [](char c) { return c == ' ' || c == '\t' || c == ',' || c == '\r'; };
  while (!rest.empty()) {
    const auto at = static_cast<std::size_t>(std::find_if(rest.begin(), rest.end(), separator) - rest.begin());
    if (count == 3) data_error(where, line_number, "3 fields 'row label answer' (observations)", line);
    fields[count++] = rest.substr(0, at);
    rest.remove_prefix(at);
    rest.remove_prefix(static_cast<std::size_t>(std::find_if_not(rest.begin(), rest.end(), separator) - rest.begin()));
  }
  if (count != 3) data_error(where, line_number, "3 fields 'row label answer' (observations)", line);
  row = parse_integer(fields[0], where, line_number, "a row number") - base;
  label = parse_integer(fields[1], where, line_number, "a label") - base;
  answer = parse_finite(fields[2], where, line_number, "an answer (±1)");
  const std::string first = base == 1 ? "1" : "0";
  if (row < 0) data_error(where, line_number, "a row number ≥ " + first + " (observations_indexing)", fields[0]);
  if (label < 0) data_error(where, line_number, "a label ≥ " + first + " (observations_indexing)", fields[1]);
  if (answer == 0.0) data_error(where, line_number, "a nonzero answer (its sign is the bit: ±1)", fields[2]);
  return true;
}

ObservationsReader::ObservationsReader(std::unique_ptr<RecordReader> features, StreamOpener observations, int base)
    : features_(std::move(features)), observations_(std::move(observations)), base_(base) {}

void ObservationsReader::use_preparation(const DataPreparation& preparation) {
  scoring_ = true;
  features_->use_preparation(preparation);
}

void ObservationsReader::start(std::uint64_t seed) {
  if (scoring_) return features_->start(seed);
  if (!loaded_) {  // the feature file once: observations name its rows in any order
    features_->start(seed);
    Record r;
    while (features_->next(r)) {
      rows_.push_back(std::move(r));
      r = Record{};
    }
    loaded_ = true;
  }
  lines_ = std::make_unique<LineReader>(observations_());
  name_ = lines_->name();
  observations_read_ = 0;
}

bool ObservationsReader::next(Record& record) {
  if (scoring_) return features_->next(record);
  std::int64_t row = 0, label = 0;
  double answer = 0.0;
  while (lines_->next(line_)) {
    const std::int64_t line_number = lines_->line_number();
    if (!parse_observation_line(line_, base_, row, label, answer, name_, line_number)) continue;
    if (row >= static_cast<std::int64_t>(rows_.size()))
      data_error(name_, line_number,
                 "a row of " + features_->source_name() + " (" + grouped(static_cast<std::int64_t>(rows_.size())) +
                     " rows, observations_indexing " + (base_ == 1 ? "\"one\"" : "\"zero\"") + ")",
                 std::to_string(row + base_));
    const Record& features = rows_[static_cast<std::size_t>(row)];
    record.clear();
    record.feature_index = features.feature_index;
    record.feature_value = features.feature_value;
    record.number = observations_read_++;
    record.line = line_number;
    record.observed_label = label;
    record.target = answer > 0 ? 1.0 : -1.0;
    largest_label_ = std::max(largest_label_, label);
    return true;
  }
  bytes_ = lines_->bytes();
  return false;
}

RecordLayout ObservationsReader::layout() const {
  RecordLayout l = features_->layout();
  l.has_labels = true;
  return l;
}

std::uint64_t ObservationsReader::bytes_read() const { return scoring_ ? features_->bytes_read() : bytes_; }

std::string ObservationsReader::source_name() const { return scoring_ || name_.empty() ? features_->source_name() : name_; }

std::vector<std::string> ObservationsReader::notes() const {
  std::vector<std::string> notes = features_->notes();
  if (!scoring_)
    notes.push_back(name_ + ": " + grouped(observations_read_) + " one-bit observations (row label ±1) of the " +
                    grouped(static_cast<std::int64_t>(rows_.size())) + " rows of " + features_->source_name() +
                    " (observations)");
  return notes;
}

void declare_observation_parameters(Schema& s) {
  s.string("observations", std::nullopt,
           "single_label: a file of one-bit observations 'row label answer' (LEML's form: the asked label of the "
           "feature file's row and its ±1 answer), served one per measurement instead of labels drawn from the "
           "feature file; the test part is held-out observations")
      .make_nullable();
  s.choice("observations_indexing", "one", {"zero", "one"}, "row and label numbers of the observations file start at 0 or 1");
}

std::unique_ptr<RecordReader> with_observations(const Params& p, std::unique_ptr<RecordReader> features) {
  if (!p.has("observations")) return features;
  return std::make_unique<ObservationsReader>(std::move(features), file_opener(resolve_param_path(p, "observations")),
                                              p.string("observations_indexing") == "one" ? 1 : 0);
}

void check_observations(const Params& p, FileSourceConfig& config) {
  if (!p.has("observations")) return;
  if (config.classes == 0)
    reject_param(p, "observations", "observations are asked labels: they need operator \"single_label\" and classes");
  if (p.has("test_file"))
    reject_param(p, "test_file", "with " + p.path_of("observations") + " the test part is held-out observations "
                                 "(test_fraction); a test file cannot be paired with them");
  if (config.label_view != LabelView::one_bit || config.balance)
    reject_param(p, "label_view", "with " + p.path_of("observations") + " every measurement is an observation: "
                                  "label_view \"one_bit\" without balance");
  config.test_full_labels = false;  // only the observed labels of a held-out row are known
}

}  // namespace rankone::sources
