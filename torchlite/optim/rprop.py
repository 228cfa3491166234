"""Rprop (resilient backpropagation): per-element step sizes grown while the gradient keeps its sign and
shrunk when it flips, the update using only the gradient's sign."""
from __future__ import annotations

import torchlite as torch

from .optimizer import (Optimizer, _check_options, _closure_loss, _no_grad_step, _params_with_grad, _scalar_step,
                        _use_fused, _value)

__all__ = ["Rprop"]


class Rprop(Optimizer):
    def __init__(self, params, lr=1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False):
        _check_options(lr=lr, differentiable=differentiable, capturable=capturable)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            for key, default in (("foreach", None), ("maximize", False), ("differentiable", False),
                                 ("capturable", False)):
                group.setdefault(key, default)

    def _state_for(self, p, group) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            state["prev"] = torch.zeros_like(p)
            state["step_size"] = torch.full_like(p.grad, _value(group["lr"]))
        return state

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            if _use_fused(group):
                self._fused_step(group)
            else:
                self._single_tensor_step(group)
        return loss

    def _fused_step(self, group):
        params = _params_with_grad(group, "Rprop")
        if not params:
            return
        states = [self._state_for(p, group) for p in params]
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        torch._C._internal._fused_rprop_(
            params, [p.grad for p in params], [s["prev"] for s in states], [s["step_size"] for s in states],
            [s["step"] for s in states], etaminus=etaminus, etaplus=etaplus, step_size_min=step_size_min,
            step_size_max=step_size_max, maximize=group["maximize"])

    def _single_tensor_step(self, group):
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for p in _params_with_grad(group, "Rprop"):
            state = self._state_for(p, group)
            grad = p.grad if not group["maximize"] else -p.grad
            prev, step_size = state["prev"], state["step_size"]
            state["step"] += 1
            # the factor of each element's step size: etaplus where the gradient kept its sign,
            # etaminus where it flipped, 1 where either is zero
            factor = grad.mul(prev).sign()
            factor[factor.gt(0)] = etaplus
            factor[factor.lt(0)] = etaminus
            factor[factor.eq(0)] = 1
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            # where the sign flipped the step is skipped, and the next step sees a zero gradient there
            grad = grad.clone()
            grad[factor.eq(etaminus)] = 0
            p.addcmul_(grad.sign(), step_size, value=-1)
            prev.copy_(grad)

del annotations  # torch's module has no such name
