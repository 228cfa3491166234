"""torchlite.optim: the optimizers of torch.optim with PyTorch's update rules, defaults, state_dict layout and
errors (trajectories equal PyTorch's single-tensor CPU path)."""
from . import lr_scheduler, swa_utils
from ._adafactor import Adafactor
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD
from .sparse_adam import SparseAdam

__all__ = ["ASGD", "Adadelta", "Adafactor", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "SGD", "SparseAdam", "lr_scheduler", "swa_utils"]

# The optimizers' modules stay importable (torchlite.optim.adam) but off the namespace, as torch.optim does.
del adadelta, adagrad, adam, adamw, adamax, asgd, lbfgs, nadam, optimizer, radam, rmsprop, rprop, sgd, sparse_adam  # noqa: F821
