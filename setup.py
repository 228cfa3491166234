"""Builds torchlite: runs the code generator, then compiles with ninja (build_support/ninja_build.py)
two libraries: libtorchlite.so (aten/ and generated/ except its Python bindings: tensors, every op,
autograd, the JIT; no Python) and the extension module torchlite._C (torchlite/csrc/ and
generated/python/), which links against it, as torch._C links against libtorch. The package
carries libtorchlite.so, its headers and a CMake package config for C++ programs (docs/cpp.md).

Environment: TORCHLITE_BUILD_JOBS (parallel compiles), TORCHLITE_DEBUG=1 (-O0 -g),
TORCHLITE_SANITIZE=address,undefined (sanitizer build, see tools/sanitize.sh), TORCHLITE_BLAS=none
(no BLAS), CXX (compiler); ccache is used when it is on PATH. See docs/build.md."""
from __future__ import annotations

import os
import shlex
import shutil
import sys
import sysconfig
import time
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from build_support.blas import blas_build_config  # noqa: E402
from build_support.fft import fft_build_config  # noqa: E402
from build_support.includes import SANITIZED_O1_MARK, sources_reaching  # noqa: E402
from build_support.kernels import check_kernels_defined  # noqa: E402
from build_support.ninja_build import Build, Library, compiler, precompiled_header_choice, run_ninja  # noqa: E402

SOURCE_DIRS = ["aten", "generated", "torchlite/csrc"]
# The sources of the extension module; every other source is the C++ library's.
PYTHON_SOURCE_DIRS = ("torchlite/csrc/", "generated/python/")
CORE_LIBRARY = "libtorchlite.so"
# Where the package keeps the C++ library, its headers and its CMake config (torchlite.utils.cmake_prefix_path).
PACKAGE_LIB, PACKAGE_INCLUDE = "lib", "include"
HEADER_DIRS = ("aten", "generated")
# Generated files the package itself holds (copied by generate()): the type stubs and the ONNX export table.
STUBS = {"generated/python/_C.pyi": "torchlite/_C.pyi", "generated/python/_ops.pyi": "torchlite/_ops.pyi",
         "generated/python/onnx_ops.py": "torchlite/onnx/_ops_table.py"}
BUILD_ROOT = ROOT / "build"


def sanitizers() -> list[str]:
    value = os.environ.get("TORCHLITE_SANITIZE", "")
    return sorted(s.strip() for s in value.split(",") if s.strip())


def host_isa_level() -> int:
    """This machine's x86-64 micro-architecture level (4: AVX-512, 3: AVX2 + FMA, 1: baseline), from
    /proc/cpuinfo's flags (1 where it cannot tell)."""
    try:
        flags = set(next(line for line in open("/proc/cpuinfo") if line.startswith("flags")).split())
    except (OSError, StopIteration):
        return 1
    v3 = {"avx", "avx2", "bmi1", "bmi2", "f16c", "fma", "movbe", "xsave"}
    v4 = {"avx512f", "avx512bw", "avx512cd", "avx512dq", "avx512vl"}
    return 4 if v3 | v4 <= flags else 3 if v3 <= flags else 1


def pybind11_include(dest: Path) -> Path:
    """pybind11's headers copied under build/ (each file rewritten only when its content changed):
    `pip install` builds in an isolated environment at a new path each time, and that path on a
    command line would recompile the files that use it on every build."""
    import pybind11

    src = Path(pybind11.get_include())
    include = dest / "include"
    for f in src.rglob("*"):
        if f.is_file():
            out = include / f.relative_to(src)
            data = f.read_bytes()
            if not out.exists() or out.read_bytes() != data:
                out.parent.mkdir(parents=True, exist_ok=True)
                out.write_bytes(data)
    return include


