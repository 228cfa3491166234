"""torchlite.jit.freeze / optimize_for_inference and the freezing passes: parameters and buffers
become graph constants, what depends on them alone is precomputed, eval-mode batch_norm folds into
the conv or linear before it, and the frozen module's outputs equal the original's (checked
against torch.jit.freeze too)."""
import io
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn as nn
from torchlite.jit import _passes

from conftest import to_torch
from test_jit_save_load import MODELS, _assert_same, _flat, _make, _roundtrip


def _kinds(graph):
    return [n.kind() for n in graph.allNodes()]


def _trace(model, x):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tl.jit.trace(model, x)


@pytest.mark.parametrize("name", list(MODELS))
def test_freeze_same_outputs_no_attributes(name):
    model, traced, x = _make(name)
    frozen = tl.jit.freeze(traced)
    assert isinstance(frozen, tl.jit.RecursiveScriptModule)
    with tl.no_grad():
        out, ref = frozen(x), model(x)
    for a, b in zip(_flat(out), _flat(ref)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)
    assert "prim::GetAttr" not in _kinds(frozen.graph)
    assert list(frozen.parameters()) == [] and list(frozen.buffers()) == []
    assert frozen.training is False
    # the original is untouched and independent of the frozen copy
    assert "prim::GetAttr" in _kinds(traced.graph)
    with tl.no_grad():
        next(model.parameters()).add_(1.0)
        _assert_same(frozen(x), out)


def test_freeze_precomputes_weight_transpose_and_names_constants():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(tl.randn(5, 3))
            self.b = nn.Parameter(tl.randn(5))

        def forward(self, x):
            return x @ self.w.t() + self.b * 2

    tl.manual_seed(0)
    m = M().eval()
    x = tl.randn(4, 3)
    traced = _trace(m, x)
    assert "aten::t" in _kinds(traced.graph)
    frozen = tl.jit.freeze(traced)
    kinds = _kinds(frozen.graph)
    assert "aten::t" not in kinds and kinds.count("aten::mul") == 0, frozen.graph
    assert "aten::matmul" in kinds
    with tl.no_grad():
        np.testing.assert_allclose(frozen(x).numpy(), m(x).numpy(), rtol=1e-6)
    # a folded attribute is named after its path before propagation replaces it
    g = traced.graph.copy()
    assert _passes.freeze_module_attributes(g, m) == 2
    names = [n.output().debugName() for n in g.nodes() if n.kind() == "prim::Constant"]
    assert "self.w" in names and "self.b" in names


def test_conv_bn_folding_matches_and_removes_batch_norm():
    model, traced, x = _make("cnn")
    with tl.no_grad():  # non-trivial running statistics
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
        model.bn.weight.uniform_(0.5, 1.5)
        model.bn.bias.uniform_(-1, 1)
    frozen = tl.jit.freeze(traced)
    assert "aten::batch_norm" not in _kinds(frozen.graph) and "aten::conv2d" in _kinds(frozen.graph)
    with tl.no_grad():
        np.testing.assert_allclose(frozen(x).numpy(), model(x).numpy(), rtol=1e-4, atol=1e-5)
    kept = tl.jit.freeze(traced, optimize_numerics=False)
    assert "aten::batch_norm" in _kinds(kept.graph)
    with tl.no_grad():
        np.testing.assert_allclose(kept(x).numpy(), model(x).numpy(), rtol=1e-6, atol=1e-6)


def test_linear_bn_folding():
    tl.manual_seed(0)
    model = nn.Sequential(nn.Linear(6, 8), nn.BatchNorm1d(8), nn.ReLU(), nn.Linear(8, 2, bias=False),
                          nn.BatchNorm1d(2, affine=False)).eval()
    with tl.no_grad():
        model[1].running_mean.uniform_(-1, 1)
        model[1].running_var.uniform_(0.5, 2)
        model[4].running_var.uniform_(0.5, 2)
    x = tl.randn(5, 6)
    frozen = tl.jit.freeze(_trace(model, x))
    assert "aten::batch_norm" not in _kinds(frozen.graph)
    with tl.no_grad():
        np.testing.assert_allclose(frozen(x).numpy(), model(x).numpy(), rtol=1e-5, atol=1e-5)


def test_each_pass_alone_on_a_graph():
    model, traced, x = _make("cnn")
    g = traced.graph.copy()
    assert _passes.freeze_module_attributes(g, model) == 8  # conv 2, bn 4 (+ num_batches_tracked unused), fc 2
    assert _passes.eliminate_dead_code(g) > 0
    assert _passes.fold_frozen_conv_bn(g) == 1
    assert _passes.fold_frozen_linear_bn(g) == 0
    assert "aten::batch_norm" not in _kinds(g) and "prim::GetAttr" not in _kinds(g)
    with tl.no_grad():
        out = tl._C._jit.run_graph(g, [None, x])[0]
        np.testing.assert_allclose(out.numpy(), model(x).numpy(), rtol=1e-4, atol=1e-5)


def test_preserved_attrs():
    model, traced, x = _make("mlp")
    frozen = tl.jit.freeze(traced, preserved_attrs=["fc1.weight", "fc2"])
    names = [n for n, _ in frozen.named_parameters()]
    assert names == ["fc1.weight", "fc2.weight", "fc2.bias"]
    getattrs = [n.s("name") for n in frozen.graph.findAllNodes("prim::GetAttr")]
    assert "weight" in getattrs and "bias" in getattrs and "fc2" in getattrs
    with tl.no_grad():
        _assert_same(frozen(x), model(x))
        frozen.fc1.weight.zero_()  # preserved: still read at run time
        expected = model.fc2(tl.relu(model.fc1.bias.expand(3, 16)))
        np.testing.assert_allclose(frozen(x).numpy(), expected.numpy(), rtol=1e-6)
    # a frozen module saves and loads
    loaded = _roundtrip(frozen)
    _assert_same(loaded(x), frozen(x))


