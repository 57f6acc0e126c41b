#pragma once
/// \file Files written whole or not at all: to a temporary file beside the target, checked,
/// flushed to disk and renamed over it. A reader never sees half a file, and a failed write
/// (full disk, no permission, a target that is not a regular file) leaves the old one untouched.
/// Folders the same way: AtomicFolder.
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

/// A folder written whole or not at all: its files are written into a hidden folder beside the
/// target, synced, and that folder takes the target's place in one rename (an exchange when the
/// target exists, whose old contents are then removed). Any failure leaves the old folder as it was.
class AtomicFolder {
 public:
  /// Creates the hidden folder. Throws std::runtime_error naming the target when it exists and is
  /// not a folder, or is a folder that is neither empty nor holds `marker` (a folder of something
  /// else is never replaced), or the parent cannot be written.
  AtomicFolder(std::filesystem::path target, const std::string& marker);
  /// Removes the hidden folder unless committed.
  ~AtomicFolder();
  AtomicFolder(const AtomicFolder&) = delete;
  AtomicFolder& operator=(const AtomicFolder&) = delete;

  /// Where to write the folder's files (each with AtomicFile, which syncs it).
  const std::filesystem::path& path() const { return temporary_; }
  /// Syncs the folder and puts it in the target's place; throws (naming the target) on failure.
  void commit();

 private:
  std::filesystem::path target_;
  std::filesystem::path temporary_;
  bool committed_ = false;
};

}  // namespace rankone
