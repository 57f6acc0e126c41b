// Shared by the fuzz targets: drain a reader over in-memory bytes. Malformed input must end in a
// rankone::InputError (DataError); anything else — a crash, a sanitizer report, another exception,
// a hang — is a bug the fuzzer reports.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "file_source.hpp"

namespace rankone::fuzz {

/// Reads every record of two passes (the second checks that start() resets the reader).
inline void drain(sources::RecordReader& reader) {
  sources::Record record;
  for (int pass = 0; pass < 2; ++pass) {
    reader.start(7);
    for (int n = 0; reader.next(record) && n < 1000000; ++n) {
    }
  }
}

inline std::string bytes_of(const std::uint8_t* data, std::size_t size) {
  return std::string(reinterpret_cast<const char*>(data), size);
}

/// A folder of this process for the targets that read files (the saved-model readers take paths).
inline const std::filesystem::path& scratch_folder() {
  static const std::filesystem::path folder = [] {
    auto f = std::filesystem::temp_directory_path() / ("rankone-fuzz-" + std::to_string(::getpid()));
    std::filesystem::create_directories(f);
    return f;
  }();
  return folder;
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace rankone::fuzz
