"""The argument parser of the generated bindings (torchlite/csrc/python_arg_parser.cpp):
overload resolution, keywords, int lists and varargs, Scalar/int/float/bool/dtype/device
conversions, and PyTorch-style TypeErrors. PyTorch is the oracle where it behaves the same."""
import numpy as np
import pytest
import torch

import torchlite as tl


def run(fn):
    """(kind, value): the result, or the exception type name and message."""
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - comparing behaviour, whatever it is
        return type(e).__name__, str(e)


def same_outcome(expr, check_message=True):
    """Evaluates `expr` with X=torch and X=torchlite and compares results (shapes/values) or errors."""
    t_kind, t_val = run(lambda: eval(expr, {"X": torch, "np": np}))
    l_kind, l_val = run(lambda: eval(expr, {"X": tl, "np": np}))
    assert l_kind == t_kind, (expr, t_val, l_val)
    if t_kind == "ok":
        if isinstance(t_val, torch.Tensor):
            assert tuple(l_val.shape) == tuple(t_val.shape), expr
            assert str(l_val.dtype).split(".")[-1] == str(t_val.dtype).split(".")[-1], expr
            if t_val.device.type == "cpu":
                np.testing.assert_array_equal(l_val.numpy(), t_val.numpy())
        elif isinstance(t_val, torch.Size):
            assert tuple(l_val) == tuple(t_val)
        else:
            assert str(l_val).replace("torchlite", "torch") == str(t_val), expr
    elif check_message:
        # torchlite's message starts with PyTorch's, then lists the valid signatures
        assert l_val.replace("torchlite", "torch").startswith(t_val), expr


# ---- error messages -------------------------------------------------------------------------

def test_invalid_combination_lists_call_types_and_signatures():
    with pytest.raises(TypeError) as info:
        tl.add(tl.ones(2), "x")
    msg = str(info.value)
    assert msg.startswith("add() received an invalid combination of arguments - got (Tensor, str), "
                          "but expected one of:\n")
    assert " * (Tensor input, Tensor other, *, Number alpha = 1, Tensor out = None)\n" in msg
    assert " * (Tensor input, Number other, Number alpha = 1)\n" in msg


def test_invalid_combination_shows_keywords_and_mismatched_types():
    with pytest.raises(TypeError) as info:
        tl.div(tl.ones(2), tl.ones(2), rounding_mode=3)
    msg = str(info.value)
    assert "got (Tensor, Tensor, rounding_mode=int)" in msg
    assert " * (Tensor input, Tensor other, *, str rounding_mode, Tensor out = None)\n" in msg
    # A signature whose argument count fits marks the arguments of the wrong type.
    assert "didn't match because some of the arguments have invalid types: (Tensor, !Tensor!, rounding_mode=!int!)" \
        in msg


def test_method_signatures_exclude_self():
    with pytest.raises(TypeError) as info:
        tl.ones(2).add("x")
    msg = str(info.value)
    assert "got (str)" in msg
    assert " * (Tensor other, *, Number alpha = 1)\n" in msg


@pytest.mark.parametrize("expr", [
    "X.transpose(X.ones(2), 0)",                        # missing
    "X.transpose(X.ones(2), 0, 1, 2)",                  # too many positional
    "X.transpose(X.ones(2), dim0=0, dim1=0, dim2=3)",   # unexpected keyword
    "X.transpose(X.ones(2, 3), 0, 1, dim0=1)",          # multiple values
    "X.transpose(X.ones(2), 0.5, 0)",                   # wrong type, positional
    "X.ones(2, 3).transpose(True, 0)",                  # bool is not an int
    "X.ones(2, 3).sum(0, 1)",                           # int is not a bool
    "X.ones(2).permute()",
    "X.zeros()",
    "X.zeros([2.0, 3])",                                # list element
    "X.zeros(2, 3.5)",                                  # varargs element
    "X.ones(2).view(2, 'x')",
    "X.ones(2).expand(1, 'x')",
    "X.ones(2, 3).permute(1, 0.5)",
    "X.zeros(2, 3, device=1.5)",
    "X.zeros((2, 3), dtype='x')",
    "X.full((2,), 'x', dtype=X.float32)",
    "X.full((2,), X.tensor(3.0, requires_grad=True))",  # a Scalar must not require grad
    "X.full((2,), X.tensor([3.0]))",                    # nor have dimensions
    "X.ones(2).expand((1, 2), 2)",
])
def test_single_signature_errors_match_pytorch(expr):
    same_outcome(expr)


def test_single_signature_error_also_lists_the_signature():
    with pytest.raises(TypeError) as info:
        tl.ones(2, 3).transpose(0)
    assert str(info.value) == ('transpose() missing 1 required positional arguments: "dim1"\n'
                               'Valid signatures for transpose():\n * (int dim0, int dim1)\n')


