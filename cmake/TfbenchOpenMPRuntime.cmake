# The OpenMP runtime every tfbench program loads: tfbench::openmp_runtime (linked by the engine).
#
# GCC's -fopenmp links libgomp, whose fork-join makes two futex system calls per parallel region even
# with OMP_WAIT_POLICY=active (strace: 80000 futex calls for 40000 empty regions). On the 2-core EPYC
# VM an empty 2-thread region then costs 3.05 us (median; 1.35 us with LLVM's libomp, 0.59 us for a
# bare spin hand-off), more than the work of a 512-item batch of 8 x 8 products split over two threads
# (3.2 us), which then ran no faster than on one. LLVM's libomp also implements GCC's GOMP_* entry
# points, so the same GCC-compiled objects (Kokkos's included) run on it when it is linked ahead of
# libgomp; --as-needed then drops libgomp, and a test (openmp_runtime_test) fails if anything still
# loads it, so that two runtimes never share a process. Every peer that uses OpenMP in the worker
# runs on the same runtime.
#
#   TFBENCH_OPENMP_RUNTIME=auto      LLVM's libomp where found (Debian: libomp-dev), else the compiler's
#                          llvm      LLVM's libomp, an error where it is not found
#                          compiler  whatever -fopenmp links (libgomp with GCC)
set(TFBENCH_OPENMP_RUNTIME "auto" CACHE STRING "OpenMP runtime: auto, llvm (LLVM's libomp) or compiler")
set_property(CACHE TFBENCH_OPENMP_RUNTIME PROPERTY STRINGS auto llvm compiler)
if(NOT TFBENCH_OPENMP_RUNTIME MATCHES "^(auto|llvm|compiler)$")
  message(FATAL_ERROR "tfbench: TFBENCH_OPENMP_RUNTIME='${TFBENCH_OPENMP_RUNTIME}': expected auto, llvm or compiler")
endif()

# Debian's LLVM packages: libomp (and its tools, TfbenchThreadSanitizer.cmake's Archer) live here.
file(GLOB TFBENCH_LLVM_LIBDIRS /usr/lib/llvm-*/lib)

add_library(tfbench_openmp_runtime INTERFACE)
add_library(tfbench::openmp_runtime ALIAS tfbench_openmp_runtime)
set(TFBENCH_OPENMP_RUNTIME_USED "compiler")
if(NOT TFBENCH_OPENMP_RUNTIME STREQUAL "compiler")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    set(TFBENCH_OPENMP_RUNTIME_USED "llvm")  # clang's -fopenmp links libomp itself
  else()
    find_library(TFBENCH_LIBOMP_LIBRARY NAMES omp5 omp PATHS ${TFBENCH_LLVM_LIBDIRS})
    if(TFBENCH_LIBOMP_LIBRARY)
      set(TFBENCH_OPENMP_RUNTIME_USED "llvm")
      target_link_libraries(tfbench_openmp_runtime INTERFACE ${TFBENCH_LIBOMP_LIBRARY})
      target_link_options(tfbench_openmp_runtime INTERFACE "LINKER:--as-needed")
    elseif(TFBENCH_OPENMP_RUNTIME STREQUAL "llvm")
      message(FATAL_ERROR "tfbench: TFBENCH_OPENMP_RUNTIME=llvm but LLVM's libomp was not found: install "
                          "libomp-dev (scripts/bootstrap.sh does) or set TFBENCH_LIBOMP_LIBRARY")
    endif()
  endif()
endif()
if(TFBENCH_OPENMP_RUNTIME_USED STREQUAL "llvm" AND TFBENCH_LIBOMP_LIBRARY)
  set(_tfbench_runtime_note "; linked ahead of the compiler's: ${TFBENCH_LIBOMP_LIBRARY}")
endif()
message(STATUS "tfbench: OpenMP runtime ${TFBENCH_OPENMP_RUNTIME_USED} "
               "(TFBENCH_OPENMP_RUNTIME=${TFBENCH_OPENMP_RUNTIME}${_tfbench_runtime_note})")
