# Every dependency comes from Debian's packages or the CUDA toolkit. A missing one stops
# configuration with one line naming the package to install.
function(zbddc_require found package what)
  if(NOT ${found})
    message(FATAL_ERROR "zbddc: ${what} not found; install it with: apt-get install ${package}")
  endif()
endfunction()

find_package(fmt QUIET)
zbddc_require(fmt_FOUND libfmt-dev "fmt")

find_package(CLI11 CONFIG QUIET)
if(NOT CLI11_FOUND)
  find_path(CLI11_INCLUDE_DIR CLI/CLI.hpp)
  if(CLI11_INCLUDE_DIR)
    add_library(CLI11::CLI11 INTERFACE IMPORTED)
    target_include_directories(CLI11::CLI11 INTERFACE ${CLI11_INCLUDE_DIR})
    set(CLI11_FOUND TRUE)
  endif()
endif()
zbddc_require(CLI11_FOUND libcli11-dev "CLI11")

# LLVM's version file accepts only the same major.minor, so look in llvm-19's folder and check.
find_package(LLVM CONFIG QUIET NO_DEFAULT_PATH PATHS /usr/lib/llvm-19/lib/cmake/llvm)
if(LLVM_FOUND AND NOT LLVM_VERSION_MAJOR EQUAL 19)
  set(LLVM_FOUND FALSE)
endif()
zbddc_require(LLVM_FOUND llvm-19-dev "LLVM 19")

if(ZBDDC_BUILD_TESTS)
  # Debian 12 packages Catch2 v2, Ubuntu 24.04 v3; tests/catch.hpp takes either.
  find_package(Catch2 QUIET)
  if(Catch2_FOUND AND NOT Catch2_VERSION_MAJOR MATCHES "^[23]$")
    set(Catch2_FOUND FALSE)
  endif()
  zbddc_require(Catch2_FOUND catch2 "Catch2 (v2 or v3)")
endif()

# NVRTC is optional: without it the CUDA backend is not built and runs fall back to the CPU.
if(NOT CUDAToolkit_ROOT AND EXISTS /usr/local/cuda)
  set(CUDAToolkit_ROOT /usr/local/cuda)
endif()
find_package(CUDAToolkit QUIET)
if(TARGET CUDA::nvrtc)
  set(ZBDDC_HAVE_NVRTC ON)
  message(STATUS "zbddc: NVRTC found in ${CUDAToolkit_LIBRARY_DIR}; building the CUDA backend")
else()
  set(ZBDDC_HAVE_NVRTC OFF)
  message(STATUS "zbddc: NVRTC not found; the CUDA backend is not built")
endif()
