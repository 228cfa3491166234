"""Complex convolutions (conv1d/2d/3d, their padding='same'/'valid' forms, conv_transpose1d/2d/3d, nn.Conv*d with
dtype=complex64): values against PyTorch 2.13 in complex64/complex128 (and complex32), gradients by torchlite's
complex gradcheck/gradgradcheck and against PyTorch's .grad and second derivatives (its conjugate Wirtinger
convention), non-contiguous and conjugate-bit inputs, unbatched and empty batches, Meta shapes, errors."""
import warnings

import numpy as np
import pytest
import torch

import torchlite as tl

CDTYPES = ["complex64", "complex128"]


def rand(shape, dtype="complex128", seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, dtype=getattr(torch, dtype), generator=g)


def to_tl(x, requires_grad=False):
    t = tl.from_numpy(x.detach().resolve_conj().numpy().copy())
    return t.requires_grad_() if requires_grad else t


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-5) if dtype == "complex64" else dict(rtol=1e-10, atol=1e-10)


def assert_close(t, l, **kw):
    assert tuple(t.shape) == tuple(l.shape)
    assert str(t.dtype).split(".")[-1] == str(l.dtype).split(".")[-1]
    np.testing.assert_allclose(l.detach().resolve_conj().numpy(), t.detach().resolve_conj().numpy(), **kw)


# (op, input shape, weight shape, bias?, keyword arguments): every geometry argument, groups, unbatched input.
CASES = [
    ("conv1d", (2, 4, 9), (6, 2, 3), True, dict(stride=2, padding=1, dilation=2, groups=2)),
    ("conv1d", (3, 7), (2, 3, 3), False, {}),
    ("conv1d", (2, 3, 8), (4, 3, 4), True, dict(padding="same", dilation=3)),
    ("conv1d", (2, 3, 8), (4, 3, 2), True, dict(padding="same")),
    ("conv1d", (3, 8), (4, 3, 3), False, dict(padding="valid")),
    ("conv2d", (2, 3, 6, 5), (4, 3, 3, 2), True, dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    ("conv2d", (4, 5, 5), (4, 1, 3, 3), False, dict(padding=1, groups=4)),
    ("conv2d", (2, 2, 5, 6), (3, 2, 2, 3), True, dict(padding="same", dilation=(2, 1))),
    ("conv3d", (2, 2, 4, 5, 4), (4, 1, 2, 3, 2), True, dict(stride=(1, 2, 1), padding=1, groups=2)),
    ("conv3d", (2, 3, 3, 3), (2, 2, 2, 2, 2), False, {}),
    ("conv3d", (1, 2, 4, 3, 4), (2, 2, 2, 3, 2), True, dict(padding="same")),
    ("conv_transpose1d", (2, 4, 5), (4, 3, 3), True, dict(stride=2, padding=1, output_padding=1, groups=2)),
    ("conv_transpose1d", (2, 5), (2, 3, 2), False, dict(dilation=2)),
    ("conv_transpose2d", (2, 2, 3, 4), (2, 3, 3, 2), True, dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0),
                                                                 dilation=(1, 2))),
    ("conv_transpose2d", (4, 3, 3), (4, 1, 2, 2), False, dict(stride=2, output_padding=1, groups=4)),
    ("conv_transpose3d", (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), True, dict(stride=(2, 1, 1), padding=(0, 1, 0),
                                                                      output_padding=(1, 0, 0))),
    ("conv_transpose3d", (2, 2, 2, 2), (2, 1, 2, 1, 2), False, dict(groups=2)),
]
IDS = [f"{c[0]}-{i}" for i, c in enumerate(CASES)]


def bias_len(op, wshape, kw):
    return wshape[1] * kw.get("groups", 1) if "transpose" in op else wshape[0]


def make(case, dtype, seed=0):
    op, xs, ws, has_bias, kw = case
    x, w = rand(xs, dtype, seed), rand(ws, dtype, seed + 1)
    b = rand((bias_len(op, ws, kw),), dtype, seed + 2) if has_bias else None
    return op, x, w, b, kw


