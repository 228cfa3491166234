"""Build configuration for the FFT library behind torchlite.fft (aten/native/fft/SpectralOps.cpp).

The library is oneMKL's DFTI from the `mkl-devel` wheel on PyPI (it brings `mkl`, the libraries,
and `mkl-include`, the headers), chosen by measurement (benchmarks/bench_fft.md): the fastest of the
candidates, and the library PyTorch's own CPU FFTs use. Build requirement (headers, link) and
runtime requirement (`mkl`).

As for the BLAS (build_support/blas.py), only stable paths reach the command lines: the few
headers are copied into build/include/mkl/ (rewritten only when their content changes) and
libmkl_rt is reached through a symbolic link in build/lib/mkl/. The include path and the
TL_FFT_MKL macro are given to the sources under aten/native/fft only, so the FFT library never
recompiles the rest. At run time torchlite/__init__.py preloads libmkl_rt globally (as it does the
BLAS); an installed torchlite/lib/libtorchlite.so (which holds the FFT code) also finds it through the
rpath $ORIGIN/../../../.. (the environment's lib/, where the `mkl` wheel puts it).

TORCHLITE_FFT=none builds without it: the transforms then raise RuntimeError.
"""
from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

HEADERS = ("mkl_dfti.h", "mkl_service.h", "mkl_types.h")
SOURCE_DIR = "aten/native/fft"


def _find(pattern_dirs, names):
    for d in pattern_dirs:
        if all((Path(d) / n).exists() for n in names):
            return Path(d)
    return None


def _candidate_prefixes():
    prefixes = [sys.prefix, sys.base_prefix, os.environ.get("MKLROOT", "")]
    # pip's isolated build environment puts build requirements on sys.path, under another prefix.
    for p in sys.path:
        if p.endswith("site-packages"):
            prefixes.append(str(Path(p).parents[2]))
    return [p for p in prefixes if p]


def fft_build_config(build_root: Path, installed_in: str = "torchlite/lib") -> dict:
    """{"dir_cflags": (dir, flags) pairs, "ldflags": [...]}, empty when building without MKL.
    `installed_in`: the directory, relative to site-packages, of the library holding the FFT code."""
    none = {"dir_cflags": (), "ldflags": []}
    if os.environ.get("TORCHLITE_FFT", "").lower() == "none":
        return none
    prefixes = _candidate_prefixes()
    inc = _find([Path(p) / "include" for p in prefixes], HEADERS)
    lib = None
    for p in prefixes:
        found = sorted(glob.glob(str(Path(p) / "lib" / "libmkl_rt.so*")))
        if found:
            lib = Path(found[0])
            break
    if inc is None or lib is None:
        raise RuntimeError("torchlite needs the 'mkl-devel' package to build torchlite.fft (pip install mkl-devel); "
                           "set TORCHLITE_FFT=none to build without it")
    include_dir = build_root / "include" / "mkl"
    include_dir.mkdir(parents=True, exist_ok=True)
    for name in HEADERS:
        data = (inc / name).read_bytes()
        dst = include_dir / name
        if not dst.exists() or dst.read_bytes() != data:
            dst.write_bytes(data)
    lib_dir = build_root / "lib" / "mkl"
    lib_dir.mkdir(parents=True, exist_ok=True)
    link = lib_dir / "libmkl_rt.so"
    if not (link.is_symlink() and os.readlink(link) == str(lib)):
        link.unlink(missing_ok=True)
        link.symlink_to(lib)
    return {
        "dir_cflags": ((SOURCE_DIR, (f"-I{include_dir}", "-DTL_FFT_MKL=1")),),
        # site-packages/<installed_in> up to <prefix>/lib: site-packages is <prefix>/lib/pythonX.Y/site-packages.
        "ldflags": [f"-L{lib_dir}", "-lmkl_rt", f"-Wl,-rpath,$ORIGIN/{'../' * (len(Path(installed_in).parts) + 2)}"],
    }
