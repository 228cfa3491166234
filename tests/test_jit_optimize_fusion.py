"""Elementwise fusion in torchlite.jit.optimize_for_inference: with CPU fusion on (as torch's pipeline
fuses only with its fuser on) the optimized graph's pointwise chains become prim::FusionGroups, traced
graphs (sized) and scripted ones (unsized: shapes checked per call by the executor) alike; outputs
equal the unfused optimized module's bit for bit and eager's. freeze never fuses (as torch's)."""
import io

import numpy as np
import pytest

import torchlite as tl
import torchlite.nn as nn
import torchlite.nn.functional as F
from torchlite._C import _jit


@pytest.fixture(autouse=True)
def small_blocks():
    block, minimum = _jit._jit_get_fusion_block_size(), _jit._jit_get_fusion_min_numel()
    _jit._jit_set_fusion_block_size(64)
    _jit._jit_set_fusion_min_numel(1)
    yield
    _jit._jit_set_fusion_block_size(block)
    _jit._jit_set_fusion_min_numel(minimum)


class Head(nn.Module):
    """A linear layer followed by a chain of pointwise ops reading a parameter (a frozen constant)."""

    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(16, 32)
        self.scale = nn.Parameter(tl.randn(32))

    def forward(self, x):
        y = self.lin(x)
        return ((y * self.scale + 1).sigmoid() * y).tanh() - 0.5 * y


def _groups(graph):
    return graph.findAllNodes("prim::FusionGroup")


def _bits(t):
    return t.contiguous().numpy().tobytes()


def _model():
    tl.manual_seed(0)
    return Head().eval()


@pytest.mark.parametrize("front", ["trace", "script"])
def test_optimize_for_inference_fuses_with_the_fuser_on(front):
    m = _model()
    x = tl.randn(8, 16)
    compiled = tl.jit.trace(m, x) if front == "trace" else tl.jit.script(m)
    plain = tl.jit.optimize_for_inference(compiled)
    assert not _groups(plain.graph)  # CPU fusion off (the default, as torch's): nothing fused
    compiled = tl.jit.trace(m, x) if front == "trace" else tl.jit.script(m)
    with tl.jit.fuser("fuser1"):
        fused = tl.jit.optimize_for_inference(compiled)
    groups = _groups(fused.graph)
    assert len(groups) == 1, fused.graph
    kinds = [n.kind() for n in groups[0].g("Subgraph").nodes()]
    assert kinds.count("aten::mul") >= 3 and "aten::sigmoid" in kinds and "aten::tanh" in kinds
    assert fused.graph.findNode("aten::linear") is not None  # not pointwise: outside the group
    _jit._jit_reset_fusion_stats()
    with tl.no_grad():
        out, ref, eager = fused(x), plain(x), m(x)
    assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 0}
    assert _bits(out) == _bits(ref)
    np.testing.assert_allclose(out.numpy(), eager.numpy(), rtol=1e-5, atol=1e-6)


def test_scripted_group_checks_shapes_per_call():
    class Mixed(nn.Module):
        def forward(self, x, y):
            return (x * y + 1).relu() * y  # y broadcast against x at run time

    s = tl.jit.script(Mixed().eval())
    with tl.jit.fuser("fuser1"):
        opt = tl.jit.optimize_for_inference(s)
    assert len(_groups(opt.graph)) == 1
    x = tl.randn(6, 5)
    with tl.no_grad():
        for y in (tl.randn(6, 5), tl.randn(5), tl.randn(1, 5), tl.tensor(2.0)):
            _jit._jit_reset_fusion_stats()
            assert _bits(opt(x, y)) == _bits(((x * y + 1).relu() * y).contiguous())
        # x broadcast up to y's shape: every result has y's shape, still one blocked run
        big = tl.randn(3, 6, 5)
        _jit._jit_reset_fusion_stats()
        assert _bits(opt(x, big)) == _bits((x * big + 1).relu() * big)
        assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 0}
        # the op's own error for shapes that do not broadcast
        with pytest.raises(RuntimeError) as e:
            opt(x, tl.randn(4))
        with pytest.raises(RuntimeError) as eager:
            (x * tl.randn(4))
        assert str(e.value) == str(eager.value)


def test_scripted_group_with_results_of_other_shapes_runs_node_by_node():
    class Grow(nn.Module):
        def forward(self, x, y):
            return (y + 1).relu() * x  # (y + 1) has y's shape, the product x's

    with tl.jit.fuser("fuser1"):
        opt = tl.jit.optimize_for_inference(tl.jit.script(Grow().eval()))
    assert len(_groups(opt.graph)) == 1
    x, y = tl.randn(6, 5), tl.randn(5)
    with tl.no_grad():
        _jit._jit_reset_fusion_stats()
        assert _bits(opt(x, y)) == _bits((y + 1).relu() * x)
        assert _jit._jit_fusion_stats() == {"fused": 0, "fallback": 1}
        y2 = tl.randn(6, 5)
        assert _bits(opt(x, y2)) == _bits((y2 + 1).relu() * x)
        assert _jit._jit_fusion_stats() == {"fused": 1, "fallback": 1}


def test_fused_optimized_module_gradients_and_dtypes():
    m = _model()
    x = tl.randn(8, 16, dtype=tl.float64)
    m = m.double()
    with tl.jit.fuser("fuser1"):
        opt = tl.jit.optimize_for_inference(tl.jit.script(m))
    assert _groups(opt.graph)
    with tl.no_grad():
        out = opt(x)
    assert out.dtype == tl.float64
    np.testing.assert_allclose(out.numpy(), m(x).detach().numpy(), rtol=1e-12, atol=1e-12)
    # gradients with respect to the input flow through the group (recorded op by op, or as one node)
    xg = x.clone().requires_grad_()
    opt(xg).sum().backward()
    xe = x.clone().requires_grad_()
    m(xe).sum().backward()
    np.testing.assert_allclose(xg.grad.numpy(), xe.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_freeze_does_not_fuse():
    m = _model()
    with tl.jit.fuser("fuser1"):
        frozen = tl.jit.freeze(tl.jit.script(m))
    assert not _groups(frozen.graph)


def test_already_frozen_module_is_fused_once():
    m = _model()
    frozen = tl.jit.freeze(tl.jit.script(m))
    with tl.jit.fuser("fuser1"):
        a = tl.jit.optimize_for_inference(frozen)
        b = tl.jit.optimize_for_inference(a)
    assert len(_groups(b.graph)) == 1
    x = tl.randn(4, 16)
    with tl.no_grad():
        np.testing.assert_allclose(b(x).numpy(), m(x).numpy(), rtol=1e-5, atol=1e-6)


def test_fused_module_is_not_saved():
    with tl.jit.fuser("fuser1"):
        opt = tl.jit.optimize_for_inference(tl.jit.script(_model()))
    with pytest.raises(RuntimeError, match="cannot save a prim::FusionGroup node"):
        tl.jit.save(opt, io.BytesIO())