def test_mutated_buffer_stays_an_attribute():
    class Counter(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("calls", tl.zeros(()))
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            self.calls.add_(1)
            return self.lin(x)

    m = Counter().eval()
    x = tl.randn(2, 3)
    traced = _trace(m, x)
    frozen = tl.jit.freeze(traced)
    assert [n for n, _ in frozen.named_buffers()] == ["calls"]
    before = frozen.calls.item()
    with tl.no_grad():
        frozen(x)
    assert frozen.calls.item() == before + 1


def test_freeze_errors_match_torch():
    _, traced, x = _make("mlp")
    traced.train()
    with pytest.raises(RuntimeError, match="Freezing is currently only implemented for modules in eval mode"):
        tl.jit.freeze(traced)
    with pytest.raises(RuntimeError, match="Freezing is currently only implemented for modules in eval mode"):
        torch.jit.freeze(torch.jit.trace(torch.nn.Linear(2, 2), torch.randn(1, 2)))
    with pytest.raises(RuntimeError, match="Freezing expects a ScriptModule as input"):
        tl.jit.freeze(nn.Linear(2, 2).eval())
    with pytest.raises(RuntimeError, match="optimize_for_inference expects a ScriptModule"):
        tl.jit.optimize_for_inference(nn.Linear(2, 2))


def test_optimize_for_inference_folds_and_dedups():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.a = nn.Parameter(tl.randn(4))
            self.b = nn.Parameter(tl.randn(4))
            self.lin = nn.Linear(4, 4)
            self.bn = nn.BatchNorm1d(4)

        def forward(self, x):
            y = self.bn(self.lin(x))
            return (y * (self.a + self.b)) + (y * (self.a + self.b)) * 1

    tl.manual_seed(0)
    m = M()
    x = tl.randn(3, 4)
    traced = _trace(m.eval(), x)
    m.train()
    traced.train()
    opt = tl.jit.optimize_for_inference(traced)
    assert not traced.training  # put in eval mode, as torch's
    kinds = _kinds(opt.graph)
    assert "aten::batch_norm" not in kinds and kinds.count("aten::add") == 1 and kinds.count("aten::mul") == 1, opt.graph
    with tl.no_grad():
        np.testing.assert_allclose(opt(x).numpy(), m.eval()(x).numpy(), rtol=1e-5, atol=1e-6)
    again = tl.jit.optimize_for_inference(opt)  # already frozen: not frozen twice
    _assert_same(again(x), opt(x))


def test_frozen_matches_torch_jit_freeze():
    """The CNN frozen by both libraries: same outputs, batch_norm folded by both."""
    model, traced, x = _make("cnn")

    class PtCNN(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.bn = torch.nn.BatchNorm2d(8)
            self.pool = torch.nn.MaxPool2d(2)
            self.fc = torch.nn.Linear(8 * 4 * 4, 5)

        def forward(self, x):
            x = self.pool(torch.relu(self.bn(self.conv(x))))
            return self.fc(x.flatten(1))

    with tl.no_grad():
        model.bn.running_mean.uniform_(-1, 1)
        model.bn.running_var.uniform_(0.5, 2)
    pt = PtCNN().eval()
    pt.load_state_dict({k: to_torch(v) for k, v in model.state_dict().items()})
    pt_frozen = torch.jit.freeze(torch.jit.trace(pt, to_torch(x)))
    tl_frozen = tl.jit.freeze(traced)
    assert not any("batch_norm" in n.kind() for n in pt_frozen.graph.nodes())
    assert "aten::batch_norm" not in _kinds(tl_frozen.graph)
    with tl.no_grad(), torch.no_grad():
        np.testing.assert_allclose(tl_frozen(x).numpy(), pt_frozen(to_torch(x)).numpy(), rtol=1e-4, atol=1e-5)


def test_frozen_module_saves_loads_in_buffer():
    _, traced, x = _make("transformer")
    frozen = tl.jit.freeze(traced)
    buf = io.BytesIO()
    tl.jit.save(frozen, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    with tl.no_grad():
        _assert_same(loaded(x), frozen(x))
    assert list(loaded.parameters()) == []


def test_constant_pooling_alone():
    from torchlite._C import _jit

    g = _jit.Graph()
    x = g.addInput("x")
    consts = [2, 2, 2.0, float("nan"), float("nan"), "a", "a", tl.tensor([1.0, float("nan")]),
              tl.tensor([1.0, float("nan")]), tl.tensor([1.0, 2.0]), tl.tensor([1, 2]), [1, 2], [1, 2]]
    values = [g.insertConstant(c) for c in consts]
    for v in values:  # every constant used, so that pooling, not dead code elimination, removes them
        g.registerOutput(v)
    g.registerOutput(x)
    assert _passes.constant_pooling(g) == 5  # 2, nan, "a", the NaN tensor, [1, 2]; not 2.0, not int vs float tensors
    kept = [n.output().toIValue() for n in g.nodes()]
    assert len(kept) == 8 and kept[0] == 2 and isinstance(kept[1], float)
    outs = g.outputs()
    assert outs[0].unique() == outs[1].unique() and outs[0].unique() != outs[2].unique()
    assert outs[7].unique() == outs[8].unique() and outs[9].unique() != outs[10].unique()
