"""nn.utils: gradient clipping, parameter/vector conversion, stateless calls, packed sequences (rnn),
parametrizations, weight/spectral normalization and batch-norm fusion."""
from . import rnn, stateless  # noqa: F401
from .clip_grad import (  # noqa: F401
    _clip_grads_with_norm_ as clip_grads_with_norm_, _get_total_norm as get_total_norm, clip_grad_norm,
    clip_grad_norm_, clip_grad_value_)
from .convert_parameters import parameters_to_vector, vector_to_parameters  # noqa: F401
from . import parametrizations, parametrize  # noqa: F401,E402
from .fusion import (  # noqa: F401,E402
    fuse_conv_bn_eval, fuse_conv_bn_weights, fuse_linear_bn_eval, fuse_linear_bn_weights)
from .spectral_norm import remove_spectral_norm, spectral_norm  # noqa: F401,E402
from .weight_norm import remove_weight_norm, weight_norm  # noqa: F401,E402
from .init import skip_init  # noqa: F401,E402

__all__ = ["clip_grad_norm", "clip_grad_norm_", "clip_grad_value_", "clip_grads_with_norm_", "get_total_norm",
           "parameters_to_vector", "rnn", "stateless", "vector_to_parameters",
           "fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights",
           "parametrizations", "parametrize", "remove_spectral_norm", "remove_weight_norm", "skip_init",
           "spectral_norm", "weight_norm"]
