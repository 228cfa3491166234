"""F.pad and the padding ops (part shape11 of issue 11): what the generated suites, which run every YAML
sample against PyTorch, cannot say.

- placement: each op bound where torch binds it (top level, torch._C._nn);
- F.pad's signature and defaults, every mode on batched and unbatched inputs of 1 to 3 padded dims,
  negative pads (crop), against PyTorch;
- gradients through F.pad and double backward through the dedicated backward ops, node names as PyTorch;
- the errors PyTorch raises (types, and messages starting with the op name), meta shapes.
"""
from __future__ import annotations

import inspect

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch

NAMES = ["constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d", "replication_pad1d",
         "replication_pad2d", "replication_pad3d", "_pad_circular", "_pad_enum", "pad"]


@pytest.mark.parametrize("name", NAMES)
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name


def test_pad_signature():
    assert list(inspect.signature(TF.pad).parameters) == list(inspect.signature(F.pad).parameters)
    for name, p in inspect.signature(F.pad).parameters.items():
        assert inspect.signature(TF.pad).parameters[name].default == p.default, name


def _rand(*shape, dtype=torch.float64):
    g = torch.Generator().manual_seed(sum(shape) + len(shape))
    return torch.randn(*shape, generator=g, dtype=dtype)


CASES = [
    # (shape, pad, mode, value)
    ((2, 3, 4), (1, 2), "constant", None),
    ((2, 3, 4), (1, 2, 0, 1, 2, 2), "constant", 2.5),
    ((5,), (-2, 3), "constant", None),
    ((2, 3, 4, 5, 2), (1, 1, -1, 2), "constant", -1.0),
    ((3, 4), (3, 2), "reflect", None),
    ((2, 3, 4), (3, 2), "reflect", None),
    ((2, 3, 4), (1, 2, 2, 0), "reflect", None),
    ((2, 2, 3, 4), (3, 1, 2, 2), "reflect", None),
    ((2, 3, 4, 5), (1, 2, 2, 0, 1, 1), "reflect", None),
    ((1, 2, 3, 4, 5), (4, 1, -1, 2, 2, 1), "reflect", None),
    ((3, 4), (5, 2), "replicate", None),
    ((2, 3, 4), (1, 2, 3, 0), "replicate", None),
    ((2, 2, 3, 4), (-1, 3, 2, 2), "replicate", None),
    ((1, 2, 2, 3, 4), (1, 2, 2, 0, 3, 1), "replicate", None),
    ((3, 4), (2, 3), "circular", None),
    ((2, 3, 4), (1, 2, 3, 0), "circular", None),
    ((2, 2, 3, 4), (-1, 3, 2, 2), "circular", None),
    ((1, 2, 2, 3, 4), (1, 2, 2, 0, 1, 1), "circular", None),
]


