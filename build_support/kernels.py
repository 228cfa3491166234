"""A kernel that native_functions.yaml names but no source defines is a build error naming it.

The generated dispatch tables take every kernel's address, so a missing one is an undefined
symbol in the linked library. A shared library may keep undefined symbols (Python's are resolved
at import), so the linker says nothing: this check lists the library's undefined torchlite
symbols (`nm -uC`) and points each missing kernel back at its YAML entry.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

KERNEL_NAMESPACE = "tl::native::"


def undefined_symbols(library: Path) -> list[str]:
    """Demangled undefined symbols of a shared library or object file."""
    proc = subprocess.run(["nm", "-uC", str(library)], capture_output=True, text=True, check=True)
    return [line.split(None, 1)[1] for line in proc.stdout.splitlines() if line.strip().startswith("U ")]


def missing_kernel_errors(undefined: list[str], yaml_path: Path) -> list[str]:
    """One message per undefined torchlite function; kernels name their YAML entry and line."""
    from codegen.loader import load_native_functions

    entries: dict[str, object] = {}  # kernel name -> the YAML entry (not a derived variant) naming it
    for f in load_native_functions(yaml_path).functions:
        entry = f.functional or f
        for _, kernel in f.dispatch:
            entries.setdefault(kernel, entry)
    errors = []
    for symbol in sorted(set(s for s in undefined if s.startswith("tl::"))):
        qualified = symbol.split("(", 1)[0]
        kernel = qualified[len(KERNEL_NAMESPACE):] if qualified.startswith(KERNEL_NAMESPACE) else None
        entry = entries.get(kernel)
        if entry is None:
            errors.append(f"{symbol} is used but defined in no source")
            continue
        name = entry.schema.name
        errors.append(f"{entry.loc_of('dispatch')}: kernel {qualified} of `{name.name}` is declared in "
                      f"generated/ops/{name.base}.h but defined in no source (write it in aten/native/)")
    return errors


def check_kernels_defined(library: Path, yaml_path: Path) -> None:
    from setuptools.errors import CompileError  # setuptools reports it as a clean `error:` line

    errors = missing_kernel_errors(undefined_symbols(library), yaml_path)
    if errors:
        raise CompileError("missing kernels or functions:\n  " + "\n  ".join(errors))
