"""Build configuration for the BLAS that torchlite's mm/bmm call (aten/native/cpu/Blas.h).

The BLAS is OpenBLAS from the `scipy-openblas32` wheel on PyPI: ~8 MB to download, 26 MB
installed, built for linking (headers + libscipy_openblas.so, symbols prefixed `scipy_`, 32-bit
integers). It is both a build requirement and a runtime requirement of torchlite.

Finding the library at run time, two ways (both are set up):
  * rpath: `$ORIGIN/../scipy_openblas32/lib` (torchlite/_C*.so installed next to the
    scipy_openblas32 package in site-packages) and the absolute lib dir seen at build time
    (in-place/editable builds in a venv that has the wheel).
  * preload (the one that matters for `pip install -e .`): `import scipy_openblas32` loads
    libscipy_openblas.so with RTLD_GLOBAL; torchlite/__init__.py imports it before
    `torchlite._C`, which then resolves the library by its soname whatever the rpath says. Without
    it an editable install fails to import: its rpath points into pip's isolated build
    environment, deleted after the build (checked: "libscipy_openblas.so: cannot open shared
    object file").

Set TORCHLITE_BLAS=none to build without a BLAS (mm/bmm then use torchlite's own loops, much
slower for float32/float64).
"""
from __future__ import annotations

import os

PYPI_PACKAGE = "scipy-openblas32"
IMPORT_NAME = "scipy_openblas32"


def _no_blas() -> dict:
    return {
        "include_dirs": [],
        "library_dirs": [],
        "libraries": [],
        "runtime_library_dirs": [],
        "define_macros": [],
        "extra_link_args": [],
    }


def blas_build_config() -> dict:
    """Keyword arguments (lists) to merge into the setuptools Extension for torchlite._C."""
    if os.environ.get("TORCHLITE_BLAS", "").lower() == "none":
        return _no_blas()
    try:
        import scipy_openblas32 as ob
    except ImportError as e:  # pragma: no cover - build environment problem
        raise RuntimeError(
            f"torchlite needs the '{PYPI_PACKAGE}' package to build (pip install {PYPI_PACKAGE}); "
            "set TORCHLITE_BLAS=none to build without a BLAS"
        ) from e
    lib_dir = ob.get_lib_dir()
    return {
        "include_dirs": [ob.get_include_dir()],
        "library_dirs": [lib_dir],
        "libraries": [ob.get_library()],  # "scipy_openblas" -> -lscipy_openblas
        "runtime_library_dirs": [lib_dir],
        "define_macros": [("TL_BLAS_SCIPY_OPENBLAS", "1")],
        "extra_link_args": [f"-Wl,-rpath,$ORIGIN/../{IMPORT_NAME}/lib"],
    }


if __name__ == "__main__":
    import pprint

    pprint.pprint(blas_build_config())
