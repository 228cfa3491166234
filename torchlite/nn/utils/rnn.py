"""Packed sequences (torch.nn.utils.rnn): a batch of variable-length sequences stored step by step
without padding, which the recurrent modules run over (each step on the sequences still running).

Packing and unpacking are the ops `_pack_padded_sequence`, `_pad_packed_sequence` and `pad_sequence`
(aten/native/cpu/PackedSequenceKernels.cpp), so gradients flow through them; this module adds
PyTorch's Python layer: sorting (enforce_sorted=False), the PackedSequence tuple and the helpers
(docs/kernels/packed_sequence.md)."""
from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import torchlite as _torchlite
from torchlite import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence", "pad_packed_sequence", "pad_sequence",
           "unpad_sequence", "pack_sequence", "unpack_sequence"]


class PackedSequence_(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


def bind(optional, fn):
    """fn(optional), or None when it is None."""
    return None if optional is None else fn(optional)


class PackedSequence(PackedSequence_):
    """The packed batch: `data` (sum(lengths), *) holds step 0's rows of every sequence, then step 1's
    rows of the sequences longer than 1, ...; `batch_sizes` (int64, on the CPU) the number of rows of
    each step; `sorted_indices` the batch order the packing used (sequences by decreasing length) and
    `unsorted_indices` its inverse, None when the batch was already sorted.

    Make one with pack_padded_sequence or pack_sequence rather than by hand."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        return super().__new__(cls, *_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))

    def pin_memory(self):
        raise RuntimeError("pin_memory: torchlite has no pinned memory (it runs on the CPU only)")

    def to(self, *args, **kwargs):
        """The sequence with `data` converted as Tensor.to converts it; the indices follow its device,
        `batch_sizes` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        sorted_indices = bind(self.sorted_indices, lambda t: t.to(data.device))
        unsorted_indices = bind(self.unsorted_indices, lambda t: t.to(data.device))
        return type(self)(data, self.batch_sizes, sorted_indices, unsorted_indices)

    def cuda(self, *args, **kwargs):
        kwargs["device"] = "cuda"
        return self.to(*args, **kwargs)

    def cpu(self, *args, **kwargs):
        kwargs["device"] = "cpu"
        return self.to(*args, **kwargs)

    def double(self):
        return self.to(dtype=_torchlite.double)

    def float(self):
        return self.to(dtype=_torchlite.float)

    def half(self):
        return self.to(dtype=_torchlite.half)

    def long(self):
        return self.to(dtype=_torchlite.long)

    def int(self):
        return self.to(dtype=_torchlite.int)

    def short(self):
        return self.to(dtype=_torchlite.short)

    def char(self):
        return self.to(dtype=_torchlite.int8)

    def byte(self):
        return self.to(dtype=_torchlite.uint8)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        """False: torchlite has no pinned memory."""
        return False


def _packed_sequence_init_args(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    if unsorted_indices is None:
        unsorted_indices = invert_permutation(sorted_indices)
    if batch_sizes is not None:
        if batch_sizes.device.type != "cpu":
            raise ValueError("batch_sizes should always be on CPU. Instances of PackedSequence should never be created "
                             "manually. They should be instantiated by functions like pack_sequence and "
                             "pack_padded_sequences in nn.utils.rnn. "
                             "https://pytorch.org/docs/stable/nn.html#torch.nn.utils.rnn.pack_sequence")
        return data, batch_sizes, sorted_indices, unsorted_indices
    # PackedSequence((data, batch_sizes)): the pair the packing op returns.
    if not (isinstance(data, (list, tuple)) and len(data) == 2):
        raise AssertionError("Expected data to be a list or tuple of length 2")
    return data[0], data[1], sorted_indices, unsorted_indices


def _packed_sequence_init(data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
    return PackedSequence(*_packed_sequence_init_args(data, batch_sizes, sorted_indices, unsorted_indices))


def invert_permutation(permutation):
    """The permutation p' with p'[p[i]] = i (None for None)."""
    if permutation is None:
        return None
    output = _torchlite.empty_like(permutation, memory_format=_torchlite.contiguous_format)
    output.scatter_(0, permutation, _torchlite.arange(0, permutation.numel(), device=permutation.device))
    return output


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Packs the padded batch `input` (T, B, *) ((B, T, *) with `batch_first`) of sequences of the given
    `lengths`. With `enforce_sorted` the lengths must decrease; otherwise the batch is sorted first and
    the PackedSequence remembers the order."""
    if not isinstance(lengths, Tensor):
        lengths = _torchlite.as_tensor(lengths, dtype=_torchlite.int64, device="cpu")
    else:
        lengths = lengths.to(dtype=_torchlite.int64)
    if enforce_sorted:
        sorted_indices = None
    else:
        lengths, sorted_indices = _torchlite.sort(lengths, descending=True)
        sorted_indices = sorted_indices.to(input.device)
        input = input.index_select(0 if batch_first else 1, sorted_indices)
    data, batch_sizes = _torchlite._pack_padded_sequence(input, lengths, batch_first)
    return _packed_sequence_init(data, batch_sizes, sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """The padded batch (T, B, *) ((B, T, *) with `batch_first`) of a PackedSequence, in the batch's
    original order, and the sequences' lengths; T is `total_length` when given (at least the longest)."""
    max_seq_length = sequence.batch_sizes.size(0)
    if total_length is not None:
        if total_length < max_seq_length:
            raise ValueError("Expected total_length to be at least the length of the longest sequence in input, but "
                             f"got total_length={total_length} and max sequence length being {max_seq_length}")
        max_seq_length = total_length
    padded, lengths = _torchlite._pad_packed_sequence(sequence.data, sequence.batch_sizes, batch_first,
                                                      padding_value, max_seq_length)
    if sequence.unsorted_indices is not None:
        return (padded.index_select(0 if batch_first else 1, sequence.unsorted_indices),
                lengths[sequence.unsorted_indices.cpu()])
    return padded, lengths


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stacks the sequences (L_i, *) into (T, B, *) ((B, T, *) with `batch_first`), padding each with
    `padding_value` on its `padding_side` ('right' or 'left') up to the longest length T."""
    if not isinstance(sequences, Iterable):
        raise RuntimeError(f"pad_sequence: Expected iterable for input sequences, but got arg of type: "
                           f"{type(sequences)}")
    return _torchlite._C._nn.pad_sequence(tuple(sequences), batch_first, padding_value, padding_side)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences of a padded batch, each cut to its length. Like PyTorch's, it transposes
    `padded_sequences` in place when not `batch_first`."""
    if not batch_first:
        padded_sequences.transpose_(0, 1)
    idx = _torchlite.arange(padded_sequences.shape[1], device=lengths.device)
    return [seq[idx < length] for seq, length in zip(padded_sequences, lengths, strict=True)]


def pack_sequence(sequences, enforce_sorted=True):
    """Packs a list of sequences (L_i, *) (sorted by decreasing length unless not `enforce_sorted`)."""
    lengths = _torchlite.as_tensor([v.size(0) for v in sequences])
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences of a PackedSequence, in their original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)


del annotations  # torch's module has no such name
