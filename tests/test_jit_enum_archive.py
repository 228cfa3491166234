"""Enum members crossing a saved archive, against torch.jit.save / torch.jit.load 2.13: the archive names
each method's Enum classes (arguments and return: qualified name, member names and values), so a loaded
module takes members and gives members back, in this process and in a fresh one that has the class; an int
for an Enum argument raises torch's error; in a fresh process without the class the result raises torch's
"Unknown reference to ScriptClass" while arguments (members of any Enum, as torch reads their value) still
run. The format's enum entries are checked on load."""
import enum
import io
import os
import subprocess
import sys
import textwrap
import zipfile
from typing import Optional

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
    class Pick(lib.nn.Module):
        def forward(self, x, c: Color, m: Mode = Mode.FAST) -> Color:
            if c == Color.RED and m == Mode.FAST:
                return Color.GREEN
            return c

    class Maybe(lib.nn.Module):
        def forward(self, x, c: Optional[Color] = None) -> Optional[Color]:
            return c
    return Pick(), Maybe()


def _saved(lib, m):
    buf = io.BytesIO()
    lib.jit.save(lib.jit.script(m), buf)
    buf.seek(0)
    return lib.jit.load(buf)


def _outcome(f):
    try:
        return ("ok", f())
    except RuntimeError as e:
        return ("RuntimeError", str(e).split("\n")[0][:120])


def test_loaded_module_takes_and_gives_members_as_torch():
    results = {}
    for lib in (torch, tl):
        pick, maybe = (_saved(lib, m) for m in make(lib))
        x = lib.ones(1)
        results[lib.__name__] = [
            _outcome(lambda: pick(x, Color.RED)), _outcome(lambda: pick(x, Color.GREEN)),
            _outcome(lambda: pick(x, Color.RED, Mode.SLOW)), _outcome(lambda: pick(x, c=Color.RED)),
            _outcome(lambda: pick(x, Color.RED, m=Mode.SLOW)),
            _outcome(lambda: maybe(x)), _outcome(lambda: maybe(x, Color.GREEN)),
            _outcome(lambda: pick(x, 1)), _outcome(lambda: pick(x, Color.RED, "fast")),
        ]
    t, l = results["torch"], results["torchlite"]
    assert [r[0] for r in l] == [r[0] for r in t]
    for (kt, vt), (kl, vl) in zip(t, l):
        if kt == "ok":
            assert vl is vt  # the same member objects
        else:
            assert vl == vt, (vl, vt)  # "forward() Expected a value of type 'Enum<...Color>' for argument 'c' ..."
    assert t[0][1] is Color.GREEN and t[5][1] is None


_FRESH = '''
import enum, io, sys
import {lib} as lib
{cls}
class Other(enum.Enum):
    RED = 5
m = lib.jit.load(sys.argv[1])
x = lib.ones(1)
def outcome(f):
    try:
        r = f()
        return "ok " + (repr(r.value) if isinstance(r, enum.Enum) else repr(r))
    except RuntimeError as e:
        return "RuntimeError " + str(e).split(chr(10))[0]
print(outcome(lambda: m.forward(x, 1)))
'''


