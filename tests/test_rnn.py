"""Recurrent ops against PyTorch with the same weights: what the YAML samples cannot say (nn.LSTM/GRU/RNN's
own parameters at realistic sizes, every layout flag together, gradients of every parameter, dropout
between layers, errors)."""
import numpy as np
import pytest
import torch

import torchlite as tl


def tl_(t, requires_grad=False):
    x = tl.from_numpy(t.detach().numpy().copy())
    return x.requires_grad_() if requires_grad else x


def module_and_params(kind, input_size, hidden, layers, bidirectional, batch_first, bias=True, proj=0):
    torch.manual_seed(0)
    cls = {"lstm": torch.nn.LSTM, "gru": torch.nn.GRU, "rnn_tanh": torch.nn.RNN, "rnn_relu": torch.nn.RNN}[kind]
    kw = {"nonlinearity": kind[4:]} if kind.startswith("rnn_") else {}
    if proj:
        kw["proj_size"] = proj
    m = cls(input_size, hidden, layers, bias=bias, batch_first=batch_first, bidirectional=bidirectional, **kw)
    return m.double(), [p.detach().clone() for p in m._flat_weights]


@pytest.mark.parametrize("kind", ["lstm", "gru", "rnn_tanh", "rnn_relu"])
@pytest.mark.parametrize("layers,bidirectional,batch_first,bias", [
    (1, False, False, True), (2, True, True, True), (3, False, True, False), (2, True, False, False)])
def test_sequence_like_torch_module(kind, layers, bidirectional, batch_first, bias):
    I, Hd, T, N = 5, 7, 6, 3
    m, params = module_and_params(kind, I, Hd, layers, bidirectional, batch_first, bias)
    g = torch.Generator().manual_seed(1)
    x = torch.randn((N, T, I) if batch_first else (T, N, I), dtype=torch.float64, generator=g, requires_grad=True)
    D = 2 if bidirectional else 1
    h0 = torch.randn(layers * D, N, Hd, dtype=torch.float64, generator=g, requires_grad=True)
    c0 = torch.randn(layers * D, N, Hd, dtype=torch.float64, generator=g, requires_grad=True)
    hx = (h0, c0) if kind == "lstm" else h0
    expected = m(x, hx)
    lparams = [tl_(p, True) for p in params]
    lx, lh0, lc0 = tl_(x, True), tl_(h0, True), tl_(c0, True)
    lhx = [lh0, lc0] if kind == "lstm" else lh0
    got = getattr(tl, kind)(lx, lhx, lparams, bias, layers, 0.0, False, bidirectional, batch_first)
    flat_expected = [expected[0]] + (list(expected[1]) if kind == "lstm" else [expected[1]])
    for a, b in zip(got, flat_expected):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    # gradients of the input, the initial state and every parameter
    gs = [torch.randn(t.shape, dtype=torch.float64, generator=g) for t in flat_expected]
    leaves_t = [x, h0] + ([c0] if kind == "lstm" else []) + list(m._flat_weights)
    leaves_l = [lx, lh0] + ([lc0] if kind == "lstm" else []) + lparams
    grads_t = torch.autograd.grad(flat_expected, leaves_t, gs)
    grads_l = tl.autograd.grad(list(got), leaves_l, [tl_(t) for t in gs])
    for a, b in zip(grads_l, grads_t):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-10)


def test_lstm_projections_like_torch():
    m, params = module_and_params("lstm", 4, 6, 2, True, False, proj=3)
    x = torch.randn(5, 2, 4, dtype=torch.float64)
    h0, c0 = torch.zeros(4, 2, 3, dtype=torch.float64), torch.zeros(4, 2, 6, dtype=torch.float64)
    out, (h, c) = m(x, (h0, c0))
    got = tl.lstm(tl_(x), [tl_(h0), tl_(c0)], [tl_(p) for p in params], True, 2, 0.0, False, True, False)
    for a, b in zip(got, (out, h, c)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), atol=1e-12)


def test_float32_at_benchmark_size():
    m, params = module_and_params("lstm", 64, 64, 2, False, False)
    m = m.float()
    x = torch.randn(16, 8, 64)
    h = torch.zeros(2, 8, 64)
    out = m(x, (h, h))[0]
    got = tl.lstm(tl_(x), [tl_(h), tl_(h)], [tl_(p.float()) for p in params], True, 2, 0.0, False, False, False)[0]
    np.testing.assert_allclose(got.numpy(), out.detach().numpy(), atol=1e-5)


