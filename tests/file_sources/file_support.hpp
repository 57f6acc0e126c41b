#pragma once
// Helpers of the file-source tests: a scratch folder the tests write their files into, gzip
// writing, and building an opened source from JSON.
#include <zlib.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "test_support.hpp"

namespace rankone::test {

/// A fresh folder under the temporary directory, removed afterwards.
struct Scratch {
  std::filesystem::path dir;
  explicit Scratch(const std::string& name)
      : dir(std::filesystem::temp_directory_path() / ("rankone_file_sources_" + name)) {
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
  }
  ~Scratch() { std::filesystem::remove_all(dir); }
  std::string write(const std::string& file, const std::string& bytes) const {
    std::ofstream(dir / file, std::ios::binary) << bytes;
    return (dir / file).string();
  }
  std::string write_gzip(const std::string& file, const std::string& bytes) const {
    const std::string path = (dir / file).string();
    gzFile out = gzopen(path.c_str(), "wb");
    gzwrite(out, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(out);
    return path;
  }
};

inline std::unique_ptr<DataSource> open_source(Json params, std::uint64_t seed = 5) {
  auto source = make<DataSource>(params, Kind::data_source);
  source->open(seed);
  return source;
}

/// Every batch of one pass, concatenated (feature designs; not for Kind::all).
inline Batch whole_pass(DataSource& s, Index batch = 7) {
  Batch out;
  for (Batch b = s.next(batch); !b.empty(); b = s.next(batch)) out.append(b);
  return out;
}

/// The ids of a batch whose responses are row ids (the files of these tests number their rows).
inline std::set<int> ids(const Batch& b) {
  std::set<int> out;
  for (Index i = 0; i < b.instances(); ++i) out.insert(static_cast<int>(b.y(i)));
  return out;
}

/// An IDX file: magic 00 00 TYPE NDIMS, big-endian sizes, payload.
inline std::string idx_file(std::uint8_t type, std::vector<std::uint32_t> dims, const std::string& payload) {
  std::string out{'\0', '\0', static_cast<char>(type), static_cast<char>(dims.size())};
  for (std::uint32_t d : dims)
    for (int shift = 24; shift >= 0; shift -= 8) out += static_cast<char>((d >> shift) & 0xFF);
  return out + payload;
}

}  // namespace rankone::test
