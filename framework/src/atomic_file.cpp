// AtomicFile: write beside, fsync, rename.
#include "rankone/core/atomic_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace rankone {

namespace {

[[noreturn]] void cannot_write(const std::filesystem::path& target, const std::string& reason) {
  throw std::runtime_error("cannot write " + target.string() + ": " + reason);
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path target) : target_(std::move(target)) {
  std::error_code ec;
  const auto status = std::filesystem::status(target_, ec);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    cannot_write(target_, "it exists and is not a regular file (a folder, a device or a pipe)");
  const auto folder = target_.has_parent_path() ? target_.parent_path() : std::filesystem::path(".");
  std::string name = target_.filename().string();
  name.insert(0, 1, '.');  // hidden beside the target (GCC 12 warns falsely on "." + name)
  name.append(".partial-").append(std::to_string(::getpid()));
  temporary_ = folder / name;
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

}  // namespace rankone
