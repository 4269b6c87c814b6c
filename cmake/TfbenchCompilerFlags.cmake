# One set of flags for the engine, the workloads and every peer: ratios must compare code, not compilers.
add_library(tfbench_flags INTERFACE)
add_library(tfbench::flags ALIAS tfbench_flags)
target_compile_options(tfbench_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)
include(TfbenchArch)

# Every loop starts a 64-byte line (an op-cache line on Zen, a fetch block on Intel). Otherwise a change
# anywhere in a file can move a hot loop of a few instructions across a line and change its speed
# with no change to its instructions: the flat axpby loop of a 1024-element chain ran 1.5x slower
# after a refactor moved it from offset 0x00 to 0x30 of its line (docs/workloads.md, "Measured
# targets"). Aligned, a timing compares code rather than where the linker happened to put it.
# Sanitizer builds are never timed and keep their code layout.
include(CheckCXXCompilerFlag)
check_cxx_compiler_flag(-falign-loops=64 TFBENCH_HAVE_ALIGN_LOOPS)
set(TFBENCH_ALIGN_LOOPS OFF)
if(TFBENCH_HAVE_ALIGN_LOOPS AND NOT TFBENCH_ENABLE_CUDA AND NOT TFBENCH_SANITIZE)
  set(TFBENCH_ALIGN_LOOPS ON)
  target_compile_options(tfbench_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-falign-loops=64>)
endif()

set(TFBENCH_SANITIZE_FLAGS "")
if(TFBENCH_SANITIZE)
  string(REPLACE ";" "," _san "${TFBENCH_SANITIZE}")
  set(TFBENCH_SANITIZE_FLAGS "-fsanitize=${_san};-fno-omit-frame-pointer;-fno-sanitize-recover=all")
  target_compile_options(tfbench_flags INTERFACE ${TFBENCH_SANITIZE_FLAGS})
  target_link_options(tfbench_flags INTERFACE ${TFBENCH_SANITIZE_FLAGS})
endif()
# GCC 12's -Wmaybe-uninitialized under ThreadSanitizer's instrumentation reports the inactive
# alternatives of std::variant moves (HostStorage's allocation, std::function's members): 163 warnings
# a tsan build, none for the same files at the same -O1 without -fsanitize=thread or with
# -fsanitize=address,undefined (contraction_tuner.cpp: 6, 0 and 0). The other builds keep the warning.
if("thread" IN_LIST TFBENCH_SANITIZE AND CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  target_compile_options(tfbench_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-Wno-maybe-uninitialized>)
endif()

# The flags that shape measured code, written into every result file's provenance.
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
set(TFBENCH_BUILD_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_bt}}")
if(TFBENCH_ARCH_FLAG)
  string(APPEND TFBENCH_BUILD_FLAGS " ${TFBENCH_ARCH_FLAG}")
endif()
if(TFBENCH_ALIGN_LOOPS)
  string(APPEND TFBENCH_BUILD_FLAGS " -falign-loops=64")
endif()
if(TFBENCH_SANITIZE)
  string(APPEND TFBENCH_BUILD_FLAGS " -fsanitize=${_san}")
endif()
string(STRIP "${TFBENCH_BUILD_FLAGS}" TFBENCH_BUILD_FLAGS)

find_program(TFBENCH_CCACHE ccache)
if(TFBENCH_CCACHE AND NOT CMAKE_CXX_COMPILER_LAUNCHER)
  set(CMAKE_CXX_COMPILER_LAUNCHER "${TFBENCH_CCACHE}")
  set(CMAKE_C_COMPILER_LAUNCHER "${TFBENCH_CCACHE}")
  if(TFBENCH_CCACHE_PER_CPU AND TFBENCH_ARCH_EFFECTIVE STREQUAL "native" AND TFBENCH_NATIVE_KEY)
    # -march=native reads the same on every CPU, so a cache shared by hosts of two CPU types (a home
    # directory on a cluster) would hand one host's objects to the other: SIGILL or mistuned code
    # (ccache issue 824). A namespace per native resolution keeps them apart; a changed one changes
    # every compile command, so a build tree configured again on another CPU type rebuilds too.
    # Off by default: turning it on starts a cache afresh.
    set(CMAKE_CXX_COMPILER_LAUNCHER
        "${CMAKE_COMMAND};-E;env;CCACHE_NAMESPACE=tfbench-native-${TFBENCH_NATIVE_KEY};${TFBENCH_CCACHE}")
  endif()
endif()
