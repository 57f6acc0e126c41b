#pragma once
/// \file Content checksums: XXH3-128, written "xxh3-128:" and 32 hex digits in xxh128sum's order
/// (`xxh128sum FILE` prints the same digits). Fingerprints plugin libraries and checks saved models.
#include <filesystem>
#include <string>
#include <string_view>

namespace rankone {

/// The checksum of `bytes`.
std::string checksum_of(std::string_view bytes);
/// The checksum of a file's contents; std::runtime_error naming it when it cannot be read.
std::string checksum_of_file(const std::filesystem::path& file);
/// Characters in a checksum: the "xxh3-128:" prefix and 32 hex digits.
constexpr std::size_t kChecksumLength = 9 + 32;

}  // namespace rankone
