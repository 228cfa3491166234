"""torchlite.promote_types, result_type and can_cast against PyTorch, for every pair of the ten dtypes and for the
tensor / 0-d tensor / Python number categories of result_type."""
import itertools

import pytest
import torch

import torchlite as tl
from conftest import DTYPES, dtype_name, error_types_like, make, from_torch, tl_dtype, torch_dtype, torch_result

PAIRS = list(itertools.product(DTYPES, DTYPES))


@pytest.mark.parametrize("a,b", PAIRS)
def test_promote_types(a, b):
    got = tl.promote_types(tl_dtype(a), tl_dtype(b))
    want = torch.promote_types(torch_dtype(a), torch_dtype(b))
    assert dtype_name(got) == dtype_name(want)
    assert isinstance(got, tl.dtype)
    # symmetric
    assert tl.promote_types(tl_dtype(b), tl_dtype(a)) == got


def test_promote_types_notable_pairs():
    """Spelled out for readers (each is also checked against torch above)."""
    for a, b in [("uint8", "int8"), ("bool", "uint8"), ("float16", "bfloat16"), ("int64", "float16"),
                 ("uint8", "bool"), ("int32", "int64")]:
        assert dtype_name(tl.promote_types(tl_dtype(a), tl_dtype(b))) == \
            dtype_name(torch.promote_types(torch_dtype(a), torch_dtype(b)))


def test_promote_types_errors():
    with pytest.raises(TypeError):
        tl.promote_types(tl.float32, "float64")
    with pytest.raises(TypeError):
        tl.promote_types(tl.float32)
    with pytest.raises(TypeError):
        tl.promote_types(1, 2)


@pytest.mark.parametrize("a,b", PAIRS)
def test_can_cast(a, b):
    """can_cast(from, to): no float -> integer, no non-bool -> bool, no to a lower category; within a category
    anything goes (float64 -> float16 is True)."""
    got = tl.can_cast(tl_dtype(a), tl_dtype(b))
    assert got is torch.can_cast(torch_dtype(a), torch_dtype(b))


# ---------------------------------------------------------------- result_type

@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_tensor_tensor(a, b):
    """Two dimensioned tensors: the same as promote_types."""
    ta, tb = make((2,), a, 1), make((3, 1), b, 2)
    got = tl.result_type(from_torch(ta), from_torch(tb))
    assert dtype_name(got) == dtype_name(torch.result_type(ta, tb))


@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_tensor_zero_dim(a, b):
    """A 0-d tensor only counts when its category (bool < integer < floating) is higher than the dimensioned
    tensor's: int32 with a 0-d int64 gives int32, int32 with a 0-d float64 gives float64, float16 with a 0-d
    float64 gives float16."""
    ta, tb = make((3,), a, 3), make((), b, 4)
    x, y = from_torch(ta), from_torch(tb)
    assert dtype_name(tl.result_type(x, y)) == dtype_name(torch.result_type(ta, tb))
    assert dtype_name(tl.result_type(y, x)) == dtype_name(torch.result_type(tb, ta))


@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_zero_dim_zero_dim(a, b):
    ta, tb = make((), a, 5), make((), b, 6)
    assert dtype_name(tl.result_type(from_torch(ta), from_torch(tb))) == dtype_name(torch.result_type(ta, tb))


NUMBERS = [True, False, 0, 2, -3, 300, 2 ** 40, 2.5, -0.5, float("inf"), float("nan"), 1e300]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("number", NUMBERS, ids=repr)
def test_result_type_tensor_number(dtype, number):
    """A Python number only lifts the category: uint8 tensor + 300 stays uint8, int tensor + 2.5 gives the default
    float dtype, float16 tensor + 1e300 stays float16, bool tensor + 2 gives int64."""
    t = make((2, 2), dtype, 7)
    x = from_torch(t)
    assert dtype_name(tl.result_type(x, number)) == dtype_name(torch.result_type(t, number))
    assert dtype_name(tl.result_type(number, x)) == dtype_name(torch.result_type(number, t))
    z = make((), dtype, 8)
    assert dtype_name(tl.result_type(from_torch(z), number)) == dtype_name(torch.result_type(z, number))


@pytest.mark.parametrize("a,b", list(itertools.product(NUMBERS[:8], NUMBERS[:8])), ids=repr)
def test_result_type_number_number(a, b):
    want, err = torch_result(lambda: torch.result_type(a, b))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            tl.result_type(a, b)
        return
    assert dtype_name(tl.result_type(a, b)) == dtype_name(want)


def test_result_type_meta_tensors():
    x = tl.empty(3, dtype=tl.int32, device="meta")
    y = tl.empty((), dtype=tl.float64, device="meta")
    assert dtype_name(tl.result_type(x, y)) == dtype_name(
        torch.result_type(torch.empty(3, dtype=torch.int32, device="meta"),
                          torch.empty((), dtype=torch.float64, device="meta")))
    assert tl.result_type(x, 2.5) == tl.float32


def test_result_type_matches_binary_ops():
    """result_type is what add/mul actually produce, for the three categories of operands."""
    for a, b in [("uint8", "int8"), ("int32", "float16"), ("bool", "int16"), ("bfloat16", "float16")]:
        x, y = tl.ones(2, dtype=tl_dtype(a)), tl.ones(2, dtype=tl_dtype(b))
        assert tl.add(x, y).dtype == tl.result_type(x, y)
        z = tl.ones((), dtype=tl_dtype(b))
        assert tl.mul(x, z).dtype == tl.result_type(x, z)
        assert (x + 2.5).dtype == tl.result_type(x, 2.5)


def test_result_type_errors():
    for args in [("a", tl.ones(2)), (tl.ones(2), None), (tl.ones(2),), (tl.float32, tl.ones(2))]:
        want, err = torch_result(lambda: torch.result_type(*[torch.ones(2) if isinstance(v, tl.Tensor)
                                                              else (torch.float32 if v is tl.float32 else v)
                                                              for v in args]))
        assert err is not None
        with pytest.raises(error_types_like(err)):
            tl.result_type(*args)


@pytest.mark.parametrize("a,b", PAIRS)
def test_can_cast_matches_inplace_rule(a, b):
    """x.add_(y) is allowed exactly when can_cast(result_type(x, y), x.dtype) (docs/architecture.md)."""
    x = tl.ones(2, dtype=tl_dtype(a))
    y = tl.ones(2, dtype=tl_dtype(b))
    allowed = tl.can_cast(tl.result_type(x, y), x.dtype)
    tx, ty = torch.ones(2, dtype=torch_dtype(a)), torch.ones(2, dtype=torch_dtype(b))
    _, err = torch_result(lambda: tx.add_(ty))
    if a == "bool" and b == "bool":
        # add of two bools is logical or in torch and allowed in place.
        assert err is None
    assert allowed == (err is None)
    if allowed:
        x.add_(y)
        assert x.dtype == tl_dtype(a)
    else:
        with pytest.raises(RuntimeError):
            x.add_(y)
