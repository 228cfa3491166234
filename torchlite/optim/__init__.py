"""torchlite.optim: the optimizers of torch.optim with PyTorch's update rules, defaults, state_dict layout and
errors (trajectories equal PyTorch's single-tensor CPU path)."""
from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam
from .adamw import AdamW
from .adamax import Adamax
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "LBFGS", "NAdam", "Optimizer", "RAdam", "RMSprop", "SGD",
           "lr_scheduler"]

# The optimizers' modules stay importable (torchlite.optim.adam) but off the namespace, as torch.optim does.
del adadelta, adagrad, adam, adamw, adamax, lbfgs, nadam, optimizer, radam, rmsprop, sgd  # noqa: F821
