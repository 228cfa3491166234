"""torchlite.jit.script extras: @ignore'd functions as prim::PythonOp (run, not savable),
@export/@script_method, ScriptModule subclasses, scripted callees and submodules, ONNX export of
a scripted module (onnx/onnxruntime, optional test dependencies)."""
from typing import List

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn


@tl.jit.ignore
def numpy_side(x, k: int = 2) -> tl.Tensor:
    return tl.from_numpy(x.numpy() * k)


@tl.jit.ignore
def raises_key_error(x) -> int:
    raise KeyError("from Python")


def uses_ignored(x):
    return numpy_side(x) + numpy_side(x, k=3)


def test_ignored_function_runs_as_python_op(tmp_path):
    s = tl.jit.script(uses_ignored)
    ops = s.graph.findAllNodes("prim::PythonOp")
    assert [n.s("name") for n in ops] == ["numpy_side", "numpy_side"]
    x = tl.randn(4)
    np.testing.assert_allclose(s(x).numpy(), uses_ignored(x).numpy())
    with pytest.raises(RuntimeError, match="Could not export Python function call 'numpy_side'"):
        tl.jit.save(s, tmp_path / "f.pt")


def test_ignored_function_errors_keep_their_type():
    def f(x):
        return raises_key_error(x)
    with pytest.raises(KeyError, match="from Python"):
        tl.jit.script(f)(tl.ones(1))


def double(x):
    return x * 2


scripted_double = tl.jit.script(double)


def calls_scripted(x):
    return scripted_double(x) + 1


def test_calls_of_scripted_functions():
    x = tl.randn(3)
    s = tl.jit.script(calls_scripted)
    np.testing.assert_allclose(s(x).numpy(), calls_scripted(x).numpy())
    assert s.graph.findNode("aten::mul") is not None  # inlined


class Legacy(tl.jit.ScriptModule):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)

    @tl.jit.script_method
    def forward(self, x):
        return self.lin(x).relu()

    @tl.jit.script_method
    def twice(self, x, n: int) -> List[tl.Tensor]:
        return [self.forward(x), self.forward(x) * n]


def test_script_module_subclass_and_script_method():
    m = Legacy()
    s = tl.jit.script(m)
    x = tl.randn(4, 3)
    np.testing.assert_allclose(s(x).detach().numpy(), m(x).detach().numpy())
    a, b = s.twice(x, 3)
    np.testing.assert_allclose(b.detach().numpy(), (m(x) * 3).detach().numpy())


class WithScriptedChild(nn.Module):
    def __init__(self):
        super().__init__()
        self.child = tl.jit.script(nn.Sequential(nn.Linear(3, 3), nn.ReLU()))
        self.out = nn.Linear(3, 1)

    def forward(self, x):
        return self.out(self.child(x))


def test_scripted_submodule_and_onnx_export():
    pytest.importorskip("onnx")
    ort = pytest.importorskip("onnxruntime")
    m = WithScriptedChild().eval()
    s = tl.jit.script(m)
    x = tl.randn(5, 3)
    np.testing.assert_allclose(s(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    proto = tl.onnx.export(s, (x,), None, input_names=["x"])
    import onnx
    onnx.checker.check_model(proto, full_check=True)
    sess = ort.InferenceSession(proto.SerializeToString(), providers=["CPUExecutionProvider"])
    (out,) = sess.run(None, {"x": x.numpy()})
    np.testing.assert_allclose(out, m(x).detach().numpy(), rtol=1e-5, atol=1e-6)


def test_traced_submodule_is_refused():
    class P(nn.Module):
        def __init__(self):
            super().__init__()
            self.t = tl.jit.trace(nn.Linear(2, 2), tl.randn(1, 2))

        def forward(self, x):
            return self.t(x)
    with pytest.raises(RuntimeError, match="compiled already"):
        tl.jit.script(P())


def test_script_returns_scripted_objects_unchanged():
    s = tl.jit.script(double)
    assert tl.jit.script(s) is s
    sm = tl.jit.script(nn.Linear(2, 2))
    assert tl.jit.script(sm) is sm
    assert "RecursiveScriptModule" in repr(sm)
