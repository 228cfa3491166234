"""Convolution and linear (issue 11, part conv11): what the generated suites (every YAML sample against
PyTorch, gradcheck/gradgradcheck) cannot say.

- placement: F.* names bound as PyTorch binds them (F.linear is torch._C._nn.linear, F.conv2d torch.conv2d);
- F.conv*/F.conv_transpose* modes against torch: padding ints/tuples/'same' (even kernels, dilation)/'valid',
  stride, dilation, groups incl. depthwise, output_padding, unbatched inputs, keyword arguments, defaults;
- gradients and double backward through F.* against PyTorch's;
- float16/bfloat16 (computed in float32), integer dtypes, non-contiguous and empty inputs;
- linear's weight/bias forms and out=; bilinear; unfold/fold (im2col/col2im);
- errors PyTorch raises (rank, channels, groups, bias size, kernel larger than the padded input, ...).
"""
from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import torchlite as tl
import torchlite.nn.functional as TF
from tests.conftest import assert_same, from_torch


def rnd(*shape, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed + sum(shape))
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype)


def same(actual, expected, **kw):
    assert_same(actual.detach(), expected.detach(), **kw)


def both(*tensors):
    return [from_torch(t) for t in tensors]


# ------------------------------------------------------------------------------------------- placement

@pytest.mark.parametrize("name", ["linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d",
                                  "conv_transpose2d", "conv_transpose3d", "unfold", "fold"])
def test_functional_names(name):
    assert callable(getattr(TF, name))


@pytest.mark.parametrize("name", ["linear", "bilinear", "conv1d", "conv2d", "conv3d", "convolution", "conv_transpose1d",
                                  "conv_transpose2d", "conv_transpose3d", "im2col", "col2im"])
def test_placement_as_torch(name):
    assert hasattr(tl, name) == hasattr(torch, name), name
    assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name), name
    assert hasattr(tl.Tensor, name) == hasattr(torch.Tensor, name), name


# ------------------------------------------------------------------------------------------- conv modes

CONV_CASES = [
    # (dims, input shape, weight shape, kwargs)
    (1, (2, 4, 9), (6, 2, 3), dict(stride=2, padding=1, dilation=2, groups=2)),
    (1, (3, 10), (2, 3, 4), dict(padding="same")),
    (1, (2, 3, 10), (2, 3, 4), dict(padding="same", dilation=3)),
    (1, (2, 3, 10), (2, 3, 5), dict(padding="valid")),
    (2, (2, 3, 7, 6), (4, 3, 3, 3), dict()),
    (2, (2, 3, 7, 6), (4, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2))),
    (2, (2, 3, 7, 6), (4, 3, 2, 4), dict(padding="same")),
    (2, (2, 3, 7, 6), (4, 3, 2, 2), dict(padding="same", dilation=(2, 1))),
    (2, (3, 7, 6), (4, 3, 3, 3), dict(padding=1)),
    (2, (2, 6, 8, 8), (6, 1, 3, 3), dict(padding=1, groups=6)),       # depthwise
    (2, (2, 6, 8, 8), (12, 1, 3, 3), dict(stride=2, groups=6)),      # depthwise multiplier 2
    (2, (2, 4, 5, 5), (6, 4, 1, 1), dict()),                         # 1x1
    (3, (2, 2, 5, 4, 6), (4, 1, 2, 3, 2), dict(stride=(1, 2, 1), padding=1, groups=2)),
    (3, (2, 4, 4, 5), (3, 2, 3, 2, 2), dict(padding="same")),
]


def conv_fn(lib, dims):
    return getattr(lib if lib is torch else tl, f"conv{dims}d")


@pytest.mark.parametrize("case", CONV_CASES, ids=str)
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv_forward_and_grads(case, with_bias):
    dims, ishape, wshape, kw = case
    x, w, b = rnd(*ishape), rnd(*wshape, seed=1), rnd(wshape[0], seed=2)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (t.requires_grad_() for t in both(x, w, b))
    expected = conv_fn(torch, dims)(tx, tw, tb if with_bias else None, **kw)
    got = conv_fn(tl, dims)(lx, lw, lb if with_bias else None, **kw)
    same(got, expected)
    g = rnd(*expected.shape, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad)
    same(lw.grad, tw.grad)
    if with_bias:
        same(lb.grad, tb.grad)


