"""Dicts across a saved archive (format version 5), against torch.jit.script / save / load 2.13 in the same test:
the graphs keep `Dict[K, V]` types, so a loaded module takes and returns real dicts, nested in lists, Optionals,
tuples and other dicts, in this process and in a fresh one; a wrong argument raises torch's error; version 4
archives (dicts saved as `Any`) still load and keep their list form."""
import io
import re
import subprocess
import sys
import zipfile
from typing import Dict, List, Optional, Tuple

import pytest
import torch

import torchlite as tl


def make(lib):
    T = lib.Tensor

    class Nest(lib.nn.Module):
        def forward(self, d: Dict[str, List[T]], l: List[Dict[str, int]], o: Optional[Dict[str, int]],
                    t: Tuple[Dict[str, int], int]) -> Tuple[Dict[str, List[T]], List[Dict[str, int]],
                                                            Optional[Dict[str, int]], Tuple[Dict[str, int], int]]:
            out: Dict[str, List[T]] = {}
            for k, v in d.items():
                out[k + "!"] = [x * 2 for x in v]
            l.append({"n": len(l)})
            if o is not None:
                o["seen"] = 1
            t[0]["extra"] = t[1]
            return out, l, o, t

    class Keys(lib.nn.Module):
        def forward(self, x: Dict[float, int], y: Dict[int, Dict[str, float]],
                    z: Optional[Dict[str, int]] = None) -> Dict[int, Dict[str, float]]:
            for k, v in x.items():
                y[int(k)] = {"v": float(v)}
            if z is not None:
                y[-1] = {"z": float(len(z))}
            return y

    class Plain(lib.nn.Module):
        def forward(self, d: Dict[str, int]) -> Dict[str, int]:
            d["b"] = 2
            return d
    return Nest(), Keys(), Plain()


def _saved(lib, m):
    buf = io.BytesIO()
    lib.jit.save(lib.jit.script(m), buf)
    buf.seek(0)
    return lib.jit.load(buf)


