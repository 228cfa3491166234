"""torchlite.nn.functional: PyTorch's ``torch.nn.functional`` with its signatures and defaults.

The activations are YAML operators (generated bindings in ``torchlite._C._nn`` where PyTorch binds them
in ``torch._C._nn``, top-level ones otherwise); this module adds PyTorch's Python layer on top of them:
``inplace=`` flags, the ``*_`` in-place functions, softmax's implicit ``dim`` (with PyTorch's deprecation
warning, through Python's ``warnings``) and ``dtype=``, and the few activations PyTorch writes in Python
(softsign, tanhshrink, softmin).
"""
import warnings
from typing import Optional

import torchlite as torch  # PyTorch's functional.py calls `torch.*` and `torch._C._nn.*` (F.torch, as there)

__all__ = [
    "celu", "celu_", "elu", "elu_", "gelu", "glu", "hardshrink", "hardsigmoid", "hardswish", "hardtanh",
    "gumbel_softmax", "hardtanh_", "leaky_relu", "leaky_relu_", "log_softmax", "logsigmoid", "mish", "prelu", "relu", "relu6",
    "relu_", "rrelu", "rrelu_", "selu", "selu_", "sigmoid", "silu", "softmax", "softmin", "softplus",
    "softshrink", "softsign", "tanh", "tanhshrink", "threshold", "threshold_",
]

# Bound as they are in PyTorch (F.gelu is torch._C._nn.gelu, F.hardshrink is torch.hardshrink, ...).
gelu = torch._C._nn.gelu
softplus = torch._C._nn.softplus
softshrink = torch._C._nn.softshrink
logsigmoid = torch._C._nn.log_sigmoid
hardshrink = torch.hardshrink


def threshold(input, threshold: float, value: float, inplace: bool = False):
    """x where x > threshold, else value."""
    return torch.threshold_(input, threshold, value) if inplace else torch.threshold(input, threshold, value)


threshold_ = torch.threshold_


def relu(input, inplace: bool = False):
    """max(x, 0) of every element."""
    return torch.relu_(input) if inplace else torch.relu(input)


relu_ = torch.relu_


def glu(input, dim: int = -1):
    """The gated linear unit `a * sigmoid(b)` of the halves a, b of `input` along `dim`."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    return torch._C._nn.glu(input, dim)


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    """Clamps every element to [min_val, max_val]."""
    if inplace:
        return torch._C._nn.hardtanh_(input, min_val, max_val)
    return torch._C._nn.hardtanh(input, min_val, max_val)


hardtanh_ = torch._C._nn.hardtanh_


def relu6(input, inplace: bool = False):
    """Clamps every element to [0, 6]."""
    return torch._C._nn.relu6_(input) if inplace else torch._C._nn.relu6(input)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    """scale-free ELU: x for x > 0, else alpha * (exp(x) - 1)."""
    return torch._C._nn.elu_(input, alpha) if inplace else torch._C._nn.elu(input, alpha)


elu_ = torch._C._nn.elu_


def selu(input, inplace: bool = False):
    """SELU: elu with PyTorch's fixed alpha and scale."""
    return torch.selu_(input) if inplace else torch.selu(input)


selu_ = torch.selu_


def celu(input, alpha: float = 1.0, inplace: bool = False):
    """CELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    return torch.celu_(input, alpha) if inplace else torch.celu(input, alpha)


celu_ = torch.celu_


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    """x for x > 0, else negative_slope * x."""
    op = torch._C._nn.leaky_relu_ if inplace else torch._C._nn.leaky_relu
    return op(input, negative_slope)


leaky_relu_ = torch._C._nn.leaky_relu_


def prelu(input, weight):
    """x for x > 0, else weight * x (weight one value or one per channel)."""
    return torch.prelu(input, weight)


def rrelu(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False):
    """Randomized leaky ReLU: a random slope in [lower, upper] per element when training, their mean otherwise."""
    if inplace:
        return torch.rrelu_(input, lower, upper, training)
    return torch.rrelu(input, lower, upper, training)


def rrelu_(input, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False):
    return torch.rrelu_(input, lower, upper, training)


def tanhshrink(input):
    """x - tanh(x)."""
    return input - input.tanh()


def softsign(input):
    """x / (1 + |x|)."""
    return input / (input.abs() + 1)


def tanh(input):
    return input.tanh()


def sigmoid(input):
    return input.sigmoid()


def hardsigmoid(input, inplace: bool = False):
    """clamp(x / 6 + 1/2, 0, 1)."""
    return torch._C._nn.hardsigmoid_(input) if inplace else torch._C._nn.hardsigmoid(input)


def silu(input, inplace: bool = False):
    """x * sigmoid(x)."""
    return torch._C._nn.silu_(input) if inplace else torch._C._nn.silu(input)


def mish(input, inplace: bool = False):
    """x * tanh(softplus(x))."""
    return torch._C._nn.mish_(input) if inplace else torch._C._nn.mish(input)


def hardswish(input, inplace: bool = False):
    """x * clamp(x + 3, 0, 6) / 6."""
    return torch._C._nn.hardswish_(input) if inplace else torch._C._nn.hardswish(input)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    """PyTorch's legacy choice of dim when none is given (deprecated, with its warning)."""
    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmin(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """softmax(-input) along dim."""
    if dim is None:
        dim = _get_softmax_dim("softmin", input.dim(), _stacklevel)
    return (-input).softmax(dim, dtype=dtype)


def softmax(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """exp(x) / sum(exp(x)) along dim, computed in `dtype` when given."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.dim(), _stacklevel)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input, dim: Optional[int] = None, _stacklevel: int = 3, dtype=None):
    """log(softmax(x)) along dim, computed in `dtype` when given."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.dim(), _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


def gumbel_softmax(logits, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1):
    """A sample from the Gumbel-softmax (concrete) distribution over `dim`: softmax((logits + g) / tau) with
    g Gumbel(0, 1) noise (-log of an exponential draw, PyTorch's stream). With hard=True the sample is one-hot
    in the forward pass and has the soft sample's gradient (straight-through)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    gumbels = -torch.empty_like(logits, memory_format=torch.contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = torch.zeros_like(logits, memory_format=torch.contiguous_format).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft
from ._functional.attention import *  # noqa: F401,F403
from ._functional.pooling import *  # noqa: F401,F403
from ._functional.fractional_pooling import *  # noqa: F401,F403
from ._functional.convolution import *  # noqa: F401,F403
from ._functional.shape import *  # noqa: F401,F403
from ._functional.loss import *  # noqa: F401,F403
from ._functional.normalization import *  # noqa: F401,F403
from ._functional.dropout import *  # noqa: F401,F403
from ._functional.embedding_bag import *  # noqa: F401,F403
from ._functional.sampling import *  # noqa: F401,F403
from ._functional.distance import *  # noqa: F401,F403
from ._functional.ctc import *  # noqa: F401,F403
