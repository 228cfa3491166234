"""The nn.Module classes: the base class, containers and layers, one family per file."""
from .module import Module
from .container import (
    Container, ModuleDict, ModuleList, ParameterDict, ParameterList, Sequential)
from .activation import *  # noqa: F401,F403
from .activation import __all__ as _activation_all
from .flatten import Flatten, Unflatten
from .linear import Identity

__all__ = ["Module", "Container", "Sequential", "ModuleList", "ModuleDict", "ParameterList",
           "ParameterDict", "Flatten", "Unflatten", "Identity", *_activation_all]
