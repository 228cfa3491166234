"""TorchScript classes (`@torchlite.jit.script` on a plain class), against torch.jit.script 2.13: instances
made, mutated by methods, read through attributes and properties inside scripted functions and modules,
with the same results; torch's compile errors for a nonexistent attribute, a wrong type, an unknown
member. Instances cross into Python as torch's do: an argument is converted (a copy: what the graph assigns
is not written back), a result is a new Python instance with the attributes. Saved and loaded modules using
one run in a fresh process."""
import io
import subprocess
import sys
import textwrap
from typing import List

import numpy as np
import pytest
import torch

import torchlite as tl


def _both(tl_src_cls, torch_src_cls):
    return tl.jit.script(tl_src_cls), torch.jit.script(torch_src_cls)


class Acc:
    def __init__(self, x: tl.Tensor, n: int):
        self.total = x
        self.n = n

    def add(self, y: tl.Tensor) -> None:
        self.total = self.total + y
        self.n += 1

    def mean(self) -> tl.Tensor:
        return self.total / self.n

    @property
    def count(self) -> int:
        return self.n


class TAcc:
    def __init__(self, x: torch.Tensor, n: int):
        self.total = x
        self.n = n

    def add(self, y: torch.Tensor) -> None:
        self.total = self.total + y
        self.n += 1

    def mean(self) -> torch.Tensor:
        return self.total / self.n

    @property
    def count(self) -> int:
        return self.n


assert tl.jit.script(Acc) is Acc  # the class itself, usable from Python as before
torch.jit.script(TAcc)


def uses(xs: List[tl.Tensor]) -> tl.Tensor:
    a = Acc(xs[0], 1)
    for x in xs[1:]:
        a.add(x)
    b = Acc(xs[0] * 0, 0)
    b.add(a.mean())
    return a.mean() + b.total * a.count


def tuses(xs: List[torch.Tensor]) -> torch.Tensor:
    a = TAcc(xs[0], 1)
    for x in xs[1:]:
        a.add(x)
    b = TAcc(xs[0] * 0, 0)
    b.add(a.mean())
    return a.mean() + b.total * a.count


def _np(t):
    return t.detach().numpy()


@pytest.mark.parametrize("n", [1, 3, 6])
def test_instances_methods_properties_as_torch(n):
    xs = [torch.randn(4) * i for i in range(1, n + 1)]
    want = torch.jit.script(tuses)(xs)
    got = tl.jit.script(uses)([tl.tensor(x.numpy()) for x in xs])
    np.testing.assert_allclose(_np(got), _np(want), rtol=1e-6)
    np.testing.assert_allclose(_np(got), _np(uses([tl.tensor(x.numpy()) for x in xs])), rtol=1e-6)  # Python's


def test_graph_creates_objects():
    g = str(tl.jit.script(uses).graph)
    assert g.count("prim::CreateObject") == 2
    assert "prim::SetAttr" in g and "prim::GetAttr" in g


