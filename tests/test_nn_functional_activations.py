"""torchlite.nn.functional activations: what the generated suites (which run every YAML sample against
PyTorch) cannot say.

- placement: each activation name is bound where torch binds it (top level, torch._C._nn, Tensor
  methods), so `hasattr(torchlite, name)` answers as `hasattr(torch, name)`;
- the F.* Python layer: signatures and defaults, `inplace=True`, the `*_` functions, softmax's implicit
  dim (PyTorch's warning) and dtype=, softmin, softsign, tanhshrink;
- gradients through F.* against PyTorch's, and double backward of the dedicated backward ops;
- rrelu in training mode (a different random stream than PyTorch's): its distribution;
- float16/bfloat16 computed in float32 or better, against PyTorch;
- errors PyTorch raises (gelu's approximate, softshrink's negative lambd, glu's odd or 0-d dims, prelu).
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np
import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

NAMES = ["relu", "relu_", "relu6", "relu6_", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "selu_", "celu",
         "celu_", "gelu", "gelu_", "silu", "silu_", "mish", "mish_", "softplus", "softsign", "softshrink",
         "hardshrink", "tanhshrink", "hardtanh", "hardtanh_", "hardsigmoid", "hardsigmoid_", "hardswish",
         "hardswish_", "log_sigmoid", "prelu", "rrelu", "rrelu_", "glu", "threshold", "threshold_", "softmax",
         "log_softmax", "softmin", "elu_backward", "gelu_backward", "silu_backward", "threshold_backward"]


@pytest.mark.parametrize("name", NAMES)
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name
    if hasattr(torch._C._nn, name):
        assert hasattr(tl._C._nn, name), name


F_NAMES = ["threshold", "threshold_", "relu", "relu_", "glu", "hardtanh", "hardtanh_", "relu6", "elu", "elu_",
           "selu", "selu_", "celu", "celu_", "leaky_relu", "leaky_relu_", "prelu", "rrelu", "rrelu_", "logsigmoid",
           "gelu", "hardshrink", "tanhshrink", "softsign", "softplus", "softmin", "softmax", "log_softmax",
           "softshrink", "tanh", "sigmoid", "hardsigmoid", "silu", "mish", "hardswish"]


def _params(fn):
    try:
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]
    except (TypeError, ValueError):
        return None  # a C function without a Python signature


@pytest.mark.parametrize("name", F_NAMES)
def test_functional_signatures(name):
    mine, theirs = _params(getattr(TF, name)), _params(getattr(F, name))
    if mine is not None and theirs is not None:
        assert mine == theirs, name


ACTIVATIONS = [  # (F call, accepts inplace=)
    (lambda f, x, **k: f.relu(x, **k), True),
    (lambda f, x, **k: f.relu6(x, **k), True),
    (lambda f, x, **k: f.leaky_relu(x, 0.2, **k), True),
    (lambda f, x, **k: f.elu(x, 0.7, **k), True),
    (lambda f, x, **k: f.selu(x, **k), True),
    (lambda f, x, **k: f.celu(x, 1.3, **k), True),
    (lambda f, x, **k: f.hardtanh(x, -0.5, 0.75, **k), True),
    (lambda f, x, **k: f.hardsigmoid(x, **k), True),
    (lambda f, x, **k: f.hardswish(x, **k), True),
    (lambda f, x, **k: f.silu(x, **k), True),
    (lambda f, x, **k: f.mish(x, **k), True),
    (lambda f, x, **k: f.threshold(x, 0.3, -2.0, **k), True),
    (lambda f, x, **k: f.rrelu(x, **k), True),
    (lambda f, x, **k: f.gelu(x, **k), False),
    (lambda f, x, **k: f.gelu(x, approximate="tanh", **k), False),
    (lambda f, x, **k: f.softplus(x, 2.0, 3.0, **k), False),
    (lambda f, x, **k: f.softshrink(x, 0.3, **k), False),
    (lambda f, x, **k: f.hardshrink(x, 0.3, **k), False),
    (lambda f, x, **k: f.tanhshrink(x, **k), False),
    (lambda f, x, **k: f.softsign(x, **k), False),
    (lambda f, x, **k: f.logsigmoid(x, **k), False),
    (lambda f, x, **k: f.glu(x, **k), False),
    (lambda f, x, **k: f.tanh(x, **k), False),
    (lambda f, x, **k: f.sigmoid(x, **k), False),
    (lambda f, x, **k: f.prelu(x, x.new_full((1,), 0.25), **k), False),
]


def _input(dtype=torch.float64, shape=(4, 6), seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 8 - 4).to(dtype)


@pytest.mark.parametrize("i", range(len(ACTIVATIONS)))
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_forward_and_inplace_like_torch(i, dtype):
    call, has_inplace = ACTIVATIONS[i]
    a = _input(getattr(torch, dtype))
    assert_same(call(TF, from_torch(a)), call(F, a))
    if has_inplace:
        x, y = from_torch(a), a.clone()
        r = call(TF, x, inplace=True)
        call(F, y, inplace=True)
        assert r is x
        assert_same(x, y)


@pytest.mark.parametrize("i", range(len(ACTIVATIONS)))
def test_gradients_like_torch(i):
    call, _ = ACTIVATIONS[i]
    a = _input()
    x = from_torch(a).requires_grad_()
    t = a.clone().requires_grad_()
    g = _input(seed=1)[:, : call(F, t).shape[1]]
    call(TF, x).backward(from_torch(g))
    call(F, t).backward(g)
    assert_same(x.grad, t.grad)


@pytest.mark.parametrize("name", ["elu", "gelu", "silu", "mish", "softplus", "hardswish", "logsigmoid", "leaky_relu",
                                  "hardtanh", "softshrink", "hardshrink", "celu", "selu"])
def test_double_backward_like_torch(name):
    a = _input()
    x = from_torch(a).requires_grad_()
    t = a.clone().requires_grad_()
    (gx,) = tl.autograd.grad(getattr(TF, name)(x).sum(), x, create_graph=True)
    (gt,) = torch.autograd.grad(getattr(F, name)(t).sum(), t, create_graph=True)
    assert_same(gx.detach(), gt.detach())
    (hx,) = tl.autograd.grad((gx * gx).sum(), x)
    (ht,) = torch.autograd.grad((gt * gt).sum(), t)
    assert_same(hx, ht)


def test_hardsigmoid_has_no_double_backward_like_torch():
    for lib, f in ((tl, TF), (torch, F)):
        x = lib.from_numpy(np.linspace(-2.0, 2.0, 5)).requires_grad_()
        (g,) = lib.autograd.grad(f.hardsigmoid(x).sum(), x, create_graph=True)
        with pytest.raises(RuntimeError, match="derivative for aten::hardsigmoid_backward is not implemented"):
            lib.autograd.grad(g.sum(), x)


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("ndim", [0, 1, 2, 3, 4])
def test_softmax_implicit_dim_warns_like_torch(name, ndim):
    a = _input(shape=(2, 3, 4, 5)[:ndim])
    with warnings.catch_warnings(record=True) as mine:
        warnings.simplefilter("always")
        got = getattr(TF, name)(from_torch(a))
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        expected = getattr(F, name)(a)
    assert_same(got, expected)
    assert [str(w.message) for w in mine] == [str(w.message) for w in theirs]


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_dim_and_dtype(name):
    a = _input(torch.float32)
    for dim in (0, 1, -1):
        assert_same(getattr(TF, name)(from_torch(a), dim), getattr(F, name)(a, dim))
        assert_same(getattr(TF, name)(from_torch(a), dim=dim, dtype=tl.float64),
                    getattr(F, name)(a, dim=dim, dtype=torch.float64))


def test_rrelu_training_distribution():
    tl.manual_seed(0)
    x = -tl.ones(200000, dtype=tl.float64)
    slopes = (-TF.rrelu(x, 0.1, 0.3, training=True)).numpy()
    assert slopes.min() >= 0.1 and slopes.max() <= 0.3
    assert abs(slopes.mean() - 0.2) < 2e-3  # uniform on [0.1, 0.3]: mean 0.2, sd 0.058
    assert abs(slopes.std() - 0.2 / np.sqrt(12)) < 2e-3
    pos = tl.ones(10, dtype=tl.float64)
    assert_same(TF.rrelu(pos, training=True), torch.ones(10, dtype=torch.float64))
    # Seeded: the same draws again; the gradient is the slope drawn.
    tl.manual_seed(5)
    y = TF.rrelu(x[:100], training=True)
    tl.manual_seed(5)
    z = x[:100].clone().requires_grad_()
    TF.rrelu(z, training=True).sum().backward()
    assert np.array_equal(y.numpy(), -z.grad.numpy())


def test_rrelu_inplace_training():
    tl.manual_seed(1)
    x = tl.tensor([-1.0, 2.0, -3.0, 0.5], dtype=tl.float64)
    r = TF.rrelu(x, training=True, inplace=True)
    assert r is x
    v = x.numpy()
    assert v[1] == 2.0 and v[3] == 0.5
    assert 1 / 8 <= -v[0] <= 1 / 3 and 3 / 8 <= -v[2] <= 1.0


def test_errors_like_torch():
    x = tl.ones(3, 4)
    with pytest.raises(RuntimeError, match="approximate"):
        TF.gelu(x, approximate="exact")
    with pytest.raises(RuntimeError, match="lambda must be greater or equal to 0"):
        TF.softshrink(x, -1.0)
    with pytest.raises(RuntimeError, match="Halving dimension must be even"):
        TF.glu(tl.ones(3, 3))
    with pytest.raises(RuntimeError, match="glu does not support scalars"):
        TF.glu(tl.tensor(1.0))
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers"):
        TF.prelu(tl.ones(2, 3), tl.ones(2))
    with pytest.raises(RuntimeError):
        TF.elu(tl.ones(3, dtype=tl.int64))  # PyTorch: "elu" not implemented for 'Long'
    with pytest.raises(RuntimeError):
        TF.hardtanh(tl.ones(3, dtype=tl.uint8))  # -1 does not fit uint8, as PyTorch


def test_meta_shapes():
    x = tl.empty(3, 4, device="meta")
    for call, _ in ACTIVATIONS[:-1]:
        r = call(TF, x)
        assert r.device.type == "meta" and tuple(r.shape) == tuple(call(F, torch.empty(3, 4, device="meta")).shape)
