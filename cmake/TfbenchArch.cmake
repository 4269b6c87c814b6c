# The instruction set of all measured code (engine, workloads, peers, harness): one -march for all,
# TFBENCH_ARCH = native (this host's), none (the compiler's default) or any -march= value
# (x86-64-v3, znver4, skylake-avx512, ...). Validated here; what it resolves to and which
# extensions the code then requires are recorded in every result file, and `tfbench run` refuses
# a host that lacks one (harness/src/isa/gate.cpp, docs/cli.md "Instruction set").
include(CheckCXXCompilerFlag)

set(TFBENCH_ARCH_EFFECTIVE "${TFBENCH_ARCH}")
if(TFBENCH_ARCH STREQUAL "native" AND (NOT TFBENCH_ENABLE_NATIVE OR TFBENCH_ENABLE_CUDA))
  # The old switch's OFF; and a CUDA build's host code runs on another machine than the build's.
  set(TFBENCH_ARCH_EFFECTIVE none)
endif()
if(TFBENCH_ARCH_EFFECTIVE STREQUAL "")
  message(FATAL_ERROR "TFBENCH_ARCH is empty: use native, none or a -march= value such as x86-64-v3")
endif()

set(TFBENCH_ARCH_FLAG "")
if(NOT TFBENCH_ARCH_EFFECTIVE STREQUAL "none")
  set(TFBENCH_ARCH_FLAG "-march=${TFBENCH_ARCH_EFFECTIVE}")
  string(MAKE_C_IDENTIFIER "TFBENCH_ACCEPTS_MARCH_${TFBENCH_ARCH_EFFECTIVE}" _accepted)
  check_cxx_compiler_flag("${TFBENCH_ARCH_FLAG}" ${_accepted})
  if(NOT ${_accepted})
    message(FATAL_ERROR
      "TFBENCH_ARCH=${TFBENCH_ARCH_EFFECTIVE}: ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION} rejects "
      "${TFBENCH_ARCH_FLAG}. Use native, none, or a value that `${CMAKE_CXX_COMPILER} -Q --help=target` lists "
      "under 'Known valid arguments for -march=' (e.g. x86-64-v3, znver4, skylake-avx512).")
  endif()
  target_compile_options(tfbench_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:${TFBENCH_ARCH_FLAG}>)
endif()

# What native means on this host: the -march GCC resolves it to, and a key of everything it enables.
set(TFBENCH_NATIVE_MARCH "")
set(TFBENCH_NATIVE_KEY "")
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND NOT TFBENCH_ENABLE_CUDA)
  execute_process(COMMAND ${CMAKE_CXX_COMPILER} -march=native -Q --help=target
    OUTPUT_VARIABLE _target RESULT_VARIABLE _rc ERROR_QUIET)
  if(_rc EQUAL 0 AND _target MATCHES "\n[ \t]*-march=[ \t]*([^ \t\n]+)")
    set(TFBENCH_NATIVE_MARCH "${CMAKE_MATCH_1}")
    string(SHA1 _sha "${_target}")
    string(SUBSTRING "${_sha}" 0 12 TFBENCH_NATIVE_KEY)
  endif()
endif()

set(TFBENCH_BUILD_ARCH "${TFBENCH_ARCH_EFFECTIVE}")
if(TFBENCH_ARCH_EFFECTIVE STREQUAL "native" AND TFBENCH_NATIVE_MARCH)
  set(TFBENCH_BUILD_ARCH "native (${TFBENCH_NATIVE_MARCH})")
endif()

# The build host: the CPU model as /proc/cpuinfo names it (read at every configure, which
# scripts/build.sh runs before every build).
set(TFBENCH_BUILD_HOST_CPU "unknown")
if(EXISTS /proc/cpuinfo)
  file(STRINGS /proc/cpuinfo _model REGEX "^model name" LIMIT_COUNT 1)
  if(_model MATCHES ":[ \t]*(.+)$")
    string(REGEX REPLACE "[\"\\\\]" "" TFBENCH_BUILD_HOST_CPU "${CMAKE_MATCH_1}")
  endif()
endif()
message(STATUS "tfbench: TFBENCH_ARCH=${TFBENCH_BUILD_ARCH} on ${TFBENCH_BUILD_HOST_CPU}")
