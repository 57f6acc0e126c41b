#pragma once
/// \file Files written whole or not at all: to a temporary file beside the target, checked,
/// flushed to disk and renamed over it. A reader never sees half a file, and a failed write
/// (full disk, no permission, a target that is not a regular file) leaves the old one untouched.
#include <filesystem>
#include <fstream>
#include <string>

namespace rankone {

class AtomicFile {
 public:
  /// Opens the temporary file. Throws std::runtime_error naming the target and the system's reason
  /// when the target exists and is not a regular file, or the folder cannot be written.
  explicit AtomicFile(std::filesystem::path target);
  /// Removes the temporary file unless committed.
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  /// Flushes, syncs and renames the file into place; throws (naming the target) when any write failed.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

}  // namespace rankone