def native_build(extension_name: str) -> Build:
    """The compile and link settings. Each variant (release, debug, sanitized, without BLAS) has
    its own directory under build/native/, so switching between them never recompiles the others."""
    blas = blas_build_config(BUILD_ROOT / "blas", installed_in=f"torchlite/{PACKAGE_LIB}")
    debug = os.environ.get("TORCHLITE_DEBUG") == "1"
    sanitize = sanitizers()
    variant = "debug" if debug else "release"
    opt = ["-O0", "-g"] if debug else ["-O2", "-g0"]
    san = []
    if sanitize:
        variant = "sanitize-" + "-".join(sanitize) + ("-debug" if debug else "")
        # -Og compiles the instrumented code 2-4x faster than -O1 -fexpensive-optimizations and rounds
        # as it does, except that it never contracts a * b + c into an FMA. The release build contracts
        # in the x86-64-v3/v4 clones of its kernels, so the few sources whose tests compare results
        # that change with contraction bit for bit or within an ulp bound (the vector math's
        # polynomials...) carry a `// sanitized-build: -O1` mark (in themselves or a header they
        # include) and compile at -O1 -fexpensive-optimizations, which contracts as -O2 does.
        # Which ones: the whole suite on TORCHLITE_SANITIZE=none (these flags, no instrumentation),
        # docs/testing.md "Sanitizers".
        # -g1 (line tables) keeps reports readable at a fraction of -g's compile time; UB aborts
        # instead of printing and going on.
        opt = ["-O0", "-g"] if debug else ["-Og", "-g1"]
        # One version of each multi-versioned kernel, for this machine's ISA (the one the clones would
        # pick here): a third of the kernels' compile time (aten/native/cpu/Vectorize.h).
        # TORCHLITE_SANITIZE=none: the same compile choices without the instrumentation, a build that
        # runs near release speed, to check the optimization split's floating-point results cheaply.
        instrument = [s for s in sanitize if s != "none"]
        san = [f"-DTL_SINGLE_CLONE_ISA={host_isa_level()}"]
        if instrument:
            san += [f"-fsanitize={','.join(instrument)}", "-fno-omit-frame-pointer"]
        if "undefined" in sanitize:
            san.append("-fno-sanitize-recover=undefined")
            # UBSan's checks on every memory access cost ~28% of the instrumented compile time
            # (ReduceOps.cpp 123 -> 88 CPU-s) and find little here: ASan reports the accesses outside
            # an object that object-size would, a null dereference faults (a crash the tests and the
            # fuzzer report), and x86 loads tolerate misalignment (the vector code's aligned loads
            # fault when misaligned). Signed overflow, shifts, division by zero, bool/enum loads,
            # bounds and pointer overflow, what the fuzzer found, stay.
            san.append("-fno-sanitize=alignment,null,object-size,nonnull-attribute,returns-nonnull-attribute")
    if not blas["libraries"]:
        variant += "-noblas"
    macros = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in blas["define_macros"]]
    # Only stable paths here: a changed flag recompiles everything (see blas.py).
    includes = [str(ROOT), sysconfig.get_paths()["include"], *blas["include_dirs"]]
    # -fno-math-errno: torchlite never reads errno, and with it sqrt compiles to the vector
    # instruction instead of a libm call (GCC's optimize pragma cannot set it per file).
    # Default visibility: libtorchlite.so exports the C++ API, and the two libraries must share one
    # copy of each inline function's static data (registries, singletons), which the dynamic linker
    # unifies only between exported symbols. -fno-semantic-interposition and -Bsymbolic-functions
    # keep calls inside the library direct (no PLT), as they were when everything was hidden.
    cflags = ["-std=c++17", "-fPIC", "-fopenmp", "-fno-semantic-interposition", "-Wall", "-Wno-unused-function",
              "-fno-math-errno", *opt, *san, *macros, *(f"-I{i}" for i in includes)]
    fft = fft_build_config(BUILD_ROOT / "fft", installed_in=f"torchlite/{PACKAGE_LIB}")
    ldflags = ["-fopenmp", *san]
    sources = sorted(p for d in SOURCE_DIRS for p in (ROOT / d).rglob("*.cpp"))
    source_cflags = ()
    if sanitize and not debug:
        marked = sources_reaching(sources, ROOT, SANITIZED_O1_MARK)
        source_cflags = tuple((p.relative_to(ROOT).as_posix(), ("-O1", "-fexpensive-optimizations"))
                              for p in sources if p in marked)
    is_python = lambda p: p.relative_to(ROOT).as_posix().startswith(PYTHON_SOURCE_DIRS)  # noqa: E731
    core = Library(CORE_LIBRARY, [p for p in sources if not is_python(p)],
                   # DT_RPATH rather than RUNPATH: a C++ program's own rpath to the BLAS (set by
                   # torchliteConfig.cmake for source checkouts) then also serves this library's lookup.
                   ldflags=(f"-Wl,-soname,{CORE_LIBRARY}", "-Wl,-Bsymbolic-functions", "-Wl,--disable-new-dtags",
                            *(f"-L{d}" for d in blas["library_dirs"]), *(f"-l{lib}" for lib in blas["libraries"]),
                            *blas["extra_link_args"], *fft["ldflags"]))
    extension = Library(extension_name, [p for p in sources if is_python(p)],
                        ldflags=(f"-Wl,-rpath,$ORIGIN/{PACKAGE_LIB}",), links=(CORE_LIBRARY,))
    # pybind11 (the JIT's bindings, torchlite/csrc/jit) is a build requirement; its headers only
    # for those sources, from a stable copy (as the BLAS headers: see pybind11_include).
    dir_cflags = (("torchlite/csrc/jit", (f"-I{pybind11_include(BUILD_ROOT / 'pybind11')}",)), *fft["dir_cflags"])
    cxx, pch = precompiled_header_choice(compiler(), ROOT / "build_support" / "precompiled.h")
    print(f"precompiled header: {'on' if pch else 'off'} (compiler: {shlex.join(cxx)})", flush=True)
    return Build(root=ROOT, build_dir=BUILD_ROOT / "native" / variant, libraries=(core, extension),
                 cxx=cxx, cflags=cflags, ldflags=ldflags, dir_cflags=dir_cflags,
                 source_cflags=source_cflags, pch=pch)


