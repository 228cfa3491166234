# find_package(torchlite) for C++ programs (docs/cpp.md). Point CMake here with
#   cmake -DCMAKE_PREFIX_PATH="$(python -c 'import torchlite.utils; print(torchlite.utils.cmake_prefix_path)')" ..
# and link the imported target:  target_link_libraries(app PRIVATE torchlite::torchlite)
# Sets TORCHLITE_FOUND, TORCHLITE_INCLUDE_DIRS, TORCHLITE_LIBRARIES (= torchlite::torchlite).
include(CMakeFindDependencyMacro)
find_dependency(OpenMP COMPONENTS CXX)  # libtorchlite's headers and kernels use OpenMP (libgomp)

# This file is <package>/share/cmake/torchlite/torchliteConfig.cmake, <package> being the installed
# torchlite Python package, which holds lib/libtorchlite.so and include/.
get_filename_component(_torchlite_root "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(TORCHLITE_INCLUDE_DIRS "${_torchlite_root}/include")
set(_torchlite_lib "${_torchlite_root}/lib/libtorchlite.so")
if(NOT EXISTS "${_torchlite_lib}")
  set(torchlite_FOUND FALSE)
  set(torchlite_NOT_FOUND_MESSAGE "${_torchlite_lib} is missing: build torchlite first (pip install .)")
  return()
endif()

# libtorchlite.so calls the BLAS of the scipy-openblas32 package. Installed side by side in
# site-packages, libtorchlite.so finds it by its own rpath; for a source checkout (pip install -e)
# ask the Python that has torchlite where the package is, and give the program an rpath to it.
set(_torchlite_blas "${_torchlite_root}/../scipy_openblas32/lib")
if(NOT EXISTS "${_torchlite_blas}")
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 COMPONENTS Interpreter QUIET)
  endif()
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c "import scipy_openblas32; print(scipy_openblas32.get_lib_dir())"
                  OUTPUT_VARIABLE _torchlite_blas OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torchlite_rc)
  if(NOT _torchlite_rc EQUAL 0)
    set(torchlite_FOUND FALSE)
    set(torchlite_NOT_FOUND_MESSAGE "the scipy-openblas32 package (torchlite's BLAS) was not found: set Python3_EXECUTABLE to the Python that has torchlite")
    return()
  endif()
endif()
get_filename_component(_torchlite_blas "${_torchlite_blas}" ABSOLUTE)

if(NOT TARGET torchlite::torchlite)
  add_library(torchlite::torchlite SHARED IMPORTED)
  set_target_properties(torchlite::torchlite PROPERTIES
    IMPORTED_LOCATION "${_torchlite_lib}"
    IMPORTED_SONAME "libtorchlite.so"
    INTERFACE_INCLUDE_DIRECTORIES "${TORCHLITE_INCLUDE_DIRS}"
    INTERFACE_COMPILE_FEATURES cxx_std_17
    INTERFACE_LINK_LIBRARIES OpenMP::OpenMP_CXX
    # DT_RPATH (not RUNPATH) so that the BLAS directory also serves libtorchlite.so's own dependency.
    INTERFACE_LINK_OPTIONS "-Wl,--disable-new-dtags;-Wl,-rpath,${_torchlite_root}/lib;-Wl,-rpath,${_torchlite_blas};-Wl,-rpath-link,${_torchlite_blas}")
endif()
set(TORCHLITE_LIBRARIES torchlite::torchlite)
set(TORCHLITE_FOUND TRUE)
