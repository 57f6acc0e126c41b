// libFuzzer target: the libsvm parser (automatic index base, no declared dimension).
#include "fuzz_support.hpp"
#include "libsvm_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  try {
    sources::LibsvmReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), {});
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