def test_errors_are_type_errors_with_the_function_name():
    for fn in (lambda: tl.ones(2).view(None), lambda: tl.sum(tl.ones(2), dtype="float"),
               lambda: tl.zeros(2, device=[1]), lambda: tl.ones(2).unsqueeze("0")):
        with pytest.raises(TypeError):
            fn()


# ---- keywords -------------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "X.add(input=X.ones(2), other=X.ones(2), alpha=3)",
    "X.ones(2).add(other=X.ones(2), alpha=2)",
    "X.ones(2).add(other=X.ones(2), **{'al' + 'pha': 2})",   # a keyword name that is not interned
    "X.ones(2, 3).sum(**{'di' + 'm': 1})",
    "X.ones(2, 3).sum(dim=(0, 1), keepdim=True)",
    "X.ones(2, 3).sum(dim=[0, 1], keepdim=True)",
    "X.ones(2, 3).sum(1, keepdim=True, dtype=X.float64)",
    "X.ones(2, 3).transpose(dim1=0, dim0=1)",
    "X.div(X.ones(3), 2, rounding_mode='floor')",
    "X.ones(3).div(2, rounding_mode=None)",
    "X.add(X.ones(2), X.ones(2), out=None)",
    "X.ones(2).to(dtype=X.float64)",
    "X.ones(2).to(device='meta', dtype=X.int32)",
    "X.arange(start=1, end=7, step=2)",
    "X.full(size=(2,), fill_value=3)",
])
def test_keywords(expr):
    same_outcome(expr)


def test_out_keyword_writes_into_the_given_tensor():
    out = tl.empty(2)
    result = tl.add(tl.ones(2), tl.ones(2), out=out)
    assert result is out
    assert out.tolist() == [2.0, 2.0]


# ---- int lists --------------------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "X.ones(2, 3).view(3, 2)",
    "X.ones(2, 3).view((3, 2))",
    "X.ones(2, 3).view([3, 2])",
    "X.ones(2, 3).view(X.Size([3, 2]))",
    "X.ones(2, 3).view(-1)",
    "X.ones(2, 3).view(6)",
    "X.ones(2, 3).view(3, np.int64(2))",
    "X.ones(2, 3).view(X.tensor(3), 2)",                 # 0-d integer tensors as list elements
    "X.ones(6).view((X.tensor(3), 2))",
    "X.ones(2, 3).view(3, X.tensor(2.))",                # ... but not float tensors
    "X.ones(2, 3).permute(1, 0)",
    "X.ones(2, 3).permute([1, 0])",
    "X.ones(2, 1).expand(2, -1)",
    "X.ones(2, 1).expand((2, 4))",
    "X.zeros(2, 3)",
    "X.zeros((2, 3))",
    "X.zeros([2, 3])",
    "X.zeros(X.Size([2, 3]))",
    "X.zeros([])",
    "X.zeros(())",
    "X.zeros(0)",
    "X.reshape(X.ones(6), (2, 3))",
    "X.reshape(X.ones(6), [3, -1])",
    "X.ones(2, 3).reshape(3, 2)",
    "X.ones(2, 3).sum(0)",                               # int[1] takes a single int
    "X.ones(2, 3).sum((0, 1))",
    "X.ones(2, 3).mean([1])",
    "X.ones(1, 3, 1).squeeze((0, 2))",
    "X.empty_strided((2, 3), (1, 2)).stride()",
])
def test_int_lists(expr):
    same_outcome(expr)


def test_int_list_does_not_take_bools_or_floats():
    for fn in (lambda: tl.zeros([2, True]), lambda: tl.zeros((2.0,)), lambda: tl.ones(4).view(2, 2.0),
               lambda: tl.ones(4).view("4")):
        with pytest.raises(TypeError):
            fn()


# ---- scalars, ints, floats, bools ------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "X.ones(2).add(X.tensor(3.))",                          # a 0-d tensor matches Tensor first
    "X.full((2,), X.tensor(3))",                            # ... and Scalar where only that fits
    "X.full((2,), X.tensor(2.5))",
    "X.full((2,), True)",
    "X.full((2,), np.float32(1.5))",
    "X.full((2,), np.int16(7))",
    "X.ones(2, 3).mul(np.float32(2))",
    "X.ones(2, 3, dtype=X.int32).add(np.int64(2))",
    "X.ones(2, 3, dtype=X.int32).add(2.5)",
    "X.ones(2, 3).transpose(np.int32(1), 0)",
    "X.ones(2, 3).transpose(X.tensor(1), 0)",              # 0-d integer tensor as int
    "X.ones(2, 3).transpose(X.tensor(1.), 0)",
    "X.ones(2, 3).select(0, -1)",
    "X.arange(np.int64(4))",
    "X.arange(np.float32(3))",
    "X.arange(1, 2.5, 0.5)",
    "X.ones(3).pow(2)",
    "X.pow(2, X.arange(3))",
])
def test_number_arguments(expr):
    same_outcome(expr)


