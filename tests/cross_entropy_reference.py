"""PyTorch references for torchlite's fused cross_entropy ops (`_cross_entropy_fused`,
`_cross_entropy_fused_backward`, `_cross_entropy_fused_differentiable_backward` and the target's gradient,
`_cross_entropy_fused_target_backward` / `_cross_entropy_fused_differentiable_target_backward`), which PyTorch does not
have: the YAML samples name these functions in their `# torch:` hints, and tests/test_cross_entropy_fused.py
uses them. Each is F.cross_entropy (or the formula of the backward) in PyTorch ops, float32/float64 only, with
the kernels' checks (a RuntimeError otherwise, as the torchlite kernels refuse the rest).
"""
from __future__ import annotations

import torch
import torch.nn.functional as F

_REDUCTIONS = ["none", "mean", "sum"]


def _check(self, target, weight):
    if self.dtype not in (torch.float32, torch.float64) or self.dim() == 0:
        raise RuntimeError("_cross_entropy_fused: expected a float32 or float64 input with a class dim")
    if target.is_floating_point() and (target.dtype != self.dtype or target.shape != self.shape):
        raise RuntimeError("_cross_entropy_fused: expected class probabilities of the input's shape and dtype")
    if not target.is_floating_point() and target.dtype != torch.int64:
        raise RuntimeError("_cross_entropy_fused: expected class indices of dtype Long")
    if weight is not None and (weight.dtype != self.dtype or weight.shape != (self.shape[_class_dim(self)],)):
        raise RuntimeError("_cross_entropy_fused: expected a weight of the input's dtype, one per class")
    if not target.is_floating_point() and target.shape != _row_shape(self):
        raise RuntimeError("_cross_entropy_fused: expected a target of the input's shape without the class dim")


def _row_shape(self):
    return () if self.dim() == 1 else (self.shape[0],) + tuple(self.shape[2:])


def _class_dim(self):
    return 0 if self.dim() == 1 else 1


def cross_entropy_fused(self, target, weight, reduction, ignore_index, label_smoothing):
    """(loss, logsumexp over the class dim)."""
    _check(self, target, weight)
    loss = F.cross_entropy(self, target, weight, ignore_index=ignore_index, reduction=_REDUCTIONS[reduction],
                           label_smoothing=label_smoothing)
    return loss, torch.logsumexp(self.double(), _class_dim(self)).detach()


def _check_backward(grad_output, self, reduction, lse):
    if lse is not None and (lse.shape != _row_shape(self) or lse.dtype != torch.float64):
        raise RuntimeError("_cross_entropy_fused_backward: expected lse of the input's shape without the class dim")
    if (grad_output.shape != _row_shape(self)) if reduction == 0 else grad_output.numel() != 1:
        raise RuntimeError("_cross_entropy_fused_backward: expected grad_output of the loss's shape")


def _coefficients(self, target, weight, reduction, ignore_index, label_smoothing):
    """q (self's shape) and Q (summed over classes, kept as a dim of 1), with the mean's divisor."""
    cd, classes, s = _class_dim(self), self.shape[_class_dim(self)], label_smoothing
    shape = [1] * self.dim()
    shape[cd] = classes
    w = (weight if weight is not None else torch.ones(classes, dtype=self.dtype)).reshape(shape)
    if target.is_floating_point():
        q = w * ((1 - s) * target + s / classes)
        divisor = self.numel() // classes if classes else 0
    else:
        kept = target != ignore_index
        onehot = F.one_hot(torch.where(kept, target, 0), classes).to(self.dtype)
        onehot = onehot.movedim(-1, cd) if self.dim() > 1 else onehot
        q = w * ((1 - s) * onehot + s / classes) * kept.unsqueeze(cd).to(self.dtype) if self.dim() > 1 else \
            w * ((1 - s) * onehot + s / classes) * kept.to(self.dtype)
        divisor = (w.reshape(-1)[torch.where(kept, target, 0)] * kept).sum()
    if reduction == 1:
        q = q / divisor
    return q, q.sum(cd, keepdim=True)


def cross_entropy_fused_backward(grad_output, self, target, weight, reduction, ignore_index, label_smoothing, lse):
    """grad * (Q * exp(self - lse) - q), from the given float64 lse (as the kernel)."""
    _check(self, target, weight)
    _check_backward(grad_output, self, reduction, lse)
    cd = _class_dim(self)
    q, Q = _coefficients(self, target, weight, reduction, ignore_index, label_smoothing)
    g = grad_output.unsqueeze(cd) if reduction == 0 and self.dim() > 1 else grad_output
    return g * (Q * torch.exp(self.double() - lse.unsqueeze(cd)).to(self.dtype) - q)


def cross_entropy_fused_differentiable_backward(grad_output, self, target, weight, reduction, ignore_index, label_smoothing):
    """The gradient of F.cross_entropy with respect to self, as a differentiable function of grad and self."""
    _check(self, target, weight)
    _check_backward(grad_output, self, reduction, None)
    with torch.enable_grad():
        x = self if self.requires_grad else self.detach().requires_grad_()
        loss = F.cross_entropy(x, target, weight, ignore_index=ignore_index, reduction=_REDUCTIONS[reduction],
                               label_smoothing=label_smoothing)
        (gx,) = torch.autograd.grad(loss, x, grad_output, create_graph=True)
    return gx


def _target_grad(grad_output, self, target, weight, reduction, label_smoothing):
    """The gradient of F.cross_entropy with respect to class probabilities `target` (PyTorch differentiates it)."""
    if not target.is_floating_point():
        raise RuntimeError("_cross_entropy_fused_target_backward: expected class probabilities")
    _check(self, target, weight)
    _check_backward(grad_output, self, reduction, None)
    with torch.enable_grad():
        x = self if self.requires_grad else self.detach().requires_grad_()
        t = target.detach().requires_grad_()
        loss = F.cross_entropy(x, t, weight, reduction=_REDUCTIONS[reduction], label_smoothing=label_smoothing)
        (gt,) = torch.autograd.grad(loss, t, grad_output, create_graph=True)
    return gt


def cross_entropy_fused_target_backward(grad_output, self, target, weight, reduction, label_smoothing, lse):
    """-g (1 - s) w (self - lse) from the given float64 lse (as the kernel; g divided by the row count for mean)."""
    if not target.is_floating_point():
        raise RuntimeError("_cross_entropy_fused_target_backward: expected class probabilities")
    _check(self, target, weight)
    _check_backward(grad_output, self, reduction, lse)
    cd, classes = _class_dim(self), self.shape[_class_dim(self)]
    shape = [1] * self.dim()
    shape[cd] = classes
    w = (weight if weight is not None else torch.ones(classes, dtype=self.dtype)).reshape(shape).double()
    g = grad_output.unsqueeze(cd) if reduction == 0 and self.dim() > 1 else grad_output
    g = g.double() / (self.numel() // classes) if reduction == 1 else g.double()
    return (-(g * (1 - label_smoothing)) * w * (self.double() - lse.unsqueeze(cd))).to(self.dtype)


def cross_entropy_fused_differentiable_target_backward(grad_output, self, target, weight, reduction, label_smoothing):
    """The target's gradient of F.cross_entropy as a differentiable function of grad and self."""
    return _target_grad(grad_output, self, target, weight, reduction, label_smoothing)
