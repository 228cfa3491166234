"""Fractional max pooling (issue 11, pool11) against PyTorch: what the generated suites (the YAML samples in
every dtype and layout, gradcheck/gradgradcheck) do not cover.

- values and indices bit for bit, 2-d and 3-d, batched and unbatched, every floating dtype (the 16-bit
  floats round the window starts as PyTorch's c10::Half/BFloat16 arithmetic), non-contiguous inputs;
- F.fractional_max_pool{2,3}d drawing its samples as PyTorch does: the same seed, the same result;
- output_ratio, return_indices, the *_with_indices forms, nn.FractionalMaxPool{2,3}d;
- gradients (first and second order) against PyTorch's, gradcheck and gradgradcheck;
- out= forms of the forward and backward ops, meta tensors, NaN, ties, empty batch;
- PyTorch's errors: output too large for the kernel, random_samples of the wrong dtype/shape, rank.
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

FLOATS = [torch.float32, torch.float64, torch.float16, torch.bfloat16]


def _rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dtype)


def _samples(n, c, k, dtype, seed=1):
    g = torch.Generator().manual_seed(seed)
    return torch.rand(n, c, k, generator=g, dtype=torch.float64).to(dtype)


def _exact(got, expected):
    assert_same(got.detach(), expected.detach(), atol=0, rtol=0)


CASES_2D = [
    # input shape, kernel, output size
    ((2, 3, 11, 9), (2, 2), (5, 4)),
    ((3, 10, 10), (3, 3), (4, 4)),
    ((1, 4, 17, 23), (2, 3), (8, 11)),
    ((2, 2, 7, 7), (1, 1), (7, 7)),
    ((2, 2, 7, 8), (7, 2), (1, 6)),
    ((1, 3, 50, 41), (3, 2), (23, 37)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, kernel, out", CASES_2D)
def test_2d_values_and_indices(shape, kernel, out, dtype):
    x = _rand(*shape, dtype=dtype)
    n = 1 if len(shape) == 3 else shape[0]
    s = _samples(n, shape[-3], 2, dtype)
    ev, ei = torch._C._nn.fractional_max_pool2d(x, kernel, out, s)
    gv, gi = tl._C._nn.fractional_max_pool2d(from_torch(x), kernel, out, from_torch(s))
    _exact(gv, ev)
    _exact(gi, ei)


CASES_3D = [
    ((2, 2, 6, 7, 8), (2, 2, 2), (3, 4, 5)),
    ((3, 9, 5, 6), (3, 1, 2), (4, 4, 3)),
    ((1, 3, 12, 10, 11), (2, 3, 2), (5, 4, 6)),
]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("shape, kernel, out", CASES_3D)
def test_3d_values_and_indices(shape, kernel, out, dtype):
    x = _rand(*shape, dtype=dtype)
    n = 1 if len(shape) == 4 else shape[0]
    s = _samples(n, shape[-4], 3, dtype)
    ev, ei = torch._C._nn.fractional_max_pool3d(x, kernel, out, s)
    gv, gi = tl._C._nn.fractional_max_pool3d(from_torch(x), kernel, out, from_torch(s))
    _exact(gv, ev)
    _exact(gi, ei)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.float32])
def test_window_starts_round_like_pytorch(dtype):
    """Large planes and many samples: in the 16-bit floats (i + u) * alpha rounds at every step, and the
    starts differ from the float32 ones; they must still be PyTorch's."""
    x = _rand(2, 16, 200, 190, dtype=dtype, seed=3)
    s = _samples(2, 16, 2, dtype, seed=4)
    ev, ei = torch._C._nn.fractional_max_pool2d(x, (3, 2), (97, 120), s)
    gv, gi = tl._C._nn.fractional_max_pool2d(from_torch(x), (3, 2), (97, 120), from_torch(s))
    _exact(gi, ei)
    _exact(gv, ev)


def test_samples_batch_larger_than_input_batch():
    x, s = _rand(2, 3, 9, 9), _samples(5, 3, 2, torch.float64)
    e = torch._C._nn.fractional_max_pool2d(x, 2, 4, s)
    g = tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 4, from_torch(s))
    _exact(g[0], e[0])
    _exact(g[1], e[1])


