"""The losses of torch.nn.functional, with PyTorch's signatures and defaults.

Each is PyTorch's Python layer over the YAML operators: the `reduction` string (or the legacy
`size_average` / `reduce` flags, with PyTorch's deprecation warning) becomes the int the ops take
(0 none, 1 mean, 2 sum), the size checks and warnings PyTorch makes in Python are made here, and the
computation is the op (`torchlite._C._nn.cross_entropy_loss`, `torchlite.kl_div`, ...).
"""
from __future__ import annotations

import math
import warnings
from typing import Callable, Optional

import torchlite as _tl
from torchlite._C import _nn

__all__ = [
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "cosine_embedding_loss", "cross_entropy",
    "gaussian_nll_loss", "hinge_embedding_loss", "huber_loss", "kl_div", "l1_loss", "margin_ranking_loss",
    "mse_loss", "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "nll_loss",
    "poisson_nll_loss", "smooth_l1_loss", "soft_margin_loss", "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction_enum(reduction: str) -> int:
    """PyTorch's _Reduction.get_enum: the op's int for a reduction string."""
    if reduction == "elementwise_mean":
        warnings.warn("reduction='elementwise_mean' is deprecated. Please use reduction='mean' instead.",
                      stacklevel=3)
        return 1
    try:
        return _REDUCTIONS[reduction]
    except (KeyError, TypeError):
        raise ValueError(f"{reduction} is not a valid value for reduction") from None


def _legacy_reduction(size_average: Optional[bool], reduce: Optional[bool]) -> str:
    """PyTorch's _Reduction.legacy_get_string: reduce=False gives 'none', else size_average picks mean or sum
    (both default to True), with PyTorch's deprecation warning."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    name = ("mean" if size_average else "sum") if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{name}' instead.",
                  stacklevel=3)
    return name


def _resolve(size_average, reduce, reduction: str) -> str:
    return _legacy_reduction(size_average, reduce) if size_average is not None or reduce is not None else reduction


def _warn_size_mismatch(input, target) -> None:
    if target.size() != input.size():
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. "
                      "Please ensure they have the same size.", stacklevel=3)


def _weighted(loss, weight, reduction: str, mean):
    """The elementwise `loss` times `weight` (of the input's size), reduced; `mean(weighted)` for 'mean'."""
    weighted = loss * weight
    if reduction == "none":
        return weighted
    if reduction == "sum":
        return _tl.sum(weighted)
    if reduction == "mean":
        return mean(weighted)
    raise ValueError(f"Invalid reduction mode: {reduction}. Expected one of 'none', 'mean', 'sum'.")


# ---------------------------------------------------------------- class indices / probabilities

def cross_entropy(input, target, weight=None, size_average: Optional[bool] = None, ignore_index: int = -100,
                  reduce: Optional[bool] = None, reduction: str = "mean", label_smoothing: float = 0.0):
    """The cross entropy of logits `input` against class indices or class probabilities `target`."""
    reduction = _resolve(size_average, reduce, reduction)
    return _nn.cross_entropy_loss(input, target, weight, _reduction_enum(reduction), ignore_index, label_smoothing)


def nll_loss(input, target, weight=None, size_average: Optional[bool] = None, ignore_index: int = -100,
             reduce: Optional[bool] = None, reduction: str = "mean"):
    """The negative log likelihood of class indices `target` under log-probabilities `input`."""
    reduction = _resolve(size_average, reduce, reduction)
    return _nn.nll_loss_nd(input, target, weight, _reduction_enum(reduction), ignore_index)


# ---------------------------------------------------------------- regression

def l1_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
            reduction: str = "mean", weight=None):
    """The mean (or sum, or elementwise) absolute error; `weight` scales each element (mean: sum / sum(weight))."""
    _warn_size_mismatch(input, target)
    reduction = _resolve(size_average, reduce, reduction)
    x, t = _tl.broadcast_tensors(input, target)
    if weight is None:
        return _nn.l1_loss(x, t, _reduction_enum(reduction))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(_tl.abs(x - t), weight, reduction, lambda w: _tl.sum(w) / _tl.sum(weight))


def mse_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
             reduction: str = "mean", weight=None):
    """The mean (or sum, or elementwise) squared error; `weight` scales each element (mean: sum / sum(weight))."""
    _warn_size_mismatch(input, target)
    reduction = _resolve(size_average, reduce, reduction)
    x, t = _tl.broadcast_tensors(input, target)
    if weight is None:
        return _nn.mse_loss(x, t, _reduction_enum(reduction))
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(_tl.pow(x - t, 2), weight, reduction, lambda w: _tl.sum(w) / _tl.sum(weight))