@pytest.mark.parametrize("case", CONV_CASES[:3] + CONV_CASES[5:8] + CONV_CASES[9:10], ids=str)
def test_conv_double_backward(case):
    dims, ishape, wshape, kw = case
    x, w, b = rnd(*ishape), rnd(*wshape, seed=1), rnd(wshape[0], seed=2)
    results = []
    for lib in (torch, tl):
        xs, ws, bs = ((t.clone() if lib is torch else from_torch(t)).requires_grad_() for t in (x, w, b))
        out = conv_fn(lib, dims)(xs, ws, bs, **kw)
        gx, gw = lib.autograd.grad((out * out).sum(), [xs, ws], create_graph=True)
        total = (gx * gx).sum() + (gw.sin()).sum()
        results.append(lib.autograd.grad(total, [xs, ws, bs]))
    for a, e in zip(results[1], results[0]):
        same(a, e)


# Batches of small images, which the kernels multiply several images at a time (their window columns
# side by side in one product): odd batch sizes leave a short last group, strides and dilation take the
# input gradient through col2im, groups and transposed convolutions the other drivers.
BATCHED_CASES = [
    ("conv2d", (17, 6, 8, 8), (8, 6, 3, 3), dict(padding=1)),
    ("conv2d", (9, 6, 9, 7), (4, 3, 3, 2), dict(stride=2, dilation=(1, 2), groups=2)),
    ("conv2d", (12, 4, 5, 5), (6, 4, 1, 1), dict()),
    ("conv1d", (11, 3, 20), (5, 3, 4), dict(padding=2)),
    ("conv3d", (7, 2, 4, 4, 4), (3, 2, 2, 2, 2), dict(padding=1)),
    ("conv_transpose2d", (13, 4, 5, 5), (4, 3, 3, 3), dict(stride=2, output_padding=1)),
    ("conv_transpose1d", (10, 6, 7), (6, 2, 3), dict(groups=3, padding=1)),
]


@pytest.mark.parametrize("threads", [1, 2])
@pytest.mark.parametrize("case", BATCHED_CASES, ids=str)
def test_conv_batched_small_images(case, threads):
    name, ishape, wshape, kw = case
    x, w = rnd(*ishape), rnd(*wshape, seed=1)
    b = rnd(wshape[1] * kw.get("groups", 1) if "transpose" in name else wshape[0], seed=2)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (t.requires_grad_() for t in both(x, w, b))
    before = tl.get_num_threads()
    tl.set_num_threads(threads)
    try:
        expected = getattr(F, name)(tx, tw, tb, **kw)
        got = getattr(TF, name)(lx, lw, lb, **kw)
        same(got, expected)
        g = rnd(*expected.shape, seed=3)
        expected.backward(g)
        got.backward(from_torch(g))
        if "dilation" not in kw and "transpose" not in name:  # integers (as PyTorch: not dilated or transposed)
            xi, wi = (t.mul(4).round().to(torch.int32) for t in (x, w))
            expected_int = getattr(F, name)(xi.double(), wi.double(), **kw).to(torch.int32)
            same(getattr(TF, name)(*both(xi, wi), **kw), expected_int)
    finally:
        tl.set_num_threads(before)
    same(lx.grad, tx.grad)
    same(lw.grad, tw.grad)
    same(lb.grad, tb.grad)


# Many channels on short rows: the window columns of one image exceed a tile, so the drivers process a
# few output rows at a time (their padding shifted by the tile's start); the short-row im2col must not
# take those tiles (it read and wrote outside its padded plane: a heap overflow on 512 x 16 x 16).
TILED_SHORT_ROW_CASES = [
    ((2, 512, 16, 16), (8, 512, 3, 3), dict(padding=1)),
    ((1, 300, 12, 20), (4, 300, 3, 5), dict(padding=(2, 1), stride=(1, 2))),
    ((1, 256, 14, 14), (4, 256, 3, 3), dict(padding=2, dilation=2)),
]


