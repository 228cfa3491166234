"""PyTorch references for torchlite's `_fused_rms_norm_backward` and `_fused_rms_norm_differentiable_backward`,
which PyTorch's CPU build does not have (its `_fused_rms_norm_backward` is GPU only; on the CPU `_fused_rms_norm`
is recorded as its ops): the YAML samples name these functions in their `# torch:` hints, and
tests/test_rms_norm_fused.py uses them directly. Floating dtypes only (NotImplementedError otherwise, as the
kernels)."""
from __future__ import annotations

import torch


def _check(input, normalized_shape, weight, *others):
    """rms_norm's checks, in the kernels' order (check_rms_norm_inputs): shapes, then the dtype."""
    ns = list(normalized_shape)
    if len(ns) < 1:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional")
    if weight is not None and list(weight.shape) != ns:
        raise RuntimeError("Expected weight to be of same shape as normalized_shape")
    if input.dim() < len(ns):
        raise ValueError(f"Input tensor must have at least {len(ns)} dimensions, but got {input.dim()}")
    if list(input.shape[input.dim() - len(ns):]) != ns:
        raise RuntimeError(f"Given normalized_shape={ns}, expected input with shape [*{ns}]")
    for t in (input, weight, *others):
        if t is not None and not t.dtype.is_floating_point:
            raise NotImplementedError(f"\"rms_norm\" not implemented for '{t.dtype}'")


def _dims(input, normalized_shape):
    nd = len(normalized_shape)
    return list(range(input.dim() - nd, input.dim())), list(range(input.dim() - nd))


def _numel(shape):
    n = 1
    for s in shape:
        n *= s
    return n


def _opmath(dtype):
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def fused_rms_norm_backward(grad_out, input, normalized_shape, rstd, weight, output_mask):
    """The gradients (input, weight) from the given rstd, by the formula of the kernel, in opmath."""
    _check(input, normalized_shape, weight, grad_out, rstd)
    if grad_out.shape != input.shape or rstd.numel() != input.numel() // max(1, _numel(input.shape[input.dim() - len(normalized_shape):])):
        raise RuntimeError("_fused_rms_norm_backward: inconsistent sizes")
    acc = _opmath(input.dtype)
    dims, lead = _dims(input, normalized_shape)
    x, g, r = input.to(acc), grad_out.to(acc), rstd.to(acc)
    gw = g * weight.to(acc) if weight is not None else g
    n = 1
    for d in dims:
        n *= input.shape[d]
    dx = dw = None
    if output_mask[0]:
        dx = (gw * r - x * (r ** 3) * (gw * x).sum(dims, keepdim=True) / n).to(input.dtype)
    if output_mask[1] and weight is not None:
        t = g * (x * r)
        dw = (t.sum(lead) if lead else t).to(weight.dtype)
    return dx, dw


def fused_rms_norm_differentiable_backward(grad_out, grad_rstd, input, normalized_shape, weight, eps, output_mask):
    """PyTorch's own gradients of its (CPU, composite) `_fused_rms_norm`, kept differentiable."""
    _check(input, normalized_shape, weight, grad_out, grad_rstd)
    inputs = [t for t in (input, weight) if t is not None]
    with torch.enable_grad():
        xs = [t if t.requires_grad else t.detach().requires_grad_() for t in inputs]
        y, r = torch._fused_rms_norm(xs[0], normalized_shape, xs[1] if weight is not None else None, eps)
        outs, gos = zip(*[(o, go) for o, go in ((y, grad_out), (r, grad_rstd)) if go is not None])
        grads = torch.autograd.grad(outs, xs, gos, create_graph=True, allow_unused=True)
    dx = grads[0] if output_mask[0] else None
    dw = grads[1] if weight is not None and output_mask[1] else None
    return dx, dw
