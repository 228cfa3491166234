"""The CPU allocator keeps a few freed large blocks (4-34 MiB) for reuse (aten/core/BlockCache.h).

A reused block holds its last tensor's bytes, where a fresh one was all zero pages: every op whose
kernel accumulates into its output must zero it itself. These tests poison the cache with NaN-filled
blocks of exactly the output's size, then compare the op with PyTorch.
"""
import numpy as np
import pytest
import torch

import torchlite as tl

MiB = 1 << 20


def poison(nbytes):
    """Leaves blocks of `nbytes` full of NaN in the cache (the allocator gives them out first)."""
    blocks = [tl.full((nbytes // 4,), float("nan")) for _ in range(2)]
    del blocks


def check(tl_result, torch_result):
    np.testing.assert_array_equal(tl_result.numpy(), torch_result.numpy())


cache_on = pytest.mark.skipif(not tl._C._block_cache_enabled(),
                              reason="the sanitizer build keeps no freed blocks (a reuse would hide a use after free)")


@cache_on
def test_reused_block_reaches_the_next_tensor_of_its_size():
    # The point of the cache: the second tensor gets the first one's block (and its bytes).
    a = tl.full((3 * MiB,), 7.0)
    ptr = a.data_ptr()
    del a
    b = tl.empty(3 * MiB)
    assert b.data_ptr() == ptr
    assert float(b[0]) == 7.0


def test_blocks_of_another_size_are_not_reused():
    a = tl.full((3 * MiB,), 7.0)
    ptr = a.data_ptr()
    del a
    b = tl.empty(5 * MiB)  # a different 2 MiB size class
    assert b.data_ptr() != ptr


def test_allocated_bytes_exclude_cached_blocks():
    before = tl._C._cpu_allocated_bytes()
    a = tl.empty(3 * MiB)
    assert tl._C._cpu_allocated_bytes() == before + 12 * MiB
    del a
    assert tl._C._cpu_allocated_bytes() == before


n = 3 * MiB  # float32 elements: 12 MiB outputs


@pytest.mark.parametrize(
    "name, call",
    [
        ("zeros", lambda m: m.zeros(n)),
        ("zeros_like", lambda m: m.zeros_like(m.ones(n))),
        ("new_zeros", lambda m: m.ones(2).new_zeros(n)),
        ("sum over dim", lambda m: m.ones(n, 3).sum(1)),
        ("bincount", lambda m: m.bincount(m.arange(0, n, 2), minlength=n).float()),
        ("histc", lambda m: m.histc(m.linspace(0, 1, 1000), bins=n)),
        ("index_add", lambda m: m.zeros(n).index_add(0, m.tensor([5, 5]), m.tensor([1.0, 2.0]))),
        ("scatter_add", lambda m: m.zeros(n).scatter_add(0, m.tensor([9, 9]), m.tensor([1.0, 2.0]))),
        ("one_hot", lambda m: m.nn.functional.one_hot(m.tensor([1, 3]), n // 2).float()),
        ("tril_indices", lambda m: m.tril_indices(1200, 1200).float()),
        ("cumsum", lambda m: m.ones(n).cumsum(0)),
        ("embedding backward", None),
    ],
)
def test_ops_that_accumulate_into_their_output_zero_it(name, call):
    if call is None:  # dense embedding gradient: accumulated into a (num_embeddings, dim) zero buffer
        def call(m):
            w = m.zeros(n // 4, 4, requires_grad=True)
            m.nn.functional.embedding(m.tensor([1, 1, 7]), w).sum().backward()
            return w.grad
    expected = call(torch)
    poison(expected.numel() * expected.element_size())
    check(call(tl), expected)
