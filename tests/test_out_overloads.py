"""out= overloads written by hand in native_functions.yaml, as PyTorch declares them
(`max.unary_out`, `min.unary_out`, `var_mean.correction_out`): the generator pairs each with its
functional overload, so Python reaches it as `out=`, against PyTorch."""
import warnings

import pytest
import torch

import torchlite as tl

warnings.filterwarnings("ignore", message="An output with one or more elements was resized")


def outcome(fn, lib):
    try:
        result = fn(lib)
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, None
    return "ok", (result.tolist(), str(result.dtype).split(".")[-1], tuple(result.shape))


DTYPES = ["float32", "float64", "int64", "int8", "uint8", "bool", "float16", "bfloat16"]


@pytest.mark.parametrize("op", ["max", "min"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("out_dtype", DTYPES)
@pytest.mark.parametrize("numel", [0, 1, 5])
def test_extremum_out_like_torch(op, dtype, out_dtype, numel):
    def run(lib):
        x = lib.tensor([3, -1, 4, -2, 0][:numel], dtype=lib.int64).to(getattr(lib, dtype))
        out = lib.full((2, 2), 9).to(getattr(lib, out_dtype))
        result = getattr(lib, op)(x, out=out)
        assert result is out
        return out
    assert outcome(run, tl) == outcome(run, torch)


@pytest.mark.parametrize("op", ["max", "min"])
def test_extremum_out_cases(op):
    for lib in (tl, torch):
        x = lib.tensor([[1.0, float("nan")], [3.0, -1.0]])
        r = getattr(lib, op)(x, out=lib.empty(0))
        assert (r != r).item()  # NaN wins
        strided = lib.zeros(4)[::2]
        getattr(lib, op)(lib.tensor([3.0, 1.0]), out=strided)
        with pytest.raises(RuntimeError, match="out=... arguments don't support automatic differentiation"):
            getattr(lib, op)(lib.ones(2, requires_grad=True), out=lib.empty(0))
        with pytest.raises(TypeError):  # a tuple is the out= of max(dim) only
            getattr(lib, op)(lib.ones(2), out=(lib.empty(0),))
        with pytest.raises(TypeError):  # no out= on the method, as in PyTorch
            getattr(lib.ones(2), op)(out=lib.empty(0))
        meta = getattr(lib, op)(lib.ones(3, device="meta"), out=lib.empty(0, device="meta"))
        assert meta.shape == () and meta.device.type == "meta"
        with pytest.raises(RuntimeError):
            getattr(lib, op)(lib.ones(3, device="meta"), out=lib.empty(0))
    assert "out=None" in tl.max.__doc__.splitlines()[0]


def test_var_mean_out_has_no_python_binding_as_in_torch():
    """PyTorch generates var_mean.correction_out / std_mean.correction_out (autogen) without a Python
    binding; torchlite has them in C++ (tl::var_mean_out) and, like PyTorch, not in Python."""
    for lib in (tl, torch):
        x = lib.arange(6.0).reshape(2, 3)
        for op in ("var_mean", "std_mean"):
            with pytest.raises(TypeError):
                getattr(lib, op)(x, 1, out=(lib.empty(0), lib.empty(0)))
            assert len(getattr(lib, op)(x, 1)) == 2
