"""A loaded scripted module has every attribute of every module in its tree (format version 6), against
torch.jit.script / save / load 2.13 in the same test: the attributes compiled code only reads (ints, floats, bools,
strings, lists, dicts, tuples, Optionals, NoneType, plain tensors) read back, a set is cast as torch casts it (or
raises torch's "Could not cast attribute" error) and the next call sees it; `Final` / `__constants__` attributes
read back and refuse a set with torch's "Can't set constant"; `loaded.eval()` / `train()` change what code reading
`self.training` does; a save after a set keeps the new value; a fresh process loads, sets and runs one; a
version-5 archive written by main (tests/data, with a `with` over a class too) still loads, and a version the
reader does not know is refused naming the versions it reads."""
import io
import os
import subprocess
import sys
import textwrap
import zipfile
from typing import Dict, Final, List, Optional, Tuple

import pytest
import torch

import torchlite as tl

DATA = os.path.join(os.path.dirname(__file__), "data")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__)))


def make(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 2.0

        def forward(self, x):
            return x * self.scale

    class M(lib.nn.Module):
        __constants__ = ["k"]
        c: Final[int] = 3
        lst: List[int]
        d: Dict[str, float]

        def __init__(self):
            super().__init__()
            self.k = 4
            self.n = 2
            self.flag = True
            self.name = "a"
            self.lst = [1, 2]
            self.d = {"a": 1.0}
            self.tup = (1, 2.0)
            self.none = None
            self.t = lib.ones(2)
            self._priv = 5
            self.count = 0
            self.sub = Sub()
            self.lin = lib.nn.Linear(2, 2)

        def forward(self, x):
            self.count += 1
            y = x * self.n + self.k + self.c + len(self.lst) + self.d["a"] + self.tup[1] + self.t + self._priv
            if self.flag:
                y = y + 1
            if self.training:
                y = y + 100
            if self.name == "b":
                y = y * 10
            return self.sub(y)
    return M()


def _saved(lib, m):
    buf = io.BytesIO()
    lib.jit.save(m, buf)
    buf.seek(0)
    return lib.jit.load(buf)


def _loaded(lib):
    return _saved(lib, lib.jit.script(make(lib)))


def _result(fn):
    try:
        v = fn()
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return (type(e).__name__, str(e))
    if isinstance(v, (torch.Tensor, tl.Tensor)):
        return ("tensor", v.tolist())
    return ("value", v)


def _both(fn):
    out = {lib.__name__: fn(lib) for lib in (torch, tl)}
    assert out["torchlite"] == out["torch"], out
    return out["torch"]


NAMES = ["k", "c", "n", "flag", "name", "lst", "d", "tup", "none", "_priv", "count", "training"]


def test_every_attribute_reads_back():
    def run(lib):
        m = _loaded(lib)
        return [_result(lambda: getattr(m, n)) for n in NAMES] + [m.sub.scale, m.t.tolist()]
    _both(run)


SETS = [("n", 3), ("n", 3.5), ("n", True), ("flag", 0), ("flag", "x"), ("name", "b"), ("name", 5),
        ("lst", (1, 2, 3)), ("lst", [1.5]), ("d", {"a": 2}), ("d", {1: 2.0}), ("tup", [5, 6]), ("tup", (1,)),
        ("none", None), ("none", 7), ("t", 3), ("_priv", 1), ("k", 10), ("c", 10), ("training", 0),
        ("training", "x"), ("newattr", 3)]


@pytest.mark.parametrize("name,value", SETS, ids=[f"{n}={v!r}" for n, v in SETS])
def test_set_is_cast_and_seen_by_the_next_call(name, value):
    def run(lib):
        m = _loaded(lib)
        x = lib.ones(2)
        if name == "t":
            return _result(lambda: setattr(m, name, value))
        return [_result(lambda: setattr(m, name, value)), _result(lambda: getattr(m, name)), _result(lambda: m(x)),
                _result(lambda: m(x))]
    _both(run)


def test_submodule_attribute_and_tensor_attribute():
    def run(lib):
        m = _loaded(lib)
        x = lib.ones(2)
        m.sub.scale = 3  # (an int cast to the float attribute)
        m.t = lib.full((2,), 5.0)
        return [m.sub.scale, m(x).tolist()]
    _both(run)


def test_constants_of_library_modules():
    def run(lib):
        m = _loaded(lib)
        return [m.lin.in_features, _result(lambda: setattr(m.lin, "in_features", 5)), m.lin.in_features]
    _both(run)


def test_train_eval_change_what_the_code_reading_training_does():
    def run(lib):
        m = _loaded(lib)
        x = lib.ones(2)
        out = [m.training, m(x).tolist()]
        m.eval()
        out += [m.training, m.sub.training, m(x).tolist()]
        m.train()
        out += [m(x).tolist()]
        m.training = False  # the root only
        out += [m.sub.training, m(x).tolist()]
        return out
    _both(run)


def test_dropout_and_batch_norm_follow_eval_after_loading():
    """Saved in training mode, evaluated after loading: dropout off, batch_norm on the running statistics (torch's
    loaded module reads the flag at run time; a version 5 archive had the training-mode graph baked in)."""
    class Net(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = tl.nn.Conv2d(2, 3, 3)
            self.bn = tl.nn.BatchNorm2d(3)
            self.drop = tl.nn.Dropout(0.5)

        def forward(self, x):
            return self.drop(self.bn(self.conv(x)))
    tl.manual_seed(0)
    net = Net()
    x = tl.randn(2, 2, 6, 6)
    loaded = _saved(tl, tl.jit.script(net))
    net(x)  # the same batch statistics update as the loaded module's first call
    loaded(x)
    net.eval()
    loaded.eval()
    assert tl.allclose(loaded(x), net(x))
    assert tl.equal(loaded.bn.running_mean, net.bn.running_mean)
    frozen = tl.jit.freeze(loaded)  # the flags fold: batch_norm folds into the convolution
    assert not frozen.graph.findNode("aten::batch_norm")
    assert tl.allclose(frozen(x), net(x), atol=1e-5)
    loaded.train()
    assert not tl.allclose(loaded(x), net(x))


def test_save_after_a_set_keeps_the_new_value():
    def run(lib):
        m = _loaded(lib)
        m.n = 5
        m.lst = [7]
        m.eval()
        again = _saved(lib, m)
        return [again.n, again.lst, again.training, again.k, again.c, again(lib.ones(2)).tolist(),
                _result(lambda: setattr(again, "k", 1))]
    _both(run)


def test_archive_carries_types_and_constants():
    data = tl.jit.script(make(tl)).save_to_buffer()
    z = zipfile.ZipFile(io.BytesIO(data))
    assert z.read("archive/version") == b"6\n"
    model = z.read("archive/model").decode()
    for entry in ('"n" int int 2', '"flag" bool bool 1', '"name" str str "a"', '"lst" List int list 2 int 1 int 2',
                  '"none" NoneType None', '"_priv" int int 5', '"scale" float float 0x1p+1',
                  '"d" Dict str float list 2 str "a" float 0x1p+0'):
        assert entry in model, entry
    assert " ".join(model.split()).count('constants 2 "c" int int 3 "k" int int 4 methods') == 1
    assert " ".join(model.split()).count('constants 2 "in_features" int int 2 "out_features" int int 2') == 1
    assert '"training"' not in model  # (the module header holds the flag)
    assert 'name" str "training"' in z.read("archive/code/forward.graph").decode()  # read at run time


def test_fresh_process_sets_attributes_after_loading(tmp_path):
    m = tl.jit.script(make(tl))
    path = tmp_path / "m.pt"
    tl.jit.save(m, path)
    expected = _saved(torch, torch.jit.script(make(torch)))
    x = torch.ones(2)
    expected.n = 3
    expected.sub.scale = 1
    expected.eval()
    want = expected(x).tolist()
    code = textwrap.dedent(f"""
        import sys
        import torchlite as tl
        m = tl.jit.load({str(path)!r})
        m.n = 3
        m.sub.scale = 1
        m.eval()
        try:
            m.k = 1
        except RuntimeError as e:
            print(e)
        try:
            m.n = "x"
        except RuntimeError as e:
            print(str(e).split(":")[0])
        print(m(tl.ones(2)).tolist())
        tl.jit.save(m, {str(tmp_path / 'again.pt')!r})
        again = tl.jit.load({str(tmp_path / 'again.pt')!r})
        print(again.n, again.sub.scale, again.training, again(tl.ones(2)).tolist())
        assert "torch" not in sys.modules
    """)
    env = dict(os.environ, PYTHONPATH=ROOT)  # this checkout's torchlite
    res = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert lines[0] == "Can't set constant 'k' which has value:4"
    assert lines[1] == "Could not cast attribute 'n' to type int"
    assert lines[2] == str(want)
    assert lines[3] == f"3 1.0 False {want}"


def test_version_5_archive_written_by_main_still_loads():
    """tests/data/jit_archive_v5.pt: written by main at 9ee9a202 (attributes: only `count`, which forward assigns;
    the graph folded `n`, `c` and the training flag). It loads and runs as it did; its folded attributes are not
    attributes of the loaded module."""
    m = tl.jit.load(os.path.join(DATA, "jit_archive_v5.pt"))
    x = tl.ones(2)
    assert m.count == 0
    out = m(x, 2)
    assert m.count == 2
    w, b = m.sub.lin.weight, m.sub.lin.bias
    with tl.no_grad():
        want = (x @ w.t() + b) * 2.0 * 2 + 3 + 100
    assert tl.allclose(out, want)
    assert not hasattr(m, "n")
    m.eval()  # (the version 5 graph has the training-mode code baked in)
    assert tl.allclose(m(x), want)
    again = _saved(tl, m)
    assert again.count == 3 and tl.allclose(again(x), want)


def test_version_5_archive_with_a_with_block_still_loads():
    """tests/data/jit_archive_v5_with.pt: prim::Enter / prim::Exit written by main as version 5."""
    m = tl.jit.load(os.path.join(DATA, "jit_archive_v5_with.pt"))
    assert m(3) == 6
    data = m.save_to_buffer()  # written again: version 6, which a reader from before prim::Enter refuses by version
    assert zipfile.ZipFile(io.BytesIO(data)).read("archive/version") == b"6\n"
    assert tl.jit.load(io.BytesIO(data))(4) == 8


def test_freeze_folds_attributes_of_loaded_and_preserved_methods():
    """Freezing folds the attributes and training flags version 6 graphs read (a loaded module's forward, and a
    scripted module's preserved method, compiled for the archive), as torch's freezing folds attributes."""
    class P(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 3
            self.flag = True

        def forward(self, x):
            return x * self.scale if self.flag else x

        @tl.jit.export
        def twice(self, x):
            return x * self.scale * 2 if self.training else x * self.scale
    x = tl.ones(2)
    for m in (_saved(tl, tl.jit.script(P())).eval(), tl.jit.script(P()).eval()):
        frozen = tl.jit.freeze(m, preserved_attrs=["twice"])
        for graph in (frozen.graph, frozen.twice.graph):
            assert not graph.findNode("prim::GetAttr") and not graph.findNode("prim::If")
        assert frozen(x).tolist() == [3.0, 3.0] and frozen.twice(x).tolist() == [3.0, 3.0]


def test_unknown_version_names_the_versions_read():
    data = tl.jit.script(make(tl)).save_to_buffer()
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            z.writestr(info.filename, b"7\n" if info.filename.endswith("/version") else src.read(info))
    with pytest.raises(RuntimeError, match="has archive version '7.x0a'; this build reads versions 1 to 6"):
        tl.jit.load(io.BytesIO(out.getvalue()))


@pytest.mark.parametrize("old,new,message", [
    ('"c" int int 3', '"c" int str "3"', "attribute c holds a str"),
    ('"c" int int 3', '"training" int int 3', "an attribute named 'training'"),
    ('"c" int int 3', '"n" int int 3', "bad or repeated attribute name 'n'"),
    ('constants 2\n    "c" int int 3\n    "k" int int 4', 'constants 9', "expected"),
])
def test_corrupt_constants_raise(old, new, message):
    data = tl.jit.script(make(tl)).save_to_buffer()
    src = zipfile.ZipFile(io.BytesIO(data))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for info in src.infolist():
            body = src.read(info)
            if info.filename.endswith("/model"):
                assert old.encode() in body
                body = body.replace(old.encode(), new.encode(), 1)
            z.writestr(info.filename, body)
    with pytest.raises(RuntimeError, match=message):
        tl.jit.load(io.BytesIO(out.getvalue()))


def test_cpp_module_runs_with_the_training_flag():
    """The C++ Module (torchlite::jit::load) gives the graphs the training flag and the attributes."""
    from torchlite._C import _jit
    data = tl.jit.script(make(tl)).save_to_buffer()
    cpp, _ = _jit._load_module(data, None, "the buffer")
    x = tl.ones(2)
    train = cpp.run_method("forward", [x])[0]
    cpp.training = False
    assert (train - cpp.run_method("forward", [x])[0]).tolist() == [200.0, 200.0]
    assert cpp.attr("count") == 2


def test_attribute_whose_run_time_read_does_not_compile_stays_a_constant():
    """`t[self.idx]` of a tuple of mixed types needs a constant index: the archive's compilation keeps `idx` folded
    (found by compiling without it) and writes it as a constant, which the loaded module refuses to set (torch
    reads it at run time there: a documented difference); the other attributes stay run-time ones. A second save
    does not search again."""
    class F(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.idx = 1
            self.n = 2

        def forward(self, x):
            t = (x, 2.0, "s")
            return t[self.idx] * self.n
    s = tl.jit.script(F())
    loaded = _saved(tl, s)
    assert loaded(tl.ones(1)) == 4.0 and loaded.idx == 1
    with pytest.raises(RuntimeError, match="Can't set constant 'idx' which has value:1"):
        loaded.idx = 0
    loaded.n = 3
    assert loaded(tl.ones(1)) == 6.0
    from torchlite.jit import _archive_attributes
    calls = []
    attempt = _archive_attributes._attempt
    try:
        _archive_attributes._attempt = lambda *a: calls.append(1) or attempt(*a)
        _saved(tl, s)
    finally:
        _archive_attributes._attempt = attempt
    assert len(calls) == 1


class Flip(tl.nn.Module):
    def forward(self, x, mode: bool):
        before = self.training
        self.training = mode
        if self.training:
            return x + 1, before
        return x - 1, before


def test_flag_assigned_by_script_reaches_python_after_loading():
    """`self.training = mode` in script: the loaded module's flag follows the call (version 6: the header's flag,
    copied in and out; tests/data/jit_archive_v5_training.pt, written by main at 2ecb66bf, saved it as an
    attribute named `training`, which still loads)."""
    for loaded in (_saved(tl, tl.jit.script(Flip())), tl.jit.load(os.path.join(DATA, "jit_archive_v5_training.pt"))):
        out, before = loaded(tl.zeros(1), False)
        assert out.tolist() == [-1.0] and before is True and loaded.training is False
        out, before = loaded(tl.zeros(1), True)
        assert out.tolist() == [1.0] and before is False and loaded.training is True
        loaded.eval()
        assert loaded(tl.zeros(1), True)[1] is False