@pytest.mark.parametrize("case", TILED_SHORT_ROW_CASES, ids=str)
def test_conv_tiled_short_rows(case):
    ishape, wshape, kw = case
    x, w = rnd(*ishape), rnd(*wshape, seed=1)
    tx, tw = (t.clone().requires_grad_() for t in (x, w))
    lx, lw = (t.requires_grad_() for t in both(x, w))
    expected, got = F.conv2d(tx, tw, **kw), TF.conv2d(lx, lw, **kw)
    same(got, expected)
    g = rnd(*expected.shape, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad)
    same(lw.grad, tw.grad)


# Paths chosen by size (aten/native/cpu/ConvolutionKernels.cpp): stride-1 1-d convolutions and their input
# gradients as shifted products over a zero-padded copy (no im2col), other long 1-d rows tiled along their
# width (several tiles, a partial last one, padding shifted by each tile's start), the input gradient through
# the transposed product + col2im when out_channels > 2 * in_channels (else as a convolution), stride-1 2-d
# convolutions with >= 32 input channels per group as shifted products over padded rows, and stride-2 window
# copies.
PATH_CASES = [
    (1, (2, 64, 1000), (16, 64, 5), dict(padding=2)),                        # 1-d width tiles
    (1, (1, 80, 777), (7, 80, 3), dict(padding=4, dilation=3)),              # dilated, odd width
    (1, (2, 96, 600), (8, 48, 4), dict(stride=2, padding=1, groups=2)),      # strided tiles, groups
    (1, (3, 70, 513), (5, 70, 5), dict()),                                   # no padding
    (1, (2, 6, 50), (9, 2, 3), dict(padding=3, dilation=2, groups=3)),       # shifted products per group
    (1, (1, 4, 3), (5, 4, 3), dict(padding=4)),                              # padding wider than the input
    (1, (2, 16, 700), (100, 16, 3), dict(padding=1)),                        # pieces: 64 + 36 rows, 512 + 188 columns
    (1, (1, 12, 300), (140, 6, 2), dict(padding=2, dilation=3, groups=2)),   # pieces per group, even kernel
    (2, (2, 3, 9, 11), (24, 3, 3, 3), dict(padding=1)),                      # few in, many out channels
    (2, (2, 2, 8, 7), (12, 1, 3, 2), dict(padding=(2, 1), dilation=(2, 1), groups=2)),
    (2, (2, 5, 12, 13), (6, 5, 3, 3), dict(stride=2, padding=1)),            # stride-2 window copies
    (2, (1, 32, 20, 30), (70, 32, 3, 3), dict(padding=1)),                   # 2-d shifted: row pieces 64 + 6, columns across rows
    (2, (2, 64, 12, 40), (48, 32, 3, 2), dict(padding=(2, 1), dilation=(2, 1), groups=2)),  # 2-d shifted per group
    (2, (1, 40, 10, 33), (16, 40, 2, 2), dict()),                             # 2-d shifted, no padding
]


@pytest.mark.parametrize("case", PATH_CASES, ids=str)
@pytest.mark.parametrize("dtype", [torch.float32, torch.float64])
def test_conv_size_chosen_paths(case, dtype):
    dims, ishape, wshape, kw = case
    x, w, b = rnd(*ishape, dtype=dtype), rnd(*wshape, dtype=dtype, seed=1), rnd(wshape[0], dtype=dtype, seed=2)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (t.requires_grad_() for t in both(x, w, b))
    expected = conv_fn(torch, dims)(tx, tw, tb, **kw)
    got = conv_fn(tl, dims)(lx, lw, lb, **kw)
    tol = dict(rtol=1e-4, atol=1e-4) if dtype == torch.float32 else {}
    same(got, expected, **tol)
    g = rnd(*expected.shape, dtype=dtype, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad, **tol)
    same(lw.grad, tw.grad, **tol)
    same(lb.grad, tb.grad, **tol)


