#pragma once
// Replacing a file whole: readers, a crash and a full disk see either the old file or the new one,
// never a mix of both.

#include <cstddef>
#include <optional>
#include <string>

namespace tfbench::harness::impl {

/// "No space left on device (ENOSPC)": the message and the name of an errno value.
std::string errno_text(int error);

/// Where the process `pid` writes the next version of `path`: beside it, so that rename() is atomic.
std::string temporary_path(const std::string& path, long pid);

/// Writes `size` bytes to temporary_path(path, getpid()), syncs them to disk, and renames the file
/// over `path`; with `replace` false it is linked to `path` only if `path` does not exist yet (an
/// existing file is not clobbered). On failure the temporary file is removed, `path` is unchanged, and
/// ResultsWriteError names `path` and the cause.
void write_file_atomically(const std::string& path, const void* data, std::size_t size, bool replace);

/// write_file_atomically(path, text, replace) after creating the directories above `path` (the
/// per-user caches: tuning and ceilings files); std::runtime_error names a directory that cannot be made.
void write_file_creating_directories(const std::string& path, const std::string& text);

/// The whole file, or nothing when it cannot be opened.
std::optional<std::string> read_whole_file(const std::string& path);

}  // namespace tfbench::harness::impl
