#pragma once
// A result file being written (by `run` or `merge`): locked for its writer, built in memory with
// HDF5's core driver, and published whole at every commit() by write_file_atomically(). HDF5 never
// writes to the disk itself, so no failure of the disk (full, quota, I/O error) can leave a half-
// written file or crash HDF5's close path: the file on disk is always the last complete commit.

#include "results/hdf5_util.hpp"
#include "results/output_lock.hpp"

#include <string>

namespace tfbench::harness::impl {

class OutputFile {
 public:
  /// Creates the directory of `path` and takes its lock. Throws ResultsError when `path` is locked
  /// by another writer, or exists and !overwrite. Nothing is on disk before the first commit().
  OutputFile(const std::string& path, bool overwrite, const std::string& command);

  hid_t file() const { return file_; }
  const std::string& path() const { return path_; }
  /// What taking the lock had to do (a stale lock taken over); empty normally.
  const std::string& note() const { return lock_.note(); }
  /// Publishes the file as it is now; on failure the previous commit stays on disk and
  /// ResultsError names the file and the cause (ENOSPC, ...).
  void commit();
  bool committed() const { return commits_ > 0; }

 private:
  std::string path_;
  bool overwrite_;
  OutputLock lock_;
  H5Handle file_;
  std::size_t commits_ = 0;
};

}  // namespace tfbench::harness::impl
