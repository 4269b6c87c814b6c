# cmake -P: installs BUILD_DIR into a fresh PREFIX and checks that its headers are exactly those of
# LISTED (one per line, relative to include/), and that every tfbench/ header an installed header
# includes was installed too.
cmake_minimum_required(VERSION 3.21)  # IN_LIST

file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${PREFIX}
  RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} failed (${rc})")
endif()

file(STRINGS ${LISTED} listed)
file(GLOB_RECURSE installed RELATIVE ${PREFIX}/include ${PREFIX}/include/*)
set(problems "")
foreach(header ${installed})
  if(NOT header IN_LIST listed)
    string(APPEND problems "  installed but not listed: ${header}\n")
  endif()
  file(STRINGS ${PREFIX}/include/${header} includes REGEX "^#include [\"<]tfbench/")
  foreach(line ${includes})
    string(REGEX REPLACE "^#include [\"<]([^\">]*)[\">].*" "\\1" included "${line}")
    if(NOT EXISTS ${PREFIX}/include/${included})
      string(APPEND problems "  ${header} includes ${included}, which is not installed\n")
    endif()
  endforeach()
endforeach()
foreach(header ${listed})
  if(NOT header IN_LIST installed)
    string(APPEND problems "  listed but not installed: ${header}\n")
  endif()
endforeach()
file(REMOVE_RECURSE ${PREFIX})
if(problems)
  message(FATAL_ERROR "install tree headers:\n${problems}")
endif()
list(LENGTH listed count)
message(STATUS "install tree: the ${count} listed headers and no other")
