"""Issue 8 leftovers found while benchmarking the catalog (benchmarks/run_catalog1.py).

- Meta tensors: PyTorch's meta functions compute shapes and dtypes only, so they accept the dtypes
  its CPU kernels refuse (fmod of bool, hypot of ints, ...) and check no memory overlap (there is no
  memory). torchlite ran the CPU kernels' dtype checks and its overlap checks on meta tensors too.
- Small blocks now come from malloc aligned by hand (per-call speed): data stays 64-byte aligned.
"""
import pytest
import torch

import torchlite as tl

from conftest import error_types_like

UNARY = ["abs", "floor", "ceil", "round", "trunc", "frac", "neg", "sin", "exp", "sign", "isnan", "logical_not",
         "bitwise_not"]
BINARY = ["fmod", "remainder", "gcd", "lcm", "hypot", "nextafter", "heaviside", "logaddexp", "logaddexp2", "add",
          "mul", "atan2", "maximum", "eq", "logical_and", "bitwise_and", "copysign", "floor_divide"]
DTYPES = ["float32", "int32", "bool"]


def _same_outcome(fn):
    """fn(lib) in both libraries: both succeed with the same shape and dtype, or both raise alike."""
    try:
        expected, err = fn(torch), None
    except Exception as e:  # noqa: BLE001 - compared below
        expected, err = None, e
    if err is not None:
        with pytest.raises(error_types_like(err)):
            fn(tl)
        return
    got = fn(tl)
    assert tuple(got.shape) == tuple(expected.shape)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    assert got.device.type == "meta"


def _t(lib, dtype, n=4):
    return lib.ones(n, dtype=getattr(lib, dtype), device="meta")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", UNARY)
def test_meta_unary_dtypes_and_overlap(op, dtype):
    _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype)))
    _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype), out=_t(lib, dtype, 1).expand(4)))
    _same_outcome(lambda lib: (lambda x: getattr(lib, op)(x[:4], out=x[2:6]))(_t(lib, dtype, 8)))
    _same_outcome(lambda lib: getattr(_t(lib, dtype), op + "_")())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("op", BINARY)
def test_meta_binary_dtypes_and_overlap(op, dtype):
    _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype), _t(lib, dtype)))
    for out_dtype in DTYPES:
        _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype), _t(lib, dtype), out=_t(lib, out_dtype)))
    _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype), _t(lib, dtype), out=_t(lib, dtype, 1).expand(4)))
    _same_outcome(lambda lib: getattr(lib, op)(_t(lib, dtype), _t(lib, dtype, 3)))  # shapes still checked


def test_meta_heaviside_mixed_dtypes():
    _same_outcome(lambda lib: lib.heaviside(_t(lib, "float32"), _t(lib, "float64")))


def test_cpu_still_refuses():
    """The dtype and overlap errors stay on CPU tensors."""
    with pytest.raises(NotImplementedError, match="fmod"):
        tl.fmod(tl.ones(2, dtype=tl.bool), tl.ones(2, dtype=tl.bool))
    with pytest.raises(RuntimeError, match="hypot"):
        tl.hypot(tl.ones(2, dtype=tl.int32), tl.ones(2, dtype=tl.int32))
    with pytest.raises(RuntimeError, match="more than one element"):
        tl.exp(tl.ones(4), out=tl.empty(1).expand(4))
    with pytest.raises(RuntimeError, match="heaviside"):
        tl.heaviside(tl.ones(2), tl.ones(2, dtype=tl.float64))


@pytest.mark.parametrize("n", [0, 1, 3, 16, 17, 1000, 100_000, 2_000_000])
def test_small_and_large_blocks_aligned(n):
    ts = [tl.empty(n, dtype=tl.uint8) for _ in range(8)]
    for t in ts:
        if n:
            assert t.data_ptr() % 64 == 0
    x = tl.arange(n, dtype=tl.float32)
    assert tl.equal(x + 0, x)
    assert (x.sum().item() == pytest.approx(n * (n - 1) / 2, rel=1e-6)) if n else True
