"""out= of another dtype than the result's, for every op with an out= form (the first sample, float32
inputs): accepted, refused, and the values written, as in PyTorch. The forward suite passes out= of the
result's own dtype; this covers the per-family rules (unary ops that need the exact dtype, ops that cast
to any dtype the result converts to, comparisons into any dtype, aliases that follow their target)."""
import warnings

import pytest
import torch

import torchlite as tl
from codegen.model import SchemaKind
from conftest import assert_same, error_types_like, torch_result
from test_forward_generated import ENTRIES, _build, _callables, _variant

warnings.filterwarnings("ignore", message="An output with one or more elements was resized")

OUT_DTYPES = ["float64", "float16", "int64", "int16", "bool"]
CASES = [f for f in ENTRIES if _variant(f, SchemaKind.out) is not None and "random" not in f.tags
         and len(_variant(f, SchemaKind.out).schema.out_arguments) == 1]


# Strict xfails: (op, out dtype) where torchlite differs from PyTorch, with the reason (none at present).
KNOWN_OUT_DTYPE_GAPS: dict = {}


def _out_dtype_cases():
    for f in CASES:
        for d in OUT_DTYPES:
            gap = KNOWN_OUT_DTYPE_GAPS.get((str(f.schema.name), d))
            yield pytest.param(f, d, id=f"{f.schema.name}-{d}",
                               marks=[pytest.mark.xfail(reason=gap, strict=True)] if gap else [])


@pytest.mark.parametrize("f,out_dtype", list(_out_dtype_cases()))
def test_out_of_another_dtype_like_torch(f, out_dtype):
    sample = f.samples[0]
    t_fn, l_fn = _callables(f, "out", sample)

    def run(lib, fn, args, kwargs):
        out = lib.empty(0, dtype=getattr(lib, out_dtype))
        result = fn(args, {**kwargs, "out": out})
        assert result is out or lib is torch
        return out
    (t_args, t_kwargs), (l_args, l_kwargs) = _build(sample, "contiguous", "float32")
    expected, err = torch_result(lambda: run(torch, t_fn, t_args, t_kwargs))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            run(tl, l_fn, l_args, l_kwargs)
        return
    # The inputs are float32: a float64 out holds a float32 result, as close as float32 results are.
    tolerance = {"atol": 1e-5, "rtol": 1.3e-6} if out_dtype == "float64" else {}
    assert_same(run(tl, l_fn, l_args, l_kwargs), expected, **tolerance)


@pytest.mark.parametrize("call", [
    lambda m: m.clamp(m.tensor([1, -2, 3]), 0, 1, out=m.empty(3)),               # number bounds: exact
    lambda m: m.clamp(m.tensor([1, -2, 3]), 0.5, 1, out=m.empty(3)),             # promoted to float: ok
    lambda m: m.clamp_min(m.tensor([1.5, -2.5]), 0, out=m.empty(2, dtype=m.float64)),
    lambda m: m.clamp(m.tensor([1.5, -2.5]), m.zeros(2), None, out=m.empty(2, dtype=m.float64)),  # tensors: cast
    lambda m: m.clip(m.tensor([1, -2, 3]), 0, 1, out=m.empty(3)),
    lambda m: m.stack([m.ones(2), m.ones(2)], out=m.empty(0, dtype=m.int64)),    # cat's TypeError
    lambda m: m.stack([m.ones(2), m.ones(2)], out=m.empty(0, dtype=m.float64)),
    lambda m: m.multiply(m.tensor([1, 2]), 2, out=m.empty(2)),
    lambda m: m.arctan2(m.tensor([1.0]), m.tensor([2.0]), out=m.empty(1, dtype=m.float64)),
], ids=["clamp_int_out_float", "clamp_promoted", "clamp_min_out_f64", "clamp_tensor_bounds", "clip",
        "stack_unsafe", "stack_f64", "multiply_int_out_float", "arctan2_f64"])
def test_out_dtype_rules_with_integer_inputs_like_torch(call):
    expected, err = torch_result(lambda: call(torch))
    if err is not None:
        with pytest.raises(error_types_like(err)):
            call(tl)
        return
    assert_same(call(tl), expected)
