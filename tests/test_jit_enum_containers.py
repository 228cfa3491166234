"""Enum members inside containers (List[Color], Dict[str, Color], Optional[List[Color]], tuples, nested) as
arguments and results of scripted and loaded modules, against torch.jit.script / save / load 2.13 in the same
test: members in, members out, torch's errors for values that are not members; the archive names each Enum's
place inside its argument's or return's type (format version 5), so a fresh process gets members back when it
has the class and torch's "Unknown reference to ScriptClass" when it has not."""
import enum
import io
import re
import os
import subprocess
import sys
import textwrap
import zipfile
from typing import Dict, List, Optional, Tuple

import pytest
import torch

import torchlite as tl


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


def make(lib):
    class Many(lib.nn.Module):
        def forward(self, l: List[Color], d: Dict[str, Color], o: Optional[List[Color]],
                    t: Tuple[Color, List[Mode]]) -> Tuple[List[Color], Dict[str, Color], Optional[List[Color]],
                                                          Tuple[Color, List[Mode]]]:
            out: List[Color] = []
            for c in l:
                out.append(Color.GREEN if c == Color.RED else Color.RED)
            d["first"] = l[0] if len(l) > 0 else Color.RED
            return out, d, o, t

    class Nested(lib.nn.Module):
        def forward(self, x: Dict[str, List[Optional[Mode]]]) -> List[Dict[str, Optional[Mode]]]:
            out: List[Dict[str, Optional[Mode]]] = []
            for k, v in x.items():
                for m in v:
                    e: Dict[str, Optional[Mode]] = {k: m}
                    out.append(e)
            return out

    class Count(lib.nn.Module):
        def forward(self, xs: List[Color]) -> int:
            n = 0
            for c in xs:
                if c == Color.GREEN:
                    n += 1
            return n
    return Many(), Nested(), Count()


def _saved(lib, m):
    buf = io.BytesIO()
    lib.jit.save(lib.jit.script(m), buf)
    buf.seek(0)
    return lib.jit.load(buf)


def _outcome(f):
    try:
        return ("ok", f())
    except RuntimeError as e:
        return ("RuntimeError", str(e).split("\n")[0])


def _calls(many, nested, count):
    R, G = Color.RED, Color.GREEN
    return [
        lambda: many([R, G], {"a": G}, None, (R, [Mode.SLOW])),
        lambda: many([], {}, [G, R], (G, [])),
        lambda: many(l=[G], d={}, o=[], t=(R, [Mode.FAST, Mode.SLOW])),
        lambda: nested({"p": [Mode.FAST, None], "q": []}),
        lambda: count([R, G, G]),
        lambda: count([]),
        # not members: torch's messages (List[__torch__...Color], Dict[str, __torch__...Color], ...)
        lambda: many([1], {}, None, (R, [])),
        lambda: many([R], {"a": 1}, None, (R, [])),
        lambda: many([R], {}, [2], (R, [])),
        lambda: many([R], {}, None, (R, ["fast"])),
        lambda: many([R], {}, None, (1, [])),
        lambda: nested({"p": ["fast"]}),
        lambda: count(R),
    ]


@pytest.mark.parametrize("loaded", [False, True])
def test_members_in_containers_as_torch(loaded):
    results = {}
    for lib in (torch, tl):
        mods = [_saved(lib, m) if loaded else lib.jit.script(m) for m in make(lib)]
        results[lib.__name__] = [_outcome(f) for f in _calls(*mods)]
    t, l = results["torch"], results["torchlite"]
    for i, (rt, rl) in enumerate(zip(t, l)):
        assert rl == rt, (i, rl, rt)
    ok = t[0][1]
    assert ok[0] == [Color.GREEN, Color.RED] and ok[0][0] is Color.GREEN and ok[1]["first"] is Color.RED
    assert l[0][1][3][1][0] is Mode.SLOW  # the members themselves
    assert t[6][0] == "RuntimeError"


