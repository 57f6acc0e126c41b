#pragma once
/// \file The `.npy` format (numpy's own, version 1.0 written; 1.0 – 3.0 read): one array per file,
/// little-endian float64 ('<f8') or int64 ('<i8'), C or Fortran order. What `rankone model` writes
/// and `rankone predict` reads, so that numpy reads a model without RankOne (np.load).
#include <filesystem>

#include "rankone/core/arrays.hpp"

namespace rankone {

/// Writes `array` to `path` (atomically: a reader never sees half a file).
void write_npy(const std::filesystem::path& path, const NamedArray& array);
/// Reads an array; anything but a 1-d or 2-d '<f8' or '<i8' array is an InputError naming the file.
NamedArray read_npy(const std::filesystem::path& path);

}  // namespace rankone
