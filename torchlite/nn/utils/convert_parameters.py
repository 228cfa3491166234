"""parameters_to_vector / vector_to_parameters: all parameters as one flat vector and back."""
from __future__ import annotations

import torchlite as _torchlite
from torchlite._tensor import Tensor as _Tensor


def _check_same_device(param, device):
    if device is not None and param.device != device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return param.device


def parameters_to_vector(parameters):
    """The parameters flattened and concatenated into one 1-d tensor (differentiable)."""
    device = None
    flat = []
    for param in parameters:
        device = _check_same_device(param, device)
        flat.append(param.view(-1))
    return _torchlite.cat(flat)


def vector_to_parameters(vec, parameters):
    """Points each parameter's data at its consecutive slice of the 1-d ``vec``."""
    if not isinstance(vec, _Tensor):
        from torchlite.nn.modules.module import _typename
        raise TypeError(f"expected torch.Tensor, but got: {_typename(vec)}")
    device = None
    offset = 0
    for param in parameters:
        device = _check_same_device(param, device)
        n = param.numel()
        param.data = vec[offset:offset + n].view_as(param).data
        offset += n


del annotations  # torch's module has no such name
