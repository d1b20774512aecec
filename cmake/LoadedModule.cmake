# zbddc_loaded_module(NAME LOADER TARGET PREFIX MACRO SOURCES ... LIBS ...): a shared module that
# the library TARGET opens on first use (ir/loaded_library.h) instead of linking what the module
# links (libLLVM, libmpi). The module carries hidden copies of what it uses and exports one C
# function; TARGET gets it built and learns where to look: MACRO_BUILT (this build's file),
# MACRO_INSTALLED (where cmake --install puts it, lib/zbddc) and MACRO_FROM_BIN (that folder
# relative to the installed zbddc).
set(ZBDDC_MODULE_DIR ${CMAKE_INSTALL_LIBDIR}/zbddc CACHE INTERNAL "")
function(zbddc_loaded_module name)
  cmake_parse_arguments(M "" "LOADER;MACRO" "SOURCES;LIBS" ${ARGN})
  add_library(${name} MODULE ${M_SOURCES})
  target_link_libraries(${name} PRIVATE ${M_LIBS})
  target_link_options(${name} PRIVATE -Wl,--exclude-libs,ALL)
  set_target_properties(${name} PROPERTIES CXX_VISIBILITY_PRESET hidden
    VISIBILITY_INLINES_HIDDEN ON LIBRARY_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR})
  add_dependencies(${M_LOADER} ${name})
  file(RELATIVE_PATH from_bin ${CMAKE_INSTALL_FULL_BINDIR} ${CMAKE_INSTALL_PREFIX}/${ZBDDC_MODULE_DIR})
  target_compile_definitions(${M_LOADER} PRIVATE
    ${M_MACRO}_BUILT="$<TARGET_FILE:${name}>"
    ${M_MACRO}_INSTALLED="${CMAKE_INSTALL_PREFIX}/${ZBDDC_MODULE_DIR}/lib${name}.so"
    ${M_MACRO}_FROM_BIN="${from_bin}")
endfunction()
