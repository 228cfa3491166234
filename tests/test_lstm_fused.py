"""The fused LSTM layer (`_lstm_layer`, aten/native/cpu/LstmLayerKernels.cpp) through `lstm`, against
PyTorch: float32/float64, odd sizes, rows split across threads, reverse directions, no biases, batch
1 and 0, non-contiguous inputs, gradients of every input (first and second order)."""
import numpy as np
import pytest
import torch

import torchlite as tl
from lstm_reference import lstm_layer


def _params(rng, layers, dirs, I, H, bias, dtype):
    ps = []
    for layer in range(layers):
        fan = I if layer == 0 else H * dirs
        for _ in range(dirs):
            shapes = [(4 * H, fan), (4 * H, H)] + ([(4 * H,), (4 * H,)] if bias else [])
            ps += [rng.standard_normal(s).astype(dtype) * 0.3 for s in shapes]
    return ps


def _run(x, hx, params, bias, layers, bidirectional, batch_first, dtype, rtol, atol, transpose_x=False):
    tx = torch.from_numpy(x)
    lx = tl.from_numpy(x)
    if transpose_x:  # non-contiguous: the same values through a transposed view
        tx = torch.from_numpy(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose(0, 1)
        lx = tl.from_numpy(np.ascontiguousarray(x.transpose(1, 0, 2))).transpose(0, 1)
    tx.requires_grad_()
    lx.requires_grad_()
    tp = [torch.from_numpy(p).requires_grad_() for p in params]
    lp = [tl.from_numpy(p).requires_grad_() for p in params]
    th = [torch.from_numpy(h).requires_grad_() for h in hx]
    lh = [tl.from_numpy(h).requires_grad_() for h in hx]
    t_out = torch.lstm(tx, th, tp, bias, layers, 0.0, True, bidirectional, batch_first)
    l_out = tl.lstm(lx, lh, lp, bias, layers, 0.0, True, bidirectional, batch_first)
    for a, b in zip(l_out, t_out):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol)
    rng = np.random.default_rng(7)
    gs = [rng.standard_normal(tuple(o.shape)).astype(dtype) for o in t_out]
    t_g = torch.autograd.grad(t_out, [tx] + th + tp, [torch.from_numpy(g) for g in gs])
    l_g = tl.autograd.grad(list(l_out), [lx] + lh + lp, [tl.from_numpy(g) for g in gs])
    for a, b in zip(l_g, t_g):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=rtol, atol=atol)


TOL = {np.float32: (2e-4, 2e-5), np.float64: (1e-10, 1e-12)}


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("T,N,I,H,layers,bidirectional,bias,batch_first", [
    (5, 3, 4, 7, 1, False, True, False),
    (1, 1, 3, 5, 1, False, True, False),       # one step, batch 1
    (6, 2, 5, 3, 2, True, True, False),        # reverse directions, stacked
    (4, 3, 6, 4, 2, False, False, True),       # no biases, batch_first
    (8, 37, 16, 64, 1, True, True, False),     # rows split across threads
    (3, 20, 8, 200, 1, True, True, False),     # partial panels of the step products (PanelGemm.h)
])
def test_lstm_fused_matches_torch(dtype, T, N, I, H, layers, bidirectional, bias, batch_first):
    rng = np.random.default_rng(0)
    dirs = 2 if bidirectional else 1
    shape = (N, T, I) if batch_first else (T, N, I)
    x = rng.standard_normal(shape).astype(dtype)
    hx = [rng.standard_normal((layers * dirs, N, H)).astype(dtype) * 0.5 for _ in range(2)]
    params = _params(rng, layers, dirs, I, H, bias, dtype)
    _run(x, hx, params, bias, layers, bidirectional, batch_first, dtype, *TOL[dtype])


def test_lstm_fused_noncontiguous_input():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((5, 4, 3)).astype(np.float32)
    hx = [rng.standard_normal((1, 4, 6)).astype(np.float32) for _ in range(2)]
    _run(x, hx, _params(rng, 1, 1, 3, 6, True, np.float32), True, 1, False, False, np.float32, *TOL[np.float32],
         transpose_x=True)


def test_lstm_fused_empty_batch():
    x = np.zeros((3, 0, 4), np.float32)
    hx = [np.zeros((1, 0, 5), np.float32)] * 2
    params = _params(np.random.default_rng(2), 1, 1, 4, 5, True, np.float32)
    t_out = torch.lstm(torch.from_numpy(x), [torch.from_numpy(h) for h in hx], [torch.from_numpy(p) for p in params],
                       True, 1, 0.0, False, False, False)
    l_out = tl.lstm(tl.from_numpy(x), [tl.from_numpy(h) for h in hx], [tl.from_numpy(p) for p in params],
                    True, 1, 0.0, False, False, False)
    for a, b in zip(l_out, t_out):
        assert tuple(a.shape) == tuple(b.shape)


def test_lstm_fused_second_order():
    """create_graph goes through _lstm_layer_differentiable_backward: second derivatives as PyTorch's."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((3, 2, 3))
    hx = [rng.standard_normal((1, 2, 4)) * 0.5 for _ in range(2)]
    params = _params(rng, 1, 1, 3, 4, True, np.float64)

    def second(lib, make):
        xs = make(x).requires_grad_()
        ps = [make(p).requires_grad_() for p in params]
        out = lib.lstm(xs, [make(h) for h in hx], ps, True, 1, 0.0, True, False, False)[0]
        g = lib.autograd.grad(out.sum(), [xs, ps[1]], create_graph=True)
        return lib.autograd.grad((g[0] * g[0]).sum() + (g[1] * g[1]).sum(), [xs] + ps)

    got = second(tl, tl.from_numpy)
    want = second(torch, torch.from_numpy)
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-11)


def test_lstm_layer_op_against_reference():
    """The op itself on float32 with the threads' row split (N = 33, H = 64)."""
    rng = np.random.default_rng(4)
    T, N, H = 6, 33, 64
    xg = rng.standard_normal((T, N, 4 * H)).astype(np.float32)
    h0, c0 = (rng.standard_normal((N, H)).astype(np.float32) for _ in range(2))
    w = (rng.standard_normal((4 * H, H)) * 0.1).astype(np.float32)
    for reverse in (False, True):
        want = lstm_layer(*(torch.from_numpy(a) for a in (xg, h0, c0, w)), reverse)
        got = tl._C._internal._lstm_layer(*(tl.from_numpy(a) for a in (xg, h0, c0, w)), reverse)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args,match", [
    (((2, 3, 8), (3, 2), (3, 2), (8, 3)), "size"),          # h0 of the wrong hidden size
    (((2, 3, 7), (3, 2), (3, 2), (8, 2)), "size"),          # input gates not 4H wide
    (((3, 8), (3, 2), (3, 2), (8, 2)), "3 dimensions"),     # a 2-D input
])
def test_lstm_layer_bad_input(args, match):
    ts = [tl.zeros(s) for s in args]
    with pytest.raises(RuntimeError, match=match):
        tl._C._internal._lstm_layer(*ts, False)


def test_lstm_layer_bad_dtype():
    with pytest.raises(RuntimeError, match="float32 or float64"):
        tl._C._internal._lstm_layer(tl.zeros((2, 1, 8), dtype=tl.int64), tl.zeros((1, 2), dtype=tl.int64),
                                    tl.zeros((1, 2), dtype=tl.int64), tl.zeros((8, 2), dtype=tl.int64), False)
