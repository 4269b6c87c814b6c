#pragma once
// Which OpenMP runtime serves this process: a build links LLVM's libomp ahead of GCC's libgomp
// (cmake/TfbenchOpenMPRuntime.cmake), and a result file says which one its numbers ran on.

#include <string>
#include <vector>

namespace tfbench::harness {

/// The real path of the shared object that defines omp_get_max_threads in this process
/// ("/usr/lib/llvm-14/lib/libomp.so.5"); empty where it cannot be told (a static runtime).
std::string openmp_runtime_library();
/// "llvm" (libomp), "gnu" (libgomp), "intel" (libiomp5) or "" for `library` (a path or a file name).
std::string openmp_runtime_kind(const std::string& library);
/// The file names of the loaded shared objects whose file name starts with `prefix` ("libgomp").
std::vector<std::string> loaded_libraries(const std::string& prefix);

}  // namespace tfbench::harness