TRANSPOSE_CASES = [
    (1, (2, 4, 5), (4, 3, 3), dict(stride=2, padding=1, output_padding=1, groups=2, dilation=1)),
    (1, (4, 5), (4, 2, 2), dict(stride=3, output_padding=2)),
    (2, (2, 2, 3, 4), (2, 3, 3, 2), dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0), dilation=(1, 2))),
    (2, (4, 3, 3), (4, 1, 2, 2), dict(stride=2, output_padding=1, groups=4)),
    (2, (2, 3, 4, 4), (3, 2, 3, 3), dict(stride=1, padding=1, dilation=2, output_padding=1)),
    (3, (1, 2, 2, 3, 2), (2, 2, 2, 2, 2), dict(stride=(2, 1, 1), padding=(0, 1, 0), output_padding=(1, 0, 0))),
]


@pytest.mark.parametrize("case", TRANSPOSE_CASES, ids=str)
@pytest.mark.parametrize("with_bias", [False, True])
def test_conv_transpose_forward_and_grads(case, with_bias):
    dims, ishape, wshape, kw = case
    x, w = rnd(*ishape), rnd(*wshape, seed=1)
    b = rnd(wshape[1] * kw.get("groups", 1), seed=2)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (t.requires_grad_() for t in both(x, w, b))
    name = f"conv_transpose{dims}d"
    expected = getattr(F, name)(tx, tw, tb if with_bias else None, **kw)
    got = getattr(TF, name)(lx, lw, lb if with_bias else None, **kw)
    same(got, expected)
    g = rnd(*expected.shape, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad)
    same(lw.grad, tw.grad)
    if with_bias:
        same(lb.grad, tb.grad)


def test_conv_transpose_double_backward():
    x, w = rnd(2, 2, 3, 4), rnd(2, 3, 3, 2, seed=1)
    kw = dict(stride=(2, 1), padding=(1, 0), output_padding=(1, 0))
    results = []
    for lib, f in ((torch, F), (tl, TF)):
        xs, ws = ((t.clone() if lib is torch else from_torch(t)).requires_grad_() for t in (x, w))
        out = f.conv_transpose2d(xs, ws, **kw)
        gx, gw = lib.autograd.grad((out ** 2).sum(), [xs, ws], create_graph=True)
        results.append(lib.autograd.grad((gx.sin()).sum() + (gw * gw).sum(), [xs, ws]))
    for a, e in zip(results[1], results[0]):
        same(a, e)


def test_conv_positional_and_keyword_defaults():
    x, w, b = rnd(1, 2, 6, 6), rnd(3, 2, 3, 3, seed=1), rnd(3, seed=2)
    lx, lw, lb = both(x, w, b)
    same(tl.conv2d(lx, lw, lb, 2, 1, 1, 1), torch.conv2d(x, w, b, 2, 1, 1, 1))
    same(TF.conv2d(lx, lw, bias=lb, stride=[2, 1], padding=[0, 1], dilation=[1, 2], groups=1),
                F.conv2d(x, w, bias=b, stride=[2, 1], padding=[0, 1], dilation=[1, 2], groups=1))
    same(TF.conv2d(input=lx, weight=lw), F.conv2d(input=x, weight=w))
    same(TF.conv2d(lx, lw, padding="same"), F.conv2d(x, w, padding="same"))
    same(TF.conv_transpose2d(lx, lw.transpose(0, 1), output_padding=1, stride=2),
                F.conv_transpose2d(x, w.transpose(0, 1), output_padding=1, stride=2))


@pytest.mark.parametrize("dtype", [torch.float32, torch.float16, torch.bfloat16])
def test_conv_reduced_and_single_precision(dtype):
    x, w, b = rnd(2, 3, 6, 6, dtype=dtype), rnd(4, 3, 3, 3, dtype=dtype, seed=1), rnd(4, dtype=dtype, seed=2)
    got = TF.conv2d(*both(x, w, b), padding=1)
    same(got, F.conv2d(x.double(), w.double(), b.double(), padding=1).to(dtype), atol=2e-2, rtol=2e-2)
    got_t = TF.conv_transpose2d(*both(x, w.transpose(0, 1).contiguous()), stride=2)
    same(got_t, F.conv_transpose2d(x.double(), w.transpose(0, 1).double(), stride=2).to(dtype),
                atol=5e-2, rtol=2e-2)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32, torch.int8, torch.uint8])
