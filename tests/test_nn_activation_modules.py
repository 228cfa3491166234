"""Activation modules, Identity, Flatten, Unflatten against torch.nn: constructor signatures and
defaults, __constants__, reprs, values and gradients (float32/float64, inplace), PReLU's weight,
RReLU's modes, and errors."""
from __future__ import annotations

import inspect

import pytest
import torch

import torchlite as tl
from tests.conftest import assert_same, from_torch

# (class name, constructor args) covering defaults and non-default settings
CASES = [
    ("ReLU", ()), ("ReLU", (True,)), ("ReLU6", ()), ("LeakyReLU", ()), ("LeakyReLU", (0.2,)),
    ("ELU", ()), ("ELU", (0.5,)), ("CELU", ()), ("CELU", (2.0,)), ("SELU", ()),
    ("GELU", ()), ("GELU", ("tanh",)), ("SiLU", ()), ("Mish", ()), ("Softplus", ()),
    ("Softplus", (2.0, 1.0)), ("Softsign", ()), ("Softshrink", ()), ("Softshrink", (1.0,)),
    ("Hardshrink", ()), ("Hardshrink", (0.9,)), ("Tanhshrink", ()), ("Hardtanh", ()),
    ("Hardtanh", (-0.5, 1.5)), ("Hardsigmoid", ()), ("Hardswish", ()), ("LogSigmoid", ()),
    ("Sigmoid", ()), ("Tanh", ()), ("PReLU", ()), ("PReLU", (6, 0.1)), ("RReLU", ()),
    ("GLU", ()), ("GLU", (0,)), ("Threshold", (0.1, 20.0)), ("Softmax", (1,)), ("Softmax", (0,)),
    ("LogSoftmax", (1,)), ("Softmin", (-1,)), ("Softmax2d", ()), ("Identity", ()),
    ("Flatten", ()), ("Flatten", (0, 1)), ("Unflatten", (1, (3, 2))),
]
INPLACE = ["ReLU", "ReLU6", "LeakyReLU", "ELU", "CELU", "SELU", "SiLU", "Mish", "Hardtanh",
           "Hardsigmoid", "Hardswish", "Threshold"]


def _pair(name, args):
    return getattr(torch.nn, name)(*args), getattr(tl.nn, name)(*args)


def _input(name, dtype=torch.float64):
    shape = (4, 6, 2, 2) if name == "Softmax2d" else (4, 6)
    x = torch.linspace(-3, 3, 4 * 6 * (4 if name == "Softmax2d" else 1), dtype=dtype).reshape(shape)
    return x[:, torch.randperm(6, generator=torch.Generator().manual_seed(0))]  # non-contiguous


@pytest.mark.parametrize("name,args", CASES)
def test_repr_and_constants_like_torch(name, args):
    t, l = _pair(name, args)
    assert repr(l) == repr(t)
    assert getattr(type(l), "__constants__", []) == getattr(type(t), "__constants__", [])


@pytest.mark.parametrize("name", sorted({n for n, _ in CASES}))
def test_signature_like_torch(name):
    def params(cls):
        return [(p.name, p.default, p.kind) for p in inspect.signature(cls.__init__).parameters.values()]
    assert params(getattr(tl.nn, name)) == params(getattr(torch.nn, name))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name,args", CASES)
def test_values_and_gradients_like_torch(name, args, dtype):
    t, l = _pair(name, args)
    if name == "RReLU":          # training mode draws random slopes (checked below)
        t.eval()
        l.eval()
    t, l = t.to(dtype), l.to(getattr(tl, str(dtype).split(".")[-1]))
    xt = _input(name, torch.float32).to(dtype)
    xt_leaf = xt.clone().requires_grad_()
    xl_leaf = from_torch(xt).requires_grad_()
    # in-place modules must not write into a leaf: feed them a non-leaf
    yt = t(xt_leaf * 1)
    yl = l(xl_leaf * 1)
    assert_same(yl.detach(), yt.detach())
    g = torch.linspace(-1, 1, yt.numel()).to(dtype).reshape(yt.shape)
    yt.backward(g)
    yl.backward(from_torch(g))
    assert_same(xl_leaf.grad, xt_leaf.grad)
    for (nt, pt), (nl, pl) in zip(t.named_parameters(), l.named_parameters()):
        assert nt == nl
        assert_same(pl.grad, pt.grad)


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_writes_its_input(name):
    args = (0.1, 20.0) if name == "Threshold" else ()
    m = getattr(tl.nn, name)(*args, inplace=True)
    x = tl.linspace(-3, 3, 8)
    y = m(x)
    assert y.data_ptr() == x.data_ptr()
    ref = getattr(tl.nn, name)(*args)(tl.linspace(-3, 3, 8))
    assert y.tolist() == ref.tolist()


