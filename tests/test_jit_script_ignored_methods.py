"""@ignore'd module methods in script, against torch.jit.script 2.13: a scripted method calling `self.helper(x)`
runs the Python method when the graph runs (a prim::PythonOp on the module's Object), with its return annotation's
type (a Tensor without one) checked as torch checks it; `self` is the scripted module, so attributes set from Python
are seen; submodules and several instances of one class (whose graphs are shared) call their own instance's method;
a module calling one cannot be saved (torch's error). @unused methods and functions (and the deprecated
ignore(drop=True)) compile to torch's run-time error instead and save.

Not compared with torch: keyword arguments and defaults of ignored methods (torch 2.13 binds them wrongly: "Argument
n not provided", or the tensor passed as the module); torchlite binds them as Python does."""
import io
import subprocess
import sys
import warnings

import pytest
import torch

import torchlite as tl
from tests.script_pair import load

SRC = """
class M(torch.nn.Module):
    def __init__(self, k: int = 2):
        super().__init__()
        self.k = k

    @torch.jit.ignore
    def helper(self, x: Tensor) -> Tuple[Tensor, int]:
        return x * self.k, 7

    @torch.jit.ignore
    def plain(self, x):
        return x + 1

    def forward(self, x):
        a, n = self.helper(x)
        return self.plain(a) + n


class Sub(torch.nn.Module):
    def __init__(self, k: int):
        super().__init__()
        self.k = k

    @torch.jit.ignore
    def helper(self, x: Tensor, n: int) -> Tensor:
        return x * self.k + n

    def forward(self, x):
        return self.helper(x, 2)


class Top(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = Sub(2)
        self.b = Sub(3)
        self.blocks = torch.nn.ModuleList([Sub(5), Sub(7)])

    @torch.jit.ignore
    def maybe(self, x: Tensor) -> Optional[Tensor]:
        return None if float(x.sum()) > 100 else x

    def forward(self, x):
        y = self.maybe(x)
        if y is None:
            return x
        out = self.a(y) + self.b(y)
        for blk in self.blocks:
            out = out + blk(y)
        return out

    @torch.jit.export
    def side(self, x: Tensor) -> Tensor:
        return self.a.helper(x, 10)


class WrongReturn(torch.nn.Module):
    @torch.jit.ignore
    def helper(self, x: Tensor) -> int:
        return "notint"

    def forward(self, x):
        return self.helper(x)


class Unused(torch.nn.Module):
    @torch.jit.unused
    def helper(self, x: Tensor) -> Tensor:
        return x * 2

    def forward(self, x, flag: bool):
        if flag:
            return self.helper(x)
        return x + 1


class State(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.count = 0

    @torch.jit.ignore
    def peek(self, x: Tensor) -> int:
        return self.count

    @torch.jit.ignore
    def bump(self, x: Tensor) -> int:
        self.count = self.count + 10
        return 0

    def forward(self, x):
        self.count += 1
        seen = self.peek(x)
        self.bump(x)
        return x + seen, self.count


@torch.jit.unused
def unused_fn(x: Tensor) -> Tensor:
    return x * 2


def calls_unused(x: Tensor, flag: bool):
    if flag:
        return unused_fn(x)
    return x - 1
"""


@pytest.fixture(scope="module")
def mods():
    return load(SRC, "torchlite"), load(SRC, "torch")


def _pair(mods, name, *args):
    ours, theirs = mods
    return tl.jit.script(getattr(ours, name)(*args)), torch.jit.script(getattr(theirs, name)(*args))


def test_ignored_methods_run_python_with_their_return_types(mods):
    ours, theirs = _pair(mods, "M")
    assert ours(tl.ones(2)).tolist() == theirs(torch.ones(2)).tolist() == [10.0, 10.0]
    ops = ours.graph.findAllNodes("prim::PythonOp")
    assert [n.s("name") for n in ops] == ["helper", "plain"]
    assert str(ops[0].output().type()) == "(Tensor, int)" and str(ops[1].output().type()) == "Tensor"


def test_self_is_the_scripted_module(mods):
    ours, theirs = _pair(mods, "M")
    ours.k = 5
    theirs.k = 5
    assert ours(tl.ones(2)).tolist() == theirs(torch.ones(2)).tolist() == [13.0, 13.0]


