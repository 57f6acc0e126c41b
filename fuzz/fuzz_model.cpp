// libFuzzer target: a saved model's model.json (SavedModel::read_folder) beside two valid arrays.
// The first byte picks how the rest is written: as it is (the raw reader: JSON, the checksum line,
// sizes), or, when it parses as a JSON object, with the arrays' checksums filled in and sealed as
// rankone model seals it, so that the checks behind the checksums are fuzzed too.
#include "fuzz_support.hpp"
#include "rankone/core/checksum.hpp"
#include "rankone/core/errors.hpp"
#include "rankone/store/npy.hpp"
#include "rankone/store/saved_model.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  static const std::filesystem::path folder = [] {
    const auto f = fuzz::scratch_folder() / "model";
    std::filesystem::create_directories(f);
    Matrix left(3, 2), right(3, 2);
    left << 1, 2, 3, 4, 5, 6;
    right << 0.5, -1, 2, 0.25, -3, 1;
    write_npy(f / "left.npy", NamedArray::of(left));
    write_npy(f / "right.npy", NamedArray::of(right));
    return f;
  }();
  if (size == 0) return 0;
  std::string text = fuzz::bytes_of(data + 1, size - 1);
  if (data[0] & 1) {
    Json header = Json::parse(text, nullptr, false);
    if (header.is_object()) {
      if (header.contains("arrays") && header["arrays"].is_object())
        for (auto& [name, info] : header["arrays"].items())
          if (info.is_object() && (name == "left" || name == "right")) info["checksum"] = checksum_of_file(folder / (name + ".npy"));
      header["checksum"] = "xxh3-128:" + std::string(32, '0');
      text = SavedModel::sealed(header.dump(2) + "\n");
    }
  }
  fuzz::write_file(folder / "model.json", text);
  try {
    const SavedModel m = SavedModel::read_folder(folder);
    (void)m.estimate();
    (void)m.preparation();
  } catch (const InputError&) {
  }
  return 0;
}
