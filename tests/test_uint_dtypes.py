"""uint16, uint32 and uint64 against PyTorch: storing, converting (to(), tensor(), NumPy), printing,
the few ops PyTorch supports for them, and the same exception type where it does not.

These dtypes are not in conftest.DTYPES (the generated suites' time budget), so this file covers
them; each case is an expression evaluated with `t` bound to torch and to torchlite."""
import numpy as np
import pytest
import torch

import test_forward_generated as fwd
import torchlite as tl
from conftest import assert_same, dtype_name, error_types_like, sample_hint, torch_dtype, torch_result
from test_dtype_helpers import evaluate, same

UINTS = ["uint16", "uint32", "uint64"]
OTHERS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]


def check(expr, dtype):
    expr = expr.replace("D", f"t.{dtype}")
    expected = evaluate(expr, torch)
    got = evaluate(expr, tl)
    assert same(got, expected), f"{expr}: torchlite {got}, torch {expected}"


X = "t.tensor([3, 0, 7, 65535], dtype=D)"
Y = "t.tensor([1, 5, 7, 2], dtype=D)"

STORAGE = [
    X, "t.tensor([[1, 2], [3, 4]], dtype=D)", "t.tensor(5, dtype=D)", "t.tensor([], dtype=D)",
    "t.tensor([-1], dtype=D)", "t.tensor([-65535], dtype=D)", "t.tensor([-65536], dtype=D)", "t.tensor([70000], dtype=D)",
    "t.tensor([2**32 - 1], dtype=D)", "t.tensor([2**32], dtype=D)", "t.tensor([2**63], dtype=D)",
    "t.tensor([2**64 - 1], dtype=D)", "t.tensor([2**64], dtype=D)", "t.tensor([-2**63], dtype=D)",
    "t.tensor([1.5, 2.0], dtype=D)", "t.tensor([-1.5], dtype=D)", "t.tensor([65535.9], dtype=D)",
    "t.tensor([float('nan')], dtype=D)", "t.tensor([True, False], dtype=D)", "t.tensor([2**64 - 1], dtype=D).item()",
    "t.tensor([2**63 + 5], dtype=D).tolist()", "int(t.tensor([2**63 + 5], dtype=D))", "t.tensor(7, dtype=D).item()",
    "float(t.tensor(7, dtype=D))", "bool(t.tensor(7, dtype=D))", "[10, 20, 30][t.tensor(1, dtype=D)]",
    "t.zeros(2, 3, dtype=D)", "t.ones(3, dtype=D)", "t.full((2,), 7, dtype=D)", "t.full((2,), -1, dtype=D)",
    "t.full((2,), 2**40, dtype=D)", "t.empty(2, 3, dtype=D).shape", "t.zeros(2, dtype=D, device='meta')",
    "t.zeros_like(t.ones(2), dtype=D)", "t.arange(5, dtype=D)", "t.tensor([1, 2], dtype=D).dtype",
    "t.tensor([1, 2], dtype=D).element_size()", "t.tensor([1, 2], dtype=D).nbytes", "t.tensor([1, 2], dtype=D).type()",
    "t.tensor([1, 2], dtype=D).is_signed()", "t.tensor([1.0], requires_grad=True).to(D)",
    "t.tensor([1, 2], dtype=D).requires_grad_()", "t.ones(2, dtype=D, requires_grad=True)",
]

