// libFuzzer target: PNG and JPEG decoding (grey and colour).
#include "fuzz_support.hpp"
#include "image_source.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  const std::string bytes = fuzz::bytes_of(data, size);
  for (bool colour : {false, true}) {
    try {
      sources::decode_image(bytes, colour, "<fuzz>");
    } catch (const InputError&) {
    }
  }
  return 0;
}
