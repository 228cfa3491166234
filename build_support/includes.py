"""Which sources reach a given kind of code through their `#include "..."` closure, read from the
sources themselves (no previous build needed). The sanitized build compiles most sources at -Og and
those reaching a `sanitized-build: -O1` mark at -O1 (setup.py explains why)."""
from __future__ import annotations

import re
from pathlib import Path

_INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.MULTILINE)
# A comment line `// sanitized-build: -O1 (why)` in a source or a header it includes.
SANITIZED_O1_MARK = re.compile(r"^\s*//\s*sanitized-build:\s*-O1\b", re.MULTILINE)


def sources_reaching(sources: list[Path], root: Path, pattern: re.Pattern) -> set[Path]:
    """The sources whose text, or that of a header they include (transitively, through quoted
    includes resolved against the including file's directory and then the repository root), matches
    `pattern`."""

    memo: dict[Path, bool] = {}

    def reaches(path: Path) -> bool:
        if path not in memo:
            text = path.read_text(errors="replace")
            memo[path] = bool(pattern.search(text))
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