@pytest.mark.parametrize("kind", ["transposed", "sliced"])
def test_non_contiguous_input_and_samples(kind):
    base = _rand(2, 3, 12, 14)
    sbase = _samples(3, 2, 2, torch.float64)
    lbase, lsbase = from_torch(base), from_torch(sbase)
    if kind == "transposed":
        x, lx = base.transpose(-1, -2), lbase.transpose(-1, -2)
    else:
        x, lx = base[:, :, ::2, 1::2], lbase[:, :, ::2, 1::2]
    s, ls = sbase.transpose(0, 1), lsbase.transpose(0, 1)  # (2, 3, 2), not contiguous
    assert not lx.is_contiguous() and not ls.is_contiguous()
    e = torch._C._nn.fractional_max_pool2d(x, 2, (4, 3), s)
    g = tl._C._nn.fractional_max_pool2d(lx, 2, (4, 3), ls)
    _exact(g[0], e[0])
    _exact(g[1], e[1])


def test_nan_wins_and_ties_keep_the_first():
    x = torch.tensor([[[1.0, 5.0, 5.0, 2.0], [float("nan"), 0.0, 3.0, float("nan")], [7.0, 7.0, 1.0, 1.0],
                       [0.0, 0.0, 0.0, 0.0]]])
    s = torch.tensor([[[0.25, 0.75]]])
    for k, o in [((2, 2), (3, 3)), ((3, 3), (2, 2)), ((1, 2), (4, 3))]:
        e = torch._C._nn.fractional_max_pool2d(x, k, o, s)
        g = tl._C._nn.fractional_max_pool2d(from_torch(x), k, o, from_torch(s))
        _exact(g[0], e[0])
        _exact(g[1], e[1])


def test_empty_batch():
    x, s = torch.empty(0, 3, 8, 8), torch.empty(0, 3, 2)
    e = torch._C._nn.fractional_max_pool2d(x, 2, 4, s)
    g = tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 4, from_torch(s))
    assert tuple(g[0].shape) == tuple(e[0].shape) == (0, 3, 4, 4)
    assert g[1].dtype == tl.int64


def test_meta_shapes():
    x = tl.empty(2, 3, 11, 9, device="meta")
    v, i = tl._C._nn.fractional_max_pool2d(x, 2, (5, 4), tl.empty(2, 3, 2, device="meta"))
    assert v.device.type == "meta" and tuple(v.shape) == (2, 3, 5, 4) and i.dtype == tl.int64
    v, i = tl._C._nn.fractional_max_pool3d(tl.empty(3, 5, 6, 7, device="meta"), 2, (3, 4, 5),
                                           tl.empty(1, 3, 3, device="meta"))
    assert tuple(v.shape) == (3, 3, 4, 5)
    with pytest.raises(RuntimeError, match="too large relative to input"):
        tl._C._nn.fractional_max_pool2d(x, 3, (10, 4), tl.empty(2, 3, 2, device="meta"))
    # PyTorch's meta function checks the samples too
    for bad in [tl.empty(2, 3, device="meta"), tl.empty(2, 4, 2, device="meta"),
                tl.empty(2, 3, 2, dtype=tl.float64, device="meta")]:
        with pytest.raises(RuntimeError, match="_random"):
            tl._C._nn.fractional_max_pool2d(x, 2, (5, 4), bad)
        with pytest.raises(RuntimeError, match="_random"):
            torch._C._nn.fractional_max_pool2d(torch.empty(2, 3, 11, 9, device="meta"), 2, (5, 4),
                                               torch.empty(tuple(bad.shape), dtype=torch.float64 if bad.dtype == tl.float64 else torch.float32, device="meta"))


# ---- F.* and the module