def test_each_instance_calls_its_own_method(mods):
    # a second instance of a class reuses the first one's graphs (the concrete-type cache)
    a, ta = _pair(mods, "M", 3)
    b, tb = _pair(mods, "M", 4)
    assert a(tl.ones(1)).tolist() == ta(torch.ones(1)).tolist() == [11.0]
    assert b(tl.ones(1)).tolist() == tb(torch.ones(1)).tolist() == [12.0]


def test_submodules_module_lists_optional_returns_and_exported_methods(mods):
    ours, theirs = _pair(mods, "Top")
    for v in (1.0, 200.0):
        assert ours(tl.full([2], v)).tolist() == theirs(torch.full([2], v)).tolist()
    assert ours.side(tl.ones(2)).tolist() == theirs.side(torch.ones(2)).tolist() == [12.0, 12.0]
    ours.a.k = 10
    theirs.a.k = 10
    assert ours(tl.ones(2)).tolist() == theirs(torch.ones(2)).tolist()


def test_methods_see_and_change_the_state_of_the_call(mods):
    # the attribute the graph assigned before the call is the method's; what the method assigns, the graph's
    ours, theirs = _pair(mods, "State")
    for _ in range(3):
        (a, n), (b, m) = ours(tl.zeros(1)), theirs(torch.zeros(1))
        assert a.tolist() == b.tolist() and n == m
    assert ours.count == theirs.count == 33


def test_wrong_return_value_is_torchs_error(mods):
    ours, theirs = _pair(mods, "WrongReturn")
    msg = " expected value of type int for return value but instead got value of type str.\nValue: 'notint'"
    with pytest.raises(RuntimeError) as e_ours:
        ours(tl.ones(1))
    with pytest.raises(RuntimeError) as e_theirs:
        theirs(torch.ones(1))
    assert msg in str(e_ours.value) and msg in str(e_theirs.value)


def test_save_refused_as_torch(mods, tmp_path):
    ours, theirs = _pair(mods, "M")
    msg = ("Could not export Python function call 'helper'. Remove calls to Python functions before export. Did you "
           "forget to add @script or @script_method annotation? If this is a nn.ModuleList, add it to __constants__")
    with pytest.raises(RuntimeError) as e_ours:
        tl.jit.save(ours, str(tmp_path / "m.pt"))
    with pytest.raises(RuntimeError) as e_theirs:
        torch.jit.save(theirs, io.BytesIO())
    assert msg in str(e_ours.value) and msg in str(e_theirs.value)


def test_unused_method_raises_when_called_and_saves(mods, tmp_path):
    ours, theirs = _pair(mods, "Unused")
    assert ours(tl.ones(2), False).tolist() == theirs(torch.ones(2), False).tolist()
    msg = "This Python function is annotated to be ignored and cannot be run"
    with pytest.raises(RuntimeError, match=msg):
        ours(tl.ones(2), True)
    with pytest.raises(Exception, match=msg):  # torch.jit.Error
        theirs(torch.ones(2), True)
    assert not ours.graph.findAllNodes("prim::PythonOp")
    path = str(tmp_path / "unused.pt")
    tl.jit.save(ours, path)
    torch.jit.save(theirs, io.BytesIO())
    loaded = tl.jit.load(path)
    assert loaded(tl.ones(2), False).tolist() == [2.0, 2.0]
    with pytest.raises(RuntimeError, match=msg):
        loaded(tl.ones(2), True)


