#pragma once
/// \file The `ratings` source: `user,item,rating[,timestamp]` triplets served as matrix entries.
#include <memory>
#include <unordered_map>

#include "file_source.hpp"

namespace rankone::sources {

/// `delimiter` values with a meaning of their own: fields separated by runs of spaces and tabs, and
/// the delimiter decided on the file's first rating (a header line before it does not decide).
inline constexpr const char* kWhitespace = "whitespace";
inline constexpr const char* kAutoDelimiter = "auto";

/// The delimiter of a triplet file from a line of it: "::" if it holds one, else a tab, else a
/// comma, else kWhitespace (LIBMF's `row col value`).
std::string detect_delimiter(std::string_view line);

/// How user and item identifiers become row and column indices.
enum class RatingIds { remap, zero_based, one_based };

struct RatingsOptions {
  /// One character, a string such as "::" (MovieLens 1M), kWhitespace (runs of blanks: LIBMF), or
  /// kAutoDelimiter: decided on the file's first rating (`detect_delimiter`).
  std::string delimiter = kAutoDelimiter;
  RatingIds ids = RatingIds::remap;
  std::int64_t users = 0, items = 0;  ///< declared dimensions (0: detected)
  bool by_timestamp = false;          ///< serve in timestamp order (holds the file in memory)
  double value_scale = 1.0;
  /// Chronological split (needs by_timestamp): the earliest ratings train, the next
  /// `validation_fraction` validate, the latest `test_fraction` test. Unset: the hash split.
  struct Chronological {
    double validation_fraction = 0.0;
    double test_fraction = 0.0;
  };
  std::optional<Chronological> chronological;
};

/// The chronological parts of `count` ratings sorted by time: the boundaries of the validation and
/// test parts (positions), moved later past equal timestamps so that every rating of a part is
/// strictly later than every rating of the parts before it. `timestamps` is sorted.
struct ChronologicalBounds {
  std::size_t validation_begin = 0, test_begin = 0;
};
ChronologicalBounds chronological_bounds(const std::vector<double>& timestamps, double validation_fraction,
                                         double test_fraction);

/// One parsed triplet (identifiers as written in the file).
struct RatingLine {
  std::int64_t user = 0, item = 0;
  double rating = 0.0, timestamp = 0.0;
};

/// Parses `user<d>item<d>rating[<d>timestamp]` (`delimiter` kWhitespace: runs of blanks); false for
/// a header line (first field not an integer, on line 1 only). Throws DataError otherwise.
bool parse_rating_line(std::string_view line, std::string_view delimiter, RatingLine& out, const std::string& where,
                       std::int64_t line_number);

/// The maps from user and item ids to row and column indices (ids "remap"), shared by the reader of
/// a training file and that of its test_file, so that an id means one row or column in both.
struct RatingIdMaps {
  std::unordered_map<std::int64_t, std::int64_t> users, items;
};

class RatingsReader final : public RecordReader {
 public:
  /// `shared_ids`: the id maps of the training file's reader, for the reader of its test_file
  /// (which may add ids the training file lacks: the next indices); none: maps of its own.
  RatingsReader(StreamOpener opener, RatingsOptions options, std::shared_ptr<RatingIdMaps> shared_ids = nullptr);
  const std::shared_ptr<RatingIdMaps>& id_maps() const { return ids_; }
  void start(std::uint64_t seed) override;
  bool next(Record& record) override;
  RecordLayout layout() const override;
  std::uint64_t bytes_read() const override { return bytes_; }
  std::string source_name() const override { return name_; }
  /// The delimiter decided on the first rating, a skipped header line, remapped ids.
  std::vector<std::string> notes() const override;
  /// With ids "remap": the ids of the rows and columns, by index (row_ids, col_ids).
  void describe_preparation(DataPreparation& preparation) const override;
  /// The training file's id maps (an id the model has not seen gets the next index); file order, no
  /// chronological split.
  void use_preparation(const DataPreparation& preparation) override;

 private:
  bool read_line(Record& record);  ///< the next record in file order
  std::int64_t index_of(std::int64_t id, std::unordered_map<std::int64_t, std::int64_t>& ids, std::int64_t declared,
                        const char* what, std::int64_t line);
  StreamOpener opener_;
  RatingsOptions options_;
  std::unique_ptr<LineReader> lines_;
  std::shared_ptr<RatingIdMaps> ids_;
  std::vector<Record> sorted_;  ///< timestamp order (by_timestamp only)
  std::size_t sorted_at_ = 0;
  bool loaded_ = false;
  std::int64_t records_ = 0;
  std::uint64_t bytes_ = 0;
  std::string line_, name_;
  std::string header_;  ///< the first line, when it was not a rating and was skipped as a header
  std::string delimiter_;  ///< as given, or decided on the first rating (delimiter "auto")
  bool scoring_ = false;   ///< use_preparation: ids through a saved model's maps
};

Registration ratings_registration();

}  // namespace rankone::sources
