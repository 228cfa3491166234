"""torchlite.jit.script on nn.Modules: an MLP, a CNN block (conv, batch norm, pooling, dropout), a
ModuleList, exported methods, Final constants; outputs and gradients equal eager's, training and
eval compile their own graphs, and scripted modules save, load in a fresh process (that never
imports their class), freeze and go through optimize_for_inference."""
import os
import subprocess
import sys
import textwrap
from typing import List, Optional

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F


def _close(a, b, tol=1e-5):
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


class MLP(nn.Module):
    scale: tl.jit.Final[float]

    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(6, 16)
        self.fc2 = nn.Linear(16, 4)
        self.scale = 0.5

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x))) * self.scale

    @tl.jit.export
    def hidden(self, x, k: int = 2):
        h = self.fc1(x)
        for _ in range(k):
            h = h.tanh()
        return h


class CNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(8, 4, 3), nn.BatchNorm2d(4), nn.ReLU())
        self.drop = nn.Dropout(0.25)
        self.head = nn.Linear(4 * 2 * 2, 3)

    def forward(self, x):
        return self.head(self.drop(self.features(x)).flatten(1))


class Residual(nn.Module):
    def __init__(self, n=3):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(5, 5) for _ in range(n)])
        self.norm = nn.LayerNorm(5)

    def forward(self, x, skip: Optional[tl.Tensor] = None) -> List[tl.Tensor]:
        outs: List[tl.Tensor] = []
        for i, layer in enumerate(self.layers):
            x = x + tl.tanh(layer(x)) * (i + 1)
            outs.append(x)
        if skip is not None:
            outs.append(self.norm(x + skip))
        return outs


def _inputs(name):
    return {"MLP": tl.randn(7, 6), "CNN": tl.randn(2, 3, 8, 8), "Residual": tl.randn(4, 5)}[name]


def _make(name):
    return {"MLP": MLP, "CNN": CNN, "Residual": Residual}[name]()


def _first(out):
    return out[-1] if isinstance(out, list) else out


@pytest.mark.parametrize("name", ["MLP", "CNN", "Residual"])
def test_outputs_and_gradients_equal_eager(name):
    m = _make(name)
    s = tl.jit.script(m)
    x = _inputs(name)
    for mode in ("train", "eval"):
        getattr(m, mode)()
        getattr(s, mode)()
        if name == "CNN" and mode == "train":  # dropout draws: compare with the same seed
            tl.manual_seed(0)
        a = _first(s(x))
        if name == "CNN" and mode == "train":
            tl.manual_seed(0)
        b = _first(m(x))
        _close(a, b)
    m.train()
    s.train()
    tl.manual_seed(1)
    _first(s(x)).square().sum().backward()
    grads = {n: None if p.grad is None else p.grad.clone() for n, p in m.named_parameters()}
    m.zero_grad()
    tl.manual_seed(1)
    _first(m(x)).square().sum().backward()
    for n, p in m.named_parameters():
        assert (grads[n] is None) == (p.grad is None), n
        if p.grad is not None:
            _close(grads[n], p.grad, 1e-4)


def test_parameters_are_shared_and_training_steps():
    m = MLP()
    s = tl.jit.script(m)
    assert [n for n, _ in s.named_parameters()] == [n for n, _ in m.named_parameters()]
    opt = tl.optim.SGD(s.parameters(), lr=0.1)
    x, y = tl.randn(8, 6), tl.randn(8, 4)
    before = F.mse_loss(s(x), y).item()
    for _ in range(5):
        opt.zero_grad()
        F.mse_loss(s(x), y).backward()
        opt.step()
    assert F.mse_loss(s(x), y).item() < before
    _close(s(x), m(x))


def test_exported_method_and_final_constant():
    m = MLP()
    s = tl.jit.script(m)
    x = tl.randn(3, 6)
    _close(s.hidden(x), m.hidden(x))
    _close(s.hidden(x, 3), m.hidden(x, 3))
    consts = [n.ival("value") for n in s.graph.findAllNodes("prim::Constant") if n.hasAttribute("value")]
    assert 0.5 in consts  # the Final attribute is a constant of the graph


