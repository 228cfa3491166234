"""Compiles and links torchlite's two libraries with ninja, the way PyTorch's cpp_extension does.

setup.py describes the build (sources, flags, the libraries and what each links); this module writes it as a build.ninja
and runs ninja, which rebuilds only what is out of date: an object whose source, a header it
includes (from the compiler's -MMD depfile, kept in ninja's .ninja_deps) or its command line
changed, and the library when an object or the link line changed. Everything on a command line
is stable across pip's isolated build environments (see blas.py), so `pip install -e .` with
nothing changed compiles nothing.
"""
from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from setuptools.errors import CompileError


@dataclass(frozen=True)
class Library:
    """One shared library of the build: its file name, its sources, the link flags it adds to the
    build's, and the libraries of the same build it links against (linked first, by file name)."""
    name: str               # e.g. libtorchlite.so, _C.cpython-311-x86_64-linux-gnu.so
    sources: list[Path]
    ldflags: tuple[str, ...] = ()
    links: tuple[str, ...] = ()


@dataclass(frozen=True)
class Build:
    root: Path              # the repository; sources are found under it
    build_dir: Path         # build.ninja, objects and the linked libraries live here
    libraries: tuple[Library, ...]
    cxx: list[str]          # compiler command (with ccache in front when it is on PATH)
    cflags: list[str]
    ldflags: list[str]      # every library's link flags
    # Flags added for the sources under a directory (relative to root), e.g. pybind11's include
    # path for torchlite/csrc/jit only: a flag every object gets would recompile everything.
    dir_cflags: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # Flags added for single sources (relative paths), after the directory ones.
    source_cflags: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # A header (under root) compiled once into a precompiled header that every source compiled with
    # the build's own flags reads before its first line (-include); None: no precompiled header.
    pch: Path | None = None

    def output(self, name: str) -> Path:
        return self.build_dir / name

    @property
    def sources(self) -> list[Path]:
        return [s for lib in self.libraries for s in lib.sources]

    def object_for(self, src: Path) -> Path:
        return self.build_dir / "obj" / src.relative_to(self.root).with_suffix(".o")

    @property
    def pch_include(self) -> Path:
        """What sources -include: a one-line header beside its .gch, which GCC reads instead of it
        when the .gch was compiled with compatible flags (and the header, as text, otherwise)."""
        return self.build_dir / "pch" / "precompiled.h"


def compiler() -> list[str]:
    """$CXX (default g++), behind ccache when ccache is on PATH (CCACHE_DISABLE=1 turns it off)."""
    cxx = shlex.split(os.environ.get("CXX", "g++"))
    ccache = shutil.which("ccache")
    if ccache and os.path.basename(cxx[0]) != "ccache":
        cxx = [ccache, *cxx]
    return cxx


def precompiled_header_choice(cxx: list[str], header: Path) -> tuple[list[str], Path | None]:
    """The compiler command to use, and `header` when the build should precompile it (else None).
    A cold build (CI, a first build) is what a precompiled header speeds up: ~0.4 CPU-s less per
    source, about a fifth of the build (docs/build.md). ccache speeds up rebuilds instead, and the
    two do not mix: ccache hashes the .gch, which differs between checkouts, so its objects would no
    longer be shared between them. So no precompiled header behind an active ccache unless
    TORCHLITE_PCH=1 (which then drops ccache); TORCHLITE_PCH=0 turns it off everywhere."""
    wrapped = os.path.basename(cxx[0]) == "ccache"
    active = wrapped and os.environ.get("CCACHE_DISABLE", "").lower() in ("", "0", "false", "no")
    wanted = os.environ.get("TORCHLITE_PCH")
    use = wanted == "1" if wanted in ("0", "1") else not active
    if use and wrapped:
        cxx = cxx[1:]
    return cxx, header if use else None


def _path(p: Path) -> str:
    """A path in a build statement: ninja escapes `$`, space and `:` with `$`."""
    return str(p).replace("$", "$$").replace(" ", "$ ").replace(":", "$:")


def _command(args: list[str]) -> str:
    """Arguments for a rule's shell command: shell-quoted, then `$` escaped for ninja."""
    return shlex.join(args).replace("$", "$$")