def smooth_l1_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                   reduction: str = "mean", beta: float = 1.0):
    """Squared error below `beta` (scaled by 1 / beta), absolute error above; l1_loss for beta 0."""
    _warn_size_mismatch(input, target)
    reduction = _resolve(size_average, reduce, reduction)
    x, t = _tl.broadcast_tensors(input, target)
    if beta == 0.0:
        return _nn.l1_loss(x, t, _reduction_enum(reduction))
    return _nn.smooth_l1_loss(x, t, _reduction_enum(reduction), beta)


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0, weight=None):
    """Squared error below `delta`, `delta`-scaled absolute error above; `weight` scales each element."""
    _warn_size_mismatch(input, target)
    x, t = _tl.broadcast_tensors(input, target)
    if weight is None:
        return _nn.huber_loss(x, t, _reduction_enum(reduction), delta)
    if weight.size() != input.size():
        raise ValueError("Weights and input must have the same size.")
    return _weighted(_nn.huber_loss(x, t, 0, delta), weight, reduction, lambda w: w.mean())


# ---------------------------------------------------------------- probabilities and likelihoods

def binary_cross_entropy(input, target, weight=None, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    """The binary cross entropy of probabilities `input` against `target` (of the same size)."""
    enum = _reduction_enum(_resolve(size_average, reduce, reduction))
    if target.size() != input.size():
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    if weight is not None:
        weight = weight.expand(_tl.broadcast_shapes(target.size(), weight.size()))
    return _nn.binary_cross_entropy(input, target, weight, enum)


def binary_cross_entropy_with_logits(input, target, weight=None, size_average: Optional[bool] = None,
                                     reduce: Optional[bool] = None, reduction: str = "mean", pos_weight=None):
    """binary_cross_entropy of sigmoid(input), computed stably from the logits; `pos_weight` weighs positives."""
    enum = _reduction_enum(_resolve(size_average, reduce, reduction))
    if target.size() != input.size():
        raise ValueError(f"Target size ({target.size()}) must be the same as input size ({input.size()})")
    return _tl.binary_cross_entropy_with_logits(input, target, weight, pos_weight, enum)


def kl_div(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
           reduction: str = "mean", log_target: bool = False):
    """KL divergence of log-probabilities `input` from `target`; 'batchmean' divides the sum by the batch size."""
    if size_average is not None or reduce is not None:
        enum = _reduction_enum(_legacy_reduction(size_average, reduce))
    else:
        if reduction == "mean":
            warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                          "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                          "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                          stacklevel=2)
        enum = _reduction_enum("sum" if reduction == "batchmean" else reduction)
    loss = _tl.kl_div(input, target, enum, log_target=log_target)
    if reduction == "batchmean" and input.dim() != 0:
        loss = loss / input.size()[0]
    return loss


def poisson_nll_loss(input, target, log_input: bool = True, full: bool = False, size_average: Optional[bool] = None,
                     eps: float = 1e-8, reduce: Optional[bool] = None, reduction: str = "mean"):
    """The Poisson negative log likelihood of `target` with rate exp(input) (`log_input`) or input."""
    reduction = _resolve(size_average, reduce, reduction)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not a valid value for reduction")
    return _tl.poisson_nll_loss(input, target, log_input, full, eps, _reduction_enum(reduction))


