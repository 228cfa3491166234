"""The precompiled header of the build (build_support/ninja_build.py, precompiled.h): which sources
read it, that GCC really uses the .gch, that ninja rebuilds it and its readers when a header in it
changes, and when setup.py turns it on (no active ccache, or TORCHLITE_PCH)."""
import os
from pathlib import Path

import pytest

from build_support.ninja_build import Build, Library, precompiled_header_choice, run_ninja, write_ninja_file


def _project(root: Path, extra_cflags=()) -> Build:
    (root / "inc").mkdir(parents=True)
    (root / "src").mkdir()
    (root / "inc" / "common.h").write_text("#pragma once\n#include <vector>\ninline int base() { return 40; }\n")
    (root / "inc" / "all.h").write_text('#pragma once\n#include "inc/common.h"\n')
    plain, special = root / "src" / "plain.cpp", root / "src" / "special.cpp"
    plain.write_text('#include "inc/common.h"\nextern "C" int plain_value() { return base() + 2; }\n')
    special.write_text('#include "inc/common.h"\nextern "C" int special_value() { return base() + 3; }\n')
    return Build(root=root, build_dir=root / "build", cxx=["g++"], cflags=["-O0", "-fPIC", f"-I{root}", "-H"],
                 ldflags=[], libraries=(Library("libp.so", [plain, special]),),
                 source_cflags=(("src/special.cpp", tuple(extra_cflags)),) if extra_cflags else (),
                 pch=root / "inc" / "all.h")


def test_sources_with_the_builds_flags_read_the_precompiled_header(tmp_path, capfd):
    build = _project(tmp_path / "p", extra_cflags=("-DSPECIAL=1",))
    text = write_ninja_file(build).read_text()
    gch = f"{build.pch_include}.gch"
    assert f"build {gch}: pch {build.pch_include}" in text
    plain_stmt = next(l for l in text.splitlines() if l.startswith(f"build {build.object_for(build.sources[0])}"))
    special_stmt = next(l for l in text.splitlines() if l.startswith(f"build {build.object_for(build.sources[1])}"))
    assert plain_stmt.endswith(f"| {gch}") and gch not in special_stmt  # other flags: no .gch
    assert build.pch_include.read_text() == '#include "inc/all.h"\n'

    built = run_ninja(build)
    out = capfd.readouterr()
    log = out.out + out.err
    # -H marks a precompiled header GCC used with "!" (and one it rejected with "x").
    assert f"! {gch}" in log and f"x {gch}" not in log
    import ctypes
    lib = ctypes.CDLL(str(built["libp.so"]))
    assert (lib.plain_value(), lib.special_value()) == (42, 43)


def test_a_changed_header_rebuilds_the_gch_and_its_readers(tmp_path, capfd):
    build = _project(tmp_path / "p")
    run_ninja(build)
    gch = Path(f"{build.pch_include}.gch")
    obj = build.object_for(build.sources[0])
    before = (gch.stat().st_mtime_ns, obj.stat().st_mtime_ns)
    capfd.readouterr()
    run_ninja(build)  # nothing changed: nothing rebuilt
    assert (gch.stat().st_mtime_ns, obj.stat().st_mtime_ns) == before
    header = build.root / "inc" / "common.h"
    header.write_text(header.read_text().replace("40", "50"))
    os.utime(header, ns=(before[0] + 10**9, before[0] + 10**9))
    built = run_ninja(build)
    assert gch.stat().st_mtime_ns > before[0] and obj.stat().st_mtime_ns > before[1]
    import ctypes
    assert ctypes.CDLL(str(built["libp.so"])).plain_value() == 52


@pytest.mark.parametrize("env, cxx, expect_cxx, expect_pch", [
    ({}, ["g++"], ["g++"], True),                                          # no ccache: on
    ({}, ["/usr/bin/ccache", "g++"], ["/usr/bin/ccache", "g++"], False),   # behind ccache: off
    ({"CCACHE_DISABLE": "1"}, ["/usr/bin/ccache", "g++"], ["g++"], True),  # ccache disabled: on, without it
    ({"TORCHLITE_PCH": "1"}, ["/usr/bin/ccache", "g++"], ["g++"], True),   # forced on: ccache dropped
    ({"TORCHLITE_PCH": "0"}, ["g++"], ["g++"], False),                     # forced off
])
def test_when_the_build_uses_a_precompiled_header(monkeypatch, env, cxx, expect_cxx, expect_pch):
    for name in ("CCACHE_DISABLE", "TORCHLITE_PCH"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    header = Path("build_support/precompiled.h")
    assert precompiled_header_choice(cxx, header) == (expect_cxx, header if expect_pch else None)
