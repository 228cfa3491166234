"""Builds torchlite: runs the code generator, then compiles aten/, generated/ and
torchlite/csrc/ into one extension module, torchlite._C (see build_support/compile.py)."""
from __future__ import annotations

import os
import shutil
import sys
import sysconfig
import time
from pathlib import Path

from setuptools import Extension, find_packages, setup
from setuptools.command.build_ext import build_ext

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT))

from build_support.compile import check_kernels_defined, compile_all, link  # noqa: E402

SOURCE_DIRS = ["aten", "generated", "torchlite/csrc"]
STUBS = {"generated/python/_C.pyi": "torchlite/_C.pyi", "generated/python/_ops.pyi": "torchlite/_ops.pyi"}


def blas_config() -> dict:
    try:
        from build_support.blas import blas_build_config
    except ImportError:
        return {}
    return blas_build_config()


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
        import pybind11

        blas = blas_config()
        includes = [str(ROOT), sysconfig.get_paths()["include"], pybind11.get_include(), *blas.get("include_dirs", [])]
        macros = [f"-D{k}" if v is None else f"-D{k}={v}" for k, v in blas.get("define_macros", [])]
        debug = os.environ.get("TORCHLITE_DEBUG") == "1"
        # -fno-math-errno: torchlite never reads errno, and with it sqrt compiles to the vector
        # instruction instead of a libm call (GCC's optimize pragma cannot set it per file).
        flags = ["-std=c++17", "-fPIC", "-fopenmp", "-fvisibility=hidden", "-Wall", "-Wno-unused-function",
                 "-fno-math-errno", "-O0" if debug else "-O2", "-g" if debug else "-g0", *macros, *(f"-I{i}" for i in includes)]
        cxx = [os.environ.get("CXX", "g++")]
        sources = sorted(p for d in SOURCE_DIRS for p in (ROOT / d).rglob("*.cpp"))
        jobs = int(os.environ.get("TORCHLITE_BUILD_JOBS", os.cpu_count() or 1))
        objects = compile_all(sources, ROOT, ROOT / "build" / "obj", cxx, flags, jobs=jobs,
                              verbose=self.verbose > 1)
        out = Path(self.get_ext_fullpath(ext.name))
        link_flags = ["-fopenmp", *(f"-L{d}" for d in blas.get("library_dirs", [])),
                      *(f"-Wl,-rpath,{d}" for d in blas.get("runtime_library_dirs", [])),
                      *(f"-l{lib}" for lib in blas.get("libraries", [])), *blas.get("extra_link_args", [])]
        link(objects, out, cxx, link_flags)
        check_kernels_defined(out)
        print(f"built {out.name} in {time.perf_counter() - start:.1f}s", flush=True)


generate()
setup(
    name="torchlite",
    version="0.1.0",
    description="A PyTorch-style tensor and deep-learning library whose operators are generated from one YAML file",
    packages=find_packages(include=["torchlite", "torchlite.*"]),
    package_data={"torchlite": ["*.pyi", "py.typed"]},
    ext_modules=[Extension("torchlite._C", sources=[])],
    cmdclass={"build_ext": BuildExt},
    python_requires=">=3.10",
    install_requires=["numpy", "scipy-openblas32"],
    extras_require={"test": ["pytest", "torch==2.13.0", "pyyaml", "jinja2"]},
)
