"""The fused LSTM layer (aten/native/cpu/LstmLayerKernels.cpp) on 1-4 threads: the steps' products
(PanelGemm.h: w_hh packed once into column panels, rows in blocks of up to 6) give every row the same
sums whichever thread runs it, so the layer's results are the same bits on any number of threads; and
against PyTorch with sizes that leave partial panels (H not a multiple of 16 or 8) and row blocks of
every size from 1 to 6."""
import numpy as np
import pytest
import torch

import torchlite as tl
from lstm_reference import lstm_layer, lstm_layer_backward

I_ = tl._C._internal


@pytest.fixture
def restore_threads():
    n = tl.get_num_threads()
    yield
    tl.set_num_threads(n)


def _layer_inputs(rng, T, N, H, dtype):
    xg = rng.standard_normal((T, N, 4 * H)).astype(dtype)
    h0, c0 = (rng.standard_normal((N, H)).astype(dtype) * 0.5 for _ in range(2))
    w = (rng.standard_normal((4 * H, H)) * 0.1).astype(dtype)
    go, gc = (rng.standard_normal((T, N, H)).astype(dtype) for _ in range(2))
    return xg, h0, c0, w, go, gc


def _layer(arrays, reverse):
    xg, h0, c0, w, go, gc = (tl.from_numpy(a) for a in arrays)
    out, cells, gates = I_._lstm_layer(xg, h0, c0, w, reverse)
    grads = I_._lstm_layer_backward(go, gc, h0, c0, w, out, cells, gates, reverse, [True] * 4)
    return [t.numpy() for t in (out, cells, gates, *grads)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reverse", [False, True])
def test_layer_same_bits_on_any_number_of_threads(restore_threads, dtype, reverse):
    # N = 37 rows split 2 (18 + 19) or 3 ways (13 + 13 + 11) into blocks of 3 to 6 rows; H = 70: the last
    # panel of 4H = 280 columns (and of the backward's 70) is partial for both dtypes.
    arrays = _layer_inputs(np.random.default_rng(0), 8, 37, 70, dtype)
    tl.set_num_threads(1)
    want = _layer(arrays, reverse)
    for threads in (2, 3, 4):
        tl.set_num_threads(threads)
        got = _layer(arrays, reverse)
        # out, cells, gates, d input_gates, dh0, dc0: each row computed alike whichever thread has it
        for name, a, b in zip(("output", "cells", "gates", "dgates", "dh0", "dc0"), got[:6], want[:6]):
            np.testing.assert_array_equal(a, b, err_msg=f"{name} on {threads} threads")
        # dw_hh: one BLAS product split over its rows (the BLAS may block the split parts' sums differently)
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got[6], want[6], rtol=tol, atol=tol * np.abs(want[6]).max())


@pytest.mark.parametrize("dtype,rtol,atol", [(np.float32, 1e-5, 2e-6), (np.float64, 1e-12, 1e-13)])
@pytest.mark.parametrize("N", [1, 2, 3, 5, 7, 11, 13])
@pytest.mark.parametrize("H", [5, 16, 23])
def test_layer_against_reference_row_blocks_and_partial_panels(N, H, dtype, rtol, atol):
    """Row blocks of 1-6 rows (N = 7: 3 + 4, N = 11: 5 + 6, N = 13: 4 + 4 + 5), panels of 16 floats or 8 doubles
    whole (H = 16) or partial (H = 5, 23) in the forward's 4H columns and the backward's H."""
    arrays = _layer_inputs(np.random.default_rng(N * 100 + H), 4, N, H, dtype)
    xg, h0, c0, w, go, gc = (torch.from_numpy(a) for a in arrays)
    for reverse in (False, True):
        got = _layer(arrays, reverse)
        out, cells, gates = lstm_layer(xg, h0, c0, w, reverse)
        want = [out, cells, gates, *lstm_layer_backward(go, gc, h0, c0, w, out, cells, gates, reverse, [True] * 4)]
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_issue_shape_matches_torch_on_threads(restore_threads, threads):
    """Issue 11's LSTM (2 layers, 256 -> 256, batch 32) with a shorter sequence, forward and the gradients of
    output.sum(), on each thread count, against torch.nn.LSTM."""
    tl.set_num_threads(threads)
    torch.manual_seed(0)
    m = torch.nn.LSTM(256, 256, num_layers=2)
    lm = tl.nn.LSTM(256, 256, num_layers=2)
    with torch.no_grad():
        for (_, p), (_, lp) in zip(m.named_parameters(), lm.named_parameters()):
            lp.data.copy_(tl.from_numpy(p.detach().numpy().copy()))
    xn = np.random.default_rng(3).standard_normal((12, 32, 256)).astype(np.float32)
    tx, lx = torch.from_numpy(xn).requires_grad_(), tl.from_numpy(xn.copy()).requires_grad_()
    t_out, (t_h, t_c) = m(tx)
    l_out, (l_h, l_c) = lm(lx)
    for a, b in ((l_out, t_out), (l_h, t_h), (l_c, t_c)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-4, atol=1e-5)
    t_out.sum().backward()
    l_out.sum().backward()
    np.testing.assert_allclose(lx.grad.numpy(), tx.grad.numpy(), rtol=1e-4, atol=1e-5)
    for (name, p), (_, lp) in zip(m.named_parameters(), lm.named_parameters()):
        np.testing.assert_allclose(lp.grad.numpy(), p.grad.numpy(), rtol=1e-4, atol=1e-4, err_msg=name)
