"""native_dropout and native_dropout_backward against PyTorch.

The random mask cannot be compared by value with PyTorch's: training mode is checked by statistics (the fraction
kept is 1-p, kept values are scaled exactly, dropped ones are zero) and by determinism under manual_seed; the
evaluation path, p=0, p=1, errors, dtypes, layouts and gradients are compared by value."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import (DTYPES, FLOAT_DTYPES, assert_same, error_types_like, from_torch, to_torch, torch_dtype,
                      torch_result)

torch_dropout_backward = torch.ops.aten.native_dropout_backward


def _input(dtype, shape=(3, 4)):
    t = torch.randn(*shape, generator=torch.Generator().manual_seed(1)) * 3
    t = t.to(torch_dtype(dtype))
    return from_torch(t), t


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p", [0.0, 0.5, 1.0, 1.5])  # p is only checked in training, as in PyTorch
def test_eval_mode_is_a_copy(dtype, p):
    x, t = _input(dtype)
    out, mask = tl.native_dropout(x, p, False)
    t_out, t_mask = torch.native_dropout(t, p, False)
    assert_same(out, t_out)
    assert_same(mask, t_mask)
    assert out.data_ptr() != x.data_ptr()


@pytest.mark.parametrize("dtype", FLOAT_DTYPES)
@pytest.mark.parametrize("p", [0.2, 0.5, 0.8])
@pytest.mark.parametrize("train", [True, None])
def test_training_statistics_and_exact_scaling(dtype, p, train):
    x, t = _input(dtype, (200, 500))
    out, mask = tl.native_dropout(x, p, train)
    assert out.dtype == x.dtype and mask.dtype == tl.bool and out.shape == x.shape == mask.shape
    t_out, t_mask = to_torch(out), to_torch(mask)
    kept = t_mask.double().mean().item()
    assert abs(kept - (1 - p)) < 0.01, kept
    # Kept values are PyTorch's input * mask * scale in the input's dtype, dropped ones zero.
    expected = t * t_mask * (1.0 / (1.0 - p))
    assert torch.equal(t_out, expected)


def test_p_zero_and_one_by_value():
    x, t = _input("float32")
    x[0, 0] = float("inf")
    t[0, 0] = float("inf")
    for p in (0.0, 1.0):
        out, mask = tl.native_dropout(x, p, True)
        t_out, t_mask = torch.native_dropout(t, p, True)
        assert_same(out, t_out)
        assert_same(mask, t_mask)
        assert np.signbit(out.numpy()).tolist() == t_out.signbit().tolist()  # -x dropped gives -0


def test_deterministic_under_manual_seed_and_thread_count():
    x = tl.ones(10007)
    threads = tl.get_num_threads()
    try:
        tl.manual_seed(123)
        a, ma = tl.native_dropout(x, 0.5, True)
        b, mb = tl.native_dropout(x, 0.5, True)
        tl.set_num_threads(1)
        tl.manual_seed(123)
        c, mc = tl.native_dropout(x, 0.5, True)
    finally:
        tl.set_num_threads(threads)
    assert ma.tolist() == mc.tolist() and a.tolist() == c.tolist()
    assert ma.tolist() != mb.tolist()  # the generator moved on


def test_layout_is_preserved():
    x, t = _input("float64", (4, 6))
    for xs, ts in ((x.t(), t.t()), (x[:, ::2], t[:, ::2])):
        out, mask = tl.native_dropout(xs, 0.5, True)
        t_out, t_mask = torch.native_dropout(ts, 0.5, True)
        assert out.stride() == t_out.stride() and mask.stride() == t_mask.stride()
        assert torch.equal(torch.from_numpy(out.numpy()), ts * torch.from_numpy(mask.numpy()) * 2.0)


def test_meta():
    for train in (True, False):
        out, mask = tl.native_dropout(tl.ones(2, 3, device="meta"), 0.5, train)
        assert out.device.type == mask.device.type == "meta"
        assert out.shape == mask.shape == (2, 3) and out.dtype == tl.float32 and mask.dtype == tl.bool


@pytest.mark.parametrize("call", [
    lambda lib, x: lib.native_dropout(x, 1.1, True), lambda lib, x: lib.native_dropout(x, -0.1, True),
    lambda lib, x: lib.native_dropout(x.long(), 0.5, True), lambda lib, x: lib.native_dropout(x.bool(), 0.5, None),
    lambda lib, x: lib.native_dropout(x.long(), 1.5, True),
])
def test_errors_like_torch(call):
    x, t = _input("float32")
    _, err = torch_result(lambda: call(torch, t))
    assert err is not None
    with pytest.raises(error_types_like(err)) as e:
        call(tl, x)
    assert str(e.value) == str(err)


@pytest.mark.parametrize("train", [True, False])
def test_gradient(train):
    x = tl.randn(50, 40, dtype=tl.float64, requires_grad=True)
    out, mask = tl.native_dropout(x, 0.3, train)
    assert type(out.grad_fn).__name__ == "NativeDropoutBackward0"
    assert out.requires_grad and not mask.requires_grad
    g = tl.randn(50, 40, dtype=tl.float64)
    out.backward(g)
    scale = 1 / 0.7 if train else 1.0
    expected = torch.from_numpy(g.numpy()) * torch.from_numpy(mask.numpy()) * scale
    assert torch.equal(torch.from_numpy(x.grad.numpy()), expected)


def test_double_backward_through_native_dropout_backward():
    x = tl.randn(30, dtype=tl.float64, requires_grad=True)
    g = tl.randn(30, dtype=tl.float64, requires_grad=True)
    out, mask = tl.native_dropout(x, 0.5, True)
    (gx,) = tl.autograd.grad(out, x, g, create_graph=True)
    (gg,) = tl.autograd.grad(gx.sum(), g)
    assert torch.equal(torch.from_numpy(gg.numpy()), torch.from_numpy(mask.numpy()).double() * 2.0)


@pytest.mark.parametrize("grad_dtype", ["float16", "bfloat16", "float32", "float64", "int64"])
@pytest.mark.parametrize("mask_dtype", ["bool", "float32"])
def test_native_dropout_backward_by_value(grad_dtype, mask_dtype):
    g, tg = _input(grad_dtype)
    # PyTorch computes (grad_output * mask) * scale: a float32 mask promotes a float16 gradient.
    tm = torch.tensor([True, False, True, True]).to(torch_dtype(mask_dtype)).expand(3, 4)
    assert_same(tl._C._internal.native_dropout_backward(g, from_torch(tm), 2.5), torch_dropout_backward(tg, tm, 2.5))
