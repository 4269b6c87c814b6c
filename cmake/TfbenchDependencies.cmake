# Every dependency through find_package (or pkg-config where Debian ships no CMake package).

# ---- Kokkos: the user's (Kokkos_ROOT) or the one scripts/bootstrap.sh built into its cache.
if(NOT Kokkos_ROOT AND NOT DEFINED ENV{Kokkos_ROOT})
  if(DEFINED ENV{TFBENCH_CACHE})
    set(_tfbench_cache "$ENV{TFBENCH_CACHE}")
  else()
    set(_tfbench_cache "$ENV{HOME}/.cache/tfbench")
  endif()
  if(EXISTS "${_tfbench_cache}/kokkos.env")
    file(STRINGS "${_tfbench_cache}/kokkos.env" _line REGEX "^TFBENCH_KOKKOS_PREFIX=")
    string(REPLACE "TFBENCH_KOKKOS_PREFIX=" "" _prefix "${_line}")
    if(EXISTS "${_prefix}")
      set(Kokkos_ROOT "${_prefix}" CACHE PATH "Kokkos install prefix (from ${_tfbench_cache}/kokkos.env)")
    endif()
  endif()
endif()
if(Kokkos_ROOT AND NOT KokkosKernels_ROOT)
  set(KokkosKernels_ROOT "${Kokkos_ROOT}" CACHE PATH "Kokkos Kernels install prefix")
endif()

find_package(Kokkos 3.4 QUIET)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR
    "tfbench: Kokkos >= 3.4 not found. Run scripts/bootstrap.sh (it builds Kokkos 3.4.1 with OpenMP "
    "into ~/.cache/tfbench and records it), or pass -DKokkos_ROOT=<prefix> of your own Kokkos.")
endif()
find_package(KokkosKernels REQUIRED)

kokkos_check(DEVICES OpenMP RETURN_VALUE TFBENCH_KOKKOS_HAS_OPENMP)
kokkos_check(DEVICES Serial RETURN_VALUE TFBENCH_KOKKOS_HAS_SERIAL)
kokkos_check(DEVICES Cuda RETURN_VALUE TFBENCH_KOKKOS_HAS_CUDA)
if(TFBENCH_ENABLE_OPENMP AND NOT TFBENCH_KOKKOS_HAS_OPENMP)
  message(FATAL_ERROR
    "tfbench: the Kokkos found at '${Kokkos_DIR}' has no OpenMP execution space (Debian's Trilinos "
    "Kokkos is Serial-only). Use scripts/bootstrap.sh's Kokkos, point Kokkos_ROOT at an OpenMP-enabled "
    "Kokkos, or configure with -DTFBENCH_ENABLE_OPENMP=OFF for a Serial-only build.")
endif()
if(TFBENCH_ENABLE_CUDA AND NOT TFBENCH_KOKKOS_HAS_CUDA)
  message(FATAL_ERROR "tfbench: TFBENCH_ENABLE_CUDA=ON but the Kokkos at '${Kokkos_DIR}' has no Cuda space.")
endif()
message(STATUS "tfbench: Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR} "
               "(OpenMP=${TFBENCH_KOKKOS_HAS_OPENMP} Serial=${TFBENCH_KOKKOS_HAS_SERIAL} Cuda=${TFBENCH_KOKKOS_HAS_CUDA})")

# ---- OpenMP (the hand-written triad peer and lane bookkeeping), BLAS/LAPACK.
find_package(OpenMP REQUIRED COMPONENTS CXX)
find_library(TFBENCH_OPENBLAS_LIBRARY NAMES openblas
  PATHS /usr/lib/x86_64-linux-gnu/openblas-pthread /usr/lib/aarch64-linux-gnu/openblas-pthread
  PATH_SUFFIXES openblas-pthread)
find_path(TFBENCH_CBLAS_INCLUDE_DIR NAMES cblas.h
  PATHS /usr/include/x86_64-linux-gnu/openblas-pthread /usr/include/aarch64-linux-gnu/openblas-pthread
  PATH_SUFFIXES openblas-pthread openblas)
find_library(TFBENCH_LAPACKE_LIBRARY NAMES lapacke)
find_path(TFBENCH_LAPACKE_INCLUDE_DIR NAMES lapacke.h)
foreach(_v TFBENCH_OPENBLAS_LIBRARY TFBENCH_CBLAS_INCLUDE_DIR TFBENCH_LAPACKE_LIBRARY TFBENCH_LAPACKE_INCLUDE_DIR)
  if(NOT ${_v})
    message(FATAL_ERROR "tfbench: ${_v} not found: install libopenblas-dev and liblapacke-dev (scripts/bootstrap.sh does).")
  endif()
endforeach()
add_library(tfbench_blas INTERFACE)
add_library(tfbench::blas ALIAS tfbench_blas)
target_include_directories(tfbench_blas SYSTEM INTERFACE ${TFBENCH_CBLAS_INCLUDE_DIR} ${TFBENCH_LAPACKE_INCLUDE_DIR})
target_link_libraries(tfbench_blas INTERFACE ${TFBENCH_LAPACKE_LIBRARY} ${TFBENCH_OPENBLAS_LIBRARY})

# ---- Harness and test dependencies.
find_package(yaml-cpp REQUIRED)
find_package(CLI11 REQUIRED)
find_package(benchmark REQUIRED)
find_package(HDF5 REQUIRED COMPONENTS C)
if(TFBENCH_ENABLE_TESTS)
  find_package(Catch2 2 REQUIRED)
endif()

# ---- Peers and providers.
find_package(PkgConfig REQUIRED)
if(TFBENCH_ENABLE_LIBXSMM)
  pkg_check_modules(LIBXSMM IMPORTED_TARGET libxsmm)
  if(NOT LIBXSMM_FOUND)
    message(FATAL_ERROR "tfbench: libxsmm not found (libxsmm-dev); or configure with -DTFBENCH_ENABLE_LIBXSMM=OFF.")
  endif()
endif()
if(TFBENCH_ENABLE_EIGEN)
  find_package(Eigen3 3.3 REQUIRED NO_MODULE)
endif()