CONVERSIONS = [
    "t.tensor([1.5, 2.7, 0.0, 65535.0]).to(D)", "t.tensor([-1.0, 70000.0, -3.0, 1e9]).to(D)",
    "t.tensor([-1.0, 70000.0, 2.0**40], dtype=t.float64).to(D)",
    "t.tensor([float('inf'), -float('inf')]).to(D)", "t.tensor([-1, 70000, 2**40, -2**63]).to(D)",
    "t.tensor([-1, 127], dtype=t.int8).to(D)", "t.tensor([True, False]).to(D)", "t.tensor([200], dtype=t.uint8).to(D)",
    "t.tensor([1.5], dtype=t.float16).to(D)", "t.tensor([1.5], dtype=t.bfloat16).to(D)",
    f"{X}.to(t.float32)", f"{X}.to(t.float64)", f"{X}.to(t.float16)", f"{X}.to(t.bfloat16)", f"{X}.to(t.int64)",
    f"{X}.to(t.int8)", f"{X}.to(t.uint8)", f"{X}.to(t.bool)", f"{X}.to(t.uint16)", f"{X}.to(t.uint32)",
    f"{X}.to(t.uint64)", f"{X}.float()", f"{X}.double()", f"{X}.long()", f"{X}.int()", f"{X}.bool()",
    "t.tensor([2**64 - 1, 2**63], dtype=D).to(t.int64)", "t.tensor([2**64 - 1, 2**63], dtype=D).to(t.float64)",
    "t.tensor([2**64 - 1, 2**63], dtype=D).to(t.float32)", "t.tensor([2**64 - 1], dtype=D).to(t.uint32)",
    f"t.ones(4).to(D)", f"{X}.clone()", f"{X}.contiguous()", "t.tensor([[1, 2], [3, 4]], dtype=D).t().contiguous()",
    "t.tensor([[1, 2], [3, 4]], dtype=D).t().clone()", f"{X}.reshape(2, 2)", f"{X}[1:3]", f"{X}[::2]", f"{X}[1]",
    f"{X}.unsqueeze(0).expand(3, 4).contiguous()", f"t.zeros(4, dtype=D).copy_({X})",
    f"t.zeros(4, dtype=D).copy_(t.tensor([1.5, -1.0, 3.0, 4.0]))", f"t.zeros(4).copy_({X})",
    f"{X}.fill_(5)", f"{X}.fill_(-1)", f"{X}.fill_(2.5)", f"{X}.fill_(2**40)", f"{X}.zero_()",
]

NUMPY = [
    f"{X}.numpy().dtype.name", f"{X}.numpy().tolist()", "t.from_numpy(np.array([1, 2], dtype=np.uint16))",
    "t.from_numpy(np.array([1, 2**31], dtype=np.uint32))", "t.from_numpy(np.array([1, 2**63], dtype=np.uint64))",
    "t.tensor(np.array([1, 2], dtype=np.uint16))", "t.tensor(np.array([1, 2**40], dtype=np.uint64))",
    "t.as_tensor(np.array([4, 5], dtype=np.uint32))", "t.tensor(np.array([1, 2], dtype=np.uint16), dtype=t.float32)",
    "t.tensor([np.uint16(3), np.uint16(4)])", f"t.tensor(np.array([1.5, 2.5]), dtype=D)",
]