class Model(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tl.nn.Linear(3, 3)

    def forward(self, x, steps: int):
        acc = Acc(x, 1)
        for _ in range(steps):
            acc.add(self.fc(acc.mean()))
        return acc.mean(), acc.count


def test_in_a_module_with_gradients_save_and_load(tmp_path):
    m = Model()
    s = tl.jit.script(m)
    x = tl.randn(2, 3, requires_grad=True)
    out, count = s(x, 3)
    want, want_count = m(x, 3)
    assert count == want_count == 4
    np.testing.assert_allclose(_np(out), _np(want), rtol=1e-5)
    out.sum().backward()
    g1 = x.grad.clone()
    x.grad = None
    want.sum().backward()
    np.testing.assert_allclose(_np(g1), _np(x.grad), rtol=1e-5)

    path = tmp_path / "m.pt"
    tl.jit.save(s, str(path))
    buf = io.BytesIO(path.read_bytes())
    loaded = tl.jit.load(buf)
    again, c2 = loaded(x, 3)
    assert c2 == 4
    np.testing.assert_allclose(_np(again), _np(want), rtol=1e-5)
    np.save(tmp_path / "x.npy", x.detach().numpy())
    np.save(tmp_path / "want.npy", want.detach().numpy())
    code = textwrap.dedent(f"""
        import numpy as np, torchlite as tl
        m = tl.jit.load({str(path)!r})
        out, n = m(tl.from_numpy(np.load({str(tmp_path / 'x.npy')!r})), 3)
        assert n == 4
        np.testing.assert_allclose(out.detach().numpy(), np.load({str(tmp_path / 'want.npy')!r}), rtol=1e-5)
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def sets_missing(x: tl.Tensor):
    a = Acc(x, 1)
    a.missing = 3
    return a.total


def t_sets_missing(x: torch.Tensor):
    a = TAcc(x, 1)
    a.missing = 3
    return a.total


def wrong_type(x: tl.Tensor):
    a = Acc(x, 1)
    a.n = 1.5
    return a.total


def t_wrong_type(x: torch.Tensor):
    a = TAcc(x, 1)
    a.n = 1.5
    return a.total


def unknown(x: tl.Tensor):
    a = Acc(x, 1)
    return a.nope


def t_unknown(x: torch.Tensor):
    a = TAcc(x, 1)
    return a.nope


@pytest.mark.parametrize("ours,theirs,msg", [
    (sets_missing, t_sets_missing, "Tried to set nonexistent attribute: missing. Did you forget to initialize it in "
                                   "__init__()?"),
    (wrong_type, t_wrong_type, "Wrong type for attribute assignment. Expected int but got float"),
    (unknown, t_unknown, "object has no attribute or method 'nope'"),
])
def test_compile_errors_as_torch(ours, theirs, msg):
    with pytest.raises(RuntimeError) as t_err:
        torch.jit.script(theirs)
    assert msg in str(t_err.value)
    with pytest.raises(RuntimeError) as err:
        tl.jit.script(ours)
    assert msg in str(err.value) and "<--- HERE" in str(err.value)


def returns_instance(x: tl.Tensor) -> Acc:
    return Acc(x, 1)


def t_returns_instance(x: torch.Tensor) -> TAcc:
    return TAcc(x, 1)


def adds(a: Acc, y: tl.Tensor) -> Acc:
    a.add(y)
    return a


def t_adds(a: TAcc, y: torch.Tensor) -> TAcc:
    a.add(y)
    return a


def test_instances_cross_into_python_as_torch():
    r = tl.jit.script(returns_instance)(tl.ones(2))
    tr = torch.jit.script(t_returns_instance)(torch.ones(2))
    assert type(r) is Acc and type(tr) is TAcc and r.n == tr.n == 1
    np.testing.assert_array_equal(_np(r.total), _np(tr.total))

    a, ta = Acc(tl.ones(2), 1), TAcc(torch.ones(2), 1)
    r, tr = tl.jit.script(adds)(a, tl.ones(2)), torch.jit.script(t_adds)(ta, torch.ones(2))
    assert r is not a and tr is not ta  # a new instance back; the argument was converted, not written
    assert (r.n, a.n) == (tr.n, ta.n) == (2, 1)
    np.testing.assert_array_equal(_np(r.total), _np(tr.total))
    np.testing.assert_array_equal(_np(a.total), _np(ta.total))
    assert r.mean().tolist() == tr.mean().tolist()  # a plain Python instance: its methods run in Python


def test_non_instance_argument_refused_as_torch():
    with pytest.raises(RuntimeError, match="Expected a value of type '__torch__.*Acc.*' for argument 'a' but instead "
                                           "found type 'int'"):
        torch.jit.script(t_adds)(3, torch.ones(1))
    with pytest.raises(RuntimeError, match="Expected a value of type '__torch__.*Acc' for argument 'a' but instead "
                                           "found type 'int'"):
        tl.jit.script(adds)(3, tl.ones(1))


def in_a_list(xs: List[Acc]) -> int:
    return len(xs)


def test_instances_inside_containers_taken():  # tests/test_jit_script_class_containers.py has the rest
    assert tl.jit.script(in_a_list)([Acc(tl.ones(1), 1), Acc(tl.ones(1), 2)]) == 2


def test_module_classes_and_classes_without_init_refused():
    with pytest.raises(RuntimeError, match="not supported"):
        tl.jit.script(tl.nn.Linear)

    class NoInit:
        def f(self):
            return 1
    with pytest.raises(RuntimeError, match="must define __init__"):
        tl.jit.script(NoInit)
