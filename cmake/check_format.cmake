# cmake -P script: fails when a C++ source git tracks or would add (untracked, not ignored) differs
# from .clang-format's layout, so that a new file fails here before it fails CI's fresh clone.
execute_process(COMMAND git -C "${SOURCE_DIR}" ls-files --cached --others --exclude-standard -- "*.cpp" "*.hpp" "*.h"
  OUTPUT_VARIABLE files OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  file(GLOB_RECURSE files RELATIVE "${SOURCE_DIR}" "${SOURCE_DIR}/engine/*.[ch]pp"
       "${SOURCE_DIR}/workloads/*.[ch]pp" "${SOURCE_DIR}/harness/*.[ch]pp" "${SOURCE_DIR}/tests/*.[ch]pp")
else()
  string(REPLACE "\n" ";" files "${files}")
endif()
set(bad "")
foreach(f ${files})
  execute_process(COMMAND "${CLANG_FORMAT}" --dry-run --Werror "${SOURCE_DIR}/${f}"
    RESULT_VARIABLE r OUTPUT_QUIET ERROR_QUIET)
  if(NOT r EQUAL 0)
    list(APPEND bad "${f}")
  endif()
endforeach()
if(bad)
  string(REPLACE ";" "\n  " listing "${bad}")
  message(FATAL_ERROR "clang-format would change:\n  ${listing}\nRun scripts/format.sh to fix.")
endif()
list(LENGTH files n)
message(STATUS "clang-format: ${n} files clean")
