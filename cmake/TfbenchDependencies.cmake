# Every dependency through find_package (or pkg-config where Debian ships no CMake package).

# ---- Kokkos: -DKokkos_ROOT (or a preset's), else the environment's Kokkos_ROOT (kept in the cache, so
# that a later regeneration without it keeps the same Kokkos), else the Kokkos scripts/bootstrap.sh
# built into its cache (kokkos.env, read afresh at every configure). KokkosKernels_ROOT likewise,
# defaulting to the Kokkos prefix.
function(tfbench_pick_root var out)
  get_property(_help CACHE ${var} PROPERTY HELPSTRING)
  if(${var} AND NOT _help MATCHES "kokkos.env|environment")
    set(${out} "${${var}}" PARENT_SCOPE)  # given on the command line or by a preset
  elseif(DEFINED ENV{${var}} AND NOT "$ENV{${var}}" STREQUAL "")
    set(${var} "$ENV{${var}}" CACHE PATH "install prefix (from the environment at configure time)" FORCE)
    set(${out} "$ENV{${var}}" PARENT_SCOPE)
  elseif(${var} AND _help MATCHES "environment")
    set(${out} "${${var}}" PARENT_SCOPE)  # from the environment of an earlier configure
  else()
    if(${var} AND _help MATCHES "kokkos.env")  # cached by an earlier tfbench; read kokkos.env afresh
      unset(${var} CACHE)
    endif()
    set(${out} "" PARENT_SCOPE)
  endif()
endfunction()
tfbench_pick_root(Kokkos_ROOT _tfbench_kokkos_root)
if(NOT _tfbench_kokkos_root)
  if(DEFINED ENV{TFBENCH_CACHE})
    set(_tfbench_cache "$ENV{TFBENCH_CACHE}")
  else()
    set(_tfbench_cache "$ENV{HOME}/.cache/tfbench")
  endif()
  if(EXISTS "${_tfbench_cache}/kokkos.env")
    file(STRINGS "${_tfbench_cache}/kokkos.env" _line REGEX "^TFBENCH_KOKKOS_PREFIX=")
    string(REPLACE "TFBENCH_KOKKOS_PREFIX=" "" _prefix "${_line}")
    if(EXISTS "${_prefix}")
      set(_tfbench_kokkos_root "${_prefix}")
    endif()
  endif()
endif()
tfbench_pick_root(KokkosKernels_ROOT _tfbench_kernels_root)
if(NOT _tfbench_kernels_root)
  set(_tfbench_kernels_root "${_tfbench_kokkos_root}")
endif()
# A build tree configured against another Kokkos has its Kokkos_DIR cached: find them again.
foreach(_pkg Kokkos KokkosKernels)
  if(_pkg STREQUAL "Kokkos")
    set(_root "${_tfbench_kokkos_root}")
  else()
    set(_root "${_tfbench_kernels_root}")
  endif()
  if(_root AND ${_pkg}_DIR)
    get_filename_component(_root_real "${_root}" REALPATH)
    get_filename_component(_dir_real "${${_pkg}_DIR}" REALPATH)
    string(FIND "${_dir_real}/" "${_root_real}/" _at)
    if(NOT _at EQUAL 0)
      message(STATUS "tfbench: ${_pkg} root is now ${_root}; finding ${_pkg} again (was ${${_pkg}_DIR})")
      unset(${_pkg}_DIR CACHE)
    endif()
  endif()
endforeach()
set(Kokkos_ROOT "${_tfbench_kokkos_root}")
set(KokkosKernels_ROOT "${_tfbench_kernels_root}")

# Tested: Kokkos 3.4.1 and 4.6.99 (README "Kokkos versions"). Both install AnyNewerVersion configs.
find_package(Kokkos 3.4 QUIET)
if(NOT Kokkos_FOUND)
  message(FATAL_ERROR
    "tfbench: Kokkos >= 3.4 not found. Run scripts/bootstrap.sh (it builds Kokkos 3.4.1 with OpenMP "
    "into ~/.cache/tfbench and records it), or set Kokkos_ROOT (CMake or environment variable) to the "
    "prefix of your own Kokkos.")
endif()
find_package(KokkosKernels QUIET)
if(NOT KokkosKernels_FOUND)
  message(FATAL_ERROR
    "tfbench: Kokkos Kernels not found (looked in '${KokkosKernels_ROOT}', from KokkosKernels_ROOT or "
    "else the Kokkos prefix). Set KokkosKernels_ROOT (CMake or environment variable) to its install prefix.")
endif()
if(NOT Kokkos_VERSION VERSION_EQUAL KokkosKernels_VERSION AND
   NOT (Kokkos_VERSION VERSION_GREATER_EQUAL 4 AND KokkosKernels_VERSION VERSION_GREATER_EQUAL 4))
  message(WARNING "tfbench: Kokkos ${Kokkos_VERSION} with Kokkos Kernels ${KokkosKernels_VERSION}: "
                  "Kokkos Kernels is tested with the Kokkos of its own release line.")
endif()

set(TFBENCH_REQUIRE_KOKKOS_MAJOR "" CACHE STRING "Fail unless the Kokkos found has this major version (the kokkos4 preset)")
if(TFBENCH_REQUIRE_KOKKOS_MAJOR AND NOT Kokkos_VERSION_MAJOR STREQUAL TFBENCH_REQUIRE_KOKKOS_MAJOR)
  message(FATAL_ERROR
    "tfbench: this preset needs Kokkos ${TFBENCH_REQUIRE_KOKKOS_MAJOR}.x, but found Kokkos ${Kokkos_VERSION} at "
    "'${Kokkos_DIR}'. Set Kokkos_ROOT to a Kokkos ${TFBENCH_REQUIRE_KOKKOS_MAJOR} prefix (scripts/bootstrap.sh --kokkos 4.6.99 prints one).")
endif()

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
message(STATUS "tfbench: Kokkos ${Kokkos_VERSION} at ${Kokkos_DIR}, Kokkos Kernels ${KokkosKernels_VERSION} "
               "(OpenMP=${TFBENCH_KOKKOS_HAS_OPENMP} Serial=${TFBENCH_KOKKOS_HAS_SERIAL} Cuda=${TFBENCH_KOKKOS_HAS_CUDA})")

# ---- OpenMP (the hand-written triad peer and lane bookkeeping), BLAS/LAPACK.
find_package(OpenMP REQUIRED COMPONENTS CXX)
include(TfbenchOpenMPRuntime)
include(TfbenchThreadSanitizer)
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
find_package(OpenSSL REQUIRED COMPONENTS Crypto)  # the config digest (SHA-256), libssl-dev
find_package(nlohmann_json 3 REQUIRED)  # JSON: worker protocol, params/metrics, compare, export; nlohmann-json3-dev
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
