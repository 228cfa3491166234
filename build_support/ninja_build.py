"""Compiles and links torchlite._C with ninja, the way PyTorch's cpp_extension does.

setup.py describes the build (sources, flags, output); this module writes it as a build.ninja
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
class Build:
    root: Path              # the repository; sources are found under it
    build_dir: Path         # build.ninja, objects and the linked library live here
    sources: list[Path]
    output_name: str        # the library's file name, e.g. _C.cpython-311-x86_64-linux-gnu.so
    cxx: list[str]          # compiler command (with ccache in front when it is on PATH)
    cflags: list[str]
    ldflags: list[str]
    # Flags added for the sources under a directory (relative to root), e.g. pybind11's include
    # path for torchlite/csrc/jit only: a flag every object gets would recompile everything.
    dir_cflags: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def output(self) -> Path:
        return self.build_dir / self.output_name

    def object_for(self, src: Path) -> Path:
        return self.build_dir / "obj" / src.relative_to(self.root).with_suffix(".o")


def compiler() -> list[str]:
    """$CXX (default g++), behind ccache when ccache is on PATH (CCACHE_DISABLE=1 turns it off)."""
    cxx = shlex.split(os.environ.get("CXX", "g++"))
    ccache = shutil.which("ccache")
    if ccache and os.path.basename(cxx[0]) != "ccache":
        cxx = [ccache, *cxx]
    return cxx


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
        "  command = $cxx -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CXX $in",
        "",
        "rule link",
        "  command = $cxx -shared $in $ldflags -o $out",
        "  description = LINK $out",
        "",
    ]
    objects = []
    for src in build.sources:
        obj = build.object_for(src)
        objects.append(obj)
        lines.append(f"build {_path(obj)}: cxx {_path(src)}")
        rel = src.relative_to(build.root).as_posix()
        extra = [f for d, flags in build.dir_cflags if rel.startswith(d + "/") for f in flags]
        if extra:
            lines.append(f"  cflags = $cflags {_command(extra)}")
    lines += ["", f"build {_path(build.output)}: link {' '.join(_path(o) for o in objects)}",
              f"default {_path(build.output)}", ""]
    path = build.build_dir / "build.ninja"
    text = "\n".join(lines)
    build.build_dir.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


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


def run_ninja(build: Build, jobs: int | None = None, verbose: bool = False) -> Path:
    """Brings build.output up to date; a compiler error is a CompileError (its output is above)."""
    write_ninja_file(build)
    cmd = [*ninja_command(), "-C", str(build.build_dir)]
    if jobs:
        cmd += ["-j", str(jobs)]
    if verbose:
        cmd.append("-v")
    sys.stdout.flush()
    if subprocess.run(cmd).returncode != 0:
        raise CompileError("building torchlite._C failed: see the compiler's messages above")
    return build.output
