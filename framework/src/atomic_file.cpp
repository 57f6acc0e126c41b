// AtomicFile and AtomicFolder: write beside, fsync, rename.
#include "rankone/core/atomic_file.hpp"

#include <fcntl.h>
#include <stdio.h>  // renameat2
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rankone {

namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& target, const std::string& reason) {
  throw std::runtime_error("cannot write " + target.string() + ": " + reason);
}

/// A hidden name beside `target`, unique to this process.
std::filesystem::path beside(const std::filesystem::path& target, const char* what) {
  const auto folder = target.has_parent_path() ? target.parent_path() : std::filesystem::path(".");
  std::string name = target.filename().string();
  name.insert(0, 1, '.');  // hidden beside the target (GCC 12 warns falsely on "." + name)
  name.append(what).append(std::to_string(::getpid()));
  return folder / name;
}

/// fsync of a folder: its entries (the names of the files in it) reach the disk.
bool sync_folder(const std::filesystem::path& folder) {
  const int fd = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY);
  if (fd < 0) return false;
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  return synced;
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::error_code ec;
  const auto status = std::filesystem::status(target_, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    cannot_write(target_, "it exists and is not a regular file (a folder, a device or a pipe)");
  temporary_ = beside(target_, ".partial-");
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) cannot_write(target_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (committed_) return;
  out_.close();
  std::error_code ec;
  std::filesystem::remove(temporary_, ec);
}

void AtomicFile::commit() {
  out_.flush();
  const bool written = static_cast<bool>(out_);
  const int write_errno = errno;
  out_.close();
  if (!written || out_.fail()) cannot_write(target_, std::strerror(write_errno ? write_errno : EIO));
  // The data reaches the disk before the name does: a crash leaves the old file or the new one.
  const int fd = ::open(temporary_.c_str(), O_RDONLY);
  if (fd < 0 || ::fsync(fd) != 0) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    cannot_write(target_, std::strerror(e));
  }
  ::close(fd);
  if (::rename(temporary_.c_str(), target_.c_str()) != 0) cannot_write(target_, std::strerror(errno));
  committed_ = true;
}

AtomicFolder::AtomicFolder(std::filesystem::path target, const std::string& marker) : target_(std::move(target)) {
  std::error_code ec;
  const auto status = std::filesystem::status(target_, ec);
  if (std::filesystem::exists(status)) {
    if (!std::filesystem::is_directory(status)) cannot_write(target_, "it exists and is not a folder");
    if (!std::filesystem::is_empty(target_, ec) && !std::filesystem::exists(target_ / marker))
      cannot_write(target_, "it is a folder that holds no " + marker + ": only a folder of that kind is replaced");
  }
  temporary_ = beside(target_, ".partial-");
  std::filesystem::remove_all(temporary_, ec);  // left by a process of this pid that was killed
  if (!std::filesystem::create_directory(temporary_, ec)) cannot_write(target_, ec ? ec.message() : "cannot create " + temporary_.string());
}

AtomicFolder::~AtomicFolder() {
  if (committed_) return;
  std::error_code ec;
  std::filesystem::remove_all(temporary_, ec);
}

void AtomicFolder::commit() {
  if (!sync_folder(temporary_)) cannot_write(target_, std::strerror(errno));
  const auto parent = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  std::error_code ec;
  if (!std::filesystem::exists(target_, ec)) {
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) cannot_write(target_, std::strerror(errno));
  } else if (::renameat2(AT_FDCWD, temporary_.c_str(), AT_FDCWD, target_.c_str(), RENAME_EXCHANGE) == 0) {
    // One exchange: a reader sees the old folder or the new one, never neither; the old one now
    // has the hidden name.
    std::filesystem::remove_all(temporary_, ec);
  } else {
    if (errno != EINVAL && errno != ENOSYS) cannot_write(target_, std::strerror(errno));
    // A file system without exchange: the old folder moves aside first, and back on failure.
    const auto old = beside(target_, ".replaced-");
    std::filesystem::remove_all(old, ec);
    if (::rename(target_.c_str(), old.c_str()) != 0) cannot_write(target_, std::strerror(errno));
    if (::rename(temporary_.c_str(), target_.c_str()) != 0) {
      const int e = errno;
      ::rename(old.c_str(), target_.c_str());
      cannot_write(target_, std::strerror(e));
    }
    std::filesystem::remove_all(old, ec);
  }
  committed_ = true;
  sync_folder(parent);  // the new name reaches the disk
}

}  // namespace rankone
