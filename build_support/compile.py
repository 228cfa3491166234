"""Parallel, incremental compilation of the extension's C++ sources.

setuptools recompiles every source when anything changes; here each object is rebuilt only
when its source or a header it includes (from the compiler's -MMD dependency file) is newer,
so adding one op recompiles only the shards it lands in. Objects live in build/obj/ at the
repository root, shared by `pip install .`, `pip install -e .` and `setup.py build_ext`.
"""
from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path


def _deps(dep_file: Path) -> list[str]:
    """Prerequisites listed in a make-style .d file."""
    text = dep_file.read_text().replace("\\\n", " ")
    _, _, rest = text.partition(":")
    return rest.split()


def _stale(src: Path, obj: Path, dep: Path, flags_file: Path, flags: str) -> bool:
    if not obj.exists() or not dep.exists() or not flags_file.exists():
        return True
    if flags_file.read_text() != flags:
        return True
    built = obj.stat().st_mtime
    for d in _deps(dep):
        p = Path(d)
        if not p.exists() or p.stat().st_mtime > built:
            return True
    return False


def compile_all(sources: list[Path], root: Path, obj_dir: Path, cxx: list[str], flags: list[str],
                jobs: int | None = None, verbose: bool = False) -> list[Path]:
    """Compiles what is stale; returns every object path (in source order)."""
    jobs = jobs or os.cpu_count() or 1
    flag_text = shlex.join(cxx + flags)
    work = []
    objects = []
    for src in sources:
        rel = src.relative_to(root)
        obj = obj_dir / rel.with_suffix(".o")
        dep = obj.with_suffix(".d")
        flags_file = obj.with_suffix(".flags")
        objects.append(obj)
        if _stale(src, obj, dep, flags_file, flag_text):
            work.append((src, obj, dep, flags_file))

    def build(item):
        src, obj, dep, flags_file = item
        obj.parent.mkdir(parents=True, exist_ok=True)
        cmd = cxx + flags + ["-MMD", "-MF", str(dep), "-c", str(src), "-o", str(obj)]
        start = time.perf_counter()
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode == 0:
            flags_file.write_text(flag_text)
        return src, proc, time.perf_counter() - start

    failures = []
    print(f"compiling {len(work)} of {len(sources)} sources with {jobs} jobs", flush=True)
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        for src, proc, took in pool.map(build, work):
            rel = src.relative_to(root)
            if proc.returncode != 0:
                failures.append((rel, proc.stderr))
                print(f"  FAILED {rel}", flush=True)
            elif verbose or proc.stderr:
                print(f"  {rel} ({took:.1f}s)", flush=True)
            if proc.stderr:
                sys.stderr.write(proc.stderr)
    if failures:
        msg = "\n".join(f"--- {rel}\n{err}" for rel, err in failures)
        raise RuntimeError(f"{len(failures)} source(s) failed to compile:\n{msg}")
    return objects


def link(objects: list[Path], output: Path, cxx: list[str], flags: list[str]) -> None:
    output.parent.mkdir(parents=True, exist_ok=True)
    newest = max(o.stat().st_mtime for o in objects)
    if output.exists() and output.stat().st_mtime >= newest:
        return
    cmd = cxx + ["-shared"] + [str(o) for o in objects] + flags + ["-o", str(output)]
    subprocess.run(cmd, check=True)


def check_kernels_defined(library: Path) -> None:
    """A kernel named in native_functions.yaml that nobody wrote is a build error naming it.

    A shared library may leave symbols undefined (Python's are resolved at import), so look
    for undefined torchlite symbols explicitly."""
    proc = subprocess.run(["nm", "-uC", str(library)], capture_output=True, text=True, check=True)
    undefined = [line.strip()[2:] for line in proc.stdout.splitlines() if line.strip().startswith("U ")]
    missing = [sym for sym in undefined if sym.startswith("tl::")]
    if missing:
        lines = "\n".join(f"  {m}" for m in sorted(set(missing)))
        raise RuntimeError("undefined torchlite functions (a kernel or op declared in native_functions.yaml "
                           f"that no source defines):\n{lines}")
