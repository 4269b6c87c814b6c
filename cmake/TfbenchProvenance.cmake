# Build facts compiled into the binary (written into result files). The git revision is refreshed on
# every build by a script that rewrites build_info.cpp only when something changed.
set(TFBENCH_BUILD_INFO_CPP "${CMAKE_CURRENT_BINARY_DIR}/generated/build_info.cpp")
add_custom_target(tfbench_build_info_gen
  COMMAND ${CMAKE_COMMAND}
    -DSOURCE_DIR=${CMAKE_CURRENT_SOURCE_DIR}
    -DOUTPUT=${TFBENCH_BUILD_INFO_CPP}
    -DTFBENCH_VERSION=${PROJECT_VERSION}
    -DCOMPILER=${CMAKE_CXX_COMPILER_ID}\ ${CMAKE_CXX_COMPILER_VERSION}
    -DBUILD_TYPE=${CMAKE_BUILD_TYPE}
    "-DBUILD_FLAGS=${TFBENCH_BUILD_FLAGS}"
    -DKOKKOS_VERSION=${Kokkos_VERSION}
    -DKOKKOS_DIR=${Kokkos_DIR}
    -DKOKKOSKERNELS_VERSION=${KokkosKernels_VERSION}
    -P ${CMAKE_CURRENT_SOURCE_DIR}/cmake/write_build_info.cmake
  BYPRODUCTS ${TFBENCH_BUILD_INFO_CPP}
  COMMENT "tfbench: refreshing build provenance")