@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.float16, torch.bfloat16])
@pytest.mark.parametrize("seed", [0, 7, 123])
def test_same_seed_same_result_2d(seed, dtype):
    x = _rand(4, 5, 21, 19, dtype=dtype, seed=seed)
    torch.manual_seed(seed)
    ev, ei = F.fractional_max_pool2d(x, 3, output_ratio=(0.5, 0.5), return_indices=True)
    tl.manual_seed(seed)
    gv, gi = TF.fractional_max_pool2d(from_torch(x), 3, output_ratio=(0.5, 0.5), return_indices=True)
    _exact(gv, ev)
    _exact(gi, ei)
    # the next draws continue the same stream
    e2 = F.fractional_max_pool2d(x, (2, 3), output_size=(7, 6))
    g2 = TF.fractional_max_pool2d(from_torch(x), (2, 3), output_size=(7, 6))
    _exact(g2, e2)


@pytest.mark.parametrize("seed", [0, 5])
def test_same_seed_same_result_3d_and_unbatched(seed):
    x = _rand(3, 8, 9, 10, seed=seed)  # unbatched (C, T, H, W)
    torch.manual_seed(seed)
    e = F.fractional_max_pool3d(x, 2, output_ratio=(0.5, 0.6, 0.7), return_indices=True)
    tl.manual_seed(seed)
    g = TF.fractional_max_pool3d(from_torch(x), 2, output_ratio=(0.5, 0.6, 0.7), return_indices=True)
    _exact(g[0], e[0])
    _exact(g[1], e[1])
    x2 = _rand(6, 11, 12, seed=seed)  # unbatched (C, H, W)
    torch.manual_seed(seed)
    e = F.fractional_max_pool2d(x2, 2, output_size=5)
    tl.manual_seed(seed)
    g = TF.fractional_max_pool2d(from_torch(x2), 2, output_size=5)
    _exact(g, e)


def test_with_indices_forms_and_given_samples():
    x, s = _rand(2, 3, 10, 12), _samples(2, 3, 2, torch.float64)
    e = F.fractional_max_pool2d_with_indices(x, 2, output_ratio=(0.5, 0.75), _random_samples=s)
    g = TF.fractional_max_pool2d_with_indices(from_torch(x), 2, output_ratio=(0.5, 0.75),
                                              _random_samples=from_torch(s))
    assert isinstance(g, tuple) and len(g) == 2
    _exact(g[0], e[0])
    _exact(g[1], e[1])
    x3, s3 = _rand(2, 2, 6, 7, 8), _samples(2, 2, 3, torch.float64)
    e = F.fractional_max_pool3d_with_indices(x3, (2, 2, 3), output_size=(3, 4, 5), _random_samples=s3)
    g = TF.fractional_max_pool3d_with_indices(from_torch(x3), (2, 2, 3), output_size=(3, 4, 5),
                                              _random_samples=from_torch(s3))
    _exact(g[0], e[0])
    _exact(g[1], e[1])


@pytest.mark.parametrize("n", [2, 3])
def test_module_with_samples_and_seeded(n):
    shape = (2, 3, 9, 10) if n == 2 else (2, 3, 7, 8, 9)
    x = _rand(*shape)
    s = _samples(2, 3, n, torch.float64)
    T, L = (torch.nn.FractionalMaxPool2d, tl.nn.FractionalMaxPool2d) if n == 2 else \
        (torch.nn.FractionalMaxPool3d, tl.nn.FractionalMaxPool3d)
    mt = T(2, output_ratio=0.5, return_indices=True, _random_samples=s)
    ml = L(2, output_ratio=0.5, return_indices=True, _random_samples=from_torch(s))
    assert ml.kernel_size == mt.kernel_size and ml.output_ratio == mt.output_ratio
    assert "_random_samples" in dict(ml.named_buffers())
    e, g = mt(x), ml(from_torch(x))
    _exact(g[0], e[0])
    _exact(g[1], e[1])
    torch.manual_seed(3)
    e = T(3, output_size=4)(x)
    tl.manual_seed(3)
    g = L(3, output_size=4)(from_torch(x))
    _exact(g, e)


