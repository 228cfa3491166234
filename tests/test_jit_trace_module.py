"""torchlite.jit.trace_module against torch.jit.trace_module 2.13: several methods traced into one TracedModule
(`traced.encode(...)` a ScriptMethod with torch's schema, graph and code), the errors for a bad `inputs` dict, a
missing method, non-tensor outputs, bad calls of a traced method, the check, what a method calling submodules
records (each submodule call a method of its own: forward, forward1, ... as torch names them), and save / load
with every method, in a fresh process too. `torchlite.jit.trace(mod, x)` is unchanged."""
import io
import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest
import torch

import torchlite as tl
from tests.script_pair import load

SRC = """
class Sub(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def forward(self, x):
        return self.lin(x).relu()

    def half(self, x):
        return self.lin(x) * 0.5


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.sub = Sub()
        self.w = torch.nn.Parameter(torch.ones(3))

    def forward(self, x):
        return self.sub(self.sub(x)) + self.w

    def encode(self, a, b):
        return self.sub.half(a) * b, a + 1

    def pair(self, xs):
        return xs[0] - xs[1]

    def number(self, x):
        return 3

    def noisy(self, x):
        return x + torch.rand(3)
"""


def _nets():
    """(torchlite's Net, torch's Net) with the same weights."""
    tn = load(SRC, "torch").Net()
    ln = load(SRC, "torchlite").Net()
    with torch.no_grad():
        for (name, p), (_, q) in zip(tn.named_parameters(), ln.named_parameters()):
            q.data = tl.tensor(p.detach().numpy().tolist())
    return ln, tn


def _inputs(lib):
    g = torch.Generator().manual_seed(0)
    x, a, b = (torch.randn(2, 3, generator=g) for _ in range(3))
    if lib is tl:
        x, a, b = (tl.tensor(t.numpy().tolist()) for t in (x, a, b))
    return x, a, b


def _close(got, want):
    if isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    assert list(got.shape) == list(want.shape)
    assert got.detach().flatten().tolist() == pytest.approx(want.detach().flatten().tolist(), rel=1e-5, abs=1e-6)


def _plain(schema) -> str:
    """A schema without the test module's name (each library's copy of SRC is a module of its own)."""
    return re.sub(r"_pair_\w+?_\d+\.", "", str(schema))


