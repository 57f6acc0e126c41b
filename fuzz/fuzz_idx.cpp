// libFuzzer target: the IDX parser (header, big-endian elements of every type).
#include "fuzz_support.hpp"
#include "idx_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  try {
    sources::IdxReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), nullptr, 1.0);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