def test_module_errors():
    for kwargs in [dict(), dict(output_size=3, output_ratio=0.5), dict(output_ratio=1.5), dict(output_ratio=0.0)]:
        with pytest.raises(ValueError) as et:
            torch.nn.FractionalMaxPool2d(2, **kwargs)
        with pytest.raises(ValueError) as el:
            tl.nn.FractionalMaxPool2d(2, **kwargs)
        assert str(el.value) == str(et.value)
    with pytest.raises(ValueError):
        tl.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.5, 1.0))
    for k in [0, (2, 0, 2)]:
        with pytest.raises(ValueError, match="kernel_size must be greater than 0"):
            torch.nn.FractionalMaxPool3d(k, output_size=2)
        with pytest.raises(ValueError, match="kernel_size must be greater than 0"):
            tl.nn.FractionalMaxPool3d(k, output_size=2)


def test_functional_errors():
    x = _rand(1, 2, 8, 8)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an output_ratio"):
        TF.fractional_max_pool2d(from_torch(x), 2)
    with pytest.raises(ValueError, match="requires specifying either an output_size or an output_ratio"):
        TF.fractional_max_pool3d(from_torch(_rand(1, 2, 4, 4, 4)), 2)
    # PyTorch's 2-d function takes len() of the ratio: a bare float is a TypeError there, and here
    with pytest.raises(TypeError):
        F.fractional_max_pool2d(x, 2, output_ratio=0.5)
    with pytest.raises(TypeError):
        TF.fractional_max_pool2d(from_torch(x), 2, output_ratio=0.5)
    with pytest.raises(ValueError, match="output_ratio to either be a single Int or tuple of Ints"):
        TF.fractional_max_pool2d(from_torch(x), 2, output_ratio=(0.5, 0.5, 0.5))
    # the 3-d one accepts a bare ratio
    x3 = _rand(1, 2, 8, 8, 8)
    torch.manual_seed(1)
    e = F.fractional_max_pool3d(x3, 2, output_ratio=0.5)
    tl.manual_seed(1)
    _exact(TF.fractional_max_pool3d(from_torch(x3), 2, output_ratio=0.5), e)


# ---- gradients

@pytest.mark.parametrize("n", [2, 3])
@pytest.mark.parametrize("batched", [True, False])
def test_gradients_match_pytorch(n, batched):
    shape = ((2,) if batched else ()) + ((3, 11, 9) if n == 2 else (3, 6, 7, 8))
    kernel, out = ((2, 3), (5, 4)) if n == 2 else ((2, 2, 3), (3, 4, 4))
    x = _rand(*shape)
    s = _samples(shape[0] if batched else 1, 3, n, torch.float64)
    op_t = torch._C._nn.fractional_max_pool2d if n == 2 else torch._C._nn.fractional_max_pool3d
    op_l = tl._C._nn.fractional_max_pool2d if n == 2 else tl._C._nn.fractional_max_pool3d
    xt = x.clone().requires_grad_()
    xl = from_torch(x).requires_grad_()
    yt, _ = op_t(xt, kernel, out, s)
    yl, il = op_l(xl, kernel, out, from_torch(s))
    assert il.requires_grad is False
    go = _rand(*yt.shape, seed=9)
    got_t, got_l = go.clone().requires_grad_(), from_torch(go).requires_grad_()
    (gt,) = torch.autograd.grad(yt, xt, got_t, create_graph=True)
    (gl,) = tl.autograd.grad(yl, xl, got_l, create_graph=True)
    _exact(gl, gt)
    # double backward: d<grad_input, v>/d grad_output gathers v at the indices
    v = _rand(*x.shape, seed=11)
    (want,) = torch.autograd.grad((gt * v).sum(), got_t)
    (got,) = tl.autograd.grad((gl * from_torch(v)).sum(), got_l)
    _exact(got, want)


def test_gradcheck_and_gradgradcheck():
    s = from_torch(_samples(2, 2, 2, torch.float64))
    x = from_torch(_rand(2, 2, 7, 6)).requires_grad_()
    fn = lambda t: tl._C._nn.fractional_max_pool2d(t, (2, 2), (3, 4), s)[0]  # noqa: E731
    assert tl.autograd.gradcheck(fn, (x,))
    assert tl.autograd.gradgradcheck(fn, (x,))
    s3 = from_torch(_samples(1, 2, 3, torch.float64))
    x3 = from_torch(_rand(1, 2, 5, 6, 7)).requires_grad_()
    fn3 = lambda t: tl._C._nn.fractional_max_pool3d(t, (2, 2, 3), (3, 3, 4), s3)[0]  # noqa: E731
    assert tl.autograd.gradcheck(fn3, (x3,))
    assert tl.autograd.gradgradcheck(fn3, (x3,))


