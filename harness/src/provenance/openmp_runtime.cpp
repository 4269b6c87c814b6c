#include "tfbench/harness/openmp_runtime.hpp"

#include <dlfcn.h>
#include <link.h>
#include <omp.h>

#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

namespace tfbench::harness {
namespace {

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

std::string real_path(const char* path) {
  std::error_code ec;
  const auto real = std::filesystem::canonical(path, ec);
  return ec ? std::string(path) : real.string();
}

}  // namespace

std::string openmp_runtime_library() {
  Dl_info info{};
  // The definition the dynamic linker bound this call to, not whichever runtime is merely loaded.
  if (dladdr(reinterpret_cast<void*>(&omp_get_max_threads), &info) == 0 || !info.dli_fname) return "";
  const std::string self = real_path("/proc/self/exe");
  const std::string path = real_path(info.dli_fname);
  return path == self ? "" : path;
}

std::string openmp_runtime_kind(const std::string& library) {
  const std::string name = file_name(library);
  if (name.rfind("libomp", 0) == 0) return "llvm";
  if (name.rfind("libgomp", 0) == 0) return "gnu";
  if (name.rfind("libiomp", 0) == 0) return "intel";
  return "";
}

std::vector<std::string> loaded_libraries(const std::string& prefix) {
  struct Search {
    const std::string* prefix;
    std::vector<std::string> found;
  } search{&prefix, {}};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        const std::string name = file_name(info->dlpi_name ? info->dlpi_name : "");
        if (!name.empty() && name.rfind(*s->prefix, 0) == 0) s->found.push_back(name);
        return 0;
      },
      &search);
  return search.found;
}

}  // namespace tfbench::harness
