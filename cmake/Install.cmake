# `cmake --install build --prefix PREFIX` puts under PREFIX:
#   bin/zbddc                            the command line
#   lib/zbddc/libzbddc_llvm.so           the CPU backend's LLVM module, loaded when code is generated
#   lib/zbddc/libzbddc_mpi.so            DPOP's MPI module, loaded by a distributed run
#   lib/libzbddc_*.a                     the libraries it is made of
#   include/zbdd_{model,problem,network}.h   the C ABI of the .so files zbddc writes (docs/c-api.md)
#   include/zbddc/...                    the C++ API (docs/cpp-api.md) and every header it includes
#   lib/cmake/zbddc/                     the package: find_package(zbddc) gives zbddc::zbddc (the
#                                        C++ library) and zbddc::c_abi (the C headers only)
# `cpack -G DEB` in the build folder makes the same into a .deb.
include(CMakePackageConfigHelpers)

# Everything reachable from the roots (ARGN) through `next`, a function(next out item) that sets
# `out` to an item's neighbours; the roots included, each item once, in the order first reached.
function(zbddc_closure out next)
  set(seen "")
  set(todo ${ARGN})
  while(todo)
    list(POP_FRONT todo item)
    if(item IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${item})
    cmake_language(CALL ${next} neighbours ${item})
    list(APPEND todo ${neighbours})
  endwhile()
  set(${out} ${seen} PARENT_SCOPE)
endfunction()

# The project's own targets `target` links, PUBLIC, PRIVATE or INTERFACE (aliases resolved).
function(zbddc_linked_targets out target)
  get_target_property(type ${target} TYPE)
  set(links "")
  if(NOT type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(links ${target} LINK_LIBRARIES)
  endif()
  get_target_property(interface ${target} INTERFACE_LINK_LIBRARIES)
  set(found "")
  foreach(link IN LISTS links interface)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" link "${link}")
    if(TARGET ${link})
      get_target_property(imported ${link} IMPORTED)
      get_target_property(aliased ${link} ALIASED_TARGET)
      if(aliased)
        set(link ${aliased})
      endif()
      if(NOT imported)
        list(APPEND found ${link})
      endif()
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

# The project's headers `header` includes ("dir/file.h" from the repository's root). Every
# #include "..." counts, also inside #ifdef: a header too many, never one short.
function(zbddc_included_headers out header)
  file(STRINGS ${PROJECT_SOURCE_DIR}/${header} lines REGEX "^[ \t]*#[ \t]*include[ \t]*\"")
  set(found "")
  foreach(line IN LISTS lines)
    string(REGEX REPLACE "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\".*$" "\\1" included "${line}")
    if(EXISTS ${PROJECT_SOURCE_DIR}/${included})
      list(APPEND found ${included})
    endif()
  endforeach()
  set(${out} ${found} PARENT_SCOPE)
endfunction()

zbddc_closure(zbddc_installed_targets zbddc_linked_targets zbddc_library)
list(APPEND zbddc_installed_targets zbddc_c_abi)
install(TARGETS ${zbddc_installed_targets} EXPORT zbddcTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS zbddc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The CPU backend's LLVM module, loaded on first use from lib/zbddc beside bin/ (llvm_module.h);
# programs linking the static libraries find it here too.
install(TARGETS zbddc_llvm LIBRARY DESTINATION ${ZBDDC_MODULE_DIR})
# DPOP's MPI module beside it, loaded by a distributed run (runtime/dpop/mpi_module.h).
if(TARGET zbddc_mpi)
  install(TARGETS zbddc_mpi LIBRARY DESTINATION ${ZBDDC_MODULE_DIR})
endif()

# The C++ API: the headers docs/cpp-api.md names (and the CUDA driver's, for a caller's stream),
# with all they include.
zbddc_closure(zbddc_public_headers zbddc_included_headers
  runtime/tasks.h runtime/tasks_async.h runtime/task_batch.h runtime/model.h runtime/evidence.h
  runtime/marginal_table.h runtime/enqueued_pass.h ir/input_batch.h pipeline/session.h
  pipeline/load_model.h
  backends/cuda/driver.h)
foreach(header IN LISTS zbddc_public_headers)
  get_filename_component(dir ${header} DIRECTORY)
  install(FILES ${header} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/zbddc/${dir})
endforeach()

set(zbddc_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/zbddc)
install(EXPORT zbddcTargets NAMESPACE zbddc:: DESTINATION ${zbddc_cmake_dir})
configure_package_config_file(cmake/zbddcConfig.cmake.in
  ${PROJECT_BINARY_DIR}/zbddcConfig.cmake INSTALL_DESTINATION ${zbddc_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/zbddcConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/zbddcConfig.cmake ${PROJECT_BINARY_DIR}/zbddcConfigVersion.cmake
  DESTINATION ${zbddc_cmake_dir})

# A .deb of the above (`cpack -G DEB`). zbddc's LLVM module needs libLLVM at run time and zbddc a
# C compiler (`cc`) to write .so files; linking the static libraries into a program needs neither.
set(CPACK_PACKAGE_NAME zbddc)
set(CPACK_PACKAGE_CONTACT "zbddc maintainers")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "Compiler for arithmetic circuits (ZBDD/MLF, junction trees, bucket elimination)")
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libllvm19, libstdc++6, libc6")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gcc")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_GENERATOR DEB)
include(CPack)
