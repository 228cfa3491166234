"""Deterministic per-rank inputs of every dtype, and the expected reductions computed with NumPy (float64 /
int64 / bool arithmetic on the values every rank can build for every other rank)."""
import numpy as np

import torchlite as tl

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def values(rank, shape=(2, 3), dtype="float32"):
    """Small integers (exact in every dtype, products of 4 ranks fit int8) or a bool pattern, per rank."""
    n = int(np.prod(shape))
    base = (np.arange(n) + rank) % 3 + 1
    if dtype == "bool":
        return ((np.arange(n) + rank) % 3 == 0).reshape(shape)
    if dtype in ("int8", "int16", "int32", "int64"):
        base = base * (-1) ** (np.arange(n) % 2)  # some negatives
    return base.reshape(shape).astype(np.float64)


def tensor(rank, shape=(2, 3), dtype="float32"):
    return tl.tensor(values(rank, shape, dtype).tolist(), dtype=getattr(tl, dtype))


def expected_reduce(op, size, shape=(2, 3), dtype="float32"):
    stack = np.stack([values(r, shape, dtype) for r in range(size)])
    if dtype == "bool":
        return {"SUM": stack.any(0), "MAX": stack.any(0), "BOR": stack.any(0), "PRODUCT": stack.all(0),
                "MIN": stack.all(0), "BAND": stack.all(0), "BXOR": np.logical_xor.reduce(stack, 0)}[op]
    if op in ("BAND", "BOR", "BXOR"):
        ints = stack.astype(np.int64)
        return {"BAND": np.bitwise_and, "BOR": np.bitwise_or, "BXOR": np.bitwise_xor}[op].reduce(ints, 0)
    return {"SUM": stack.sum(0), "PRODUCT": stack.prod(0), "MIN": stack.min(0), "MAX": stack.max(0),
            "AVG": stack.sum(0) / size}[op]


def as_list(t):
    """A tensor's values as float64 (bool as 0/1) nested lists, for comparing any dtype with NumPy."""
    return t.to(tl.float64).tolist()


def same(t, expected, dtype=None):
    got = np.array(as_list(t), dtype=np.float64)
    want = np.asarray(expected, dtype=np.float64)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.array_equal(got, want), f"{dtype}: got {got.tolist()}, expected {want.tolist()}"