def test_archive_names_enum_places():
    data = tl.jit.script(make(tl)[0]).save_to_buffer()
    model = zipfile.ZipFile(io.BytesIO(data)).read("archive/model").decode()
    name = "__torch__.test_jit_enum_containers"
    for place in (f'0 1 0 "{name}.Color"', f'1 1 1 "{name}.Color"', f'2 2 0 0 "{name}.Color"',
                  f'3 1 0 "{name}.Color"', f'3 2 1 0 "{name}.Mode"', f'-1 2 0 0 "{name}.Color"',
                  f'-1 3 2 0 0 "{name}.Color"', f'-1 3 3 1 0 "{name}.Mode"'):
        assert place in model, place


_FRESH = '''
import enum, sys
import {lib} as lib
{cls}
m = lib.jit.load(sys.argv[1])
def outcome(f):
    try:
        r = f()
        return "ok " + repr(r)
    except RuntimeError as e:
        return "RuntimeError " + str(e).split(chr(10))[0]
class Other(enum.Enum):
    RED = 1
    GREEN = 2
print(outcome(lambda: m([Other.RED], {{"a": Other.GREEN}}, None, (Other.RED, []))))
print(outcome(lambda: m([1], {{}}, None, (Other.RED, []))))
'''

_CLASSES = '''
class Color(enum.Enum):
    RED = 1
    GREEN = 2
class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"
'''


def test_fresh_process_without_the_class_as_torch(tmp_path):
    """torch in a process that never scripted the class raises for a returned member; arguments that are members
    of any Enum run on their values, and a non-member argument raises torch's error."""
    out = {}
    for name, lib in (("torch", torch), ("torchlite", tl)):
        path = str(tmp_path / f"{name}.pt")
        lib.jit.script(make(lib)[0]).save(path)
        script = tmp_path / f"fresh_{name}.py"
        script.write_text(_FRESH.format(lib=name, cls=""))
        r = subprocess.run([sys.executable, str(script), path], capture_output=True, text=True, timeout=120)
        assert r.returncode == 0, r.stderr
        out[name] = r.stdout.strip().splitlines()
    assert out["torchlite"] == out["torch"]
    assert out["torch"][0].startswith("RuntimeError Unknown reference to ScriptClass")


def test_fresh_process_with_the_class_gets_members(tmp_path):
    """With classes of the saved names and members (here defined in __main__, as the archive of a module scripted
    from another module names them by that module: imported) torchlite gives members back."""
    path = tmp_path / "m.pt"
    tl.jit.script(make(tl)[0]).save(str(path))
    code = textwrap.dedent('''
        import sys
        sys.path.insert(0, sys.argv[2])
        import torchlite as tl
        from test_jit_enum_containers import Color, Mode
        m = tl.jit.load(sys.argv[1])
        r = m([Color.RED], {"a": Color.GREEN}, [Color.GREEN], (Color.RED, [Mode.SLOW]))
        print(r[0] == [Color.GREEN], r[1] == {"a": Color.GREEN, "first": Color.RED}, r[2] == [Color.GREEN],
              r[3][1][0] is Mode.SLOW)
        ''')
    script = tmp_path / "with_class.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script), str(path), os.path.dirname(__file__)], capture_output=True,
                       text=True, timeout=120)
    assert r.stdout.strip() == "True True True True", r.stderr


def test_version_4_archive_of_direct_members_still_loads():
    """Version 4 wrote a returned tuple's element k as position -2 - k and had no places inside containers."""
    class Pair(tl.nn.Module):
        def forward(self, c: Color) -> Tuple[Color, int]:
            return c, 1
    data = tl.jit.script(Pair()).save_to_buffer()
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    name = "__torch__.test_jit_enum_containers.Color"
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("/version"):
                body = b"4\n"
            elif info.filename.endswith("/model"):
                text = re.sub(r"\s+constants 0", "", body.decode())  # (version 6's constants: none here)
                assert f'0 0 "{name}"' in text and f'-1 1 0 "{name}"' in text
                body = text.replace(f'0 0 "{name}"', f'0 "{name}"').replace(f'-1 1 0 "{name}"', f'-2 "{name}"').encode()
            z.writestr(info.filename, body)
    out.seek(0)
    loaded = tl.jit.load(out)
    assert loaded(Color.GREEN) == (Color.GREEN, 1)
