# cmake -P script (CTest arch_configure): TFBENCH_ARCH=x86-64-v2 configures and builds the small
# tfbench_isa library, whose required list is then the extensions of x86-64-v2 and no more; a value
# the compiler rejects fails at configure time with a message that names it; the old
# TFBENCH_ENABLE_NATIVE=OFF still means none.
# Arguments: -DSOURCE_DIR= -DWORK_DIR= -DKOKKOS_ROOT= -DGENERATOR=
function(configure dir arch out_rc out_text)
  execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${dir} -G ${GENERATOR}
                          -DCMAKE_BUILD_TYPE=Release -DTFBENCH_ARCH=${arch} -DTFBENCH_ENABLE_TESTS=OFF
                          -DKokkos_ROOT=${KOKKOS_ROOT} ${ARGN}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  set(${out_rc} ${rc} PARENT_SCOPE)
  set(${out_text} "${text}" PARENT_SCOPE)
endfunction()

configure(${WORK_DIR}/bogus not-a-cpu rc text)
if(rc EQUAL 0 OR NOT text MATCHES "TFBENCH_ARCH=not-a-cpu: .* rejects -march=not-a-cpu")
  message(FATAL_ERROR "TFBENCH_ARCH=not-a-cpu: expected a configure error naming it, got ${rc}:\n${text}")
endif()

configure(${WORK_DIR}/alias native rc text -DTFBENCH_ENABLE_NATIVE=OFF)
if(NOT rc EQUAL 0 OR NOT text MATCHES "TFBENCH_ARCH=none on ")
  message(FATAL_ERROR "TFBENCH_ENABLE_NATIVE=OFF: expected TFBENCH_ARCH=none, got ${rc}:\n${text}")
endif()

configure(${WORK_DIR}/v2 x86-64-v2 rc text)
if(NOT rc EQUAL 0 OR NOT text MATCHES "TFBENCH_ARCH=x86-64-v2 on ")
  message(FATAL_ERROR "TFBENCH_ARCH=x86-64-v2 does not configure (${rc}):\n${text}")
endif()
# The required list of a build tree's tfbench_isa (its first extension is sse3 on every x86-64-v2).
function(required_of dir out)
  execute_process(COMMAND ${CMAKE_COMMAND} --build ${dir} --target tfbench_isa
                  RESULT_VARIABLE rc OUTPUT_VARIABLE text ERROR_VARIABLE text)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${dir}: tfbench_isa does not build:\n${text}")
  endif()
  file(GLOB_RECURSE object ${dir}/harness/*required.cpp.o)
  file(STRINGS "${object}" required REGEX "^sse3,")
  set(${out} "${required}" PARENT_SCOPE)
endfunction()
required_of(${WORK_DIR}/v2 required)
if(NOT required STREQUAL "sse3,ssse3,sse4.1,sse4.2,popcnt,")
  message(FATAL_ERROR "TFBENCH_ARCH=x86-64-v2 requires '${required}', expected the x86-64-v2 set")
endif()
required_of(${WORK_DIR}/alias baseline)
if(NOT baseline STREQUAL "")
  message(FATAL_ERROR "TFBENCH_ARCH=none requires '${baseline}', expected nothing beyond x86-64")
endif()
message(STATUS "x86-64-v2 requires ${required}; not-a-cpu is rejected at configure time; TFBENCH_ENABLE_NATIVE=OFF is none")