def test_conv_integer(dtype):
    x = torch.randint(0, 4, (2, 2, 5, 5)).to(dtype)
    w = torch.randint(0, 3, (4, 1, 2, 2)).to(dtype)
    same(tl.conv2d(*both(x, w), groups=2, padding=1), torch.conv2d(x, w, groups=2, padding=1))


def test_conv_noncontiguous_and_expanded():
    x = rnd(2, 6, 7, 3).permute(0, 3, 1, 2)           # a channels-last view
    w = rnd(3, 3, 3, 4, seed=1).transpose(2, 3)
    b = rnd(1, seed=2).expand(3)
    lx = from_torch(rnd(2, 6, 7, 3)).permute(0, 3, 1, 2)
    lw = from_torch(rnd(3, 3, 3, 4, seed=1)).transpose(2, 3)
    lb = from_torch(rnd(1, seed=2)).expand(3)
    assert not lx.is_contiguous() and not lw.is_contiguous()
    same(TF.conv2d(lx, lw, lb, padding=1), F.conv2d(x, w, b, padding=1))


def test_conv_empty():
    x, w = rnd(0, 2, 4, 4), rnd(3, 2, 2, 2, seed=1)
    same(TF.conv2d(*both(x, w)), F.conv2d(x, w))
    x, w, b = rnd(1, 0, 4, 4), rnd(3, 0, 2, 2, seed=1), rnd(3, seed=2)
    same(TF.conv2d(*both(x, w, b)), F.conv2d(x, w, b))
    lx = from_torch(rnd(0, 2, 4, 4)).requires_grad_()
    lw = from_torch(rnd(3, 2, 2, 2, seed=1)).requires_grad_()
    TF.conv2d(lx, lw).sum().backward()
    assert lx.grad.shape == (0, 2, 4, 4) and float(lw.grad.abs().sum()) == 0.0


def test_convolution_meta():
    x = tl.empty(2, 3, 8, 8, device="meta")
    w = tl.empty(4, 3, 3, 3, device="meta")
    assert tl.conv2d(x, w, stride=2, padding=1).shape == (2, 4, 4, 4)
    assert tl.conv_transpose2d(x, tl.empty(3, 5, 3, 3, device="meta"), stride=2, output_padding=1).shape == (2, 5, 18, 18)
    assert TF.linear(tl.empty(5, 3, device="meta"), tl.empty(7, 3, device="meta")).shape == (5, 7)


CONV_ERRORS = [
    (lambda m, f: m.conv2d(f(2, 4, 4, 4, 4), f(3, 2, 2, 2)), "Expected 3D (unbatched) or 4D (batched) input to conv2d"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), stride=0), "non-positive stride is not supported"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), padding=-1), "negative padding is not supported"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), dilation=0), "dilation should be greater than zero"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), groups=0), "non-positive groups is not supported"),
    (lambda m, f: m.conv2d(f(1, 4, 4, 4), f(3, 2, 2, 2)),
     "Given groups=1, weight of size [3, 2, 2, 2], expected input[1, 4, 4, 4] to have 2 channels, but got 4 channels instead"),
    (lambda m, f: m.conv2d(f(1, 4, 4, 4), f(3, 2, 2, 2), groups=2), "expected weight to be divisible by 2 at dimension 0"),
    (lambda m, f: m.conv2d(f(1, 4, 4, 4), f(1, 1, 2, 2), groups=4), "expected weight to be at least 4 at dimension 0"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), f(4)), "expected bias to be 1-dimensional with 3 elements"),
    (lambda m, f: m.conv2d(f(1, 2, 2, 2), f(3, 2, 3, 3)), "Kernel size can't be greater than actual input size"),
    (lambda m, f: m.conv1d(f(1, 2, 2), f(3, 2, 3)), "Kernel size can't be greater than actual input size"),
    (lambda m, f: m.conv_transpose2d(f(1, 3, 4, 4), f(2, 3, 2, 2)),
     "Given transposed=1, weight of size [2, 3, 2, 2], expected input[1, 3, 4, 4] to have 2 channels"),
    (lambda m, f: m.conv_transpose2d(f(1, 2, 4, 4), f(2, 3, 2, 2), output_padding=1),
     "output padding must be smaller than either stride or dilation"),
    (lambda m, f: m.conv_transpose2d(f(1, 2, 1, 1), f(2, 3, 1, 1), padding=1), "Output size is too small"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), stride=[1, 1, 1]),
     "expected stride to be a single integer value or a list of 2 values"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), stride=2, padding="same"),
     "padding='same' is not supported for strided convolutions"),
    (lambda m, f: m.conv2d(f(1, 2, 4, 4), f(3, 2, 2, 2), padding="foo"), "Invalid padding string: 'foo'"),
    (lambda m, f: m.convolution(f(2, 4), f(3, 2), None, [1], [0], [1], False, [0], 1),
     "weight should have at least three dimensions"),
]


