"""build_support/includes.py: which sources reach a mark through their quoted includes (the sanitized build's
-O1 sources, setup.py)."""
from pathlib import Path

from build_support.includes import SANITIZED_O1_MARK, sources_reaching


def _tree(tmp_path, files):
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return sorted(tmp_path / n for n in files if n.endswith(".cpp"))


def test_mark_in_the_source_or_through_includes(tmp_path):
    sources = _tree(tmp_path, {
        "a/marked.cpp": "// about\n//\n// sanitized-build: -O1 (why)\nint x;\n",
        "a/plain.cpp": '#include "a/helper.h"\n',
        "a/helper.h": "#pragma once\n",
        "a/via_header.cpp": '#include "deep.h"\n',           # resolved beside the includer first
        "a/deep.h": '#include "b/marked.h"\n',               # then from the root
        "b/marked.h": "#pragma once\n// sanitized-build: -O1 (why)\n",
        "a/cycle.cpp": '#include "a/c1.h"\n',
        "a/c1.h": '#include "a/c2.h"\n',
        "a/c2.h": '#include "a/c1.h"\n',
        "a/mentioned.cpp": 'const char* s = "sanitized-build: -O1";  // not a comment line\n',
    })
    got = {p.name for p in sources_reaching(sources, tmp_path, SANITIZED_O1_MARK)}
    assert got == {"marked.cpp", "via_header.cpp"}


def test_the_repositorys_marked_sources():
    root = Path(__file__).resolve().parents[1]
    sources = sorted(p for d in ("aten", "generated", "torchlite/csrc") for p in (root / d).rglob("*.cpp"))
    got = {p.name for p in sources_reaching(sources, root, SANITIZED_O1_MARK)}
    # the kernels whose tests need FMA contraction, and the fused optimizers (docs/testing.md "Sanitizers")
    assert {"TranscendentalOps.cpp", "SoftmaxBackwardRowsAvx2.cpp", "FusedOptimizerKernels.cpp",
            "FusedOptimizerAdaptiveKernels.cpp"} <= got
    assert len(got) < len(sources) // 10  # most compile at -Og