def _trace_both(methods):
    ln, tn = _nets()
    out = []
    for lib, net in ((tl, ln), (torch, tn)):
        x, a, b = _inputs(lib)
        examples = {"forward": x, "encode": (a, b), "pair": ((a, b),)}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (torch's DeprecationWarning)
            out.append(lib.jit.trace_module(net, {m: examples[m] for m in methods}))
    return out


def test_methods_run_as_torch():
    lt, tt = _trace_both(["forward", "encode", "pair"])
    lx, la, lb = _inputs(tl)
    tx, ta, tb = _inputs(torch)
    assert isinstance(lt, tl.jit.TopLevelTracedModule)
    _close(lt(lx), tt(tx))
    _close(lt.encode(la, lb), tt.encode(ta, tb))
    _close(lt.encode(a=la, b=lb), tt.encode(a=ta, b=tb))
    _close(lt.pair((la, lb)), tt.pair((ta, tb)))
    # other inputs than the examples: the graphs generalize as torch's
    lx2 = tl.ones(5, 3)
    _close(lt.encode(lx2, lx2), tt.encode(torch.ones(5, 3), torch.ones(5, 3)))


def test_schema_graph_and_code():
    lt, tt = _trace_both(["forward", "encode", "pair"])
    for name in ("encode", "pair"):
        assert _plain(getattr(lt, name).schema) == _plain(getattr(tt, name).schema)
        assert getattr(lt, name).name == name
    assert _plain(lt.encode.schema) == "encode(__torch__.Net self, Tensor a, Tensor b) -> ((Tensor, Tensor))"
    g = lt.encode.graph
    assert [v.debugName() for v in g.inputs()] == ["self", "a", "b"]
    kinds = [n.kind() for n in g.nodes()]
    assert "aten::linear" in kinds and "aten::mul" in kinds  # the submodule's ops inlined (torch: CallMethod)
    code = lt.encode.code
    assert code.startswith("def encode(self,\n    a: Tensor,\n    b: Tensor) -> Tuple[Tensor, Tensor]:")
    assert code.startswith(tt.encode.code.split(":\n")[0])
    assert lt.code.startswith("def forward(self,\n    x: Tensor) -> Tensor:")


def test_submodule_calls_become_methods_as_torch():
    lt, tt = _trace_both(["forward", "encode"])
    graphs = lt._submodule_graphs
    # forward calls sub twice (and sub.lin in each), encode calls sub.half (not a module call: inlined) whose
    # lin call is lin's third
    assert [len(graphs["sub"]), len(graphs["sub.lin"])] == [len(tt.sub._c._method_names()),
                                                           len(tt.sub.lin._c._method_names())] == [2, 3]
    buf = io.BytesIO()
    tl.jit.save(lt, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    tbuf = io.BytesIO()
    torch.jit.save(tt, tbuf)
    tbuf.seek(0)
    tloaded = torch.jit.load(tbuf)
    assert list(loaded._methods) == tloaded._c._method_names() == ["forward", "encode"]
    assert list(loaded.sub._methods) == tloaded.sub._c._method_names()
    assert list(loaded.sub.lin._methods) == tloaded.sub.lin._c._method_names()
    lx, la, lb = _inputs(tl)
    tx, ta, tb = _inputs(torch)
    _close(loaded(lx), tloaded(tx))
    _close(loaded.encode(la, lb), tloaded.encode(ta, tb))
    _close(loaded.sub.lin.forward2(la), tloaded.sub.lin.forward2(ta))
    assert _plain(loaded.encode.schema) == _plain(tloaded.encode.schema)


def test_without_forward():
    lt, tt = _trace_both(["encode"])
    la, lb = _inputs(tl)[1:]
    ta, tb = _inputs(torch)[1:]
    _close(lt.encode(la, lb), tt.encode(ta, tb))
    for m in (lt, tt):
        with pytest.raises(AttributeError, match="'RecursiveScriptModule' object has no attribute 'forward'"):
            m(la if m is lt else ta)
    assert not hasattr(lt, "code") and not hasattr(tt, "code")


def _errors(call):
    """(torchlite's exception, torch's) of call(lib, net, x, a, b)."""
    ln, tn = _nets()
    out = []
    for lib, net in ((tl, ln), (torch, tn)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(Exception) as e:
                call(lib, net, *_inputs(lib))
        out.append(e.value)
    return out


@pytest.mark.parametrize("case", [
    lambda lib, n, x, a, b: lib.jit.trace_module(n, [x]),
    lambda lib, n, x, a, b: lib.jit.trace_module(lambda v: v, {"forward": x}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"nope": x}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {1: x}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"number": x}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"forward": 3}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"forward": (x, x)}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"encode": (a,)}),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"forward": x}, check_inputs=[x]),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"forward": x}, check_inputs=[{"encode": (a, b)}]),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"encode": (a, b)}).encode(a),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"encode": (a, b)}).encode(a, b, a),
    lambda lib, n, x, a, b: lib.jit.trace_module(n, {"encode": (a, b)}).encode(a, c=b),
], ids=["list", "function", "missing", "int-key", "int-output", "int-input", "too-many", "too-few", "check-tuple",
        "check-missing-method", "call-missing", "call-extra", "call-keyword"])
def test_errors_as_torch(case):
    mine, theirs = _errors(case)
    assert type(mine) is type(theirs)
    first = str(theirs).splitlines()[0]
    if "incompatible function arguments" not in first:
        assert str(mine).splitlines()[0].startswith(first.split(" Declaration")[0])