def test_training_and_eval_graphs():
    m = CNN()
    s = tl.jit.script(m)
    s.train()
    train_bn = [n for n in s.graph.findAllNodes("aten::batch_norm")]
    assert train_bn[0].inputsAt(5).toIValue() is True
    s.eval()
    assert [n.inputsAt(5).toIValue() for n in s.graph.findAllNodes("aten::batch_norm")] == [False, False]
    assert s.graph.findNode("aten::dropout").inputsAt(2).toIValue() is False


def test_batch_norm_running_stats_update_in_training():
    m = CNN()
    s = tl.jit.script(m)
    x = _inputs("CNN")
    bn = m.features[1]
    before = bn.running_mean.clone()
    s(x)
    assert not np.allclose(before.numpy(), bn.running_mean.numpy())
    assert int(bn.num_batches_tracked) == 1


@pytest.mark.parametrize("name", ["MLP", "CNN", "Residual"])
def test_save_load_in_a_fresh_process(name, tmp_path):
    m = _make(name).eval()
    s = tl.jit.script(m)
    x = _inputs(name)
    tl.jit.save(s, tmp_path / "model.pt")
    tl.save(x, tmp_path / "x.pt")
    script = textwrap.dedent(f"""
        import sys
        import torchlite as tl
        m = tl.jit.load({str(tmp_path / 'model.pt')!r})
        x = tl.load({str(tmp_path / 'x.pt')!r})
        with tl.no_grad():
            out = m(x)
        tl.save(out[-1] if isinstance(out, list) else out, {str(tmp_path / 'out.pt')!r})
        assert "torch" not in sys.modules and "test_jit_script_modules" not in sys.modules
        print(m.original_name)
    """)
    env = dict(os.environ)
    # only the checkout under test on the path (not this test's directory): the venv's fallback is another checkout
    env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__)))
    res = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == name
    with tl.no_grad():
        _close(tl.load(tmp_path / "out.pt"), _first(s(x)))


def test_scripted_function_save_load(tmp_path):
    def f(x, n: int):
        for i in range(n):
            x = x * 2 + i
        return x
    s = tl.jit.script(f)
    tl.jit.save(s, tmp_path / "f.pt")
    loaded = tl.jit.load(tmp_path / "f.pt")
    x = tl.randn(3)
    _close(loaded(x, 3), f(x, 3))


@pytest.mark.parametrize("name", ["MLP", "CNN"])
def test_freeze_and_optimize_for_inference(name):
    m = _make(name).eval()
    s = tl.jit.script(m).eval()
    x = _inputs(name)
    frozen = tl.jit.freeze(s)
    assert not list(frozen.parameters())
    assert frozen.graph.findNode("prim::GetAttr") is None
    _close(frozen(x), m(x), 1e-4)
    opt = tl.jit.optimize_for_inference(tl.jit.script(_make(name)))
    assert not list(opt.parameters())
    if name == "CNN":  # batch norms folded into the convolutions
        assert opt.graph.findNode("aten::batch_norm") is None
    ref = opt.__dict__.get("_frozen")
    assert ref


def test_module_with_non_tensor_forward_arguments():
    class Pick(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)

        def forward(self, xs: List[tl.Tensor], i: int, scale: float = 1.0):
            return self.lin(xs[i]) * scale
    m = Pick()
    s = tl.jit.script(m)
    xs = [tl.randn(2, 3), tl.randn(2, 3)]
    _close(s(xs, 1), m(xs, 1))
    _close(s(xs, 0, scale=3.0), m(xs, 0, scale=3.0))


