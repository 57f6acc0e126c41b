// libFuzzer target: the rating-triplet parser (remapped ids, timestamp order).
#include "fuzz_support.hpp"
#include "ratings_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  try {
    sources::RatingsOptions options;
    options.by_timestamp = size > 0 && (data[0] & 1);
    sources::RatingsReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), options);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