def test_huge_ints_are_rejected():
    with pytest.raises((RuntimeError, OverflowError)):
        tl.ones(2).add(2 ** 70)


def test_python_numbers_as_tensors_for_arithmetic_functions():
    # add/sub/mul/div/floor_divide accept a number where a Tensor goes, as a wrapped number.
    for name in ("add", "sub", "mul", "div", "floor_divide"):
        a = getattr(tl, name)(7, tl.tensor([1, 2, 3], dtype=tl.int32))
        b = getattr(torch, name)(7, torch.tensor([1, 2, 3], dtype=torch.int32))
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1], name
        assert a.tolist() == b.tolist(), name
    # but not for other functions
    with pytest.raises(TypeError):
        tl.mm(2, tl.ones(2, 2))


# ---- dtypes and devices ----------------------------------------------------------------------

@pytest.mark.parametrize("expr", [
    "X.zeros(2, dtype=X.int32)",
    "X.zeros(2, dtype=float)",     # Python types name dtypes: float64, int64, bool
    "X.zeros(2, dtype=int)",
    "X.zeros(2, dtype=bool)",
    "X.ones(2).to(X.float16)",
    "X.ones(2).to(X.ones(1, dtype=X.int32))",
    "X.zeros(2, 3, device='meta').device",
    "X.zeros(2, 3, device=X.device('meta')).device",
    "X.zeros(2, 3, device='cpu:0').device",
    "X.zeros(2, 3, device='cpu').device",
    "X.ones(2).to('meta').device",
])
def test_dtype_and_device_arguments(expr):
    same_outcome(expr)


def test_invalid_device_string_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="gpu"):
        tl.zeros(2, device="gpu")
    with pytest.raises(RuntimeError):
        tl.zeros(2, device="cpu:1")


# ---- operators ----------------------------------------------------------------------------------

def test_operators_return_not_implemented_for_unsupported_operands():
    t = tl.ones(2)
    assert t.__add__("a") is NotImplemented
    assert t.__eq__(None) is NotImplemented
    with pytest.raises(TypeError, match="unsupported operand"):
        t + "a"
    with pytest.raises(TypeError, match="unsupported operand"):
        "a" - t
    assert (t == None) is False  # noqa: E711
    assert (t != None) is True  # noqa: E711


def test_kernel_type_errors_are_not_swallowed_by_operators():
    # An argument-parsing failure gives NotImplemented; an error inside the op keeps its message.
    with pytest.raises(RuntimeError):
        tl.ones(2) + tl.ones(3)


@pytest.mark.parametrize("expr", [
    "X.arange(1, 5) + 1", "1 + X.arange(1, 5)", "X.arange(1, 5) - 1", "3 - X.arange(1, 5)",
    "X.arange(1, 5) * 2.5", "2.5 * X.arange(1, 5)", "X.arange(1, 5) / 2", "2 / X.arange(1, 5)",
    "X.arange(1, 5) // 2", "7 // X.arange(1, 5)", "X.arange(1, 5) ** 2", "2 ** X.arange(1, 5)",
    "2.0 ** X.arange(1, 5)", "-X.arange(1, 5)", "abs(X.arange(-2, 2))", "X.arange(4.) @ X.arange(4.)",
    "X.arange(4) == 2", "2 == X.arange(4)", "X.arange(4) < 2", "2 < X.arange(4)", "X.arange(4) >= X.arange(4)",
    "X.arange(4) != 1",
    "X.ones(2) * np.ones(2)",
])
@pytest.mark.filterwarnings("ignore::DeprecationWarning")  # torch's __array_wrap__ signature (NumPy 2)
def test_operators(expr):
    same_outcome(expr)


def test_inplace_operators_keep_the_object():
    t = tl.ones(3)
    ident = id(t)
    t += 1
    t *= 3
    t -= tl.ones(3)
    t /= 2
    assert id(t) == ident
    assert t.tolist() == [2.5, 2.5, 2.5]


def test_reflected_dunder_methods_can_be_called_directly():
    t = tl.tensor([1.0, 2.0])
    assert t.__radd__(1).tolist() == [2.0, 3.0]
    assert t.__rsub__(1).tolist() == [0.0, -1.0]
    assert t.__rtruediv__(1).tolist() == [1.0, 0.5]
    assert t.__rpow__(2).tolist() == [2.0, 4.0]
