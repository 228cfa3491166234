"""Adafactor (Shazeer & Stern, 2018, as torch.optim.Adafactor defines it): the second moment of a matrix
gradient kept factored, as row and column means of its square, the step size relative to the parameter's
RMS and the update clipped by its own RMS. (PyTorch keeps it in the private module torch.optim._adafactor.)"""
from __future__ import annotations

import torchlite as torch

from .optimizer import Optimizer, _closure_loss, _no_grad_step, _scalar_step, _value

__all__ = ["Adafactor"]


class Adafactor(Optimizer):
    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps: tuple[float | None, float] = (None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach=None, maximize: bool = False):
        if isinstance(lr, torch.Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def __setstate__(self, state):
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)

    def _state_for(self, p) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _scalar_step()
            if p.grad.dim() > 1:
                # the factored second moment: one value per row and one per column (of the last two dims)
                row_shape, col_shape = list(p.grad.shape), list(p.grad.shape)
                row_shape[-1] = 1
                col_shape[-2] = 1
                state["row_var"] = p.grad.new_zeros(row_shape)
                state["col_var"] = p.grad.new_zeros(col_shape)
            else:
                state["variance"] = torch.zeros_like(p.grad)
        return state

    @_no_grad_step
    def step(self, closure=None):
        loss = _closure_loss(closure)
        for group in self.param_groups:
            params = []
            for p in group["params"]:
                if p.grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
                params.append(p)
            self._update(group, params)
        return loss

    @staticmethod
    def _factored_mean_square(grad, dim):
        return torch.norm(grad, dim=dim, keepdim=True).square_().div_(grad.size(dim))

    def _update(self, group, params):
        lr, d, weight_decay = _value(group["lr"]), group["d"], group["weight_decay"]
        beta2_decay = group["beta2_decay"]
        eps1, eps2 = group["eps"]
        for p in params:
            state = self._state_for(p)
            grad = p.grad if not group["maximize"] else -p.grad
            if eps1 is None:
                # (PyTorch takes the first parameter's dtype for the whole group)
                eps1 = torch.finfo(p.dtype).eps
            step_t = state["step"]
            step_t += 1
            step = step_t.item()
            one_minus_beta2_t = step ** beta2_decay
            rho_t = min(lr, 1 / (step ** 0.5))
            alpha = max(eps2, p.norm(2).item() / (p.numel() ** 0.5)) * rho_t
            if weight_decay != 0:
                p.mul_(1 - lr * weight_decay)
            if grad.dim() > 1:
                row_var, col_var = state["row_var"], state["col_var"]
                row_var.lerp_(self._factored_mean_square(grad, -1), one_minus_beta2_t)
                col_var.lerp_(self._factored_mean_square(grad, -2), one_minus_beta2_t)
                var_estimate = row_var @ col_var
                var_estimate.div_(row_var.mean(dim=-2, keepdim=True).clamp_(min=eps1))
            else:
                variance = state["variance"]
                variance.lerp_(grad * grad, one_minus_beta2_t)
                var_estimate = variance.clone()
            update = var_estimate.clamp_(min=eps1 * eps1).rsqrt_()
            update.mul_(grad)
            denom = max(1.0, update.norm(2).item() / ((update.numel() ** 0.5) * d))
            p.add_(update, alpha=-alpha / denom)


del annotations  # torch's module has no such name
