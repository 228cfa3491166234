"""The nn.Module classes: the base class, containers and layers, one family per file."""
from .module import Module
from .container import (
    Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential)
from .activation import *  # noqa: F401,F403
from .activation import __all__ as _activation_all
from .flatten import Flatten, Unflatten
from .linear import Bilinear, Identity, LazyLinear, Linear
from .adaptive import AdaptiveLogSoftmaxWithLoss
from . import (batchnorm, conv, distance, dropout, instancenorm, loss, normalization, padding, pooling, resampling, rnn,
               sparse, transformer)
from .batchnorm import *  # noqa: F401,F403
from .instancenorm import *  # noqa: F401,F403
from .conv import *  # noqa: F401,F403
from .distance import *  # noqa: F401,F403
from .dropout import *  # noqa: F401,F403
from .loss import *  # noqa: F401,F403
from .normalization import *  # noqa: F401,F403
from .padding import *  # noqa: F401,F403
from .pooling import *  # noqa: F401,F403
from .resampling import *  # noqa: F401,F403
from .rnn import *  # noqa: F401,F403
from .transformer import *  # noqa: F401,F403
from .transformer import MultiheadAttention  # noqa: F401
from .sparse import *  # noqa: F401,F403
from ._sync_batchnorm import SyncBatchNorm  # noqa: F401

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Flatten", "Unflatten", "Identity", "Linear", "Bilinear", "LazyLinear", "AdaptiveLogSoftmaxWithLoss",
           *_activation_all, *batchnorm.__all__, *instancenorm.__all__, *conv.__all__, *distance.__all__, *dropout.__all__,
           *loss.__all__, *normalization.__all__, *padding.__all__, *pooling.__all__, *resampling.__all__,
           *sparse.__all__, *rnn.__all__, *transformer.__all__, "MultiheadAttention", "SyncBatchNorm"]

del resampling  # torch.nn.modules names its files otherwise (upsampling, pixelshuffle); the module stays importable