def call(lib, op, x, w, b, kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's padding='same' copy warning
        return getattr(lib.nn.functional, op)(x, w, b, **kw)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_values(case, dtype):
    op, x, w, b, kw = make(case, dtype)
    expected = call(torch, op, x, w, b, kw)
    got = call(tl, op, to_tl(x), to_tl(w), None if b is None else to_tl(b), kw)
    assert_close(expected, got, **tol(dtype))


LAYOUTS = ["transposed", "sliced", "conj"]


def relayout(lib, t, layout):
    """The same logical values as `t` (a torchlite or torch tensor) in another memory layout."""
    if layout == "transposed":  # the last two dims swapped in memory
        return t.transpose(-1, -2).contiguous().transpose(-1, -2) if t.dim() > 1 else t
    if layout == "sliced":  # every other element of a twice as long last dim
        big = lib.stack([t, lib.zeros_like(t)], -1).flatten(-2)
        return big[..., ::2]
    return t.conj().resolve_conj().conj()  # memory holds the conjugates, the lazy bit undoes them


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("case", [CASES[0], CASES[5], CASES[8], CASES[13]], ids=["conv1d", "conv2d", "conv3d", "convT2d"])
def test_non_contiguous_and_conj_inputs(case, layout):
    op, x, w, b, kw = make(case, "complex64", seed=3)
    expected = call(torch, op, x, w, b, kw)
    lx, lw = relayout(tl, to_tl(x), layout), relayout(tl, to_tl(w), layout)
    lb = None if b is None else relayout(tl, to_tl(b), "sliced" if layout == "transposed" else layout)
    if layout == "conj":
        assert lx.is_conj() and lw.is_conj()
    else:
        assert not lx.is_contiguous()
    assert_close(expected, call(tl, op, lx, lw, lb, kw), **tol("complex64"))


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gradcheck_complex128(case):
    op, x, w, b, kw = make(case, "complex128", seed=5)
    inputs = [to_tl(x, True), to_tl(w, True)] + ([to_tl(b, True)] if b is not None else [])

    def f(*a):
        return call(tl, op, a[0], a[1], a[2] if len(a) > 2 else None, kw)

    # fast mode (PyTorch's: random projections of the Jacobian) keeps the 17 cases to seconds; the slow mode
    # (every real and imaginary part) runs on the small cases below
    assert tl.autograd.gradcheck(f, inputs, fast_mode=True)


@pytest.mark.parametrize("op", ["conv1d", "conv_transpose1d"])
def test_gradcheck_slow_mode(op):
    x, w, b = rand((1, 2, 4)), rand((2, 2, 2), seed=1), rand((2,), seed=2)
    inputs = [to_tl(v, True) for v in (x, w, b)]
    assert tl.autograd.gradcheck(lambda x, w, b: call(tl, op, x, w, b, dict(stride=2, padding=1)), inputs)


@pytest.mark.parametrize("case", [CASES[0], CASES[5], CASES[11], CASES[13]], ids=["conv1d", "conv2d", "convT1d", "convT2d"])
def test_gradgradcheck_complex128(case):
    op, x, w, b, kw = make(case, "complex128", seed=7)
    inputs = [to_tl(x, True), to_tl(w, True), to_tl(b, True)]
    assert tl.autograd.gradgradcheck(lambda x, w, b: call(tl, op, x, w, b, kw), inputs, fast_mode=True)


@pytest.mark.parametrize("dtype", CDTYPES)
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_grads_like_torch(case, dtype):
    """x.grad, w.grad, b.grad after backward with a complex grad_output, and the second derivatives (the gradient
    of a real function of the first gradients) against PyTorch's."""
    op, x, w, b, kw = make(case, dtype, seed=9)
    t_in = [v.clone().requires_grad_() for v in (x, w, b) if v is not None]
    l_in = [to_tl(v, True) for v in (x, w, b) if v is not None]
    results = []
    for lib, ins in ((torch, t_in), (tl, l_in)):
        y = call(lib, op, ins[0], ins[1], ins[2] if len(ins) > 2 else None, kw)
        g = rand(tuple(y.shape), dtype, seed=11)
        g = g if lib is torch else to_tl(g)
        first = lib.autograd.grad(y, ins, g, create_graph=True)
        loss = sum((f.real * f.imag).sum() + (f.abs() ** 2).sum() for f in first)
        second = lib.autograd.grad(loss, ins, allow_unused=True)  # the bias gradient does not depend on the bias
        results.append(list(first) + list(second))
    for a, c in zip(*results):
        assert (a is None) == (c is None)
        if a is not None:
            assert_close(a, c, **(dict(rtol=1e-4, atol=1e-4) if dtype == "complex64" else tol(dtype)))


def test_grad_through_conj_inputs():
    op, x, w, b, kw = make(CASES[5], "complex128", seed=13)
    res = []
    for lib, conv in ((torch, lambda t: t), (tl, to_tl)):
        xs = conv(x).requires_grad_()
        ws = conv(w).requires_grad_()
        y = call(lib, op, xs.conj(), ws.conj(), conv(b).conj(), kw)
        y.backward(conv(rand(tuple(y.shape), "complex128", 17)))
        res.append((y, xs.grad, ws.grad))
    for a, c in zip(*res):
        assert_close(a, c, **tol("complex128"))


def test_real_input_gets_real_grad_of_complex_conv():
    """A real input promoted to complex by the caller (x.to(complex)) receives the real part of the gradient."""
    op, x, w, b, kw = make(CASES[0], "complex128", seed=19)
    res = []
    for lib, conv in ((torch, lambda t: t), (tl, to_tl)):
        xr = conv(x.real.contiguous()).requires_grad_()
        y = call(lib, op, xr.to(lib.complex128), conv(w), conv(b), kw)
        (y.abs() ** 2).sum().backward()
        assert str(xr.grad.dtype).endswith("float64")
        res.append(xr.grad)
    assert_close(*res, **tol("complex128"))


@pytest.mark.parametrize("op", ["conv1d", "conv_transpose2d"])
def test_empty_batch(op):
    case = CASES[0] if op == "conv1d" else CASES[13]
    _, x, w, b, kw = make(case, "complex64")
    x = x[:0]
    expected = call(torch, op, x, w, b, kw)
    xl, wl, bl = to_tl(x, True), to_tl(w, True), to_tl(b, True)
    got = call(tl, op, xl, wl, bl, kw)
    assert_close(expected, got, **tol("complex64"))
    got.sum().abs().backward()
    assert np.all(wl.grad.numpy() == 0) and tuple(xl.grad.shape) == tuple(x.shape)


C32_CASES = [("conv1d", (2, 3, 7), (4, 3, 3), dict(padding=1)), ("conv2d", (2, 3, 5, 5), (4, 3, 2, 2), dict(padding="same")),
             ("conv3d", (1, 2, 3, 3, 3), (2, 2, 2, 2, 2), {}),
             ("conv_transpose2d", (2, 3, 4, 4), (3, 2, 3, 3), dict(stride=2)),
             ("conv_transpose1d", (2, 3, 5), (3, 2, 3), {})]


@pytest.mark.parametrize("op,xs,ws,kw", C32_CASES, ids=[c[0] for c in C32_CASES])
def test_complex32_like_torch(op, xs, ws, kw):
    """complex32 (PyTorch computes it through float16 convolutions): equal to PyTorch's bit for bit where its
    float16 kernel rounds as torchlite's (one rounding of a float32 accumulation); its float16 transposed kernel
    rounds differently (the real float16 transposed convolutions differ by the same ulp), so those are compared
    within float16 rounding."""
    x, w = rand(xs, "complex64", 1), rand(ws, "complex64", 2)
    b = rand((w.shape[1] if "transpose" in op else w.shape[0],), "complex64", 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch's "ComplexHalf support is experimental"
        expected = call(torch, op, x.to(torch.complex32), w.to(torch.complex32), b.to(torch.complex32), kw)
        got = call(tl, op, to_tl(x).to(tl.complex32), to_tl(w).to(tl.complex32), to_tl(b).to(tl.complex32), kw)
    assert str(got.dtype) == "torchlite.complex32"
    g, e = got.to(tl.complex64).numpy(), expected.to(torch.complex64).numpy()
    if "transpose" in op:
        np.testing.assert_allclose(g, e, rtol=2e-3, atol=2e-2)
    else:
        np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("case", [CASES[0], CASES[2], CASES[9], CASES[13]], ids=["conv1d", "same", "conv3d", "convT2d"])
def test_meta_shapes(case):
    op, x, w, b, kw = make(case, "complex64")
    expected = call(torch, op, x, w, b, kw)
    got = call(tl, op, to_tl(x).to("meta"), to_tl(w).to("meta"), None if b is None else to_tl(b).to("meta"), kw)
    assert got.is_meta and tuple(got.shape) == tuple(expected.shape) and str(got.dtype) == "torchlite.complex64"


ERRORS = [
    ("weight real", lambda L, x, w, b: L.nn.functional.conv2d(x, w.real.contiguous())),
    ("bias real", lambda L, x, w, b: L.nn.functional.conv2d(x, w, b.real.contiguous())),
    ("input real", lambda L, x, w, b: L.nn.functional.conv2d(x.real.contiguous(), w)),
    ("weight complex128", lambda L, x, w, b: L.nn.functional.conv2d(x, w.to(L.complex128))),
    ("transposed bias real", lambda L, x, w, b: L.nn.functional.conv_transpose2d(x, w.transpose(0, 1), b.real.contiguous())),
    ("channels", lambda L, x, w, b: L.nn.functional.conv2d(x[:, :2], w)),
    ("rank", lambda L, x, w, b: L.nn.functional.conv2d(x[0, 0], w)),
    ("kernel too large", lambda L, x, w, b: L.nn.functional.conv2d(x[..., :1, :1], w)),
    ("same strided", lambda L, x, w, b: L.nn.functional.conv2d(x, w, padding="same", stride=2)),
    ("convolution op", lambda L, x, w, b: L.convolution(x, w, b, [1, 1], [0, 0], [1, 1], False, [0, 0], 1)),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_like_torch(name, fn):
    x, w, b = rand((2, 3, 5, 5), "complex64"), rand((3, 3, 3, 3), "complex64", 1), rand((3,), "complex64", 2)
    with pytest.raises(Exception) as et:
        fn(torch, x, w, b)
    with pytest.raises(Exception) as el:
        fn(tl, to_tl(x), to_tl(w), to_tl(b))
    assert type(el.value).__name__ == type(et.value).__name__, (et.value, el.value)
    if name != "convolution op":
        assert str(el.value).startswith(("conv", "convolution")), el.value


MODULES = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d", "ConvTranspose3d"]


# Transposed modules take only padding_mode='zeros' (as PyTorch's: ValueError otherwise).
MODULE_CASES = [(n, "zeros") for n in MODULES] + [(n, m) for n in MODULES[:3] for m in ("reflect", "replicate",
                                                                                          "circular")]


@pytest.mark.parametrize("name,padding_mode", MODULE_CASES, ids=[f"{n}-{m}" for n, m in MODULE_CASES])
def test_modules_with_complex_dtype(name, padding_mode):
    """nn.Conv*d(dtype=complex64), every padding mode (reflect/replicate pad complex input since the audit): the
    same initial weights as PyTorch's for the same seed (uniform_ of the real view), the same output and parameter
    gradients."""
    nsp = int(name[-2])
    res = []
    for lib in (torch, tl):
        lib.manual_seed(0)
        m = getattr(lib.nn, name)(4, 6, 3, padding=1, dtype=lib.complex64, padding_mode=padding_mode)
        x = rand((2, 4) + (5,) * nsp, "complex64", 21)
        x = x if lib is torch else to_tl(x)
        y = m(x)
        (y.abs() ** 2).sum().backward()
        res.append((m.weight, m.bias, y, m.weight.grad, m.bias.grad))
    for a, c in zip(*res):
        assert_close(a, c, rtol=1e-4, atol=1e-4)