# The ops PyTorch 2.13 runs for these dtypes on CPU, and a selection of those it refuses.
OPS = [
    f"{X} == {Y}", f"{X} != {Y}", f"{X} == 7", f"{X}.eq(7)", f"{X}.ne(0)", f"{X} == 1.5", f"{X} * {Y}", f"{X} * 2",
    f"{X}.mul({Y})", f"{X} * 1.5", f"{X} * t.tensor(2)", f"{X} / 2", f"{X} / {Y}", f"{X}.sqrt()", f"{X}.exp()",
    f"{X}.sin()", f"{X}.sigmoid()", f"{X}.reciprocal()", f"{X}.sum()", f"{X}.prod()", f"{X}.sum(0)",
    f"{X}.sum(0, dtype=D)", f"{X}.sum(dtype=t.float32)", f"{X}.cumsum(0)", f"{X}.any()", f"{X}.all()",
    f"{X}.sort()", f"{X}.sort(descending=True)", f"{X}.argsort()", f"t.cat([{X}, {Y}])", f"t.stack([{X}, {Y}])",
    f"t.where({X} == 0, {X}, {Y})", f"t.atan2({X}, {Y})", f"t.tensor(5, dtype=D).flip(0)",
    f"t.empty(0, dtype=D).flip(0)", f"{X}.flip(())", "t.zeros(2, 3, 4, dtype=D).flip(0)", "t.zeros(2, 3, 4, dtype=D).flip(1)",
    "t.zeros(2, 3, 4, dtype=D).flip(2)", "t.zeros(2, 3, 4, dtype=D).flip(0, 2)", "t.zeros(3, 1, dtype=D).flip(0)",
    "t.zeros(1, 1, dtype=D).flip(0)", "t.zeros(2, 3, dtype=D).t().flip(0)", "t.zeros(2, 3, dtype=D).t().flip(1)",
    "t.zeros(4, dtype=D)[::2].flip(0)", "t.arange(6).reshape(2, 3).to(D).flip(0)", f"{X}.eq({Y}.float())", f"{X}.ne_({Y})", f"{X}.mul_(2)",
    f"{X} + {Y}", f"{X} - {Y}", f"{X} + 1", f"-{X}", f"{X}.abs()", f"{X}.sign()", f"{X} < {Y}", f"{X} > 1",
    f"{X} <= {Y}", f"{X} >= {Y}", f"{X}.max()", f"{X}.min()", f"{X}.amax()", f"{X}.argmax()", f"{X}.mean()",
    f"{X}.flip(0)", f"{X}.neg()", f"{X}.relu()", f"{X} // {Y}", f"{X} ** 2", f"{X}.topk(1)",
    f"{X}.index_select(0, t.tensor([0, 1]))", f"{X}.gather(0, t.tensor([0, 1]))", f"t.matmul({X}, {Y})",
    f"{X} == t.tensor([1, 2, 3, 4])", f"{X} * t.tensor([1, 2, 3, 4], dtype=t.uint8)", f"{X}.var()",
    f"{X}.softmax(0)", f"{X}.cummax(0)", f"{X}.count_nonzero()", f"{X}.count_nonzero(0)", f"{X}.count_nonzero(())",
    f"{X}.count_nonzero((0,))", "t.zeros(0, dtype=D).count_nonzero()", "t.zeros(2, 3, dtype=D).count_nonzero(1)",
    f"{X}.logsumexp(0)", f"{X}.nansum()", f"{X}.cumprod(0)", f"{X}.argmax()", f"{X}.std()",
    f"t.zeros(4, dtype=D).add_({Y})", f"t.empty(0, dtype=D).sum()", f"t.empty(0, dtype=D) * 2",
]

