// libFuzzer target: the CSV parser (quoting, column selection, missing values). The first byte
// also picks the options: missing-value policy, header or not, one label column or a multi-label set.
#include "csv_source.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  const std::uint8_t choice = size > 0 ? data[0] : 0;
  sources::CsvOptions options;
  options.missing = static_cast<sources::CsvMissing>(choice % 4);  // error, skip, zero, mean
  options.header = !(choice & 4);
  options.label_columns = (choice & 8) ? std::vector<std::string>{"0", "2"} : std::vector<std::string>{"0"};
  if (choice & 16) options.delimiter = ';';
  try {
    sources::CsvReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), options);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
