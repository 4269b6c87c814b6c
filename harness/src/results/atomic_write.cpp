#include "results/atomic_write.hpp"

#include "tfbench/harness/results.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace tfbench::harness::impl {

std::string errno_text(int error) {
  std::string out = std::strerror(error);
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
  if (const char* name = strerrorname_np(error)) out += std::string(" (") + name + ")";
#endif
  return out;
}

std::string temporary_path(const std::string& path, long pid) {
  return path + ".tmp-" + std::to_string(pid);
}

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& temporary, const std::string& what,
                       int error) {
  unlink(temporary.c_str());
  throw ResultsWriteError("cannot write " + path + ": " + what + errno_text(error));
}

/// Returns 0 or the errno of the failed write.
int write_all(int fd, const unsigned char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return errno;
    if (n == 0) return ENOSPC;  // a regular file that takes no byte is full
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return 0;
}

/// Makes the rename itself durable; a directory that cannot be synced (some network filesystems)
/// still holds the renamed file.
void sync_directory(const std::string& path) {
  const std::filesystem::path parent = std::filesystem::path(path).parent_path();
  const int fd = open(parent.empty() ? "." : parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;
  fsync(fd);
  close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, const void* data, std::size_t size, bool replace) {
  const std::string temporary = temporary_path(path, getpid());
  unlink(temporary.c_str());  // left by an earlier process with our pid
  const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, temporary, "", errno);
  int error = write_all(fd, static_cast<const unsigned char*>(data), size);
  // A full disk may show only here: delayed allocation (ext4, XFS) and NFS report it on fsync/close.
  if (error == 0 && fsync(fd) != 0) error = errno;
  if (close(fd) != 0 && error == 0) error = errno;
  if (error != 0) fail(path, temporary, "", error);
  if (replace) {
    if (rename(temporary.c_str(), path.c_str()) != 0) fail(path, temporary, "", errno);
  } else if (link(temporary.c_str(), path.c_str()) == 0) {
    unlink(temporary.c_str());
  } else if (errno == EEXIST) {
    fail(path, temporary, "it appeared meanwhile and is not replaced: ", EEXIST);
  } else {
    // No hard links here (some FUSE and SMB mounts): the writer's lock already keeps other
    // tfbench writers away, so check and rename.
    std::error_code ec;
    if (std::filesystem::exists(path, ec)) fail(path, temporary, "it appeared meanwhile: ", EEXIST);
    if (rename(temporary.c_str(), path.c_str()) != 0) fail(path, temporary, "", errno);
  }
  sync_directory(path);
}

void write_file_creating_directories(const std::string& path, const std::string& text) {
  const auto parent = std::filesystem::path(path).parent_path();
  std::error_code ec;
  if (!parent.empty()) std::filesystem::create_directories(parent, ec);
  if (ec) throw std::runtime_error(path + ": cannot create its directory: " + ec.message());
  write_file_atomically(path, text.data(), text.size(), true);
}

std::optional<std::string> read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace tfbench::harness::impl
