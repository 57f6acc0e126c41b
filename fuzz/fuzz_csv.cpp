// libFuzzer target: the CSV parser (header, first column as label, mean imputation).
#include "csv_source.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace rankone;
  try {
    sources::CsvOptions options;
    options.label_columns = {"0"};
    options.missing = sources::CsvMissing::mean;
    sources::CsvReader reader(sources::memory_opener(fuzz::bytes_of(data, size)), options);
    fuzz::drain(reader);
  } catch (const InputError&) {
  }
  return 0;
}
