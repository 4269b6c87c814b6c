// The OpenMP runtime the programs load is the one the build chose (cmake/TfbenchOpenMPRuntime.cmake)
// and the only one in the process: GCC's objects call GOMP_* entry points that LLVM's libomp also
// defines, so a link that lists libgomp first, or anything that pulls it in beside libomp, would run
// on libgomp silently, or on both.

#include <omp.h>
#include <catch2/catch.hpp>

#include <atomic>
#include <string>

#include "tfbench/harness/openmp_runtime.hpp"

using namespace tfbench::harness;

#ifndef TFBENCH_OPENMP_RUNTIME_LINKED
#error "tests/harness/CMakeLists.txt defines TFBENCH_OPENMP_RUNTIME_LINKED (llvm or compiler)"
#endif

TEST_CASE("openmp_runtime_kind names the runtime of a library path", "[openmp]") {
  CHECK(openmp_runtime_kind("/usr/lib/llvm-14/lib/libomp.so.5") == "llvm");
  CHECK(openmp_runtime_kind("libomp.so") == "llvm");
  CHECK(openmp_runtime_kind("/usr/lib/x86_64-linux-gnu/libgomp.so.1.0.0") == "gnu");
  CHECK(openmp_runtime_kind("/opt/intel/lib/libiomp5.so") == "intel");
  CHECK(openmp_runtime_kind("/usr/lib/libgompx/libfoo.so") == "");
  CHECK(openmp_runtime_kind("") == "");
}

TEST_CASE("the process runs on the OpenMP runtime the build linked, and on no other", "[openmp]") {
  const std::string linked = TFBENCH_OPENMP_RUNTIME_LINKED;
  const std::string library = openmp_runtime_library();
  INFO("build: " << linked << "; omp_get_max_threads from: '" << library << "'");
  REQUIRE_FALSE(library.empty());
  if (linked == "llvm") {
    CHECK(openmp_runtime_kind(library) == "llvm");
    CHECK(loaded_libraries("libgomp").empty());
  } else {
#if defined(__GNUC__) && !defined(__clang__)
    CHECK(openmp_runtime_kind(library) == "gnu");
#endif
  }
  CHECK(loaded_libraries(library.substr(library.rfind('/') + 1)).size() == 1);
}

TEST_CASE("a parallel region of the linked runtime runs its threads", "[openmp]") {
  std::atomic<int> seen{0};
  int team = 0;
#pragma omp parallel num_threads(2)
  {
    seen.fetch_or(1 << omp_get_thread_num());
#pragma omp single
    team = omp_get_num_threads();
  }
  CHECK(team == 2);
  CHECK(seen.load() == 3);
}
