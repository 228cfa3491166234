"""PyTorch's random streams: for the same seed torchlite draws PyTorch's numbers bit for bit
(docs/random.md). The generated forward suite compares every random op on its samples; these tests
cover what samples cannot: long and mixed call sequences, the generator state and its bytes,
Generator objects, large ranges, and odd sizes and layouts."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import to_torch


def same(a, b):
    """Bitwise equality of a torchlite and a torch tensor (NaNs included)."""
    got = to_torch(a)
    assert got.dtype == b.dtype and got.shape == b.shape, (got.dtype, b.dtype, got.shape, b.shape)
    if b.dtype.is_floating_point:
        itype = {2: torch.int16, 4: torch.int32, 8: torch.int64}[b.element_size()]
        assert torch.equal(got.view(itype), b.view(itype)), (got, b)
    else:
        assert torch.equal(got, b), (got, b)


def both(seed, fn):
    """fn(lib) run in each library after manual_seed(seed): (torchlite result, torch result)."""
    tl.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(tl), fn(torch)


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 + 7, 2**63 + 5])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("n", [1, 15, 16, 17, 1000, 4099])
def test_rand_and_randn_match_torch(seed, dtype, n):
    for name in ("rand", "randn"):
        a, b = both(seed, lambda lib: getattr(lib, name)(n, dtype=getattr(lib, dtype)))
        same(a, b)


def test_a_long_mixed_sequence_matches_torch():
    def run(lib):
        out = [lib.rand(5), lib.randn(3), lib.randn(40), lib.randn(1), lib.randn(1, dtype=lib.float64),
               lib.randint(0, 10, (7,)), lib.randperm(30), lib.rand(100, dtype=lib.float64)]
        x = lib.empty(6, 7)
        out += [x.normal_(2.0, 0.5).clone(), x.t().uniform_(-1, 1).clone(), x[:, ::2].normal_().clone(),
                x.exponential_(3.0).clone(), x.cauchy_().clone(), x.log_normal_().clone()]
        out += [lib.empty(50, dtype=lib.int64).random_().clone(), lib.empty(9, dtype=lib.int16).random_(-5, 5),
                lib.bernoulli(lib.full((20,), 0.3)), lib.empty(20).bernoulli_(0.7),
                lib.normal(lib.zeros(4, 5), 2.0), lib.normal(1.0, lib.ones(17)), lib.randn(2, 3)]
        return out
    for a, b in zip(*both(1234, run)):
        same(a, b)


def test_the_normal_cache_is_shared_between_calls_and_reset_by_seeding():
    # An odd number of small draws leaves the second Box-Muller sample cached for the next call.
    def run(lib):
        return [lib.randn(3, dtype=lib.float64), lib.randn(1), lib.randn(5, 2).t().contiguous()]
    for a, b in zip(*both(9, run)):
        same(a, b)
    tl.manual_seed(9)
    first = tl.randn(1)
    tl.randn(1)
    tl.manual_seed(9)
    assert tl.randn(1).item() == first.item()


@pytest.mark.parametrize("dtype", ["int64", "float32", "float64", "bfloat16"])
def test_random_ranges_that_need_64_bits(dtype):
    lo, hi = (-2**40, 2**40) if dtype == "int64" else (0, 2**24 if dtype == "float32" else 256)
    a, b = both(5, lambda lib: lib.empty(100, dtype=getattr(lib, dtype)).random_(lo, hi))
    same(a, b)
    a, b = both(5, lambda lib: lib.empty(100, dtype=getattr(lib, dtype)).random_(-2**63, None))
    same(a, b)


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                                   "float32", "float64"])
def test_random_without_bounds_every_dtype(dtype):
    a, b = both(3, lambda lib: lib.empty(64, dtype=getattr(lib, dtype)).random_())
    same(a, b)
    a, b = both(3, lambda lib: lib.empty(64, dtype=getattr(lib, dtype)).random_(1, None))
    same(a, b)


def test_randperm_matches_torch():
    for n in (0, 1, 2, 10, 1000):
        a, b = both(11, lambda lib: lib.randperm(n))
        same(a, b)
    a, b = both(11, lambda lib: lib.randperm(300, dtype=lib.float32))
    same(a, b)


def test_generator_objects_and_state_bytes_interchange_with_torch():
    g, tg = tl.Generator().manual_seed(77), torch.Generator().manual_seed(77)
    same(tl.rand(10, generator=g), torch.rand(10, generator=tg))
    same(tl.randn(3, generator=g), torch.randn(3, generator=tg))  # leaves a cached normal
    state, tstate = g.get_state(), tg.get_state()
    assert state.shape == tstate.shape == (5056,)
    assert np.array_equal(state.numpy(), tstate.numpy())
    # torch's state restored into torchlite (and back) continues both streams alike.
    h = tl.Generator().set_state(tl.from_numpy(tstate.numpy().copy()))
    same(tl.randn(7, generator=h), torch.randn(7, generator=tg))
    th = torch.Generator().set_state(torch.from_numpy(h.get_state().numpy().copy()))
    same(tl.rand(9, generator=h), torch.rand(9, generator=th))


def test_global_state_round_trip_and_checks():
    tl.manual_seed(3)
    tl.randn(5)
    state = tl.get_rng_state()
    x = tl.rand(20)
    tl.set_rng_state(state)
    assert tl.equal(tl.rand(20), x) if hasattr(tl, "equal") else (tl.rand(20) == x).all().item()
    with pytest.raises(RuntimeError, match="size"):
        tl.set_rng_state(tl.zeros(16, dtype=tl.uint8))
    bad = state.clone()
    bad[8:12] = 0  # `left` = 0: no engine has that state
    with pytest.raises(RuntimeError, match="Invalid mt19937 state"):
        tl.set_rng_state(bad)


def test_initial_seeds_like_torch():
    assert tl.Generator().initial_seed() == torch.Generator().initial_seed() == 67280421310721
    tl.manual_seed(-1)
    torch.manual_seed(-1)
    assert tl.initial_seed() == torch.initial_seed() == 2**64 - 1
    same(tl.rand(4), torch.rand(4))


@pytest.mark.parametrize("call, error", [
    (lambda lib: lib.empty(3).uniform_(2, 1), RuntimeError),
    (lambda lib: lib.empty(3).normal_(0, -1), RuntimeError),
    (lambda lib: lib.empty(3, dtype=lib.int64).normal_(), NotImplementedError),
    (lambda lib: lib.empty(3).random_(5, 2), RuntimeError),
    (lambda lib: lib.empty(3, dtype=lib.uint8).random_(0, 300), RuntimeError),
    (lambda lib: lib.empty(3).bernoulli_(1.5), RuntimeError),
    (lambda lib: lib.empty(3).geometric_(0), RuntimeError),
    (lambda lib: lib.empty(3).exponential_(-1), RuntimeError),
    (lambda lib: lib.randperm(-1), RuntimeError),
    (lambda lib: lib.randint(5, 2, (3,)), RuntimeError),
    (lambda lib: lib.normal(lib.zeros(3), lib.full((3,), -1.0)), RuntimeError),
    (lambda lib: lib.empty(3).expand(2, 3).uniform_(), RuntimeError),
])
def test_bad_arguments_raise_like_torch(call, error):
    with pytest.raises(error):
        call(torch)
    with pytest.raises(error):
        call(tl)


def test_gradients_of_random_ops_like_torch():
    # Zero gradients where PyTorch has them; bernoulli(p=float) records a node whose backward raises.
    for lib in (tl, torch):
        m = lib.zeros(3, requires_grad=True)
        (g,) = lib.autograd.grad(lib.normal(m, 2.0).sum(), [m])
        assert g.tolist() == [0.0, 0.0, 0.0]
        x = lib.full((3,), 0.5, requires_grad=True)
        y = lib.bernoulli(x, 0.5)
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::bernoulli is not implemented"):
            y.sum().backward()
