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

# libtorchlite.so calls the BLAS of the scipy-openblas32 package and oneMKL's libmkl_rt (torchlite.fft),
# which the `mkl` wheel puts in the environment's lib/. Installed in site-packages, libtorchlite.so finds
# both by its own rpath; for a source checkout (pip install -e) ask the Python that has torchlite where
# they are, and give the program an rpath to them.
set(_torchlite_blas "${_torchlite_root}/../scipy_openblas32/lib")
set(_torchlite_mkl "${_torchlite_root}/../../..")
if(NOT EXISTS "${_torchlite_blas}")
  if(NOT Python3_EXECUTABLE)
    find_package(Python3 COMPONENTS Interpreter QUIET)
  endif()
  execute_process(COMMAND "${Python3_EXECUTABLE}" -c
                  "import os, sys, scipy_openblas32; print(scipy_openblas32.get_lib_dir()); print(os.path.join(sys.prefix, 'lib'))"
                  OUTPUT_VARIABLE _torchlite_dirs OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _torchlite_rc)
  if(NOT _torchlite_rc EQUAL 0)
    set(torchlite_FOUND FALSE)
    set(torchlite_NOT_FOUND_MESSAGE "the scipy-openblas32 package (torchlite's BLAS) was not found: set Python3_EXECUTABLE to the Python that has torchlite")
    return()
  endif()
  string(REPLACE "\n" ";" _torchlite_dirs "${_torchlite_dirs}")
  list(GET _torchlite_dirs 0 _torchlite_blas)
  list(GET _torchlite_dirs 1 _torchlite_mkl)
endif()
get_filename_component(_torchlite_blas "${_torchlite_blas}" ABSOLUTE)
get_filename_component(_torchlite_mkl "${_torchlite_mkl}" ABSOLUTE)

if(NOT TARGET torchlite::torchlite)
  add_library(torchlite::torchlite SHARED IMPORTED)
  set_target_properties(torchlite::torchlite PROPERTIES
    IMPORTED_LOCATION "${_torchlite_lib}"
    IMPORTED_SONAME "libtorchlite.so"
    INTERFACE_INCLUDE_DIRECTORIES "${TORCHLITE_INCLUDE_DIRS}"
    INTERFACE_COMPILE_FEATURES cxx_std_17
    INTERFACE_LINK_LIBRARIES OpenMP::OpenMP_CXX
    # DT_RPATH (not RUNPATH) so that the BLAS directory also serves libtorchlite.so's own dependency.
    INTERFACE_LINK_OPTIONS "-Wl,--disable-new-dtags;-Wl,-rpath,${_torchlite_root}/lib;-Wl,-rpath,${_torchlite_blas};-Wl,-rpath,${_torchlite_mkl};-Wl,-rpath-link,${_torchlite_blas};-Wl,-rpath-link,${_torchlite_mkl}")
endif()
set(TORCHLITE_LIBRARIES torchlite::torchlite)
set(TORCHLITE_FOUND TRUE)