def write_ninja_file(build: Build) -> Path:
    """Writes build/native/<variant>/build.ninja (only when its text changed)."""
    lines = [
        "# Written by setup.py (build_support/ninja_build.py) on every build; do not edit.",
        "ninja_required_version = 1.5",
        f"cxx = {_command(build.cxx)}",
        f"cflags = {_command(build.cflags)}",
        f"ldflags = {_command(build.ldflags)}",
        "",
        "rule cxx",
        "  command = $cxx -MMD -MF $out.d $cflags $pchflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $in",
        "",
        "rule pch",
        "  command = $cxx -MMD -MF $out.d $cflags -x c++-header $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = PCH $in",
        "",
        "rule link",
        "  command = $cxx -shared $in $ldflags $libflags -o $out",
        "  description = LINK $out",
        "",
    ]
    gch = build.pch_include.with_name(build.pch_include.name + ".gch") if build.pch else None
    if gch:
        lines += [f"build {_path(gch)}: pch {_path(build.pch_include)}", ""]
    source_flags = dict(build.source_cflags)
    for src in build.sources:
        rel = src.relative_to(build.root).as_posix()
        extra = [f for d, flags in build.dir_cflags if rel.startswith(d + "/") for f in flags]
        extra += source_flags.get(rel, ())
        # Only sources compiled with exactly the build's flags read the precompiled header: GCC
        # rejects one made with other options (e.g. -O1 for some files of the sanitized build).
        with_pch = gch is not None and not extra
        lines.append(f"build {_path(build.object_for(src))}: cxx {_path(src)}" + (f" | {_path(gch)}" if with_pch else ""))
        if extra:
            lines.append(f"  cflags = $cflags {_command(extra)}")
        if with_pch:
            lines.append(f"  pchflags = {_command(_pch_flags(build.pch_include))}")
    lines.append("")
    for lib in build.libraries:
        objects = " ".join(_path(build.object_for(s)) for s in lib.sources)
        # A library it links against comes as an input (relinked when that one changes) and as -l.
        deps = [build.output(d) for d in lib.links]
        libflags = [*(f"-L{build.build_dir}" for _ in deps[:1]),
                    *(f"-l{d.removeprefix('lib').removesuffix('.so')}" for d in lib.links), *lib.ldflags]
        lines += [f"build {_path(build.output(lib.name))}: link {objects}"
                  + (f" | {' '.join(_path(d) for d in deps)}" if deps else ""),
                  f"  libflags = {_command(libflags)}"]
    lines += ["", f"default {' '.join(_path(build.output(lib.name)) for lib in build.libraries)}", ""]
    path = build.build_dir / "build.ninja"
    text = "\n".join(lines)
    if build.pch:
        _write_if_changed(build.pch_include, f'#include "{build.pch.relative_to(build.root).as_posix()}"\n')
    _write_if_changed(path, text)
    return path


def _pch_flags(include: Path) -> list[str]:
    # -Winvalid-pch: a .gch GCC cannot use is said, not silently parsed as text. GCC 12 does not keep
    # a header's `#pragma GCC diagnostic` in a .gch, so the one warning a core header silences in place
    # (ArrayRef.h, a braced-list constructor) is silenced here for the sources that read it.
    return ["-Winvalid-pch", "-Wno-init-list-lifetime", "-include", str(include)]


def _write_if_changed(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def ninja_command() -> list[str]:
    """The ninja binary from the `ninja` PyPI package (a build requirement), else one on PATH."""
    try:
        import ninja
        exe = Path(ninja.BIN_DIR) / "ninja"
        if exe.exists():
            return [str(exe)]
        return [sys.executable, "-m", "ninja"]
    except ImportError:
        found = shutil.which("ninja")
        if found:
            return [found]
        raise CompileError("torchlite builds with ninja: pip install ninja") from None


def run_ninja(build: Build, jobs: int | None = None, verbose: bool = False) -> dict[str, Path]:
    """Brings every library up to date (file name -> path); a compiler error is a CompileError
    (its output is above)."""
    write_ninja_file(build)
    cmd = [*ninja_command(), "-C", str(build.build_dir)]
    if jobs:
        cmd += ["-j", str(jobs)]
    if verbose:
        cmd.append("-v")
    sys.stdout.flush()
    if subprocess.run(cmd).returncode != 0:
        raise CompileError("building torchlite failed: see the compiler's messages above")
    return {lib.name: build.output(lib.name) for lib in build.libraries}
