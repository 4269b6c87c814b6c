#include "results/output_file.hpp"

#include "results/atomic_write.hpp"

#include <unistd.h>

#include <filesystem>
#include <vector>

namespace tfbench::harness::impl {
namespace {

std::string prepared_directory(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  if (target.has_parent_path()) {
    std::error_code ec;
    fs::create_directories(target.parent_path(), ec);
    if (ec)
      throw ResultsError("cannot create directory " + target.parent_path().string() + ": " + ec.message());
  }
  return path;
}

H5Handle memory_file(const std::string& path) {
  H5Handle access = h5_checked(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, "file access properties");
  // No backing store: the image is only ever written by commit().
  h5_check(H5Pset_fapl_core(access, 1 << 16, false), "in-memory file driver");
  // Close the file with its last handle, whatever else is still open.
  h5_check(H5Pset_fclose_degree(access, H5F_CLOSE_STRONG), "close degree");
  return h5_checked(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, access), H5Fclose,
                    "create " + path + " in memory");
}

}  // namespace

OutputFile::OutputFile(const std::string& path, bool overwrite, const std::string& command)
    : path_(prepared_directory(path)), overwrite_(overwrite), lock_(path, command) {
  h5_quiet();
  std::error_code ec;
  if (!overwrite && std::filesystem::exists(path, ec))
    throw ResultsError(path + " already exists (choose another output file, or pass --overwrite)");
  file_ = memory_file(path);
  if (lock_.stale_pid()) unlink(temporary_path(path, lock_.stale_pid()).c_str());  // the dead writer's
}

void OutputFile::commit() {
  h5_check(H5Fflush(file_, H5F_SCOPE_GLOBAL), "flush " + path_);
  const ssize_t size = H5Fget_file_image(file_, nullptr, 0);
  if (size < 0) throw ResultsError("image of " + path_ + ": HDF5 call failed");
  std::vector<unsigned char> image(static_cast<std::size_t>(size));
  if (H5Fget_file_image(file_, image.data(), image.size()) != size)
    throw ResultsError("image of " + path_ + ": HDF5 call failed");
  // The first commit must not clobber a file that appeared since the check (unless --overwrite);
  // later ones replace our own previous commit.
  write_file_atomically(path_, image.data(), image.size(), overwrite_ || commits_ > 0);
  ++commits_;
}

}  // namespace tfbench::harness::impl
