# Installable, exported package: find_package(tfbench) gives tfbench::engine and tfbench::workloads.
include(CMakePackageConfigHelpers)
include(GNUInstallDirs)
install(TARGETS tfbench_engine tfbench_workloads tfbench_flags tfbench_blas tfbench_openmp_runtime EXPORT tfbenchTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS tfbench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# Headers: the explicit lists of engine/ and workloads/ (cmake/TfbenchHeaders.cmake).
install(EXPORT tfbenchTargets NAMESPACE tfbench:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfbench)
configure_package_config_file(cmake/tfbenchConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/tfbenchConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfbench)
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/tfbenchConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/tfbenchConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/tfbenchConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/tfbench)