@pytest.mark.parametrize("i", range(len(CONV_ERRORS)))
def test_conv_errors_as_torch(i):
    fn, message = CONV_ERRORS[i]
    with pytest.raises(RuntimeError, match=None) as expected:
        fn(torch, lambda *s: torch.zeros(s))
    with pytest.raises(type(expected.value)) as got:
        fn(tl, lambda *s: tl.zeros(s))
    assert message in str(expected.value)
    assert message in str(got.value)


# ------------------------------------------------------------------------------------------- linear

LINEAR_CASES = [
    ((3, 4), (5, 4), (5,)),
    ((2, 3, 4), (5, 4), (5,)),
    ((4,), (5, 4), (5,)),
    ((3, 4), (4,), ()),
    ((3, 4), (4,), (3,)),            # PyTorch refuses a 1-D weight with a bias for a 2-D input
    ((2, 3, 4), (4,), (3,)),
    ((2, 3, 4), (5, 4), (3, 5)),     # a bias that broadcasts over more than the feature dim
    ((2, 3, 0), (5, 0), (5,)),
    ((0, 4), (5, 4), (5,)),
]


@pytest.mark.parametrize("case", LINEAR_CASES, ids=str)
@pytest.mark.parametrize("with_bias", [False, True])
def test_linear_forms_and_grads(case, with_bias):
    ishape, wshape, bshape = case
    x, w, b = rnd(*ishape), rnd(*wshape, seed=1), rnd(*bshape, seed=2)
    tx, tw, tb = (t.clone().requires_grad_() for t in (x, w, b))
    lx, lw, lb = (t.requires_grad_() for t in both(x, w, b))
    try:
        expected = F.linear(tx, tw, tb if with_bias else None)
    except RuntimeError as e:
        with pytest.raises(RuntimeError, match=str(e)):
            TF.linear(lx, lw, lb if with_bias else None)
        return
    got = TF.linear(lx, lw, lb if with_bias else None)
    same(got, expected)
    if expected.numel() == 0:
        return
    g = rnd(*expected.shape, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad)
    same(lw.grad, tw.grad)
    if with_bias:
        same(lb.grad, tb.grad)


def test_linear_double_backward():
    x, w, b = rnd(3, 4), rnd(5, 4, seed=1), rnd(5, seed=2)
    results = []
    for lib, f in ((torch, F), (tl, TF)):
        xs, ws, bs = ((t.clone() if lib is torch else from_torch(t)).requires_grad_() for t in (x, w, b))
        out = f.linear(xs, ws, bs)
        gx, gw = lib.autograd.grad((out ** 3).sum(), [xs, ws], create_graph=True)
        results.append(lib.autograd.grad((gx * gx).sum() + gw.sum(), [xs, ws, bs]))
    for a, e in zip(results[1], results[0]):
        same(a, e)