# Edge values the YAML samples miss: the dtype's largest value (all bits set), 0 * 2**huge in ldexp,
# and the 0-d / identity cases PyTorch computes while refusing the general case.
M = "t.full((3,), -1, dtype=D)"
M1 = "t.full((3,), -2, dtype=D)"
EDGE_OPS = [
    f"{M} & t.tensor([1, 2**15, 0], dtype=D)", f"{M} | t.tensor([3, 0, 7], dtype=D)", f"{M} ^ 5", f"{M} & True", f"t.bitwise_xor(6, {M})",
    f"t.bitwise_or(2**15, {M})", f"{M}.bitwise_and_({M})", f"~{M}", f"{M} << 1", f"{M} >> 1",
    f"t.isclose({M}, {M1})", f"t.isclose({M}, {M1}, rtol=0, atol=0)", f"t.isclose({X}, {Y}, rtol=0.5, atol=1)",
    f"t.isclose({X}, {Y}, equal_nan=True)", f"t.allclose({M}, {M1})", f"t.equal({M}, {M})", f"t.equal({M}, {M1})",
    f"{M}.floor()", f"{M}.ceil()", f"{M}.trunc()", f"{M}.round()", f"{M}.fix()", f"{M}.round(decimals=1)",
    f"{M}.frac()", f"{M}.nan_to_num()", f"{M}.nan_to_num(nan=1.0, posinf=2.0)", f"{M}.signbit()", f"{M}.isnan()",
    f"{M}.isinf()", f"{M}.isfinite()", f"{M}.isposinf()", f"{M}.isneginf()",
    f"t.ldexp({M}, t.tensor([1, 2, 3], dtype=D))", f"t.ldexp(t.tensor([0, 3, 1], dtype=D), {M})",
    f"t.ldexp({M}, t.tensor([-1, 2, 70], dtype=t.int64))", f"t.ldexp(t.tensor([3, -5], dtype=t.int16), t.tensor([3, 2], dtype=D))",
    f"t.ldexp(t.tensor([3.0, 1.0]), t.tensor([3, 2], dtype=D))", f"t.ldexp({M}, t.tensor([0.5, 2.0, -1.0]))",
    f"{M} ** 1", f"{M} ** 0", f"{M} ** True", f"{M} ** 2", f"{M} ** -1", f"{M} ** 0.5", f"t.tensor(5, dtype=D) ** 1",
    "t.tensor(5, dtype=D).max(0)", "t.tensor(5, dtype=D).min(0)", "t.tensor(5, dtype=D).max(-1, keepdim=True)",
    "t.ones(3, 1, dtype=D).max(1)", "t.empty(0, 3, dtype=D).max(1)", "t.tensor(5, dtype=D).argmax(0)",
    "t.empty(0, 3, dtype=D).index_select(1, t.tensor([1]))", "t.empty(0, 3, dtype=D).index_select(0, t.tensor([], dtype=t.long))",
    "t.tensor(5, dtype=D).index_select(0, t.tensor([0]))", f"{M}.index_select(0, t.tensor([], dtype=t.long))",
    f"{M}.reshape(1, 3).t().index_select(0, t.tensor([2, 0]))", f"{M}.reshape(3, 1).index_select(1, t.tensor([0, 0]))",
    "t.tensor([2**64 - 1, 2**63], dtype=t.uint64).isclose(t.tensor([2**64 - 2, 2**63 + 1], dtype=D), rtol=0, atol=0.5)",
    "t.tensor([0, 3, 2**16 - 1], dtype=D).isclose(t.tensor([3, 0, 2**16 - 2], dtype=D), atol=10)",
    f"{M} & -1", f"{M} | t.tensor([1], dtype=t.uint8)", f"t.equal({M}, {M}.to(t.uint32))",
    f"t.ldexp(t.tensor([5, 6], dtype=t.int32), t.tensor([1, 2], dtype=D))", f"t.ldexp({M}, t.tensor([True, False, True]))",
]


@pytest.mark.parametrize("dtype", UINTS)
@pytest.mark.parametrize("expr", STORAGE + CONVERSIONS + NUMPY, ids=lambda e: e[:60])
def test_storage_and_conversions(expr, dtype):
    check(expr, dtype)


@pytest.mark.parametrize("dtype", UINTS)
@pytest.mark.parametrize("expr", OPS + EDGE_OPS, ids=lambda e: e[:60])
def test_ops(expr, dtype):
    check(expr, dtype)


@pytest.mark.parametrize("dtype", UINTS)
@pytest.mark.parametrize("other", OTHERS + UINTS)
def test_mixed_dtypes(dtype, other):
    check(f"t.tensor([1, 2], dtype=D) * t.tensor([1, 1], dtype=t.{other})", dtype)
    check(f"t.tensor([1, 2], dtype=D) == t.tensor([1, 1], dtype=t.{other})", dtype)
    check(f"t.tensor([1, 2], dtype=t.{other}).to(D)", dtype)
    check(f"t.tensor([1, 2], dtype=D).to(t.{other})", dtype)
    check(f"t.cat([t.tensor([1, 2], dtype=D), t.tensor([1, 1], dtype=t.{other})])", dtype)


@pytest.mark.parametrize("dtype", UINTS)
def test_printing(dtype):
    for values in ([3, 0, 7, 65535], [[1, 2], [3, 4]], [], 5, list(range(2000))):
        a = torch.tensor(values, dtype=getattr(torch, dtype))
        b = tl.tensor(values, dtype=getattr(tl, dtype))
        assert repr(b) == repr(a).replace("torch.", "torchlite.")
    a = torch.tensor([2**64 - 1, 1], dtype=torch.uint64)
    b = tl.tensor([2**64 - 1, 1], dtype=tl.uint64)
    if dtype == "uint64":
        assert repr(b) == repr(a).replace("torch.", "torchlite.")