def test_unused_function_and_ignore_drop(mods):
    ours_mod, theirs_mod = mods
    ours, theirs = tl.jit.script(ours_mod.calls_unused), torch.jit.script(theirs_mod.calls_unused)
    assert ours(tl.ones(1), False).tolist() == theirs(torch.ones(1), False).tolist() == [0.0]
    with pytest.raises(RuntimeError, match="annotated to be ignored and cannot be run"):
        ours(tl.ones(1), True)
    with pytest.raises(Exception, match="annotated to be ignored and cannot be run"):  # torch.jit.Error
        theirs(torch.ones(1), True)
    for lib in (tl, torch):
        with pytest.warns(FutureWarning, match=r"ignore\(True\) has been deprecated"):
            deco = lib.jit.ignore(drop=True)

        class Dropped(lib.nn.Module):
            @deco
            def helper(self, x):
                return x * 2

            def forward(self, x):
                return self.helper(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            s = lib.jit.script(Dropped())
        with pytest.raises(Exception, match="annotated to be ignored and cannot be run") as info:
            s(lib.ones(1))
        assert lib is torch or type(info.value) is RuntimeError


def test_keyword_arguments_and_defaults_bind_as_python():
    # torch 2.13 fails on both (module docstring); torchlite binds them as the Python method would
    class K(tl.nn.Module):
        @tl.jit.ignore
        def helper(self, x: tl.Tensor, n: int = 2, scale: float = 1.0) -> tl.Tensor:
            return x * scale + n

        def forward(self, x):
            return self.helper(x) + self.helper(x, scale=3.0) + self.helper(x, 1, 2.0)
    assert tl.jit.script(K())(tl.ones(1)).tolist() == [3.0 + 5.0 + 3.0]


def test_methods_called_from_python_outside_a_call_still_work():
    class P(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.calls = 0

        @tl.jit.ignore
        def count(self, x: tl.Tensor) -> int:
            self.calls += 1
            return self.calls

        def forward(self, x):
            return x + self.count(x)
    s = tl.jit.script(P())
    assert s(tl.zeros(1)).tolist() == [1.0]
    assert s(tl.zeros(1)).tolist() == [2.0]
    assert s.calls == 2 and s.count(tl.zeros(1)) == 3


def test_fresh_process_runs_ignored_methods():
    code = f"""
import torchlite as tl
from tests.script_pair import load
m = load({SRC!r}, "torchlite")
s = tl.jit.script(m.Top())
print(s(tl.ones(2)).tolist())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[25.0, 25.0]"


CLASS_SRC = """
@torch.jit.script
class Acc:
    def __init__(self, n: int):
        self.n = n

    @torch.jit.ignore
    def bump(self, k: int) -> int:
        self.n = self.n + k
        return self.n * 10


def f(x: Tensor, k: int):
    a = Acc(3)
    r = a.bump(k)
    return r, a.n, x + a.n
"""


def test_ignored_method_of_a_script_class_instance_as_torch():
    # torch passes the object itself: what the method assigns is the script's (torchlite writes the fields back)
    ours, theirs = tl.jit.script(load(CLASS_SRC, "torchlite").f), torch.jit.script(load(CLASS_SRC, "torch").f)
    for k in (1, 5):
        (r, n, t), (r2, n2, t2) = ours(tl.zeros(1), k), theirs(torch.zeros(1), k)
        assert (r, n, t.tolist()) == (r2, n2, t2.tolist()) == ((3 + k) * 10, 3 + k, [3.0 + k])


FORWARD_SRC = """
class UnusedForward(torch.nn.Module):
    @torch.jit.unused
    def forward(self, x):
        return x + 1


class IgnoredForward(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.k = 3

    @torch.jit.ignore
    def forward(self, x: Tensor) -> Tensor:
        return x * self.k


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.i = IgnoredForward()
        self.u = UnusedForward()

    def forward(self, x, flag: bool):
        if flag:
            return self.u(x)
        return self.i(x) + 1
"""


def test_ignored_and_unused_forwards_as_torch():
    ours_mod, theirs_mod = load(FORWARD_SRC, "torchlite"), load(FORWARD_SRC, "torch")
    ours, theirs = tl.jit.script(ours_mod.Outer()), torch.jit.script(theirs_mod.Outer())
    assert ours(tl.ones(1), False).tolist() == theirs(torch.ones(1), False).tolist() == [4.0]
    msg = "annotated to be ignored and cannot be run"
    with pytest.raises(RuntimeError, match=msg):
        ours(tl.ones(1), True)
    with pytest.raises(Exception, match=msg):  # torch.jit.Error
        theirs(torch.ones(1), True)
    # the scripted module's own @unused / @ignore'd forward stays Python (torch does not compile it)
    for name in ("UnusedForward", "IgnoredForward"):
        ours = tl.jit.script(getattr(ours_mod, name)())
        theirs = torch.jit.script(getattr(theirs_mod, name)())
        assert ours(tl.ones(1)).tolist() == theirs(torch.ones(1)).tolist()
