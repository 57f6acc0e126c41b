// libFuzzer target: the rating-triplet parser. The first byte also picks the options: file or
// timestamp order, remapped / 0-based / 1-based ids, the delimiter (auto, ',', '::' or blanks),
// declared dimensions.
#include "fuzz_support.hpp"
#include "ratings_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  const std::uint8_t choice = size > 0 ? data[0] : 0;
  sources::RatingsOptions options;
  options.by_timestamp = choice & 1;
  options.ids = static_cast<sources::RatingIds>((choice >> 1) % 3);  // remap, zero_based, one_based
  const char* const delimiters[] = {sources::kAutoDelimiter, ",", "::", sources::kWhitespace};
  options.delimiter = delimiters[(choice >> 3) & 3];
  if (choice & 32) options.users = options.items = 100;
  try {
    sources::RatingsReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), options);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