@pytest.mark.parametrize("dtype", UINTS)
def test_numpy_round_trip_shares_memory(dtype):
    a = np.array([1, 2, 3], dtype=dtype)
    t = tl.from_numpy(a)
    t[0] = 9
    assert a[0] == 9 and t.numpy().dtype == a.dtype and np.array_equal(t.numpy(), a)


# ---------------------------------------------------------------- every YAML op on these dtypes

# Known differences on these dtypes, each a strict xfail with its reason: (op name, dtype), None
# matching any dtype.
KNOWN_UINT_MISMATCHES = {
}

# Cases where PyTorch's own answer is wrong or refused for a reason that is not the dtype's, checked
# instead against PyTorch on the same values in float64 (the result compared in the result's dtype).
FLOAT64_ORACLE = {
    ("is_nonzero", "uint64"): "PyTorch reads the value through int64 and raises for 2**64 - 1",
    ("special_bessel_j1", "uint32"): "PyTorch's float32 j1(4294967295) is -1.08e-05; the true value is 3.658e-06",
}


def _uint_cases():
    for f in fwd.ENTRIES:
        if "random" in f.tags:
            continue
        for i, sample in enumerate(f.samples):
            if fwd._dtype_free(sample):
                continue
            for dtype in UINTS:
                name = str(f.schema.name)
                gap = KNOWN_UINT_MISMATCHES.get((name, dtype)) or KNOWN_UINT_MISMATCHES.get((name, None))
                marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                yield pytest.param(f, i, dtype, marks=marks, id=f"{name}[{i}]-{dtype}")


@pytest.mark.parametrize("f,index,dtype", list(_uint_cases()))
def test_every_op_like_torch(f, index, dtype):
    """Each YAML op's samples with uint16/uint32/uint64 tensors: PyTorch's exception type where it
    raises (never a crash, never a result PyTorch refuses), PyTorch's results where it computes.
    Where PyTorch computes and torchlite raises NotImplementedError (a loop that has no instance for
    the dtype yet: support missing, nothing wrong computed) the case is reported as xfailed with
    the op's message, so the gaps stay visible in every run."""
    sample = f.samples[index]
    (t_args, t_kwargs), (l_args, l_kwargs) = fwd._build(sample, "contiguous", dtype)
    t_fn, l_fn = fwd._callables(f, "functional", sample)
    expected, err = torch_result(lambda: t_fn(t_args, t_kwargs))
    if (str(f.schema.name), dtype) in FLOAT64_ORACLE:
        got = l_fn(l_args, l_kwargs)
        if isinstance(got, tl.Tensor) and got.dtype.is_floating_point:
            # the values the op computes on: converted to its result dtype first (4294967295 -> 2**32 in float32)
            seen = torch_dtype(dtype_name(got.dtype))
            reference = t_fn([a.to(seen).double() if isinstance(a, torch.Tensor) else a for a in t_args], t_kwargs)
            assert_same(got, reference.to(seen), rtol=1e-5, atol=1e-7)
        else:
            assert got == t_fn([a.double() if isinstance(a, torch.Tensor) else a for a in t_args], t_kwargs)
        return
    if err is not None:
        with pytest.raises(error_types_like(err)):
            l_fn(l_args, l_kwargs)
        return
    try:
        got = l_fn(l_args, l_kwargs)
    except NotImplementedError as e:
        assert dtype in str(e), f"the error must name the dtype: {e}"
        pytest.xfail(f"missing {dtype} support (PyTorch computes): {e}")
    if sample_hint(sample, "check") == "shape":
        assert (tuple(got.shape), dtype_name(got.dtype)) == (tuple(expected.shape), dtype_name(expected.dtype))
        return
    fwd._assert_results(got, expected)


@pytest.mark.parametrize("dtype", UINTS)
def test_pickle_round_trip(dtype):
    import pickle

    d = getattr(tl, dtype)
    assert pickle.loads(pickle.dumps(d)) is d
    t = tl.tensor([[0, 1], [2, 3]], dtype=d) if dtype != "uint64" else tl.tensor([[0, 2**64 - 1], [2**63, 3]], dtype=d)
    back = pickle.loads(pickle.dumps(t))
    assert back.dtype is d and back.tolist() == t.tolist()
