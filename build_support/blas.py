"""Build configuration for the BLAS that torchlite's mm/bmm call (aten/native/cpu/Blas.h).

The BLAS is OpenBLAS from the `scipy-openblas32` wheel on PyPI: ~8 MB to download, 26 MB
installed, built for linking (headers + libscipy_openblas.so, symbols prefixed `scipy_`, 32-bit
integers). It is both a build requirement and a runtime requirement of torchlite.

Stable command lines: under `pip install` the wheel sits in pip's isolated build environment, a
new random directory each time. Its path must not reach the compiler's command line, or every
build would recompile everything. So the headers are copied into build/include/blas/ (rewritten
only when their content changes) and the library is reached through a symbolic link,
build/lib/blas/libscipy_openblas.so, repointed on each build; the link line names only those.

Finding the library at run time, two ways:
  * rpath `$ORIGIN/../../scipy_openblas32/lib`: torchlite/lib/libtorchlite.so (the library that
    calls the BLAS) installed next to the scipy_openblas32 package in site-packages (`pip install .`).
  * preload (editable and in-place builds): `import scipy_openblas32` loads
    libscipy_openblas.so with RTLD_GLOBAL; torchlite/__init__.py imports it before
    `torchlite._C`, which then resolves the library by its soname wherever it was built.
    A C++ program using the installed library finds it by the rpath.

Set TORCHLITE_BLAS=none to build without a BLAS (mm/bmm then use torchlite's own loops, much
slower for float32/float64).
"""
from __future__ import annotations

import os
from pathlib import Path

PYPI_PACKAGE = "scipy-openblas32"
IMPORT_NAME = "scipy_openblas32"


def _no_blas() -> dict:
    return {
        "include_dirs": [],
        "library_dirs": [],
        "libraries": [],
        "define_macros": [],
        "extra_link_args": [],
    }


def _write_if_changed(src: Path, dst: Path) -> None:
    data = src.read_bytes()
    if not dst.exists() or dst.read_bytes() != data:
        dst.write_bytes(data)


def _point_link(link: Path, target: Path) -> None:
    if link.is_symlink() and os.readlink(link) == str(target):
        return
    link.unlink(missing_ok=True)
    link.symlink_to(target)


def blas_build_config(build_root: Path, installed_in: str = "torchlite/lib") -> dict:
    """Compile and link settings (lists) for the library that calls the BLAS, with stable paths
    under build_root. `installed_in`: that library's directory relative to site-packages."""
    if os.environ.get("TORCHLITE_BLAS", "").lower() == "none":
        return _no_blas()
    try:
        import scipy_openblas32 as ob
    except ImportError as e:  # pragma: no cover - build environment problem
        raise RuntimeError(
            f"torchlite needs the '{PYPI_PACKAGE}' package to build (pip install {PYPI_PACKAGE}); "
            "set TORCHLITE_BLAS=none to build without a BLAS"
        ) from e
    include_dir = build_root / "include" / "blas"
    include_dir.mkdir(parents=True, exist_ok=True)
    for header in Path(ob.get_include_dir()).glob("*.h"):
        _write_if_changed(header, include_dir / header.name)
    lib_dir = build_root / "lib" / "blas"
    lib_dir.mkdir(parents=True, exist_ok=True)
    lib_name = ob.get_library()  # "scipy_openblas" -> -lscipy_openblas
    _point_link(lib_dir / f"lib{lib_name}.so", Path(ob.get_lib_dir()) / f"lib{lib_name}.so")
    return {
        "include_dirs": [str(include_dir)],
        "library_dirs": [str(lib_dir)],
        "libraries": [lib_name],
        "define_macros": [("TL_BLAS_SCIPY_OPENBLAS", "1")],
        "extra_link_args": [f"-Wl,-rpath,$ORIGIN/{'../' * len(Path(installed_in).parts)}{IMPORT_NAME}/lib"],
    }


if __name__ == "__main__":
    import pprint

    pprint.pprint(blas_build_config(Path(__file__).resolve().parent.parent / "build"))