@pytest.mark.parametrize("shape, pad, mode, value", CASES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_pad_modes_like_torch(shape, pad, mode, value, dtype):
    x = _rand(*shape, dtype=getattr(torch, dtype))
    expected = F.pad(x, pad, mode=mode, value=value)
    assert_same(TF.pad(from_torch(x), list(pad), mode=mode, value=value), expected)
    # non-contiguous input
    if x.dim() >= 2:
        xt = x.transpose(-1, -2).contiguous()
        assert_same(TF.pad(from_torch(xt).transpose(-1, -2), pad, mode, value),
                    F.pad(xt.transpose(-1, -2), pad, mode, value))


@pytest.mark.parametrize("shape, pad, mode, value", CASES)
def test_pad_gradients_like_torch(shape, pad, mode, value):
    x = _rand(*shape).requires_grad_()
    y = F.pad(x, pad, mode=mode, value=value)
    gy = _rand(*y.shape) + 0.5
    (gx,) = torch.autograd.grad(y, x, gy)
    lx = from_torch(x.detach()).requires_grad_()
    ly = TF.pad(lx, list(pad), mode=mode, value=value)
    (lgx,) = tl.autograd.grad(ly, lx, from_torch(gy))
    assert_same(lgx, gx)
    assert type(ly.grad_fn).__name__ == type(y.grad_fn).__name__
    # double backward: the gradient of the gradient with respect to grad_output
    gy_t = gy.clone().requires_grad_()
    (gx2,) = torch.autograd.grad(F.pad(x, pad, mode=mode, value=value), x, gy_t, create_graph=True)
    v = _rand(*x.shape)
    (ggy_t,) = torch.autograd.grad(gx2, gy_t, v)
    lgy = from_torch(gy).requires_grad_()
    (lgx2,) = tl.autograd.grad(TF.pad(lx, list(pad), mode=mode, value=value), lx, lgy, create_graph=True)
    if mode in ("reflect", "replicate"):
        assert type(lgx2.grad_fn).__name__ == type(gx2.grad_fn).__name__
    (lggy,) = tl.autograd.grad(lgx2, lgy, from_torch(v))
    assert_same(lggy, ggy_t)


def test_pad_default_value_and_int_dtypes():
    x = torch.arange(12, dtype=torch.int32).reshape(3, 4)
    assert_same(TF.pad(from_torch(x), [1, 1]), F.pad(x, [1, 1]))
    assert_same(TF.pad(from_torch(x), [1, 1], value=7), F.pad(x, [1, 1], value=7))
    b = torch.tensor([[True, False]])
    assert_same(TF.pad(from_torch(b), [1, 0], value=1), F.pad(b, [1, 0], value=1))
    assert_same(TF.pad(from_torch(x), (1, 2), "reflect"), F.pad(x, (1, 2), "reflect"))


def test_half_types_like_torch():
    for dt in ("float16", "bfloat16"):
        x = _rand(2, 3, 5).to(getattr(torch, dt))
        assert_same(TF.pad(from_torch(x), [2, 1], "reflect"), F.pad(x, [2, 1], "reflect"))
        assert_same(TF.pad(from_torch(x), [2, 1], "replicate"), F.pad(x, [2, 1], "replicate"))


def test_empty_batch():
    x = torch.ones(0, 2, 3)
    assert_same(TF.pad(from_torch(x), [1, 2], "reflect"), F.pad(x, [1, 2], "reflect"))
    assert_same(TF.pad(from_torch(x), [1, 2], "replicate"), F.pad(x, [1, 2], "replicate"))


def test_meta_shapes():
    x = tl.empty(2, 3, 4, 5, device="meta")
    assert TF.pad(x, [1, 2, 1, 3], "reflect").shape == (2, 3, 8, 8)
    assert TF.pad(x, [1, 2, 3, 4], "replicate").shape == (2, 3, 11, 8)
    assert TF.pad(x, [1, 2, -1, 4, 1, 1, 2, 2], value=1.0).shape == (6, 5, 7, 8)
    assert tl._C._internal.reflection_pad2d_backward(tl.empty(2, 3, 8, 8, device="meta"), x, [1, 2, 1, 3]).shape == \
        (2, 3, 4, 5)


ERRORS = [
    ((2, 3), [3, 1], "reflect", None, RuntimeError, "Padding size should be less than the corresponding input dimension"),
    ((2, 3), [1, 1, 1, 1], "reflect", None, NotImplementedError, "Padding size 4 is not supported for 2D input"),
    ((3,), [1, 1], "replicate", None, NotImplementedError, "Padding size 2 is not supported for 1D input"),
    ((2, 0, 3), [1, 1], "reflect", None, RuntimeError, "with possibly 0 batch size and other non-zero dimensions"),
    ((2, 3), [1, 1], "foo", None, NotImplementedError, "Unrecognised padding mode foo"),
    ((2, 3), [1, 1], "reflect", 1.0, RuntimeError, "doesn't take in value argument"),
    ((2, 3, 3), [-2, -2], "replicate", None, RuntimeError, "is too small"),
    ((2, 3, 3), [4, 1], "circular", None, RuntimeError, "wrapping around more than once"),
    ((2, 3, 3), [1, 1, 1], "constant", None, RuntimeError, "Padding length must be divisible by 2"),
    ((2, 3), [1, 1, 1, 1, 1, 1], "constant", None, RuntimeError, "Padding length should be less than or equal"),
    ((5,), [-3, -3], "constant", None, RuntimeError, "length must be non-negative"),
]


@pytest.mark.parametrize("shape, pad, mode, value, exc, message", ERRORS)
def test_errors_like_torch(shape, pad, mode, value, exc, message):
    with pytest.raises(exc, match=message):
        F.pad(torch.ones(shape), pad, mode, value)
    with pytest.raises(exc, match=message):
        TF.pad(tl.ones(shape), pad, mode, value)


def test_error_messages_name_the_op():
    with pytest.raises(RuntimeError, match="^reflection_pad1d: Argument #4"):
        tl._C._nn.reflection_pad1d(tl.ones(2, 3), [3, 1])
    with pytest.raises(RuntimeError, match="^constant_pad_nd: Length of pad must be even"):
        tl.constant_pad_nd(tl.ones(2, 3), [1])
    with pytest.raises(RuntimeError, match="^reflection_pad2d_backward: grad_output width unexpected"):
        tl._C._internal.reflection_pad2d_backward(tl.ones(1, 2, 5, 5), tl.ones(1, 2, 3, 4), [1, 1, 1, 1])


def test_out_variant_like_torch():
    x = _rand(2, 3, 5)
    out = tl.empty(0, dtype=tl.float64)
    r = tl._C._nn.reflection_pad1d(from_torch(x), [2, 1], out=out)
    assert r is out
    assert_same(out, torch._C._nn.reflection_pad1d(x, [2, 1]))
    with pytest.raises(RuntimeError):
        tl._C._nn.reflection_pad1d(from_torch(x), [2, 1], out=tl.empty(0, dtype=tl.float32))


# ---- interpolate

def test_interpolate_signature():
    for f, g in ((TF.interpolate, F.interpolate), (TF.upsample, F.upsample)):
        assert list(inspect.signature(f).parameters) == list(inspect.signature(g).parameters)
        for name, p in inspect.signature(g).parameters.items():
            assert inspect.signature(f).parameters[name].default == p.default, name


UPSAMPLE = [
    # (shape, kwargs)
    ((2, 3, 5), dict(size=9)),
    ((2, 3, 5), dict(scale_factor=2.5)),
    ((2, 3, 5), dict(scale_factor=0.5)),
    ((2, 3, 5, 4), dict(size=(7, 3))),
    ((2, 3, 5, 4), dict(scale_factor=(1.5, 2.0))),
    ((2, 3, 5, 4), dict(scale_factor=1.7, recompute_scale_factor=True)),
    ((1, 2, 3, 4, 3), dict(size=(5, 2, 7))),
    ((1, 2, 3, 4, 3), dict(scale_factor=2)),
]
MODES = {3: ["nearest", "nearest-exact", "linear"], 4: ["nearest", "nearest-exact", "bilinear", "bicubic"],
         5: ["nearest", "nearest-exact", "trilinear"]}


@pytest.mark.parametrize("shape, kwargs", UPSAMPLE)
@pytest.mark.parametrize("align_corners", [None, False, True])
def test_interpolate_like_torch(shape, kwargs, align_corners):
    x = _rand(*shape)
    for mode in MODES[len(shape)]:
        if align_corners is not None and mode.startswith("nearest"):
            continue
        expected = F.interpolate(x, mode=mode, align_corners=align_corners, **kwargs)
        got = TF.interpolate(from_torch(x), mode=mode, align_corners=align_corners, **kwargs)
        assert_same(got, expected)
        # float32, non-contiguous
        xt = x.float().transpose(-1, -2).contiguous()
        assert_same(TF.interpolate(from_torch(xt).transpose(-1, -2), mode=mode, align_corners=align_corners, **kwargs),
                    F.interpolate(xt.transpose(-1, -2), mode=mode, align_corners=align_corners, **kwargs))


@pytest.mark.parametrize("shape, kwargs", UPSAMPLE)
def test_interpolate_gradients_like_torch(shape, kwargs):
    for mode in MODES[len(shape)]:
        x = _rand(*shape).requires_grad_()
        y = F.interpolate(x, mode=mode, **kwargs)
        gy = _rand(*y.shape)
        (gx,) = torch.autograd.grad(y, x, gy)
        lx = from_torch(x.detach()).requires_grad_()
        ly = TF.interpolate(lx, mode=mode, **kwargs)
        assert type(ly.grad_fn).__name__ == type(y.grad_fn).__name__
        (lgx,) = tl.autograd.grad(ly, lx, from_torch(gy))
        assert_same(lgx, gx)


def test_interpolate_half_types():
    x = _rand(2, 3, 5, 4)
    for dt in ("float16", "bfloat16"):
        xd = x.to(getattr(torch, dt))
        for mode in ("nearest", "bilinear", "bicubic"):
            assert_same(TF.interpolate(from_torch(xd), scale_factor=2, mode=mode),
                        F.interpolate(xd, scale_factor=2, mode=mode))


def test_interpolate_empty_batch_and_meta():
    x = torch.ones(0, 2, 3, 4)
    assert_same(TF.interpolate(from_torch(x), scale_factor=2, mode="bilinear"),
                F.interpolate(x, scale_factor=2, mode="bilinear"))
    m = tl.empty(2, 3, 5, 4, device="meta")
    assert TF.interpolate(m, size=(7, 9), mode="bicubic").shape == (2, 3, 7, 9)


INTERP_ERRORS = [
    ((2, 3, 4), dict(size=5, mode="nearest", align_corners=True), ValueError, "align_corners option can only be set"),
    ((2, 3, 4), dict(size=5, scale_factor=2), ValueError, "only one of size or scale_factor"),
    ((2, 3, 4), dict(), ValueError, "either size or scale_factor should be defined"),
    ((2, 3, 4), dict(size=(5, 5)), ValueError, "Input and output must have the same number of spatial dimensions"),
    ((2, 3, 4), dict(scale_factor=(2, 2)), ValueError, "Input and scale_factor must have the same number"),
    ((2, 3, 4), dict(size=5, recompute_scale_factor=True), ValueError, "recompute_scale_factor is not meaningful"),
    ((2, 3, 4), dict(size=5, mode="bilinear", antialias=True), ValueError, "Anti-alias option is restricted"),
    ((2, 3, 4), dict(size=5, mode="bilinear"), NotImplementedError, "Got 3D input, but bilinear mode needs 4D input"),
    ((2, 3, 4, 4), dict(size=5, mode="trilinear"), NotImplementedError, "Got 4D input, but trilinear mode needs 5D"),
    ((2, 3), dict(size=5, mode="nearest"), (NotImplementedError, ValueError), ""),
    ((2, 3, 4, 4), dict(size=5, mode="foo"), NotImplementedError, "Input Error: Only 3D, 4D and 5D input"),
    ((2, 0, 4, 4), dict(size=5, mode="bilinear"), RuntimeError, "Non-empty 4D data tensor expected"),
    ((2, 3, 4, 4), dict(size=(0, 5), mode="bilinear"), RuntimeError, "Input and output sizes should be greater than 0"),
]


@pytest.mark.parametrize("shape, kwargs, exc, message", INTERP_ERRORS)
def test_interpolate_errors_like_torch(shape, kwargs, exc, message):
    with pytest.raises(exc, match=message):
        F.interpolate(torch.ones(shape), **kwargs)
    with pytest.raises(exc, match=message):
        TF.interpolate(tl.ones(shape), **kwargs)


def test_upsample_backward_ops_double_backward_like_torch():
    g = _rand(2, 3, 7, 9).requires_grad_()
    gi = torch.ops.aten.upsample_bicubic2d_backward(g, [7, 9], [2, 3, 4, 5], True)
    v = _rand(*gi.shape)
    (expected,) = torch.autograd.grad(gi, g, v)
    lg = from_torch(g.detach()).requires_grad_()
    lgi = tl._C._internal.upsample_bicubic2d_backward(lg, [7, 9], [2, 3, 4, 5], True)
    assert type(lgi.grad_fn).__name__ == type(gi.grad_fn).__name__
    (got,) = tl.autograd.grad(lgi, lg, from_torch(v))
    assert_same(got, expected)


# ---- pixel_shuffle, pixel_unshuffle, channel_shuffle

@pytest.mark.parametrize("name", ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle"])
def test_shuffles_bound_as_torch(name):
    assert hasattr(tl, name) and getattr(TF, name) is getattr(tl, name)
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name)


def test_shuffles_round_trip_and_grad_names():
    x = _rand(2, 3, 8, 4, 6).requires_grad_()
    lx = from_torch(x.detach()).requires_grad_()
    for f, arg in ((torch.pixel_shuffle, 2), (torch.pixel_unshuffle, 2), (torch.channel_shuffle, 3)):
        y = f(x, arg)
        ly = getattr(tl, f.__name__)(lx, arg)
        assert_same(ly.detach(), y.detach())
        assert type(ly.grad_fn).__name__ == type(y.grad_fn).__name__
    assert_same(tl.pixel_unshuffle(tl.pixel_shuffle(lx.detach(), 2), 2), x.detach())


SHUFFLE_ERRORS = [
    (lambda m: m.pixel_shuffle(m.ones(4, 2), 2), "pixel_shuffle expects input to have at least 3 dimensions"),
    (lambda m: m.pixel_shuffle(m.ones(3, 2, 2), 2), "pixel_shuffle expects its input's 'channel' dimension"),
    (lambda m: m.pixel_shuffle(m.ones(4, 2, 2), 0), "pixel_shuffle expects a positive upscale_factor"),
    (lambda m: m.pixel_unshuffle(m.ones(4, 3, 2), 2), "pixel_unshuffle expects height to be divisible"),
    (lambda m: m.channel_shuffle(m.ones(4, 6, 2), 4), "Number of channels must be divisible by groups"),
    (lambda m: m.channel_shuffle(m.ones(2, 6), 3), "channel_shuffle expects input with > 2 dims"),
]


@pytest.mark.parametrize("call, message", SHUFFLE_ERRORS)
def test_shuffle_errors_like_torch(call, message):
    with pytest.raises(RuntimeError, match=message):
        call(torch)
    with pytest.raises(RuntimeError, match=message):
        call(tl)
