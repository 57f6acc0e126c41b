// Content checksums (XXH3-128).
#include "rankone/core/checksum.hpp"

#include <xxhash.h>

#include <cstdio>
#include <fstream>
#include <memory>
#include <stdexcept>
#include <vector>

namespace rankone {

namespace {

std::string written(const XXH128_hash_t h) {
  char text[40];
  std::snprintf(text, sizeof text, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return std::string("xxh3-128:") + text;
}

}  // namespace

std::string checksum_of(std::string_view bytes) { return written(XXH3_128bits(bytes.data(), bytes.size())); }

std::string checksum_of_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + file.string() + " to checksum it");
  const std::unique_ptr<XXH3_state_t, decltype(&XXH3_freeState)> state(XXH3_createState(), &XXH3_freeState);
  XXH3_128bits_reset(state.get());
  std::vector<char> buffer(1 << 16);  // under malloc's mmap threshold: no fresh pages to fault in per file
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    XXH3_128bits_update(state.get(), buffer.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw std::runtime_error("cannot read " + file.string() + " to checksum it");
  return written(XXH3_128bits_digest(state.get()));
}

}  // namespace rankone