def install_library(built: Path, dest: Path) -> None:
    """Copies the library where setuptools expects it, unless it is already there. A new file
    replaces the old one (never rewritten in place: a running process may have it mapped)."""
    if dest.exists() and dest.stat().st_size == built.stat().st_size \
            and dest.stat().st_mtime_ns == built.stat().st_mtime_ns:
        return
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.with_name(dest.name + ".tmp")
    shutil.copy2(built, tmp)
    os.replace(tmp, dest)


def copy_headers(dest: Path) -> None:
    """The C++ API's headers (aten/ and generated/, without the Python bindings) copied into the
    package (torchlite/include), each rewritten only when its content changed, stale ones removed."""
    wanted = {}
    for d in HEADER_DIRS:
        for h in (ROOT / d).rglob("*.h"):
            rel = h.relative_to(ROOT)
            if not rel.as_posix().startswith(PYTHON_SOURCE_DIRS):
                wanted[rel] = h
    for rel, src in wanted.items():
        out = dest / rel
        data = src.read_bytes()
        if not out.exists() or out.read_bytes() != data:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    for old in dest.rglob("*.h") if dest.exists() else ():
        if old.relative_to(dest) not in wanted:
            old.unlink()


def generate() -> None:
    """Regenerates generated/ (writing only changed files) and puts the type stubs in the package.
    Runs before setup() so that build_py finds the stubs."""
    from codegen.__main__ import main as codegen_main

    if codegen_main(["--quiet"]) != 0:
        raise SystemExit("code generation failed: see the errors above")
    for src, dst in STUBS.items():
        shutil.copyfile(ROOT / src, ROOT / dst)


class BuildExt(build_ext):
    def build_extension(self, ext):
        start = time.perf_counter()
        dest = Path(self.get_ext_fullpath(ext.name))
        build = native_build(dest.name)
        jobs = os.environ.get("TORCHLITE_BUILD_JOBS")
        built = run_ninja(build, jobs=int(jobs) if jobs else None, verbose=self.verbose > 1)
        check_kernels_defined(built[CORE_LIBRARY], ROOT / "native_functions.yaml")
        self._install_beside(built[CORE_LIBRARY], dest.parent)
        install_library(built[dest.name], dest)
        print(f"built {dest.name} in {time.perf_counter() - start:.1f}s", flush=True)
        self._core_library = built[CORE_LIBRARY]

    @staticmethod
    def _install_beside(core_library: Path, package_dir: Path) -> None:
        """libtorchlite.so and the headers of the C++ API into the package beside the extension."""
        install_library(core_library, package_dir / PACKAGE_LIB / CORE_LIBRARY)
        copy_headers(package_dir / PACKAGE_INCLUDE)

    def copy_extensions_to_source(self):
        # --inplace (and editable installs) build into build_lib, then copy the extension into the
        # source tree; the C++ library and headers go with it.
        super().copy_extensions_to_source()
        for ext in self.extensions:
            self._install_beside(self._core_library, Path(self.get_ext_fullpath(ext.name)).parent)


generate()
setup(
    name="torchlite",
    version="0.1.0",
    description="A PyTorch-style tensor and deep-learning library whose operators are generated from one YAML file",
    packages=find_packages(include=["torchlite", "torchlite.*"]),
    package_data={"torchlite": ["*.pyi", "py.typed", f"{PACKAGE_LIB}/*.so", f"{PACKAGE_INCLUDE}/**/*.h",
                                "share/cmake/torchlite/*.cmake"]},
    ext_modules=[Extension("torchlite._C", sources=[])],
    cmdclass={"build_ext": BuildExt},
    python_requires=">=3.10",
    install_requires=["numpy", "scipy-openblas32", "mkl"],
    extras_require={"examples": ["scikit-learn", "tqdm", "matplotlib"], "test": ["pytest", "pytest-xdist", "hypothesis", "torch==2.13.0", "pyyaml", "jinja2", "mpmath", "safetensors", "mpi4py", "mpich",
                                                                          "onnx", "onnxruntime",
                                                                          # tests/test_cpp_frontend.py builds C++ programs with find_package(torchlite)
                                                                          "cmake"],
                    # torchlite.distributed: mpi4py on MPICH from PyPI (MPICH measured faster than Open MPI here: docs/distributed.md)
                    "distributed": ["mpi4py", "mpich"],
                    # torchlite.onnx.export builds the model with onnx's helpers; onnxruntime runs it (docs/onnx.md)
                    "onnx": ["onnx", "onnxruntime"]},
)
