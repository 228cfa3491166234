"""AdaptiveLogSoftmaxWithLoss: the adaptive softmax of Grave et al. (frequent classes in a head, rarer ones in
clusters reached through a head entry, each cluster behind a narrower projection), with PyTorch's layout of
parameters, checks and results."""
from collections import namedtuple
from typing import List, Sequence

import torchlite as _torchlite
from torchlite.nn.functional import log_softmax

from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


class AdaptiveLogSoftmaxWithLoss(Module):
    """Log-probabilities of the targets and their mean negative log-likelihood, classes split at `cutoffs`:
    classes below cutoffs[0] in the head, cluster i (classes cutoffs[i]..cutoffs[i+1]) behind a projection of
    width in_features // div_value**(i+1). `log_prob` gives the full distribution, `predict` the argmax."""

    in_features: int
    n_classes: int
    cutoffs: List[int]
    div_value: float
    head_bias: bool

    def __init__(self, in_features: int, n_classes: int, cutoffs: Sequence[int], div_value: float = 4.0,
                 head_bias: bool = False, device=None, dtype=None) -> None:
        factory = {"device": device, "dtype": dtype}
        super().__init__()
        cutoffs = list(cutoffs)
        if len(cutoffs) == 0:
            raise ValueError("cutoffs should be a sequence of length larger than 0")
        valid = (cutoffs == sorted(cutoffs) and min(cutoffs) > 0 and max(cutoffs) <= n_classes - 1
                 and len(set(cutoffs)) == len(cutoffs) and all(int(c) == c for c in cutoffs))
        if not valid:
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted in an increasing "
                             "order, where each value is between 1 and n_classes-1")
        self.in_features = in_features
        self.n_classes = n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value = div_value
        self.head_bias = head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, **factory)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            width = int(in_features // (div_value ** (i + 1)))
            self.tail.append(Sequential(Linear(in_features, width, bias=False, **factory),
                                        Linear(width, self.cutoffs[i + 1] - self.cutoffs[i], bias=False, **factory)))

    def reset_parameters(self) -> None:
        self.head.reset_parameters()
        for projection, out in self.tail:
            projection.reset_parameters()
            out.reset_parameters()

    def forward(self, input_, target_):
        if target_.dim() == 1:
            if input_.size(0) != target_.size(0):
                raise RuntimeError("Input and target should have the same size in the batch dimension.")
            if input_.dim() != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found inputs with size",
                                   input_.size())
        elif target_.dim() == 0:
            if input_.dim() != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found inputs with size",
                                   input_.size())
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.dim() > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)

        n = target.size(0)
        output = input.new_zeros(n)
        head_index = target.new_empty(n)  # per row: its class in the head, or its cluster's head entry
        covered = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_bucket = (target >= low) & (target < high)
            rows = in_bucket.nonzero().squeeze()
            if rows.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, rows, target[in_bucket])
            else:
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                cluster = log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                within = cluster.gather(1, (target[in_bucket] - low).unsqueeze(1))
                output.index_copy_(0, rows, within.squeeze(1))
            covered += rows.numel()
        if covered != n:
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but values in range "
                               f"[{target.min().item()}, {target.max().item()}] were found. ")
        head = log_softmax(self.head(input), dim=1)
        output += head.gather(1, head_index.unsqueeze(1)).squeeze()
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _get_full_log_prob(self, input, head_output):
        """log-probabilities of every class, from the input and the head's output."""
        out = input.new_empty((head_output.size(0), self.n_classes))
        head = log_softmax(head_output, dim=1)
        out[:, :self.shortlist_size] = head[:, :self.shortlist_size]
        for i, (start, stop) in enumerate(zip(self.cutoffs, self.cutoffs[1:])):
            cluster = log_softmax(self.tail[i](input), dim=1)
            out[:, start:stop] = cluster + head[:, self.shortlist_size + i].unsqueeze(1)
        return out

    def log_prob(self, input):
        """log-probabilities of all n_classes for each row of input."""
        return self._get_full_log_prob(input, self.head(input))

    def predict(self, input):
        """The most probable class of each row (log_prob(input).argmax(1), skipping clusters when it can)."""
        head_output = self.head(input)
        output = _torchlite.argmax(head_output, dim=1)
        outside = output >= self.shortlist_size
        if not outside.any():
            return output
        if outside.all():
            return _torchlite.argmax(self._get_full_log_prob(input, head_output), dim=1)
        output[outside] = _torchlite.argmax(self._get_full_log_prob(input[outside], head_output[outside]), dim=1)
        return output