def test_backward_op_and_its_grad_input_form():
    x = _rand(2, 3, 9, 8)
    s = _samples(2, 3, 2, torch.float64)
    _, idx = torch._C._nn.fractional_max_pool2d(x, 3, (4, 5), s)
    go = _rand(2, 3, 4, 5, seed=2)
    e = torch.ops.aten.fractional_max_pool2d_backward(go, x, [3, 3], [4, 5], idx)
    g = tl._C._internal.fractional_max_pool2d_backward(from_torch(go), from_torch(x), [3, 3], [4, 5],
                                                        from_torch(idx))
    _exact(g, e)
    out = tl.empty(0, dtype=tl.float64)
    r = tl._C._internal.fractional_max_pool2d_backward(from_torch(go), from_torch(x), [3, 3], [4, 5],
                                                        from_torch(idx), out=out)
    assert r is out
    _exact(out, e)
    with pytest.raises(RuntimeError, match="gradOutput sizes unexpected"):
        tl._C._internal.fractional_max_pool2d_backward(from_torch(go[..., :4]), from_torch(x), [3, 3], [4, 5],
                                                       from_torch(idx))
    bad = from_torch(idx).clone()
    bad[0, 0, 0, 0] = 72  # outside the 9 x 8 plane
    with pytest.raises(RuntimeError):
        tl._C._internal.fractional_max_pool2d_backward(from_torch(go), from_torch(x), [3, 3], [4, 5], bad)


def test_output_forms():
    x, s = _rand(2, 3, 9, 8), _samples(2, 3, 2, torch.float64)
    e = torch._C._nn.fractional_max_pool2d(x, 3, (4, 5), s)
    ov, oi = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64)
    r = tl._C._nn.fractional_max_pool2d(from_torch(x), 3, (4, 5), from_torch(s), out=(ov, oi))
    assert r[0] is ov and r[1] is oi
    _exact(ov, e[0])
    _exact(oi, e[1])
    with pytest.raises(RuntimeError):
        tl._C._nn.fractional_max_pool2d(from_torch(x), 3, (4, 5), from_torch(s),
                                        out=(tl.empty(0, dtype=tl.float32), oi))
    x3, s3 = _rand(1, 2, 5, 6, 7), _samples(1, 2, 3, torch.float64)
    e = torch._C._nn.fractional_max_pool3d(x3, 2, (3, 3, 4), s3)
    ov, oi = tl.empty(0, dtype=tl.float64), tl.empty(0, dtype=tl.int64)
    tl._C._nn.fractional_max_pool3d(from_torch(x3), 2, (3, 3, 4), from_torch(s3), out=(ov, oi))
    _exact(ov, e[0])
    _exact(oi, e[1])


# ---- errors, as PyTorch's

def _both_raise(fn_t, fn_l, exc=RuntimeError, match=None):
    with pytest.raises(exc) as et:
        fn_t()
    with pytest.raises(exc, match=match) as el:
        fn_l()
    assert type(el.value).__name__ == type(et.value).__name__ or issubclass(type(el.value), exc)


ERRORS_2D = [
    # (input shape, kernel, output, samples shape, samples dtype, message)
    ((1, 2, 8, 8), 3, (7, 4), (1, 2, 2), torch.float64, "pool height 3 too large relative to input height 8"),
    ((1, 2, 8, 8), 3, (4, 7), (1, 2, 2), torch.float64, "pool width 3 too large relative to input width 8"),
    ((1, 2, 8, 8), 2, (4, 4), (1, 2), torch.float64, "Expect _random_samples to have 3 dimensions"),
    ((1, 2, 8, 8), 2, (4, 4), (1, 3, 2), torch.float64, "size\\(1\\) equals to input channel size"),
    ((3, 2, 8, 8), 2, (4, 4), (2, 2, 2), torch.float64, "no less then input batch size"),
    ((1, 2, 8, 8), 2, (4, 4), (1, 2, 3), torch.float64, "size\\(2\\) equals to 2; got 3"),
    ((1, 2, 8, 8), 2, (4, 4), (1, 2, 2), torch.float32, "same dtype as input"),
    ((8, 8), 2, (4, 4), (1, 2, 2), torch.float64, "Expected 3D or 4D tensor"),
    ((1, 0, 8, 8), 2, (4, 4), (1, 0, 2), torch.float64, "non-zero size for non-batch dimensions"),
    ((1, 2, 8, 8), (2, 2, 2), (4, 4), (1, 2, 2), torch.float64, "kernel_size must either be"),
]


