"""Which sources reach a given kind of code through their `#include "..."` closure, read from the
sources themselves (no previous build needed): the sanitized build compiles the sources that
reach no ISA-targeted function at -Og and the others at -O1 (setup.py explains why)."""
from __future__ import annotations

import re
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
# A function compiled for another ISA than the build's baseline: GCC's target / target_clones
# attributes (Vectorize.h's TL_TARGET_CLONES, and the hand-written AVX2/AVX-512 paths).
_TARGETED = re.compile(r"__attribute__\s*\(\(\s*target(_clones)?\s*\(")


def sources_with_targeted_code(sources: list[Path], root: Path) -> set[Path]:
    """The sources that contain, or include (transitively, through quoted includes resolved
    against the including file's directory and then the repository root), an ISA-targeted function."""

    memo: dict[Path, bool] = {}

    def reaches(path: Path) -> bool:
        if path not in memo:
            text = path.read_text(errors="replace")
            memo[path] = bool(_TARGETED.search(text))
            if not memo[path]:  # (False while its includes are read: a cycle adds nothing)
                memo[path] = any(reaches(header) for header in _resolved_includes(path, text, root))
        return memo[path]

    return {s for s in sources if reaches(s.resolve())}


def _resolved_includes(path: Path, text: str, root: Path):
    for name in _INCLUDE.findall(text):
        for base in (path.parent, root):
            header = (base / name).resolve()
            if header.is_file():
                yield header
                break