@pytest.mark.parametrize("cell", ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell"])
def test_cells_like_torch_modules(cell):
    torch.manual_seed(0)
    mod = {"rnn_tanh_cell": lambda: torch.nn.RNNCell(4, 5), "rnn_relu_cell": lambda: torch.nn.RNNCell(4, 5, nonlinearity="relu"),
           "lstm_cell": lambda: torch.nn.LSTMCell(4, 5), "gru_cell": lambda: torch.nn.GRUCell(4, 5)}[cell]().double()
    x = torch.randn(3, 4, dtype=torch.float64)
    h = torch.randn(3, 5, dtype=torch.float64)
    ws = [tl_(p, True) for p in (mod.weight_ih, mod.weight_hh, mod.bias_ih, mod.bias_hh)]
    if cell == "lstm_cell":
        expected = mod(x, (h, h))
        got = tl.lstm_cell(tl_(x), [tl_(h), tl_(h)], *ws)
    else:
        expected, got = (mod(x, h),), (getattr(tl, cell)(tl_(x), tl_(h), *ws),)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    gt = torch.autograd.grad(expected[0].sum(), list(mod.parameters()))
    gl = tl.autograd.grad(got[0].sum(), ws)
    for a, b in zip(gl, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)


def test_dropout_between_layers():
    _, params = module_and_params("gru", 4, 8, 3, False, False)
    lparams = [tl_(p) for p in params]
    x, h = tl.ones(5, 16, 4, dtype=tl.float64), tl.zeros(3, 16, 8, dtype=tl.float64)
    plain = tl.gru(x, h, lparams, True, 3, 0.0, True, False, False)[0].numpy()
    tl.manual_seed(7)
    a = tl.gru(x, h, lparams, True, 3, 0.6, True, False, False)[0].numpy()
    tl.manual_seed(7)
    b = tl.gru(x, h, lparams, True, 3, 0.6, True, False, False)[0].numpy()
    assert np.array_equal(a, b) and not np.allclose(a, plain)
    # not in training, or on the last layer only: no dropout
    assert np.allclose(tl.gru(x, h, lparams, True, 3, 0.6, False, False, False)[0].numpy(), plain)
    one = [tl_(p) for p in module_and_params("gru", 4, 8, 1, False, False)[1]]
    h1 = tl.zeros(1, 16, 8, dtype=tl.float64)
    assert np.allclose(tl.gru(x, h1, one, True, 1, 0.9, True, False, False)[0].numpy(),
                       tl.gru(x, h1, one, True, 1, 0.0, True, False, False)[0].numpy())


def test_top_level_like_torch():
    for name in ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "lstm", "gru", "rnn_tanh", "rnn_relu"]:
        assert hasattr(tl, name) == hasattr(torch, name)
        assert hasattr(tl._C._nn, name) == hasattr(torch._C._nn, name)


def test_errors_like_torch():
    w = tl.zeros(20, 4)
    u = tl.zeros(20, 5)
    with pytest.raises(RuntimeError, match="input has inconsistent input_size: got 3 expected 4"):
        tl.lstm_cell(tl.zeros(2, 3), [tl.zeros(2, 5), tl.zeros(2, 5)], w, u)
    with pytest.raises(RuntimeError, match="Input batch size 2 doesn't match hidden0 batch size 3"):
        tl.rnn_tanh_cell(tl.zeros(2, 4), tl.zeros(3, 5), tl.zeros(5, 4), tl.zeros(5, 5))
    with pytest.raises(RuntimeError, match="hidden0 has inconsistent hidden_size: got 5, expected 6"):
        tl.gru_cell(tl.zeros(2, 4), tl.zeros(2, 5), tl.zeros(18, 4), tl.zeros(18, 6))
    with pytest.raises(IndexError):
        tl.lstm_cell(tl.zeros(4), [tl.zeros(5), tl.zeros(5)], w, u)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        tl.gru_cell(tl.zeros(2, 4, dtype=tl.int64), tl.zeros(2, 5, dtype=tl.int64), tl.zeros(15, 4, dtype=tl.int64),
                    tl.zeros(15, 5, dtype=tl.int64))
    with pytest.raises(RuntimeError, match="lstm expects two hidden states"):
        tl.lstm(tl.zeros(3, 2, 4), [tl.zeros(1, 2, 5)], [w, u], False, 1, 0.0, False, False, False)
    with pytest.raises(RuntimeError, match="parameter tensors"):
        tl.gru(tl.zeros(3, 2, 4), tl.zeros(1, 2, 5), [tl.zeros(15, 4)], False, 1, 0.0, False, False, False)
    with pytest.raises(IndexError):
        tl.gru(tl.zeros(3, 4), tl.zeros(1, 5), [tl.zeros(15, 4), tl.zeros(15, 5)], False, 1, 0.0, False, False, False)