def _norm(v):
    """A result with tensors as ("T", values): comparable across the libraries."""
    if isinstance(v, (torch.Tensor, tl.Tensor)):
        return ("T", v.tolist())
    if isinstance(v, dict):
        return {k: _norm(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_norm(x) for x in v]
    if isinstance(v, tuple):
        return tuple(_norm(x) for x in v)
    return v


def _outcome(f):
    try:
        return ("ok", _norm(f()))
    except RuntimeError as e:
        return ("RuntimeError", str(e).split("\n")[0])


def _calls(lib, nest, keys, plain):
    x = lib.tensor([1.0, 2.0])
    return [
        lambda: nest({"a": [x, x + 1], "b": []}, [{"p": 1}], None, ({"c": 2}, 3)),
        lambda: nest({}, [], {"z": 0}, ({}, 7)),
        lambda: keys({1: 2, 2.5: 3}, {}),  # an int key of a Dict[float, int] is taken as a float
        lambda: keys({}, {4: {"w": 1.0}}, {"a": 1, "b": 2}),
        lambda: keys({}, {}, z={"a": 1}),
        lambda: plain({"a": 1}),
        lambda: plain(d={}),
        lambda: plain([]),  # torch takes an empty list for an empty dict
        lambda: nest({"a": [x]}, [[]], None, ([], 1)),
        # wrong arguments: torch's messages
        lambda: plain([1, 2]),
        lambda: plain({"a": 1.5}),
        lambda: plain({1: 1}),
        lambda: nest({"a": 1}, [], None, ({}, 1)),
        lambda: nest({"a": [x]}, [{"p": "q"}], None, ({}, 1)),
        lambda: nest({"a": [x]}, [], [1], ({}, 1)),
        lambda: nest({"a": [x]}, [], None, ([1], 1)),
        lambda: keys({1.5: 2.5}, {}),
    ]


@pytest.mark.parametrize("loaded", [False, True])
def test_dicts_in_and_out_as_torch(loaded):
    results = {}
    for lib in (torch, tl):
        mods = make(lib)
        mods = [_saved(lib, m) if loaded else lib.jit.script(m) for m in mods]
        results[lib.__name__] = [_outcome(f) for f in _calls(lib, *mods)]
    t, l = results["torch"], results["torchlite"]
    assert len(t) == len(l)
    for i, (rt, rl) in enumerate(zip(t, l)):
        assert rl == rt, (i, rl, rt)
    assert t[0][0] == "ok" and isinstance(t[0][1][0], dict) and t[9][0] == "RuntimeError"


def test_archive_keeps_dict_types():
    data = tl.jit.script(make(tl)[0]).save_to_buffer()
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.read("archive/version") == b"6\n"
    graph = z.read("archive/code/forward.graph").decode()
    assert '"d" Dict str List Tensor' in graph
    assert '"l" List Dict str int' in graph
    assert '"o" Optional Dict str int' in graph
    assert '"t" Tuple 2 Dict str int int' in graph
    loaded = tl.jit.load(io.BytesIO(data))
    assert [str(v.type()) for v in loaded.graph.inputs()[1:]] == \
        ["Dict(str, Tensor[])", "Dict(str, int)[]", "Dict(str, int)?", "(Dict(str, int), int)"]


def _rewrite(data, edit_records):
    src = zipfile.ZipFile(io.BytesIO(data))
    records = {info.filename: src.read(info) for info in src.infolist()}
    records = edit_records(records)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for name, body in records.items():
            z.writestr(name, body)
    out.seek(0)
    return out


def test_version_4_archive_still_loads_with_list_form():
    """A version 4 writer saved a dict's type as Any: such an archive loads, and takes and gives the list form."""
    data = tl.jit.script(make(tl)[2]).save_to_buffer()

    def to_v4(records):
        out = {}
        for name, body in records.items():
            if name.endswith("/version"):
                body = b"4\n"
            elif name.endswith(".graph"):
                body = re.sub(rb"Dict str int", b"Any", body)
            elif name.endswith("/model"):
                body = re.sub(rb"\s+constants 0", b"", body)  # (version 6's constants: none here)
            out[name] = body
        return out
    old = tl.jit.load(_rewrite(data, to_v4))
    assert old(["a", 1]) == ["a", 1, "b", 2]
    assert _saved(tl, make(tl)[2])({"a": 1}) == {"a": 1, "b": 2}


def test_corrupt_dict_types_raise():
    data = tl.jit.script(make(tl)[2]).save_to_buffer()
    for bad in (rb"Dict str Wat", rb"Dict str", rb"Dict " * 400 + rb"str int"):
        def edit(records, bad=bad):
            return {n: (b.replace(b"Dict str int", bad, 1) if n.endswith(".graph") else b) for n, b in records.items()}
        with pytest.raises(RuntimeError, match="is corrupt"):
            tl.jit.load(_rewrite(data, edit))


_FRESH = '''
import sys
from typing import Dict, List
import {lib} as lib
m = lib.jit.load(sys.argv[1])
x = lib.tensor([1.0, 2.0])
def norm(v):
    if isinstance(v, lib.Tensor):
        return ("T", v.tolist())
    if isinstance(v, dict):
        return {{k: norm(a) for k, a in v.items()}}
    if isinstance(v, (list, tuple)):
        return type(v)(norm(a) for a in v)
    return v
def outcome(f):
    try:
        return "ok " + repr(norm(f()))
    except RuntimeError as e:
        return "RuntimeError " + str(e).split(chr(10))[0]
print(outcome(lambda: m({{"a": [x]}}, [{{"p": 1}}], {{"q": 2}}, ({{"c": 2}}, 3))))
print(outcome(lambda: m({{"a": [x]}}, [], None, ({{}}, 0))))
print(outcome(lambda: m(["a", [x]], [], None, ({{}}, 0))))
'''


def test_fresh_process_as_torch(tmp_path):
    out = {}
    for name, lib in (("torch", torch), ("torchlite", tl)):
        path = str(tmp_path / f"{name}.pt")
        lib.jit.script(make(lib)[0]).save(path)
        script = tmp_path / f"fresh_{name}.py"
        script.write_text(_FRESH.format(lib=name))
        r = subprocess.run([sys.executable, str(script), path], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out[name] = r.stdout.strip().splitlines()
    assert out["torchlite"] == out["torch"]
    assert out["torch"][0].startswith("ok ({'a!': [('T', [2.0, 4.0])]}")


def test_cpp_module_takes_the_list_form():
    """The C++ Module (what torchlite::jit::load gives, docs/cpp.md) runs a version 5 archive: dicts pass as the
    interpreter runs them, keys and values alternating."""
    from torchlite._C import _jit
    data = tl.jit.script(make(tl)[2]).save_to_buffer()
    cpp, _ = _jit._load_module(data, None, "the buffer")
    assert cpp.run_method("forward", [["a", 1]])[0] == ["a", 1, "b", 2]
    assert str(cpp.methods[0][1].graph.inputs()[1].type()) == "Dict(str, int)"
