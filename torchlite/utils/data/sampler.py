"""Index samplers (PyTorch's torch.utils.data.sampler): the same index sequences as PyTorch's for the same
seed, since torchlite's randperm, randint, random_ and multinomial streams are PyTorch's (docs/random.md)."""
import itertools
from typing import Generic, TypeVar

import torchlite as _torchlite

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
           "BatchSampler"]

_T_co = TypeVar("_T_co", covariant=True)


class Sampler(Generic[_T_co]):
    """Base class: an iterable of dataset keys (or of lists of keys, for batch samplers).

    No default __len__, so len() of a sampler without one is a TypeError, and no __init__ (it takes no
    arguments), as in PyTorch 2.13.
    """

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., len(data_source) - 1."""

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _is_strict_int(x):
    return isinstance(x, int) and not isinstance(x, bool)


class RandomSampler(Sampler):
    """A random permutation (repeated to reach num_samples), or num_samples draws with replacement."""

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self):
        # Read at every use: the dataset may grow or shrink between epochs.
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator
        if generator is None:
            # A fresh generator seeded from the default one: one int64 draw per epoch, as PyTorch.
            seed = int(_torchlite.empty((), dtype=_torchlite.int64).random_().item())
            generator = _torchlite.Generator()
            generator.manual_seed(seed)
        if self.replacement:
            # Chunks of 32 draws: the stream PyTorch consumes.
            for _ in range(self.num_samples // 32):
                yield from _torchlite.randint(high=n, size=(32,), dtype=_torchlite.int64,
                                             generator=generator).tolist()
            yield from _torchlite.randint(high=n, size=(self.num_samples % 32,), dtype=_torchlite.int64,
                                         generator=generator).tolist()
        else:
            for _ in range(self.num_samples // n):
                yield from _torchlite.randperm(n, generator=generator).tolist()
            yield from _torchlite.randperm(n, generator=generator).tolist()[:self.num_samples % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given indices in a random order."""

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        for i in _torchlite.randperm(len(self.indices), generator=self.generator).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """num_samples indices of range(len(weights)) drawn with probabilities proportional to weights."""

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not _is_strict_int(num_samples) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        weights = _torchlite.as_tensor(weights, dtype=_torchlite.double)
        if weights.dim() != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {tuple(weights.shape)}")
        self.weights = weights
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        drawn = _torchlite.multinomial(self.weights, self.num_samples, self.replacement, generator=self.generator)
        yield from iter(drawn.tolist())

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups the keys of `sampler` (any iterable) into lists of batch_size; drop_last drops a short tail."""

    def __init__(self, sampler, batch_size, drop_last):
        if not _is_strict_int(batch_size) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        keys = iter(self.sampler)
        while True:
            batch = list(itertools.islice(keys, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
