# One set of flags for the engine, the workloads and every peer: ratios must compare code, not compilers.
add_library(tfbench_flags INTERFACE)
add_library(tfbench::flags ALIAS tfbench_flags)
target_compile_options(tfbench_flags INTERFACE
  $<$<COMPILE_LANGUAGE:CXX>:-Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers>)
if(TFBENCH_ENABLE_NATIVE AND NOT TFBENCH_ENABLE_CUDA)
  target_compile_options(tfbench_flags INTERFACE $<$<COMPILE_LANGUAGE:CXX>:-march=native>)
endif()

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

# The flags that shape measured code, written into every result file's provenance.
string(TOUPPER "${CMAKE_BUILD_TYPE}" _bt)
set(TFBENCH_BUILD_FLAGS "${CMAKE_CXX_FLAGS} ${CMAKE_CXX_FLAGS_${_bt}}")
if(TFBENCH_ENABLE_NATIVE AND NOT TFBENCH_ENABLE_CUDA)
  string(APPEND TFBENCH_BUILD_FLAGS " -march=native")
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
endif()