def test_prelu_weight_and_state_dict():
    torch_m, tl_m = torch.nn.PReLU(4, init=0.3), tl.nn.PReLU(4, init=0.3)
    assert list(tl_m.state_dict()) == list(torch_m.state_dict()) == ["weight"]
    assert_same(tl_m.weight.detach(), torch_m.weight.detach())
    assert type(tl_m.weight) is tl.nn.Parameter and tl_m.weight.requires_grad
    assert tl.nn.PReLU(dtype=tl.float64).weight.dtype == tl.float64
    with tl.no_grad():
        tl_m.weight.fill_(0.0)
    tl_m.reset_parameters()
    assert tl_m.weight.tolist() == pytest.approx([0.3] * 4)
    with pytest.raises(RuntimeError, match="Mismatch of parameter numbers and input channel size"):
        tl_m(tl.ones(2, 3))


def test_rrelu_modes():
    m = tl.nn.RReLU(0.1, 0.3)
    x = -tl.ones(10000)
    slopes = -m(x)                               # training: random slopes in [lower, upper]
    assert float(slopes.min()) >= 0.1 and float(slopes.max()) <= 0.3
    assert abs(float(slopes.mean()) - 0.2) < 0.01
    m.eval()
    assert m(x).tolist() == pytest.approx([-0.2] * 10000)


def test_softmax_without_dim_warns_like_torch():
    for lib in (torch, tl):
        with pytest.warns(UserWarning, match="Implicit dimension choice for softmax"):
            lib.nn.Softmax()(lib.ones(2, 3))


def test_errors_like_torch():
    def err(lib, call):
        try:
            call(lib)
        except Exception as e:  # noqa: BLE001 - comparing the exception itself
            return type(e).__name__, str(e)
    for call in [lambda lib: lib.nn.Softmax2d()(lib.ones(2, 3)),
                 lambda lib: lib.nn.Hardtanh(1.0, -1.0),
                 lambda lib: lib.nn.Unflatten(1, 3),
                 lambda lib: lib.nn.Unflatten(1, (2, "a"))]:
        assert err(tl, call) == err(torch, call) is not None


def test_hardtanh_deprecated_keywords_warn():
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        m = tl.nn.Hardtanh(min_value=-2.0)
    assert m.min_val == -2.0


def test_identity_returns_input_and_ignores_arguments():
    x = tl.ones(3)
    assert tl.nn.Identity(54, unused="x")(x) is x


def test_unbatched_and_empty_inputs():
    for name, args in [("Flatten", (0,)), ("ReLU", ()), ("Softmax", (0,)), ("PReLU", ())]:
        t, l = _pair(name, args)
        for shape in [(5,), (0, 3)]:
            xt = torch.linspace(-1, 1, max(1, torch.Size(shape).numel()))[: torch.Size(shape).numel()].reshape(shape)
            assert_same(l(from_torch(xt)).detach(), t(xt).detach())


def test_softmax_setstate_defaults_dim():
    m = tl.nn.Softmax(1)
    state = dict(m.__dict__)
    del state["dim"]
    fresh = tl.nn.Softmax.__new__(tl.nn.Softmax)
    fresh.__setstate__(state)
    assert fresh.dim is None


@pytest.mark.parametrize("name,args", CASES)
def test_meta_inputs_give_torch_shapes(name, args):
    t, l = _pair(name, args)
    if name == "RReLU":
        t.eval()
        l.eval()
    if list(l.parameters()):
        l.to_empty(device="meta")
    shape = (4, 6, 2, 2) if name == "Softmax2d" else (4, 6)
    y = l(tl.empty(shape, device="meta"))
    assert y.is_meta and tuple(y.shape) == tuple(t(torch.zeros(shape)).shape)
