"""Attributes that a scripted module's compiled code only reads (torchlite/jit/_read_attributes.py) or changes only
through a method (`self.lst.append(x)`, `self.d[k] = v`): each program runs through torch.jit.script (torch 2.13)
and torchlite.jit.script, and the outputs, the attributes Python reads back and the errors are compared.

- set from Python (`scripted.threshold = 0.7`, `scripted.sub.scale = 2`): cast as torch casts it, and the next call
  uses the new value; a value of the wrong type raises torch's "Could not cast attribute ..."; a `Final` or
  `__constants__` attribute raises torch's "Can't set constant ..."; a module saved after the set carries it;
- changed in place by compiled code: the changes persist across calls and Python sees them."""
import io
import subprocess
import sys
from typing import Dict, List

import pytest
import torch

import torchlite as tl

try:
    from typing import Final
except ImportError:  # pragma: no cover
    from typing_extensions import Final


def _np(x):
    return x.detach().numpy()


def same(a, b):
    assert a.dtype.is_floating_point == b.dtype.is_floating_point
    assert a.shape == tuple(b.shape)
    assert _np(a).ravel().tolist() == pytest.approx(_np(b).ravel().tolist(), rel=1e-6)


def make_reader(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.scale = 3

        def forward(self, x):
            return x * self.scale

    class M(lib.nn.Module):
        __constants__ = ["c"]
        f: Final[int]

        def __init__(self):
            super().__init__()
            self.threshold = 0.5
            self.n = 2
            self.flag = True
            self.name = "a"
            self.tup = (1, 2)
            self.lst = [1, 2]
            self.d = {"a": 1}
            self.c = 4
            self.f = 5
            self.unused = 7
            self.sub = Sub()

        def forward(self, x):
            y = x * self.threshold + self.n + self.c + self.f + sum(self.lst) + self.tup[1] + self.d["a"]
            if self.flag:
                y = y + 1
            if self.name == "b":
                y = y * 100
            return self.sub(y)

    return lib.jit.script(M())


# (attribute, value set): each is set in turn on one module of each library, then the module is called
SETS = [("threshold", 1), ("threshold", 0.7), ("threshold", True), ("threshold", "x"), ("n", 2.5), ("n", True),
        ("n", 3), ("flag", 0), ("flag", 1.5), ("name", "b"), ("name", 1), ("tup", [3, 4]), ("tup", (1,)),
        ("lst", (5,)), ("lst", [1.5]), ("d", {"a": 4}), ("d", {"a": 2.5}), ("c", 10), ("f", 10), ("unused", "s"),
        ("unused", 8), ("newattr", 1), ("sub.scale", 2), ("sub.scale", 2.5), ("sub.scale", True), ("threshold", 0.5)]


def _set(m, path, value):
    *owners, name = path.split(".")
    for o in owners:
        m = getattr(m, o)
    setattr(m, name, value)
    return getattr(m, name)


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 (compared with torch's)
        return type(e).__name__, str(e)


def test_sets_are_cast_and_seen_by_the_next_call_as_torch():
    mt, ml = make_reader(torch), make_reader(tl)
    xt, xl = torch.arange(3.0), tl.arange(3.0)
    same(mt(xt), ml(xl))
    for path, value in SETS:
        rt, rl = _outcome(lambda: _set(mt, path, value)), _outcome(lambda: _set(ml, path, value))
        assert rt[0] == rl[0], (path, value, rt, rl)
        if rt[0] == "ok":
            assert rl[1] == rt[1] and type(rl[1]) is type(rt[1]), (path, value, rt, rl)
        else:
            assert rl[1] == rt[1], (path, value)
        same(mt(xt), ml(xl))


def test_constant_messages_print_values_as_torch():
    def make(lib):
        class Sub(lib.nn.Module):
            c: Final[float]

            def __init__(self):
                super().__init__()
                self.c = 1.5

            def forward(self, x):
                return x * self.c

        class M(lib.nn.Module):
            __constants__ = ["s", "t", "fl", "neg"]

            def __init__(self):
                super().__init__()
                self.s, self.t, self.fl, self.neg, self.sub = "ab", (1, 2.0, True), 2.0, -0.1, Sub()

            def forward(self, x):
                return self.sub(x) * self.fl + self.neg
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    for path in ("s", "t", "fl", "neg", "sub.c"):
        rt, rl = _outcome(lambda: _set(mt, path, 0)), _outcome(lambda: _set(ml, path, 0))
        assert rt[0] == "RuntimeError" and rl == rt, (path, rt, rl)
    same(mt(torch.ones(2)), ml(tl.ones(2)))


def test_untyped_values_are_stored_as_torch():
    """An empty list has no TorchScript type: torch stores whatever is set, uncast (a "failed" attribute)."""
    def make(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.e = []
                self.k = 2

            def forward(self, x):
                return x * self.k
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    for v in ([1], ["a", 2.5], (3,)):
        mt.e = v
        ml.e = v
        assert ml.e == mt.e
        same(mt(torch.ones(2)), ml(tl.ones(2)))


def test_exported_method_and_eval_mode_see_the_set():
    def make(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.scale = 2.0
                self.drop = lib.nn.Dropout(0.5)

            @lib.jit.export
            def scaled(self, x):
                return x * self.scale

            def forward(self, x):
                return self.drop(x) * self.scale
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    mt.eval()
    ml.eval()
    scaled_t, scaled_l = mt.scaled, ml.scaled  # a method fetched before the set sees it too
    for v in (3.0, 4, 0.25):
        mt.scale = v
        ml.scale = v
        same(mt(torch.ones(2)), ml(tl.ones(2)))
        same(scaled_t(torch.ones(2)), scaled_l(tl.ones(2)))


def test_library_submodule_attribute():
    """A library module's plain attribute read by its forward (LeakyReLU's negative_slope) set through the tree."""
    def make(lib):
        return lib.jit.script(lib.nn.Sequential(lib.nn.Linear(3, 3), lib.nn.LeakyReLU(0.1)))
    mt, ml = make(torch), make(tl)
    lin_t, lin_l, act_t, act_l = getattr(mt, "0"), getattr(ml, "0"), getattr(mt, "1"), getattr(ml, "1")
    lin_l.weight.data = tl.tensor(lin_t.weight.detach().numpy())
    lin_l.bias.data = tl.tensor(lin_t.bias.detach().numpy())
    x = [[-1.0, 2.0, -3.0], [4.0, -5.0, 6.0]]
    same(mt(torch.tensor(x)), ml(tl.tensor(x)))
    for v in (0.5, 2, "x"):
        rt, rl = _outcome(lambda: setattr(act_t, "negative_slope", v)), \
            _outcome(lambda: setattr(act_l, "negative_slope", v))
        assert rl == rt
        assert act_l.negative_slope == act_t.negative_slope
        same(mt(torch.tensor(x)), ml(tl.tensor(x)))


def _adder(lib, k):
    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.k = k

        def forward(self, x):
            return x + self.k
    return lib.jit.script(M())


def test_a_set_attribute_is_read_at_run_time_from_then_on():
    a, b = _adder(tl, 1), _adder(tl, 1)
    a.k = 5  # compiles a's methods again, reading k with prim::GetAttr
    graph = a.graph
    assert any(n.kind() == "prim::GetAttr" and n.s("name") == "k" for n in graph.nodes())
    assert not any(n.kind() == "prim::GetAttr" and n.s("name") == "k" for n in b.graph.nodes())
    assert a(tl.zeros(1)).tolist() == [5.0] and b(tl.zeros(1)).tolist() == [1.0]  # b is not affected
    for v in (7, True, 2):
        a.k = v  # no compilation: the same graph reads the new value
        assert a.graph is graph and a(tl.zeros(1)).tolist() == [float(v)]
    with pytest.raises(RuntimeError, match="Could not cast attribute 'k' to type int"):
        a.k = 0.5


def test_constant_fallback_recompiles_through_the_concrete_type_cache(monkeypatch):
    """Attributes whose type the module object cannot carry stay constants: a set drops the compiled methods, and
    a value compiled before is a concrete-type cache hit."""
    from torchlite.jit import _read_attributes
    from torchlite.jit._script import concrete_type

    monkeypatch.setattr(_read_attributes, "_RUNTIME_KINDS", frozenset())
    a, b = _adder(tl, 1), _adder(tl, 1)
    a.k = 5
    assert not any(n.kind() == "prim::GetAttr" and n.s("name") == "k" for n in a.graph.nodes())
    assert a(tl.zeros(1)).tolist() == [5.0] and b(tl.zeros(1)).tolist() == [1.0]
    hits = concrete_type.stats["hits"]
    a.k = 1  # a value compiled before: the cached graphs
    assert a(tl.zeros(1)).tolist() == [1.0]
    assert concrete_type.stats["hits"] == hits + 1


def test_saved_after_a_set_carries_the_new_value(tmp_path):
    mt, ml = make_reader(torch), make_reader(tl)
    mt.threshold = ml.threshold = 0.9
    mt.sub.scale = ml.sub.scale = 5
    buf = io.BytesIO()
    torch.jit.save(mt, buf)
    buf.seek(0)
    lt = torch.jit.load(buf)
    path = tmp_path / "m.pt"
    ml.save(str(path))
    ll = tl.jit.load(str(path))
    same(lt(torch.arange(3.0)), ll(tl.arange(3.0)))
    # in a fresh process, without the class
    code = ("import torchlite as tl; m = tl.jit.load(%r); print(m(tl.arange(3.0)).tolist())" % str(path))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(_root()))
    assert out.returncode == 0, out.stderr
    assert eval(out.stdout) == pytest.approx(lt(torch.arange(3.0)).tolist())


def _root():
    import pathlib
    return pathlib.Path(__file__).resolve().parent.parent


def make_mutator(lib):
    class Sub(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.seen: List[int] = [0]

        def forward(self, n: int) -> int:
            self.seen.append(n)
            return len(self.seen)

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.lst: List[int] = [1]
            self.d: Dict[str, int] = {"a": 1}
            self.hist = [0.5]
            self.plain = {"x": 1.0}
            self.sub = Sub()

        @lib.jit.export
        def drain(self) -> int:
            n = self.lst.pop()
            self.plain.update({"y": 2.0})
            return n

        def forward(self, x):
            self.lst.append(len(self.lst))
            self.d["k" + str(len(self.d))] = len(self.lst)
            self.hist[0] = self.hist[0] * 2
            self.lst[0] += 1
            n = self.sub(len(self.lst))
            return x * sum(self.lst) + len(self.d) + self.hist[0] + n + len(self.plain)

    return lib.jit.script(M())


def _state(m):
    return (m.lst, m.d, m.hist, m.plain, m.sub.seen)


def test_containers_changed_by_methods_persist_as_torch(tmp_path):
    mt, ml = make_mutator(torch), make_mutator(tl)
    xt, xl = torch.ones(2), tl.ones(2)
    for _ in range(3):
        same(mt(xt), ml(xl))
        assert _state(ml) == _state(mt)
    assert ml.drain() == mt.drain()
    assert _state(ml) == _state(mt)
    mt.lst = [10]
    ml.lst = [10]
    same(mt(xt), ml(xl))
    assert _state(ml) == _state(mt)
    buf = io.BytesIO()
    torch.jit.save(mt, buf)
    buf.seek(0)
    lt = torch.jit.load(buf)
    path = tmp_path / "m.pt"
    ml.save(str(path))
    ll = tl.jit.load(str(path))
    for _ in range(2):
        same(lt(xt), ll(xl))
        assert (ll.lst, ll.d, ll.hist) == (lt.lst, lt.d, lt.hist)


def test_a_list_changed_by_a_method_then_read_as_a_loop_bound():
    def make(lib):
        class M(lib.nn.Module):
            acc: List[float]  # an empty list needs its type in the class body (torch ignores one in __init__)

            def __init__(self):
                super().__init__()
                self.acc = []

            def forward(self, x):
                self.acc.append(float(x.sum()))
                total = 0.0
                for v in self.acc:
                    total += v
                return x + total
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    for i in range(4):
        same(mt(torch.full((2,), float(i))), ml(tl.full((2,), float(i))))
        assert ml.acc == mt.acc


def test_a_list_changed_through_a_local_alias_and_a_set_value_after_load(tmp_path):
    def make(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.lst: List[int] = [1]
                self.t = 0.5

            def forward(self, x):
                lst = self.lst
                lst.append(2)
                return x * len(self.lst) * self.t
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    for _ in range(2):
        same(mt(torch.ones(1)), ml(tl.ones(1)))
        assert ml.lst == mt.lst
    mt.t = ml.t = 2.0
    buf = io.BytesIO()
    torch.jit.save(mt, buf)
    buf.seek(0)
    lt = torch.jit.load(buf)
    ml.save(str(tmp_path / "m.pt"))
    ll = tl.jit.load(str(tmp_path / "m.pt"))
    same(lt(torch.ones(1)), ll(tl.ones(1)))
    assert ll.t == lt.t and ll.lst == lt.lst


def test_a_dtype_constant_and_a_shape_tuple_set_from_python():
    """A dtype stays a constant (compiled again with the new one); a tuple of ints becomes a run-time attribute."""
    def make(lib):
        class M(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.dt = lib.float32
                self.shape = (2, 1)

            def forward(self, x):
                return x.to(self.dt).reshape(self.shape)
        return lib.jit.script(M())
    mt, ml = make(torch), make(tl)
    for dt, shape in (("float64", (1, 2)), ("int32", [2, 1])):
        mt.dt, ml.dt = getattr(torch, dt), getattr(tl, dt)
        mt.shape = ml.shape = shape
        rt, rl = mt(torch.arange(2.0)), ml(tl.arange(2.0))
        assert str(rl.dtype).split(".")[-1] == str(rt.dtype).split(".")[-1] and tuple(rl.shape) == tuple(rt.shape)
        assert rl.tolist() == rt.tolist()
        assert ml.shape == mt.shape