def test_mlp_against_torch_jit_script():
    import torch

    class TorchMLP(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc1 = torch.nn.Linear(6, 16)
            self.fc2 = torch.nn.Linear(16, 4)

        def forward(self, x):
            return self.fc2(torch.nn.functional.relu(self.fc1(x))) * 0.5

    theirs = TorchMLP()
    ours = MLP()
    with tl.no_grad():
        for name, p in ours.named_parameters():
            p.copy_(tl.from_numpy(dict(theirs.named_parameters())[name].detach().numpy().copy()))
    s, t = tl.jit.script(ours), torch.jit.script(theirs)
    x = tl.randn(3, 6)
    _close(s(x), tl.from_numpy(t(torch.from_numpy(x.numpy())).detach().numpy()))

    def kinds(nodes):
        out = []
        for n in nodes:
            if n.kind().startswith("aten::"):
                out.append(n.kind())
            for b in n.blocks():
                out += kinds(b.nodes())
        return out
    # torch keeps F.relu's `if inplace:` as a prim::If on the argument; script folds the constant default.
    assert kinds(s.graph.nodes()) == ["aten::linear", "aten::relu", "aten::linear", "aten::mul"]
    assert kinds(t.inlined_graph.nodes()) == ["aten::linear", "aten::relu_", "aten::relu", "aten::linear", "aten::mul"]


def test_exported_method_after_load(tmp_path):
    m = MLP()
    s = tl.jit.script(m)
    tl.jit.save(s, tmp_path / "m.pt")
    loaded = tl.jit.load(tmp_path / "m.pt")
    x = tl.randn(2, 6)
    _close(loaded.hidden(x, 3), m.hidden(x, 3))
    _close(loaded(x), m(x))


def test_module_dict_hasattr_getattr_is_scripting():
    class Heads(nn.Module):
        def __init__(self):
            super().__init__()
            self.heads = nn.ModuleDict({"a": nn.Linear(3, 2), "b": nn.Linear(3, 2)})
            self.gain = 2.0

        def forward(self, x):
            y = self.heads["a"](x) + getattr(self, "heads")["b"](x)
            if hasattr(self, "gain"):
                y = y * self.gain
            if hasattr(self, "missing"):
                y = y.undefined_method()  # never compiled: the condition is a constant
            if tl.jit.is_scripting():
                y = y + 1
            return y
    m = Heads()
    s = tl.jit.script(m)
    x = tl.randn(4, 3)
    _close(s(x), m(x) + 1)


@pytest.mark.parametrize("make,shape", [
    (lambda: nn.LayerNorm(8), (2, 8)), (lambda: nn.GELU(), (3, 4)), (lambda: nn.Softmax(dim=1), (2, 3)),
    (lambda: nn.Flatten(), (2, 3, 4)), (lambda: nn.AvgPool2d(2), (1, 2, 4, 4)), (lambda: nn.Conv1d(2, 3, 3), (1, 2, 8)),
    (lambda: nn.BatchNorm1d(4).eval(), (3, 4)), (lambda: nn.Identity(), (2,)), (lambda: nn.LeakyReLU(0.1), (3,)),
    (lambda: nn.GroupNorm(2, 4), (2, 4, 3)), (lambda: nn.Conv2d(2, 2, 3, padding=1, padding_mode="reflect"), (1, 2, 5, 5)),
])
def test_library_modules_script(make, shape):
    m = make()
    x = tl.randn(*shape)
    _close(tl.jit.script(m)(x), m(x))


def test_embedding_scripts():
    m = nn.Embedding(10, 4)
    idx = tl.tensor([[1, 2], [9, 0]])
    _close(tl.jit.script(m)(idx), m(idx))


def test_unannotated_parameters_typed_from_defaults():
    class Scaled(nn.Module):
        def forward(self, x, scale=2.0, flip=False, mask=None):
            if flip:
                x = -x
            if mask is not None:
                x = x * mask
            return x * scale
    m = Scaled()
    s = tl.jit.script(m)
    x = tl.randn(3)
    _close(s(x), m(x))
    _close(s(x, 0.5, True, tl.tensor([1.0, 0.0, 1.0])), m(x, 0.5, True, tl.tensor([1.0, 0.0, 1.0])))
    assert [str(v.type()) for v in s.graph.inputs()][1:] == ["Tensor", "float", "bool", "Tensor?"]
