"""multinomial and poisson draw PyTorch's CPU numbers for the same seed, bit for bit (docs/random.md):
many seeds, shapes, dtypes, layouts and both multinomial paths (the exponential race without
replacement or for one sample, the cumulative-sum search with replacement), Generator objects, out=,
and PyTorch's errors."""
import pytest
import torch

import torchlite as tl
from conftest import to_torch


def both(seed, fn):
    tl.manual_seed(seed)
    torch.manual_seed(seed)
    return fn(tl), fn(torch)


def same(a, b):
    got = to_torch(a)
    assert got.dtype == b.dtype and got.shape == b.shape, (got.dtype, b.dtype, got.shape, b.shape)
    if b.dtype.is_floating_point:
        itype = {2: torch.int16, 4: torch.int32, 8: torch.int64}[b.element_size()]
        assert torch.equal(got.view(itype), b.view(itype)), (got, b)
    else:
        assert torch.equal(got, b), (got, b)


def weights(lib, shape, dtype, seed):
    """Positive weights made from the same NumPy draw in both libraries (some zeros)."""
    import numpy as np
    rng = np.random.default_rng(seed)
    w = rng.random(shape) * (rng.random(shape) > 0.2)
    w.reshape(-1, shape[-1])[:, 0] += 0.5  # no all-zero row
    return lib.tensor(w.tolist(), dtype=getattr(lib, dtype))


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**40 + 3])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shape,n,replacement", [
    ((10,), 1, False), ((10,), 4, False), ((10,), 10, False), ((3, 17), 5, False), ((4, 9), 1, True),
    ((10,), 7, True), ((5, 33), 40, True), ((1, 1000), 16, False), ((2, 3), 3, False)])
def test_multinomial_matches_torch(seed, dtype, shape, n, replacement):
    a, b = both(seed, lambda lib: lib.multinomial(weights(lib, shape, dtype, seed), n, replacement))
    same(a, b)


@pytest.mark.parametrize("replacement", [False, True])
def test_multinomial_noncontiguous_and_method(replacement):
    def run(lib):
        w = weights(lib, (6, 8), "float32", 3)
        return [w.t().multinomial(3, replacement), w[:, ::2].multinomial(2, replacement=replacement),
                lib.multinomial(w[1], 4, replacement)]
    for a, b in zip(*both(11, run)):
        same(a, b)


def test_multinomial_a_sequence_of_calls_and_generators():
    def run(lib):
        g = lib.Generator().manual_seed(99)
        w = weights(lib, (3, 6), "float64", 5)
        return [lib.multinomial(w, 2, generator=g), lib.multinomial(w, 5, True, generator=g),
                lib.multinomial(w, 1), lib.randn(3), lib.multinomial(w[0], 6)]
    for a, b in zip(*both(21, run)):
        same(a, b)


def test_multinomial_out():
    def run(lib):
        w = weights(lib, (3, 6), "float32", 8)
        out = lib.empty(0, dtype=lib.int64)
        r = lib.multinomial(w, 4, True, out=out)
        assert r is out
        strided = lib.zeros(3, 8, dtype=lib.int64)[:, ::2]
        lib.multinomial(w, 4, out=strided)
        return [out, strided]
    for a, b in zip(*both(4, run)):
        same(a, b)


def test_multinomial_statistics():
    tl.manual_seed(0)
    p = tl.tensor([0.1, 0.2, 0.3, 0.4])
    draws = tl.multinomial(p, 40000, replacement=True)
    freq = [(draws == k).sum().item() / 40000 for k in range(4)]
    assert all(abs(f - q) < 0.01 for f, q in zip(freq, p.tolist()))
    without = tl.multinomial(p.expand(2000, 4), 2)  # first picks follow p, never repeated
    assert (without[:, 0] != without[:, 1]).all().item()
    first = [(without[:, 0] == k).sum().item() / 2000 for k in range(4)]
    assert all(abs(f - q) < 0.04 for f, q in zip(first, p.tolist()))


def test_multinomial_meta_and_empty():
    r = tl.multinomial(tl.ones(4, 5, device="meta"), 3)
    assert r.is_meta and r.shape == (4, 3) and r.dtype == tl.int64
    a = tl.multinomial(tl.empty(0, 3), 2, True)
    assert a.shape == (0, 2)
    x = tl.tensor([0.5, 0.5], requires_grad=True)
    assert not tl.multinomial(x, 1).requires_grad


@pytest.mark.parametrize("case", [
    lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 0),
    lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 3),
    lambda lib: lib.multinomial(lib.tensor(0.5), 1),
    lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1),
    lambda lib: lib.multinomial(lib.tensor([1, 2]), 1),
    lambda lib: lib.multinomial(lib.tensor([-1.0, 2.0]), 1),
    lambda lib: lib.multinomial(lib.tensor([-1.0, 2.0]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([float("inf"), 2.0]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([float("nan"), 2.0]), 1),
    lambda lib: lib.multinomial(lib.tensor([0.0, 0.0]), 1, True),
    lambda lib: lib.multinomial(lib.tensor([[1.0, 1.0], [0.0, 0.0]]), 2),
    lambda lib: lib.multinomial(lib.tensor([[1.0, 1.0], [0.0, 0.0]]), 2, True),
    lambda lib: lib.multinomial(lib.empty(0), 1, True),
    lambda lib: lib.multinomial(lib.empty(0), 2, True),
    lambda lib: lib.multinomial(lib.tensor([0.2, 0.8]), 1, out=lib.empty(1)),
])
def test_multinomial_errors_match_torch(case):
    with pytest.raises(RuntimeError):
        case(torch)
    with pytest.raises(RuntimeError, match="multinomial|aminmax"):
        case(tl)


# ---------------------------------------------------------------- poisson


@pytest.mark.parametrize("seed", [0, 3, 2024])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_poisson_matches_torch(seed, dtype):
    rates = [0.0, 1e-3, 0.5, 1.0, 3.7, 9.99, 10.0, 12.5, 57.0, 400.0, 1e4, 3e6]
    def run(lib):
        r = lib.tensor(rates * 5, dtype=getattr(lib, dtype)).reshape(5, -1)
        return [lib.poisson(r), lib.poisson(r.t()), lib.poisson(r[:, ::3])]
    for a, b in zip(*both(seed, run)):
        same(a, b)


def test_poisson_generator_and_sequence():
    def run(lib):
        g = lib.Generator().manual_seed(5)
        r = lib.full((100,), 4.5)
        return [lib.poisson(r, g), lib.poisson(r, generator=g), lib.rand(3), lib.poisson(r * 10)]
    for a, b in zip(*both(8, run)):
        same(a, b)


def test_poisson_infinite_rate_matches_torch():
    a, b = both(1, lambda lib: lib.poisson(lib.tensor([float("inf"), 2.0], dtype=lib.float64)))
    same(a, b)


def test_poisson_errors_and_gradient():
    for lib in (tl, torch):
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            lib.poisson(lib.tensor([1.0, -1.0]))
        with pytest.raises(RuntimeError, match="invalid Poisson rate"):
            lib.poisson(lib.tensor([float("nan")]))
        with pytest.raises(NotImplementedError):
            lib.poisson(lib.tensor([1, 2]))
    x = tl.tensor([1.0, 20.0], requires_grad=True)
    y = tl.poisson(x)
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0]
    assert tl.poisson(tl.ones(3, device="meta")).is_meta