def test_check_trace():
    ln, tn = _nets()
    x, y = tl.ones(2, 3), tl.ones(2, 3)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        tl.jit.trace_module(ln, {"noisy": x})
    messages = [str(i.message) for i in w if issubclass(i.category, tl.jit.TracerWarning)]
    assert messages[0].startswith("Trace had nondeterministic nodes")
    assert messages[1].startswith("Output nr 1. of the traced function does not match")
    # check inputs of another shape trace the same graph (shapes are not compared, as torch's check)
    tl.jit.trace_module(ln, {"forward": x, "encode": (x, y)},
                        check_inputs=[{"forward": tl.ones(4, 3), "encode": (tl.ones(5, 3), tl.ones(5, 3))}])
    tl.jit.trace(ln, x, check_inputs=[tl.ones(4, 3)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.jit.trace(tn, torch.ones(2, 3), check_inputs=[torch.ones(4, 3)])


def test_trace_unchanged():
    ln, tn = _nets()
    x = tl.ones(2, 3)
    traced = tl.jit.trace(ln, x)
    one = tl.jit.trace_module(ln, {"forward": x})
    assert str(traced.graph) == str(one.graph)
    _close(traced(x), ln(x))
    assert not hasattr(traced, "encode")


def test_gradients_reach_the_parameters():
    ln, _ = _nets()
    a, b = _inputs(tl)[1:]
    traced = tl.jit.trace_module(ln, {"encode": (a, b)})
    traced.encode(a, b)[0].sum().backward()
    got = ln.sub.lin.weight.grad.clone()
    ln.zero_grad()
    ln.encode(a, b)[0].sum().backward()
    _close(got, ln.sub.lin.weight.grad)


def test_load_every_method_in_a_fresh_process(tmp_path):
    ln, _ = _nets()
    x, a, b = _inputs(tl)
    traced = tl.jit.trace_module(ln, {"forward": x, "encode": (a, b)})
    tl.jit.save(traced, tmp_path / "m.pt")
    tl.save([x, a, b], tmp_path / "in.pt")
    script = textwrap.dedent(f"""
        import sys
        import torchlite as tl
        m = tl.jit.load({str(tmp_path / 'm.pt')!r})
        x, a, b = tl.load({str(tmp_path / 'in.pt')!r})
        with tl.no_grad():
            out = [m(x), *m.encode(a, b), m.sub.forward1(x)]
        tl.save(out, {str(tmp_path / 'out.pt')!r})
        assert "torch" not in sys.modules and not any(k.startswith("tests") for k in sys.modules)
        print(m.encode.schema.replace(m._jit_type_name, "__torch__.Net"))
    """)
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__))))
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "encode(__torch__.Net self, Tensor a, Tensor b) -> ((Tensor, Tensor))"
    got = tl.load(tmp_path / "out.pt")
    with tl.no_grad():
        want = [ln(x), *ln.encode(a, b), ln.sub(x)]
    for g, w in zip(got, want):
        _close(g, w)


def test_freeze_keeps_a_preserved_method_as_torch():
    lt, tt = _trace_both(["forward", "encode"])
    la, lb = _inputs(tl)[1:]
    ta, tb = _inputs(torch)[1:]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lf, tf = (lib.jit.freeze(m.eval(), preserved_attrs=["encode"]) for lib, m in ((tl, lt), (torch, tt)))
        lf2, tf2 = tl.jit.freeze(lt.eval()), torch.jit.freeze(tt.eval())
    _close(lf.encode(la, lb), tf.encode(ta, tb))
    assert not hasattr(lf2, "encode") and not hasattr(tf2, "encode")


def test_saved_without_forward_as_torch():
    lt, tt = _trace_both(["encode"])
    loaded = []
    for lib, m in ((tl, lt), (torch, tt)):
        buf = io.BytesIO()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.jit.save(m, buf)
            buf.seek(0)
            loaded.append(lib.jit.load(buf))
    ll, tload = loaded
    la, lb = _inputs(tl)[1:]
    ta, tb = _inputs(torch)[1:]
    _close(ll.encode(la, lb), tload.encode(ta, tb))
    for m, x in ((ll, la), (tload, ta)):
        with pytest.raises(AttributeError, match="'RecursiveScriptModule' object has no attribute 'forward'"):
            m(x)
        assert not hasattr(m, "code")
        with pytest.raises(RuntimeError, match="Method 'forward' is not defined"):
            m.graph
