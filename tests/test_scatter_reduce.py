"""scatter with reduce= (PyTorch's scatter.reduce / scatter.value_reduce), against PyTorch: values for
every dtype come from the generated suites (samples in native_functions.yaml); here duplicates in
index order, errors, and the derivative PyTorch does not implement."""
import pytest
import torch

import torchlite as tl


def lib_call(lib, fn):
    try:
        return "ok", fn(lib).tolist()
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, str(e).split(": ", 1)[-1] if lib is tl else str(e)


CASES = {
    "duplicates_multiply": lambda lib: lib.ones(1, 4).scatter(1, lib.tensor([[1, 1, 1]]), lib.tensor([[2., 3., 4.]]),
                                                              reduce="multiply"),
    "duplicates_add_int": lambda lib: lib.zeros(2, 3, dtype=lib.int64).scatter(
        0, lib.tensor([[1, 1, 0], [1, 0, 0]]), lib.tensor([[5, 6, 7], [8, 9, 10]]), reduce="add"),
    "value_float_into_int": lambda lib: lib.ones(1, 4, dtype=lib.int64).scatter(1, lib.tensor([[1, 1]]), 2.5,
                                                                                 reduce="add"),
    "bool_add_is_or": lambda lib: lib.zeros(2, 2, dtype=lib.bool).scatter(1, lib.tensor([[0], [1]]),
                                                                          lib.ones(2, 1, dtype=lib.bool), reduce="add"),
    "bool_multiply_is_and": lambda lib: lib.ones(2, 2, dtype=lib.bool).scatter(
        1, lib.tensor([[0], [1]]), lib.zeros(2, 1, dtype=lib.bool), reduce="multiply"),
    "inplace": lambda lib: lib.ones(2, 3).scatter_(1, lib.tensor([[2], [0]]), 3.0, reduce="multiply"),
    "out": lambda lib: lib.scatter(lib.ones(2, 3), 1, lib.tensor([[2], [0]]), lib.full((2, 1), 2.0), reduce="add",
                                   out=lib.empty(0)),
    "int32_index": lambda lib: lib.ones(1, 4).scatter(1, lib.tensor([[3]], dtype=lib.int32), 2.0, reduce="add"),
    "zero_d": lambda lib: lib.tensor(1.0).scatter(0, lib.tensor(0), lib.tensor(3.0), reduce="add"),
    "empty_index": lambda lib: lib.ones(2, 3).scatter(1, lib.empty(2, 0, dtype=lib.int64), lib.ones(2, 2),
                                                      reduce="multiply"),
    "bad_reduce": lambda lib: lib.ones(2).scatter(0, lib.tensor([0]), lib.ones(1), reduce="mean"),
    "bad_reduce_value": lambda lib: lib.ones(2).scatter(0, lib.tensor([0]), 1.0, reduce="sum"),
    "out_of_bounds": lambda lib: lib.ones(1, 4).scatter(1, lib.tensor([[5]]), lib.tensor([[2.]]), reduce="add"),
    "dtype_mismatch": lambda lib: lib.ones(1, 4).scatter(1, lib.tensor([[1]]), lib.tensor([[2.]], dtype=lib.float64),
                                                         reduce="add"),
    "float_index": lambda lib: lib.ones(1, 4).scatter(1, lib.tensor([[1.0]]), 2.0, reduce="add"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_like_torch(case):
    got, expected = lib_call(tl, CASES[case]), lib_call(torch, CASES[case])
    assert got[0] == expected[0]
    if got[0] == "ok":
        assert got[1] == expected[1]


def test_reduce_checked_after_dim_and_shapes():
    """As PyTorch: a bad dim is an IndexError even when reduce= is bad too."""
    for lib in (tl, torch):
        with pytest.raises(IndexError):
            lib.ones(2).scatter(5, lib.tensor([0]), lib.ones(1), reduce="mean")


def test_messages_name_the_op():
    with pytest.raises(RuntimeError, match=r"^scatter\(\): reduce argument must be either add or multiply\.$"):
        tl.ones(2).scatter(0, tl.tensor([0]), tl.ones(1), reduce="mean")


@pytest.mark.parametrize("value", [False, True])
def test_backward_is_not_implemented_as_in_torch(value):
    for lib in (tl, torch):
        x = lib.ones(2, 3, requires_grad=True)
        src = 2.0 if value else lib.ones(2, 1, requires_grad=True)
        y = x.scatter(1, lib.tensor([[2], [0]]), src, reduce="add")
        assert y.requires_grad
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            y.sum().backward()
