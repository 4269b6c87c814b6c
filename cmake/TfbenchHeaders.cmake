# Public headers are listed, not globbed (Cabana's way): only a listed header is installed, and
# tests/headers checks that each compiles on its own and that the install tree holds no other.
include(GNUInstallDirs)

# tfbench_public_headers(<include dir> <prefix> <header>...): installs <include dir>/<prefix>/<header>
# at include/<prefix>/<header> and records "<prefix>/<header>" in the TFBENCH_PUBLIC_HEADERS property.
function(tfbench_public_headers include_dir prefix)
  foreach(header ${ARGN})
    get_filename_component(subdir ${prefix}/${header} DIRECTORY)
    install(FILES ${include_dir}/${prefix}/${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${subdir})
    set_property(GLOBAL APPEND PROPERTY TFBENCH_PUBLIC_HEADERS ${prefix}/${header})
  endforeach()
endfunction()
