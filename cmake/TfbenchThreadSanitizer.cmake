# ThreadSanitizer builds (TFBENCH_SANITIZE=thread, the tsan preset): the environment every test runs in,
# TFBENCH_TSAN_TEST_ENVIRONMENT (tests/CMakeLists.txt adds it to each test).
#
# ThreadSanitizer sees synchronization only in instrumented code and in the calls it intercepts. An
# OpenMP runtime is neither: its fork, join and barriers hand work over through spinning flags, so a
# lane reading the data its caller wrote before the parallel region, or the caller reading what the
# lanes wrote after it, reads as a race. With OMP_WAIT_POLICY=active and no tool, part of one run of
# the batched tests drew over 500 such reports (2026-12-07). LLVM's libomp answers this with Archer,
# its OMPT tool (libarcher.so, in Debian's libomp-dev beside libomp): loaded through
# OMP_TOOL_LIBRARIES it tells ThreadSanitizer the happens-before edges of every parallel region,
# barrier, task and lock, so no report needs suppressing and a race inside a region is still
# reported (tsan_canary tests both).
# So a thread-sanitized build links LLVM's libomp (as the other builds do) and loads Archer.
# ignore_noninstrumented_modules: the runtime's own calls to intercepted functions (its mutexes and
# allocations) are not the program's accesses.
set(TFBENCH_TSAN_TEST_ENVIRONMENT "")
if("thread" IN_LIST TFBENCH_SANITIZE)
  if(NOT TFBENCH_OPENMP_RUNTIME_USED STREQUAL "llvm")
    message(FATAL_ERROR "tfbench: TFBENCH_SANITIZE=thread needs LLVM's libomp and its Archer tool "
                        "(TFBENCH_OPENMP_RUNTIME=auto or llvm, and libomp-dev installed: scripts/bootstrap.sh "
                        "does); this build uses the ${TFBENCH_OPENMP_RUNTIME_USED} runtime")
  endif()
  set(_tfbench_archer_dirs "")
  if(TFBENCH_LIBOMP_LIBRARY)
    get_filename_component(_tfbench_libomp_real "${TFBENCH_LIBOMP_LIBRARY}" REALPATH)
    get_filename_component(_tfbench_libomp_dir "${_tfbench_libomp_real}" DIRECTORY)
    list(APPEND _tfbench_archer_dirs "${_tfbench_libomp_dir}")
  endif()
  list(APPEND _tfbench_archer_dirs ${TFBENCH_LLVM_LIBDIRS})
  find_library(TFBENCH_ARCHER_LIBRARY NAMES archer PATHS ${_tfbench_archer_dirs} NO_DEFAULT_PATH)
  if(NOT TFBENCH_ARCHER_LIBRARY)
    message(FATAL_ERROR "tfbench: TFBENCH_SANITIZE=thread: LLVM's Archer (libarcher.so) was not found beside "
                        "libomp (searched ${_tfbench_archer_dirs}): install libomp-dev or set "
                        "TFBENCH_ARCHER_LIBRARY")
  endif()
  set(TFBENCH_TSAN_TEST_ENVIRONMENT
      "OMP_TOOL_LIBRARIES=${TFBENCH_ARCHER_LIBRARY}"
      "TSAN_OPTIONS=ignore_noninstrumented_modules=1 halt_on_error=1 second_deadlock_stack=1")
  message(STATUS "tfbench: ThreadSanitizer with LLVM's Archer for OpenMP: ${TFBENCH_ARCHER_LIBRARY}")
endif()
