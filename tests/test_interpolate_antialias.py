"""Antialiased interpolation (issue 11, pool11): _upsample_bilinear2d_aa / _upsample_bicubic2d_aa and
F.interpolate(..., antialias=True) against PyTorch, beyond the generated suites' samples:

- downsampling (where antialiasing matters: many taps per output) and upsampling, by size and by scale
  factor, align_corners, recompute_scale_factor, one dim resampled or both, unbatched rejected;
- float32 and float64 bit for bit (the weights and the sums' rounding follow its AVX-512 build), uint8 bit
  for bit (PyTorch's fixed-point passes), both for images (C <= 4) and feature maps;
- non-contiguous inputs, empty batch, meta tensors, the unchanged-shape copy;
- gradients against PyTorch's (first and second order), gradcheck and gradgradcheck, the backward ops
  and their grad_input forms;
- PyTorch's errors and refused dtypes.
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

MODES = ["bilinear", "bicubic"]


def _rand(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.rand(shape, generator=g, dtype=torch.float64) * 4 - 2).to(dtype)


def _image(*shape, seed=0):
    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, 256, shape, generator=g, dtype=torch.uint8)


# The float sums' rounding (which taps PyTorch's compiled loop fuses into FMAs) was matched against its
# AVX-512 kernels: bit for bit there; elsewhere (AVX2 builds unroll differently) within a few ulps.
EXACT = torch.backends.cpu.get_cpu_capability() == "AVX512"


def _close(got, expected):
    """Bit for bit (the weights, the sums' rounding, uint8's fixed point are PyTorch's) on AVX-512; float
    within a few ulps elsewhere."""
    got, expected = got.detach(), expected.detach()
    if EXACT or expected.dtype not in (torch.float32, torch.float64):
        assert_same(got, expected, atol=0, rtol=0)
    elif expected.dtype == torch.float64:
        assert_same(got, expected, atol=1e-13, rtol=1e-13)
    else:
        assert_same(got, expected, atol=2e-6, rtol=2e-6)


RESIZES = [
    # input (N, C, H, W), interpolate kwargs
    ((2, 3, 32, 29), dict(size=(11, 7))),          # downsampling, non-integer factors
    ((1, 2, 64, 64), dict(size=(16, 16))),         # 4x down
    ((2, 3, 13, 17), dict(size=(29, 40))),         # upsampling
    ((1, 2, 20, 21), dict(size=(20, 9))),          # W only
    ((1, 2, 20, 21), dict(size=(7, 21))),          # H only
    ((2, 2, 30, 25), dict(scale_factor=0.37)),     # factors passed on as the scales
    ((2, 2, 30, 25), dict(scale_factor=(0.5, 1.7))),
    ((2, 2, 30, 25), dict(scale_factor=0.37, recompute_scale_factor=True)),
    ((2, 3, 32, 29), dict(size=(11, 7), align_corners=True)),
    ((2, 3, 9, 12), dict(size=(20, 5), align_corners=True)),
    ((1, 1, 40, 3), dict(size=(1, 1))),
    ((1, 1, 5, 300), dict(size=(2, 17))),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, kwargs", RESIZES)
def test_interpolate_float(shape, kwargs, mode, dtype):
    x = _rand(*shape, dtype=dtype)
    e = F.interpolate(x, mode=mode, antialias=True, **kwargs)
    g = TF.interpolate(from_torch(x), mode=mode, antialias=True, **kwargs)
    _close(g, e)


@pytest.mark.parametrize("channels", [1, 3, 4, 6])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, kwargs", RESIZES)
def test_interpolate_uint8_bit_exact(shape, kwargs, mode, channels):
    """PyTorch computes uint8 in int16 fixed point (its AVX path for <= 4 channels, the generic one
    above: the same numbers); the result must match to the bit."""
    x = _image(shape[0], channels, *shape[2:])
    try:
        e = F.interpolate(x, mode=mode, antialias=True, **kwargs)
    except RuntimeError as err:  # PyTorch's AVX path asserts on some 3-channel shapes (a 1x1 output)
        assert "INTERNAL ASSERT" in str(err)
        e = torch.cat([F.interpolate(x[:, c:c + 1], mode=mode, antialias=True, **kwargs) for c in range(channels)], 1)
    g = TF.interpolate(from_torch(x), mode=mode, antialias=True, **kwargs)
    _close(g, e)


@pytest.mark.parametrize("mode", MODES)
def test_large_downsampling_float32(mode):
    x = _rand(2, 3, 224, 224, dtype=torch.float32, seed=5)
    e = F.interpolate(x, size=(112, 112), mode=mode, antialias=True)
    g = TF.interpolate(from_torch(x), size=(112, 112), mode=mode, antialias=True)
    _close(g, e)
    e = F.interpolate(x, size=(37, 61), mode=mode, antialias=True)
    g = TF.interpolate(from_torch(x), size=(37, 61), mode=mode, antialias=True)
    _close(g, e)


@pytest.mark.parametrize("mode", MODES)
def test_antialias_differs_from_plain_interpolation(mode):
    """Downsampling with antialias averages every input under the output pixel; without it only 2 or 4
    taps are read (the values differ), upsampling bilinear is the same either way."""
    x = _rand(1, 1, 32, 32)
    aa = TF.interpolate(from_torch(x), size=(8, 8), mode=mode, antialias=True)
    plain = TF.interpolate(from_torch(x), size=(8, 8), mode=mode, antialias=False)
    assert float((aa - plain).abs().max()) > 1e-3
    up_aa = TF.interpolate(from_torch(x), size=(50, 41), mode="bilinear", antialias=True)
    up = TF.interpolate(from_torch(x), size=(50, 41), mode="bilinear", antialias=False)
    _close(up_aa, F.interpolate(x, size=(50, 41), mode="bilinear", antialias=True))
    assert float((up_aa - up).abs().max()) < 1e-12


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("kind", ["transposed", "sliced", "channels_last", "expanded"])
def test_non_contiguous(mode, kind):
    base = _rand(2, 3, 24, 26)
    lbase = from_torch(base)
    if kind == "transposed":
        x, lx = base.transpose(-1, -2), lbase.transpose(-1, -2)
    elif kind == "sliced":
        x, lx = base[:, :, 1::2, ::3], lbase[:, :, 1::2, ::3]
    elif kind == "channels_last":
        x, lx = base.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2), lbase.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2)
    else:
        x, lx = base[:1].expand(3, 3, 24, 26), lbase[:1].expand(3, 3, 24, 26)
    e = F.interpolate(x, size=(9, 10), mode=mode, antialias=True)
    g = TF.interpolate(lx, size=(9, 10), mode=mode, antialias=True)
    _close(g, e)


@pytest.mark.parametrize("mode", MODES)
def test_ops_directly_with_scales_and_out(mode):
    x = _rand(2, 2, 17, 19)
    op_t = getattr(torch._C._nn, f"_upsample_{mode}2d_aa")
    op_l = getattr(tl._C._nn, f"_upsample_{mode}2d_aa")
    e = op_t(x, [6, 8], False, 0.35, 0.4)
    g = op_l(from_torch(x), [6, 8], False, 0.35, 0.4)
    _close(g, e)
    out = tl.empty(0, dtype=tl.float64)
    r = op_l(from_torch(x), [6, 8], False, 0.35, 0.4, out=out)
    assert r is out
    _close(out, e)
    with pytest.raises(RuntimeError):
        op_l(from_torch(x), [6, 8], False, out=tl.empty(0, dtype=tl.float32))
    # the .vec overload: the size or the factors
    e = op_t(x, None, True, [0.5, 0.3])
    g = op_l(from_torch(x), None, True, [0.5, 0.3])
    _close(g, e)


def test_unchanged_shape_is_a_copy_for_any_dtype():
    for dtype in [torch.float32, torch.int32, torch.float16]:
        x = _rand(1, 2, 5, 6).to(dtype)
        e = torch._C._nn._upsample_bilinear2d_aa(x, [5, 6], False)
        g = tl._C._nn._upsample_bilinear2d_aa(from_torch(x), [5, 6], False)
        assert_same(g, e, atol=0, rtol=0)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16, torch.int32])
@pytest.mark.parametrize("mode", MODES)
def test_dtypes_pytorch_refuses(mode, dtype):
    x = _rand(1, 2, 8, 8).to(dtype)
    with pytest.raises(RuntimeError):
        F.interpolate(x, size=(4, 4), mode=mode, antialias=True)
    with pytest.raises(RuntimeError):
        TF.interpolate(from_torch(x), size=(4, 4), mode=mode, antialias=True)


def test_empty_batch_and_meta():
    x = torch.empty(0, 3, 10, 10)
    e = F.interpolate(x, size=(4, 5), mode="bilinear", antialias=True)
    g = TF.interpolate(from_torch(x), size=(4, 5), mode="bilinear", antialias=True)
    assert tuple(g.shape) == tuple(e.shape) == (0, 3, 4, 5)
    m = tl.empty(2, 3, 10, 10, device="meta")
    r = tl._C._nn._upsample_bicubic2d_aa(m, [4, 5], False)
    assert r.device.type == "meta" and tuple(r.shape) == (2, 3, 4, 5)
    gi = tl._C._internal._upsample_bicubic2d_aa_backward(tl.empty(2, 3, 4, 5, device="meta"), [4, 5],
                                                          [2, 3, 10, 10], False)
    assert gi.device.type == "meta" and tuple(gi.shape) == (2, 3, 10, 10)


# ---- gradients

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("shape, kwargs", RESIZES[:10])
def test_gradients_match_pytorch(shape, kwargs, mode):
    x = _rand(*shape)
    xt, xl = x.clone().requires_grad_(), from_torch(x).requires_grad_()
    yt = F.interpolate(xt, mode=mode, antialias=True, **kwargs)
    yl = TF.interpolate(xl, mode=mode, antialias=True, **kwargs)
    go = _rand(*yt.shape, seed=3)
    got_t, got_l = go.clone().requires_grad_(), from_torch(go).requires_grad_()
    (gt,) = torch.autograd.grad(yt, xt, got_t, create_graph=True)
    (gl,) = tl.autograd.grad(yl, xl, got_l, create_graph=True)
    _close(gl, gt)
    v = _rand(*shape, seed=4)
    (want,) = torch.autograd.grad((gt * v).sum(), got_t)
    (got,) = tl.autograd.grad((gl * from_torch(v)).sum(), got_l)
    _close(got, want)


@pytest.mark.parametrize("mode", MODES)
def test_gradients_float32(mode):
    x = _rand(2, 3, 40, 37, dtype=torch.float32)
    xt, xl = x.clone().requires_grad_(), from_torch(x).requires_grad_()
    go = _rand(2, 3, 13, 11, dtype=torch.float32, seed=1)
    F.interpolate(xt, size=(13, 11), mode=mode, antialias=True).backward(go)
    TF.interpolate(xl, size=(13, 11), mode=mode, antialias=True).backward(from_torch(go))
    _close(xl.grad, xt.grad)


@pytest.mark.parametrize("mode", MODES)
def test_gradcheck_and_gradgradcheck(mode):
    for shape, size, ac in [((1, 2, 9, 8), (4, 3), False), ((2, 1, 4, 5), (7, 9), True), ((1, 1, 6, 7), (6, 3), False)]:
        x = from_torch(_rand(*shape)).requires_grad_()
        fn = lambda t: TF.interpolate(t, size=size, mode=mode, antialias=True, align_corners=ac)  # noqa: E731
        assert tl.autograd.gradcheck(fn, (x,))
        assert tl.autograd.gradgradcheck(fn, (x,))


@pytest.mark.parametrize("mode", MODES)
def test_backward_op_and_grad_input_form(mode):
    go = _rand(2, 3, 5, 4)
    op_t = getattr(torch.ops.aten, f"_upsample_{mode}2d_aa_backward")
    op_l = getattr(tl._C._internal, f"_upsample_{mode}2d_aa_backward")
    e = op_t(go, [5, 4], [2, 3, 13, 11], False, None, None)
    g = op_l(from_torch(go), [5, 4], [2, 3, 13, 11], False, None, None)
    _close(g, e)
    out = tl.empty(0, dtype=tl.float64)
    r = op_l(from_torch(go), [5, 4], [2, 3, 13, 11], False, None, None, out=out)
    assert r is out
    _close(out, e)
    with pytest.raises(RuntimeError, match="Expected grad_output to have the same shape as output"):
        op_l(from_torch(go), [5, 5], [2, 3, 13, 11], False)
    with pytest.raises(RuntimeError, match="Expected grad_output to be a tensor of dimension 4"):
        op_l(from_torch(go[0]), [5, 4], [2, 3, 13, 11], False)


# ---- errors

ERRORS = [
    ((2, 3, 4), dict(size=5, mode="bilinear"), ValueError),           # antialias needs a 4-D input
    ((1, 2, 3, 4, 5), dict(size=5, mode="bicubic"), ValueError),
    ((1, 2, 8, 8), dict(size=(0, 3), mode="bilinear"), RuntimeError),  # output sizes must be positive
    ((1, 0, 8, 8), dict(size=(4, 3), mode="bicubic"), RuntimeError),   # an empty non-batch dim
    ((1, 2, 8, 8), dict(size=(4, 3, 2), mode="bilinear"), ValueError),
]


@pytest.mark.parametrize("shape, kwargs, exc", ERRORS)
def test_errors(shape, kwargs, exc):
    x = torch.zeros(shape)
    with pytest.raises(exc):
        F.interpolate(x, antialias=True, **kwargs)
    with pytest.raises(exc):
        TF.interpolate(from_torch(x), antialias=True, **kwargs)