@pytest.mark.parametrize("shape, kernel, out, sshape, sdtype, message", ERRORS_2D)
def test_errors_2d(shape, kernel, out, sshape, sdtype, message):
    x = _rand(*shape) if 0 not in shape else torch.empty(shape, dtype=torch.float64)
    s = torch.rand(sshape).to(sdtype) if 0 not in sshape else torch.empty(sshape, dtype=sdtype)
    _both_raise(lambda: torch._C._nn.fractional_max_pool2d(x, kernel, out, s),
                lambda: tl._C._nn.fractional_max_pool2d(from_torch(x), kernel, out, from_torch(s)),
                match=message)


def test_errors_3d():
    x, s = _rand(1, 2, 5, 6, 7), _samples(1, 2, 3, torch.float64)
    # the 3-d check is strict: output + kernel - 1 must be below the input size
    for out in [(4, 3, 3), (3, 5, 3), (3, 3, 6)]:
        _both_raise(lambda: torch._C._nn.fractional_max_pool3d(x, 2, out, s),
                    lambda: tl._C._nn.fractional_max_pool3d(from_torch(x), 2, out, from_torch(s)),
                    match="too large relative to input")
    _both_raise(lambda: torch._C._nn.fractional_max_pool3d(x, 2, (2, 2, 2), s[..., :2]),
                lambda: tl._C._nn.fractional_max_pool3d(from_torch(x), 2, (2, 2, 2), from_torch(s[..., :2])),
                match="equals to 3; got 2")
    _both_raise(lambda: torch._C._nn.fractional_max_pool3d(x[0, 0], 2, (2, 2, 2), s),
                lambda: tl._C._nn.fractional_max_pool3d(from_torch(x[0, 0]), 2, (2, 2, 2), from_torch(s)),
                match="Expected 4D or 5D tensor")


def test_integer_input_is_refused():
    x = torch.randint(0, 9, (1, 2, 8, 8))
    s = torch.zeros(1, 2, 2, dtype=torch.int64)
    _both_raise(lambda: torch._C._nn.fractional_max_pool2d(x, 2, 4, s),
                lambda: tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 4, from_torch(s)))


@pytest.mark.parametrize("u", [float("nan"), float("inf"), 1e12, -1e12, 7.5, -3.3])
def test_samples_outside_the_unit_interval_as_pytorch(u):
    """PyTorch converts (i + u) * alpha to int as x86 does (INT_MIN when out of range or NaN): such samples
    pool windows at the start; torchlite computes the same windows."""
    x = _rand(1, 1, 8, 8)
    s = torch.tensor([[[u, 0.5]]], dtype=torch.float64)
    e = torch._C._nn.fractional_max_pool2d(x, 2, 4, s)
    g = tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 4, from_torch(s))
    _exact(g[0], e[0])
    _exact(g[1], e[1])


def test_16bit_rounding_of_large_samples_never_reads_outside():
    """In bfloat16 a large sample rounds (i + u) coarsely and can start a window past the input: PyTorch
    asserts; torchlite raises too, never reading outside memory."""
    x = _rand(1, 1, 40, 40, dtype=torch.bfloat16)
    s = torch.tensor([[[300.0, 0.5]]], dtype=torch.bfloat16)
    try:
        e = torch._C._nn.fractional_max_pool2d(x, 2, 30, s)
    except RuntimeError:
        with pytest.raises(RuntimeError):
            tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 30, from_torch(s))
    else:
        g = tl._C._nn.fractional_max_pool2d(from_torch(x), 2, 30, from_torch(s))
        _exact(g[1], e[1])
