// libFuzzer target: the libsvm parser. The first byte also picks the options (index base
// automatic / 0 / 1, with or without a declared dimension), so every path is reachable.
#include "fuzz_support.hpp"
#include "libsvm_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  const std::uint8_t choice = size > 0 ? data[0] : 0;
  sources::LibsvmOptions options;
  options.indexing = choice % 3 == 0   ? sources::LibsvmIndexing::automatic
                     : choice % 3 == 1 ? sources::LibsvmIndexing::zero_based
                                       : sources::LibsvmIndexing::one_based;
  options.dimension = (choice & 8) ? 1000 : 0;
  try {
    sources::LibsvmReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), options);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