def test_linear_layouts_dtypes_and_out():
    x, w, b = rnd(6, 4), rnd(4, 5, seed=1).t(), rnd(5, seed=2)     # a transposed weight
    lx, lw, lb = from_torch(x), from_torch(rnd(4, 5, seed=1)).t(), from_torch(b)
    same(TF.linear(lx, lw, lb), F.linear(x, w, b))
    same(TF.linear(lx[::2], lw, lb), F.linear(x[::2], w, b))
    for dtype in (torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int16):
        xs, ws, bs = (t.to(dtype) if dtype.is_floating_point else (t * 3).to(dtype) for t in (x, w.contiguous(), b))
        same(TF.linear(*both(xs, ws, bs)), F.linear(xs, ws, bs), atol=3e-2, rtol=3e-2)
    out = tl.empty(1, dtype=tl.float64)
    r = tl._C._nn.linear(lx, lw, lb, out=out)
    assert r is out
    same(out, F.linear(x, w, b))
    with pytest.raises(RuntimeError):
        tl._C._nn.linear(lx, lw, lb, out=tl.empty(6, 5, dtype=tl.float32))


LINEAR_ERRORS = [
    (lambda m, f: m(f(3, 4), f(5, 3)), "mat1 and mat2 shapes cannot be multiplied (3x4 and 3x5)"),
    (lambda m, f: m(f(), f(5, 3)), "both arguments to linear need to be at least 1D"),
    (lambda m, f: m(f(3, 4), f(5, 3, 4)), "t() expects a tensor with <= 2 dimensions"),
    (lambda m, f: m(f(3, 4), f(5, 4), f(4)), "The expanded size of the tensor"),
]


@pytest.mark.parametrize("i", range(len(LINEAR_ERRORS)))
def test_linear_errors_as_torch(i):
    fn, message = LINEAR_ERRORS[i]
    with pytest.raises(RuntimeError) as expected:
        fn(F.linear, lambda *s: torch.zeros(s))
    with pytest.raises(type(expected.value)) as got:
        fn(TF.linear, lambda *s: tl.zeros(s))
    assert message in str(expected.value)
    assert message in str(got.value)


def test_linear_dtype_mismatch():
    with pytest.raises(RuntimeError, match="same dtype"):
        TF.linear(tl.zeros(3, 4), tl.zeros(5, 4, dtype=tl.float64))


# ------------------------------------------------------------------------------------------- bilinear

@pytest.mark.parametrize("shapes", [((3, 4), (3, 5), (6, 4, 5)), ((2, 3, 4), (2, 3, 2), (3, 4, 2)), ((4,), (5,), (2, 4, 5))],
                         ids=str)
def test_bilinear_and_grads(shapes):
    s1, s2, sw = shapes
    x1, x2, w, b = rnd(*s1), rnd(*s2, seed=1), rnd(*sw, seed=2), rnd(sw[0], seed=3)
    ts = [t.clone().requires_grad_() for t in (x1, x2, w, b)]
    ls = [t.requires_grad_() for t in both(x1, x2, w, b)]
    expected, got = F.bilinear(*ts), TF.bilinear(*ls)
    same(got, expected)
    g = rnd(*expected.shape, seed=4)
    expected.backward(g)
    got.backward(from_torch(g))
    for a, e in zip(ls, ts):
        same(a.grad, e.grad)
    same(TF.bilinear(*both(x1, x2, w)), F.bilinear(x1, x2, w))


@pytest.mark.parametrize("shapes,message", [
    (((3, 4), (2, 5), (6, 4, 5)), "input batch dimensions do not match at dim 0: got 3 and 2"),
    (((3, 4), (3, 5), (6, 3, 5)), "input1 size does not match weight size: got 4 but expected 3"),
    (((3, 4), (3, 2, 5), (6, 4, 5)), "input dimensions do not match: got 2 and 3"),
])
def test_bilinear_errors(shapes, message):
    with pytest.raises(RuntimeError, match=message.replace("(", r"\(")):
        F.bilinear(*(torch.zeros(s) for s in shapes))
    with pytest.raises(RuntimeError, match=message):
        TF.bilinear(*(tl.zeros(s) for s in shapes))


# ------------------------------------------------------------------------------------------- unfold / fold

