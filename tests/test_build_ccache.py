"""ccache in the build (build_support/ninja_build.py): used when it is on PATH, tested with a fake
`ccache` that records its arguments and runs the compiler, on a one-file build."""
import os
import stat
from pathlib import Path

from build_support.ninja_build import Build, Library, compiler, run_ninja, write_ninja_file


def _fake_ccache(bin_dir: Path, log: Path) -> Path:
    script = bin_dir / "ccache"
    script.write_text(f'#!/bin/sh\necho "$@" >> "{log}"\nexec "$@"\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script


def _on_path(monkeypatch, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "ccache.log"
    fake = _fake_ccache(bin_dir, log)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.delenv("CXX", raising=False)
    return fake, log


def _tiny_build(root: Path) -> Build:
    src = root / "src" / "answer.cpp"
    src.parent.mkdir(parents=True)
    src.write_text("extern \"C\" int answer() { return 42; }\n")
    return Build(root=root, build_dir=root / "build", libraries=(Library("libanswer.so", [src]),),
                 cxx=compiler(), cflags=["-O0", "-fPIC"], ldflags=[])


def test_compiler_runs_behind_ccache_on_path(monkeypatch, tmp_path):
    fake, _ = _on_path(monkeypatch, tmp_path)
    assert compiler() == [str(fake), "g++"]
    monkeypatch.setenv("CXX", f"{fake} clang++ -v")  # already behind ccache: not wrapped twice
    assert compiler() == [str(fake), "clang++", "-v"]


def test_no_ccache_no_wrapper(monkeypatch, tmp_path):
    (tmp_path / "empty").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setenv("CXX", "g++")
    assert compiler() == ["g++"]


def test_build_ninja_compiles_and_links_through_ccache(monkeypatch, tmp_path):
    fake, log = _on_path(monkeypatch, tmp_path)
    build = _tiny_build(tmp_path / "proj")
    ninja_file = write_ninja_file(build)
    assert f"cxx = {fake} g++\n" in ninja_file.read_text()

    built = run_ninja(build)
    assert built == {"libanswer.so": build.output("libanswer.so")} and built["libanswer.so"].exists()
    calls = log.read_text().splitlines()
    compiles = [c for c in calls if " -c " in f" {c} "]
    assert len(compiles) == 1 and str(build.sources[0]) in compiles[0] and compiles[0].startswith("g++ ")
    assert any(" -shared " in f" {c} " for c in calls)  # the link goes through it too

    run_ninja(build)  # nothing changed: ninja runs nothing, ccache is not even asked
    assert log.read_text().splitlines() == calls


def test_a_library_links_against_another_of_the_build(tmp_path):
    """The layout setup.py uses (libtorchlite.so, and torchlite._C linking it): the dependent library is
    relinked when the one it links changes, and finds it by its rpath."""
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    core, ext = root / "src" / "core.cpp", root / "src" / "ext.cpp"
    core.write_text('int core_value() { return 41; }\n')
    ext.write_text('int core_value();\nextern "C" int ext_value() { return core_value() + 1; }\n')
    build = Build(root=root, build_dir=root / "build", cxx=["g++"], cflags=["-O0", "-fPIC"], ldflags=[],
                  libraries=(Library("libcore.so", [core], ldflags=("-Wl,-soname,libcore.so",)),
                             Library("libext.so", [ext], ldflags=("-Wl,-rpath,$ORIGIN",), links=("libcore.so",))))
    built = run_ninja(build)
    import ctypes
    assert ctypes.CDLL(str(built["libext.so"])).ext_value() == 42
    mtime = built["libext.so"].stat().st_mtime_ns
    core.write_text('int core_value() { return 41; }  // changed\n')
    run_ninja(build)
    assert built["libext.so"].stat().st_mtime_ns != mtime