def gaussian_nll_loss(input, target, var, full: bool = False, eps: float = 1e-6, reduction: str = "mean"):
    """The Gaussian negative log likelihood of `target` with mean `input` and variance `var` (clamped to eps,
    without differentiating the clamp); `var` may have one dimension fewer, or one dimension of size 1."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = var * _tl.ones_like(input)
    elif bool(_tl.any(var < 0)):
        raise ValueError("var has negative entry/entries")
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = _tl.unsqueeze(var, -1)
        elif not (input.dim() == var.dim()
                  and sum(v for i, v in zip(input.size(), var.size()) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var.clone()
    with _tl.no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (_tl.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


# ---------------------------------------------------------------- margins and embeddings

def _enum(size_average, reduce, reduction: str) -> int:
    return _reduction_enum(_resolve(size_average, reduce, reduction))


def hinge_embedding_loss(input, target, margin: float = 1.0, size_average: Optional[bool] = None,
                         reduce: Optional[bool] = None, reduction: str = "mean"):
    """input where target is 1, max(0, margin - input) where it is -1."""
    return _tl.hinge_embedding_loss(input, target, margin, _enum(size_average, reduce, reduction))


def margin_ranking_loss(input1, input2, target, margin: float = 0, size_average: Optional[bool] = None,
                        reduce: Optional[bool] = None, reduction: str = "mean"):
    """max(0, -target * (input1 - input2) + margin)."""
    enum = _enum(size_average, reduce, reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _tl.margin_ranking_loss(input1, input2, target, margin, enum)


def soft_margin_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                     reduction: str = "mean"):
    """log(1 + exp(-target * input)), targets 1 or -1."""
    return _nn.soft_margin_loss(input, target, _enum(size_average, reduce, reduction))


def multilabel_soft_margin_loss(input, target, weight=None, size_average: Optional[bool] = None,
                                reduce: Optional[bool] = None, reduction: str = "mean"):
    """The per-class logistic loss against 0/1 `target`, weighted, averaged over the classes (last dim)."""
    reduction = _resolve(size_average, reduce, reduction)
    loss = -(target * _nn.log_sigmoid(input) + (1 - target) * _nn.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.dim() - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(reduction + " is not valid")


def multi_margin_loss(input, target, p: int = 1, margin: float = 1.0, weight=None,
                      size_average: Optional[bool] = None, reduce: Optional[bool] = None, reduction: str = "mean"):
    """The multi-class hinge loss (p 1 or 2) of scores `input` for class indices `target`."""
    enum = _enum(size_average, reduce, reduction)
    if p != 1 and p != 2:
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    return _nn.multi_margin_loss(input, target, p, margin, weight, enum)


def multilabel_margin_loss(input, target, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                           reduction: str = "mean"):
    """The multi-label hinge loss; each row of `target` lists class indices up to its first negative one."""
    return _nn.multilabel_margin_loss(input, target, _enum(size_average, reduce, reduction))


def cosine_embedding_loss(input1, input2, target, margin: float = 0, size_average: Optional[bool] = None,
                          reduce: Optional[bool] = None, reduction: str = "mean"):
    """1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1."""
    return _tl.cosine_embedding_loss(input1, input2, target, margin, _enum(size_average, reduce, reduction))


def triplet_margin_loss(anchor, positive, negative, margin: float = 1.0, p: float = 2, eps: float = 1e-6,
                        swap: bool = False, size_average: Optional[bool] = None, reduce: Optional[bool] = None,
                        reduction: str = "mean"):
    """max(0, margin + d(anchor, positive) - d(anchor, negative)), d the p-norm pairwise distance."""
    enum = _enum(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    return _tl.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, enum)


def _pairwise_distance(x1, x2, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False):
    """torch.pairwise_distance's value: the p-norm of x1 - x2 + eps over the last dim."""
    pairwise = getattr(_tl, "pairwise_distance", None)
    if pairwise is not None:
        return pairwise(x1, x2, p, eps, keepdim)
    return _tl.norm(x1 - x2 + eps, p, max(x1.dim(), x2.dim()) - 1, keepdim)


def triplet_margin_with_distance_loss(anchor, positive, negative, *,
                                      distance_function: Optional[Callable] = None, margin: float = 1.0,
                                      swap: bool = False, reduction: str = "mean"):
    """triplet_margin_loss with any distance function (pairwise_distance by default)."""
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    if not (anchor.dim() == positive.dim() == negative.dim()):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {anchor.dim()}D, positive {positive.dim()}D, and negative "
                           f"{negative.dim()}D inputs")
    distance = distance_function if distance_function is not None else _pairwise_distance
    dist_pos = distance(anchor, positive)
    dist_neg = distance(anchor, negative)
    if swap:
        dist_neg = _tl.minimum(dist_neg, distance(positive, negative))
    loss = _tl.clamp_min(margin + dist_pos - dist_neg, 0)
    if reduction == "sum":
        return _tl.sum(loss)
    if reduction == "mean":
        return _tl.mean(loss)
    return loss