@pytest.mark.parametrize("shape,kw", [
    ((2, 3, 5, 6), dict(kernel_size=(2, 3), dilation=1, padding=(1, 0), stride=(1, 2))),
    ((3, 6, 6), dict(kernel_size=3, dilation=2, padding=2, stride=2)),
    ((1, 2, 4, 4), dict(kernel_size=2)),
])
def test_unfold_fold_vs_torch(shape, kw):
    x = rnd(*shape)
    tx = x.clone().requires_grad_()
    lx = from_torch(x).requires_grad_()
    expected, got = F.unfold(tx, **kw), TF.unfold(lx, **kw)
    same(got, expected)
    g = rnd(*expected.shape, seed=1)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx.grad, tx.grad)
    # fold is unfold's adjoint: fold(unfold(x)) counts each pixel once per window covering it.
    cols = rnd(*expected.shape, seed=2)
    tc = cols.clone().requires_grad_()
    lc = from_torch(cols).requires_grad_()
    f_exp = F.fold(tc, shape[-2:], **kw)
    f_got = TF.fold(lc, shape[-2:], **kw)
    same(f_got, f_exp)
    f_exp.backward(rnd(*f_exp.shape, seed=3))
    f_got.backward(from_torch(rnd(*f_exp.shape, seed=3)))
    same(lc.grad, tc.grad)


def test_unfold_fold_reduced_precision():
    x = rnd(2, 3, 5, 5, dtype=torch.bfloat16)
    same(TF.unfold(from_torch(x), 2, padding=1), F.unfold(x, 2, padding=1))
    c = rnd(2, 12, 16, dtype=torch.float16)
    same(TF.fold(from_torch(c), (5, 5), 2), F.fold(c, (5, 5), 2))


@pytest.mark.parametrize("call,message", [
    (lambda m, f, F_: F_.unfold(f(2, 3, 4, 4, 4), 2), "Expected 3D or 4D (batch mode) tensor"),
    (lambda m, f, F_: F_.unfold(f(2, 3, 4, 4), 0), "kernel size should be greater than zero"),
    (lambda m, f, F_: F_.unfold(f(2, 3, 4, 4), 2, stride=0), "stride should be greater than zero"),
    (lambda m, f, F_: F_.unfold(f(2, 3, 4, 4), 2, padding=-1), "padding should be non-negative"),
    (lambda m, f, F_: F_.unfold(f(2, 3, 2, 2), 3), "calculated shape of the array of sliding blocks as (0, 0)"),
    (lambda m, f, F_: F_.fold(f(2, 5, 9), (4, 4), 2), "to be divisible by the product of kernel_size"),
    (lambda m, f, F_: F_.fold(f(2, 8, 8), (4, 4), 2), "match the calculated number of sliding blocks 3 * 3 = 9"),
    (lambda m, f, F_: F_.fold(f(2, 3, 4, 4), (4, 4), 2), "Expected 2D or 3D (batch mode) tensor"),
])
def test_unfold_fold_errors(call, message):
    with pytest.raises(RuntimeError) as expected:
        call(torch, lambda *s: torch.zeros(s), F)
    with pytest.raises(type(expected.value)) as got:
        call(tl, lambda *s: tl.zeros(s), TF)
    assert message in str(expected.value)
    assert message in str(got.value)


# The 2-d shifted path (>= 32 input channels per group, stride 1) without a bias, on a non-contiguous
# input, for batch 1 and an empty batch.
@pytest.mark.parametrize("batch", [1, 0])
def test_conv2d_shifted_no_bias_noncontiguous(batch):
    x0, w = rnd(batch, 20, 36, 33), rnd(40, 33, 3, 3, seed=1)
    tx0, tw = x0.clone().requires_grad_(), w.clone().requires_grad_()
    lx0, lw = (t.requires_grad_() for t in both(x0, w))
    tx, lx = tx0.permute(0, 3, 2, 1), lx0.permute(0, 3, 2, 1)  # (batch, 33, 36, 20), not contiguous
    assert batch == 0 or not lx.is_contiguous()
    expected, got = F.conv2d(tx, tw, padding=1), TF.conv2d(lx, lw, padding=1)
    same(got, expected)
    g = rnd(*expected.shape, seed=3)
    expected.backward(g)
    got.backward(from_torch(g))
    same(lx0.grad, tx0.grad)
    same(lw.grad, tw.grad)
