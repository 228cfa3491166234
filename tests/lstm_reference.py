"""PyTorch references for torchlite's fused LSTM layer ops (`_lstm_layer`, `_lstm_layer_backward`,
`_lstm_layer_differentiable_backward`), which PyTorch does not have: the YAML samples name these
functions in their `# torch:` hints, and tests/test_lstm_fused.py uses them directly.

Each is the step-by-step recurrence in PyTorch ops, float32/float64 only (a RuntimeError otherwise,
as the torchlite kernels refuse other dtypes).
"""
from __future__ import annotations

import torch


def _check(*ts):
    for t in ts:
        if t.dtype not in (torch.float32, torch.float64):
            raise RuntimeError(f"_lstm_layer: expected float32 or float64, got {t.dtype}")


def _check_shapes(input_gates, h0, c0, w_hh):
    """The kernels' checks (RuntimeError, as theirs) before any indexing."""
    if input_gates.dim() != 3 or h0.dim() != 2 or c0.dim() != 2 or w_hh.dim() != 2:
        raise RuntimeError("_lstm_layer: expected input_gates (T, N, 4H), h0 and c0 (N, H), w_hh (4H, H)")
    T, N, G = input_gates.shape
    H = w_hh.shape[1]
    if w_hh.shape[0] != 4 * H or G != 4 * H or tuple(h0.shape) != (N, H) or tuple(c0.shape) != (N, H):
        raise RuntimeError("_lstm_layer: inconsistent sizes")


def lstm_layer(input_gates, h0, c0, w_hh, reverse):
    """(output, cells, gates) of one layer and direction from precomputed input gates."""
    _check(input_gates, h0, c0, w_hh)
    _check_shapes(input_gates, h0, c0, w_hh)
    T = input_gates.shape[0]
    h, c = h0, c0
    outs, cells, gates = [None] * T, [None] * T, [None] * T
    for s in range(T):
        t = T - 1 - s if reverse else s
        g = input_gates[t] + h @ w_hh.t()
        i, f, gg, o = g.chunk(4, 1)
        i, f, gg, o = i.sigmoid(), f.sigmoid(), gg.tanh(), o.sigmoid()
        c = f * c + i * gg
        h = o * c.tanh()
        outs[t], cells[t], gates[t] = h, c, torch.cat([i, f, gg, o], 1).detach()
    if T == 0:
        n, hd = h0.shape
        empty = input_gates.new_zeros((0, n, hd))
        return empty, empty.clone(), input_gates.new_zeros((0, n, 4 * hd))
    return torch.stack(outs), torch.stack(cells), torch.stack(gates)


def lstm_layer_backward(grad_output, grad_cells, h0, c0, w_hh, output, cells, gates, reverse, output_mask):
    """The gradients (input_gates, h0, c0, w_hh) from saved results, by the formulas the kernel uses."""
    _check(grad_output, grad_cells, h0, c0, w_hh, output, cells, gates)
    _check_shapes(gates, h0, c0, w_hh)
    for t in (grad_output, grad_cells, output, cells):
        if tuple(t.shape) != tuple(gates.shape[:2]) + (w_hh.shape[1],):
            raise RuntimeError("_lstm_layer_backward: inconsistent sizes")
    T, _, H = output.shape
    dh_next, dc_next = torch.zeros_like(h0), torch.zeros_like(c0)
    dg = [None] * T
    dw = torch.zeros_like(w_hh)
    for s in range(T - 1, -1, -1):
        t = T - 1 - s if reverse else s
        prev = (t + 1 if reverse else t - 1) if s > 0 else None
        h_prev = output[prev] if prev is not None else h0
        c_prev = cells[prev] if prev is not None else c0
        i, f, g, o = gates[t].split(H, 1)
        tc = cells[t].tanh()
        dh = grad_output[t] + dh_next
        dc = grad_cells[t] + dc_next + dh * o * (1 - tc * tc)
        d = torch.cat([dc * g * i * (1 - i), dc * c_prev * f * (1 - f), dc * i * (1 - g * g), dh * tc * o * (1 - o)], 1)
        dg[t] = d
        dh_next, dc_next = d @ w_hh, dc * f
    dgates = torch.stack(dg) if T else gates.new_zeros(gates.shape)
    if T:  # summed as the kernel sums it: the first step's product, then one product over the others
        first, rest = (T - 1, slice(0, T - 1)) if reverse else (0, slice(1, T))
        h_rest = output[1:] if reverse else output[:-1]
        dw = dgates[first].t() @ h0 + dgates[rest].reshape(-1, 4 * H).t() @ h_rest.reshape(-1, H)
    res = (dgates, dh_next, dc_next, dw)
    return tuple(r if m else None for r, m in zip(res, output_mask))


def lstm_layer_differentiable_backward(grad_output, grad_cells, input_gates, h0, c0, w_hh, reverse, output_mask):
    """The same gradients through PyTorch's autograd of the recurrence."""
    _check(grad_output, grad_cells, input_gates, h0, c0, w_hh)
    _check_shapes(input_gates, h0, c0, w_hh)
    for t in (grad_output, grad_cells):
        if tuple(t.shape) != tuple(input_gates.shape[:2]) + (w_hh.shape[1],):
            raise RuntimeError("_lstm_layer_differentiable_backward: inconsistent sizes")
    ins = [t if t.requires_grad else t.detach().requires_grad_() for t in (input_gates, h0, c0, w_hh)]
    if input_gates.shape[0] == 0:  # no step ran: every gradient is zero
        return tuple(torch.zeros_like(x) if m else None for x, m in zip(ins, output_mask))
    out, cells, _ = lstm_layer(*ins, reverse)
    # create_graph: the gradients are differentiable again (what the op is for)
    grads = torch.autograd.grad([out, cells], ins, [grad_output, grad_cells], allow_unused=True, create_graph=True)
    return tuple((g if g is not None else torch.zeros_like(x)) if m else None
                 for g, x, m in zip(grads, ins, output_mask))