def _fresh(lib, path, with_class):
    code = _FRESH.format(lib=lib, cls=textwrap.dedent('''
        class Color(enum.Enum):
            RED = 1
            GREEN = 2
        class Mode(enum.Enum):
            FAST = "fast"
            SLOW = "slow"
        ''') if with_class else "")
    script = os.path.join(os.path.dirname(path), f"fresh_{lib}_{with_class}.py")
    with open(script, "w") as f:
        f.write(code)
    r = subprocess.run([sys.executable, script, path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    return r.stdout.strip().splitlines()


def test_fresh_process_as_torch(tmp_path):
    """Without the class (the archive's `__torch__.Color` is not in this process) torch raises for a returned
    member; an argument that is a member of any Enum runs (its value is read). With a class of that name and
    members torchlite gives members back; torch does too once script has compiled the class in the process
    (torchlite does not require that: the difference is documented in docs/jit.md)."""
    out = {}
    for lib in ("torch", "torchlite"):
        mod = torch if lib == "torch" else tl
        pick, _ = make(mod)
        path = str(tmp_path / f"{lib}.pt")
        scripted = mod.jit.script(pick)
        scripted.save(path)
        out[lib] = _fresh(lib, path, with_class=False)
    assert out["torch"][0] == out["torchlite"][0] == \
        "RuntimeError forward() Expected a value of type 'Enum<__torch__.test_jit_enum_archive.Color>' for argument " \
        "'c' but instead found type 'int'."
    # Arguments of another Enum class run on their values, and a returned member needs the class:
    code = textwrap.dedent('''
        import enum, sys
        import {lib} as lib
        class Other(enum.Enum):
            RED = 1
        class OtherMode(enum.Enum):
            SLOW = "slow"
        m = lib.jit.load(sys.argv[1])
        try:
            print("ok", m(lib.ones(1), Other.RED, OtherMode.SLOW))
        except RuntimeError as e:
            print("RuntimeError", str(e).split(chr(10))[0])
        ''')
    res = {}
    for lib in ("torch", "torchlite"):
        script = tmp_path / f"other_{lib}.py"
        script.write_text(code.format(lib=lib))
        r = subprocess.run([sys.executable, str(script), str(tmp_path / f"{lib}.pt")], capture_output=True,
                           text=True, timeout=120)
        res[lib] = r.stdout.strip()
    assert res["torch"] == res["torchlite"] == \
        "RuntimeError Unknown reference to ScriptClass __torch__.test_jit_enum_archive.Color. (Did you forget to " \
        "import it?)"


def test_fresh_process_with_the_class_gets_members(tmp_path):
    pick, _ = make(tl)
    path = tmp_path / "m.pt"
    tl.jit.script(pick).save(str(path))
    code = textwrap.dedent('''
        import sys
        sys.path.insert(0, sys.argv[2])
        import torchlite as tl
        from test_jit_enum_archive import Color, Mode  # the class's module imported: the process has it
        m = tl.jit.load(sys.argv[1])
        r = m(tl.ones(1), Color.RED)
        print(r is Color.GREEN, m(tl.ones(1), Color.RED, Mode.SLOW) is Color.RED)
        ''')
    script = tmp_path / "with_class.py"
    script.write_text(code)
    r = subprocess.run([sys.executable, str(script), str(path), os.path.dirname(__file__)], capture_output=True,
                       text=True, timeout=120)
    assert r.stdout.strip() == "True True", r.stderr


def _rewrite_model(data, edit):
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("/model"):
                body = edit(body.decode()).encode()
            z.writestr(info.filename, body)
    out.seek(0)
    return out


def test_archive_names_the_classes_and_bad_entries_raise():
    pick, _ = make(tl)
    data = tl.jit.script(pick).save_to_buffer()
    model = zipfile.ZipFile(io.BytesIO(data)).read("archive/model").decode()
    assert 'enums 3 1 0 "__torch__.test_jit_enum_archive.Color" 2 "RED" int 1 "GREEN" int 2' in model
    assert '2 0 "__torch__.test_jit_enum_archive.Mode" 2 "FAST" str "fast" "SLOW" str "slow"' in model
    assert '-1 0 "__torch__.test_jit_enum_archive.Color"' in model
    assert zipfile.ZipFile(io.BytesIO(data)).read("archive/version") == b"6\n"
    tl.jit.load(_rewrite_model(data, lambda s: s))  # rewritten by Python's zipfile, unchanged: loads
    bad = {
        "position out of range": lambda s: s.replace('enums 3 1 0 "', 'enums 3 7 0 "'),
        "position below the return": lambda s: s.replace('enums 3 1 0 "', 'enums 3 -2 0 "'),
        "repeated position": lambda s: s.replace('2 0 "__torch__.test_jit_enum_archive.Mode"',
                                                 '1 0 "__torch__.test_jit_enum_archive.Mode"'),
        "path into a non-container": lambda s: s.replace('enums 3 1 0 "', 'enums 3 1 1 0 "'),
        "path to a tensor": lambda s: s.replace('enums 3 1 0 "', 'enums 3 0 0 "'),
        "value type not the members'": lambda s: s.replace('2 0 "__torch__.test_jit_enum_archive.Mode"',
                                                           '2 0 "__torch__.test_jit_enum_archive.Color"', 1)
        .replace('"FAST" str "fast" "SLOW" str "slow"', '"FAST" int 1 "SLOW" int 2', 1),
        "negative step": lambda s: s.replace('enums 3 1 0 "', 'enums 3 1 1 -1 "'),
        "too long a path": lambda s: s.replace('enums 3 1 0 "', 'enums 3 1 999999 "'),
        "mixed member types": lambda s: s.replace('"GREEN" int 2', '"GREEN" str "2"', 1),
        "repeated member": lambda s: s.replace('"GREEN" int 2', '"RED" int 2', 1),
        "empty class name": lambda s: s.replace('1 0 "__torch__.test_jit_enum_archive.Color"', '1 0 ""', 1),
        "tensor value": lambda s: s.replace('"GREEN" int 2', '"GREEN" tensor 0', 1),
    }
    for what, edit in bad.items():
        with pytest.raises(RuntimeError, match="record model is corrupt"):
            tl.jit.load(_rewrite_model(data, edit))


def test_version_3_archive_still_loads_on_values():
    """An archive written before the classes were named (version 3, no `enums`) takes and gives values."""
    pick, _ = make(tl)
    data = tl.jit.script(pick).save_to_buffer()

    def to_v3(s):
        import re
        s = re.sub(r"\s+constants 0", "", s)  # (version 6's constants: none here)
        return re.sub(r' enums \d+( -?\d+ \d+( \d+)* "[^"]*" \d+( "[^"]*" (int -?\d+|str "[^"]*"))*)*', "", s)
    old = _rewrite_model(data, to_v3)
    src = zipfile.ZipFile(old)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            z.writestr(info.filename, b"3\n" if info.filename.endswith("/version") else src.read(info))
    out.seek(0)
    loaded = tl.jit.load(out)
    assert loaded(tl.ones(1), 1) == 2
