// libFuzzer target: the .npy reader (magic, version, the header dictionary scanned without
// recursion, shape, data length against the file) over a file of the input's bytes.
#include "fuzz_support.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/store/npy.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  static const std::filesystem::path file = fuzz::scratch_folder() / "array.npy";
  fuzz::write_file(file, fuzz::bytes_of(data, size));
  try {
    const NamedArray a = read_npy(file);
    if (a.elements() != static_cast<std::int64_t>(a.integral ? a.integers.size() : a.reals.size())) __builtin_trap();
  } catch (const InputError&) {
  }
  return 0;
}
