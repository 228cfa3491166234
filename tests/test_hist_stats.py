"""bincount, histc, searchsorted, bucketize, diff, cov, corrcoef, renorm and the norms, against PyTorch.

The generated suites (samples in native_functions.yaml) cover every dtype, layout and form of these ops;
here is what samples cannot say: values at bin edges and in 16-bit arithmetic, searchsorted's sides and
sorter, type promotion of the searched values, the corner cases of cov, PyTorch's Python function
torch.norm ('fro', 'nuc', out=, dtype=) and Tensor.norm, subgradients of the norms, and the errors.
"""
import math

import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

inf, nan = math.inf, math.nan


def run(lib, fn):
    """("ok", result) or (exception type name, message) of fn(lib)."""
    try:
        return "ok", fn(lib)
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, str(e)


def flat(value):
    """The tensors of a result: itself, or those of a (nested) tuple such as histogramdd's."""
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in flat(v)]
    return [value]


def same_as_torch(fn, *, op=None, exact=False):
    """fn(torchlite) behaves as fn(torch): equal results (tensors or tuples of them), or the same exception
    type; with `op` ("a|b": one of them), torchlite's message must name the op."""
    t_status, t_value = run(torch, fn)
    l_status, l_value = run(tl, fn)
    if t_status != "ok":
        expected = {"NotImplementedError"} if t_status == "NotImplementedError" else {t_status}
        if t_status == "NotImplementedError":
            expected.add("RuntimeError")
        assert l_status in expected, (l_status, l_value, t_status, t_value)
        if op is not None:
            assert any(name in l_value for name in op.split("|")), l_value
        return
    assert l_status == "ok", (l_status, l_value, t_value)
    expected, got = flat(t_value), flat(l_value)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        if exact:
            assert_same(g, e, atol=0, rtol=0)
        else:
            assert_same(g, e)


def T(lib, values, dtype="float32"):
    return lib.tensor(values, dtype=getattr(lib, dtype))


# ---------------------------------------------------------------------------------------------- histc

EDGE_VALUES = [0.0, 0.1, 0.2, 0.3, 0.7, 0.9, 1.0, 1 / 3, 2 / 3, 0.25, 0.5, 0.75, -1e-8, 1 + 1e-7, 0.6, 0.4]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("bins,lo,hi", [(7, 0.1, 1.0), (3, 0, 1), (10, 0, 1), (6, -0.3, 0.9), (1, 0, 1), (9, 0.2, 0.4)])
def test_histc_bin_edges(dtype, bins, lo, hi):
    same_as_torch(lambda lib: lib.histc(T(lib, EDGE_VALUES, dtype), bins, lo, hi), exact=True)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_histc_many_values_like_torch(dtype):
    values = torch.linspace(-3, 3, 100_001, dtype=torch.float64).to(getattr(torch, dtype))
    # Not 1000 bfloat16 bins: there PyTorch's rounded position passes the last bin and it writes past its
    # histogram (heap corruption); torchlite puts such elements in the last bin.
    for bins, lo, hi in [(100, 0, 0), (37, -1.5, 2.25)] + ([(1000, -3, 3)] if dtype != "bfloat16" else []):
        assert_same(tl.histc(from_torch(values), bins, lo, hi), torch.histc(values, bins, lo, hi), atol=0, rtol=0)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histc(T(lib, [1.0, 2.0, 1.0]), 4),                       # range from the data
    lambda lib: lib.histc(T(lib, [3.0, 3.0]), 4),                            # one value: widened by 1
    lambda lib: lib.histc(T(lib, []), 4),                                    # empty: [-1, 1], zeros
    lambda lib: lib.histc(T(lib, 2.5), 5, 0, 0),                             # 0-d
    lambda lib: lib.histc(T(lib, [1e38, -1e38]), 3),                         # hi - lo overflows: bin 0
    lambda lib: lib.histc(T(lib, [1.0, inf, -inf, 0.5]), 2, 0, 1),           # infinities are outside
    lambda lib: lib.histc(T(lib, [1.0, nan, 0.5]), 2, 0, 1),                 # NaN is outside
    lambda lib: lib.histc(T(lib, [1.0, 2.0], "float16"), 3, 1.0, 1.0001),     # hi - lo rounds to 0: bin 0
    lambda lib: T(lib, [1.0, 2.0, 3.0]).histc(bins=3, min=1, max=3),
    lambda lib: lib.histc(T(lib, [1.0, 2.0, 3.0]), 3, out=lib.zeros(3, 2)[:, 0]),
])
def test_histc_cases(case):
    same_as_torch(case, exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histc(T(lib, [1.0]), 0),
    lambda lib: lib.histc(T(lib, [1.0]), -3),
    lambda lib: lib.histc(T(lib, [1.0]), 3, 2, 1),
    lambda lib: lib.histc(T(lib, [1.0]), 3, 0, inf),
    lambda lib: lib.histc(T(lib, [1.0, nan]), 3),
    lambda lib: lib.histc(T(lib, [1, 2], "int64"), 3),
    lambda lib: lib.histc(T(lib, [True], "bool"), 3),
    lambda lib: lib.histc(T(lib, [1.0]), 3, out=lib.empty(0, dtype=lib.float64)),
])
def test_histc_errors(case):
    same_as_torch(case, op="histc")


def test_histc_records_no_gradient():
    x = tl.tensor([0.5, 1.5], requires_grad=True)
    h = tl.histc(x, 2, 0, 2)
    assert not h.requires_grad and h.grad_fn is None


def test_histc_meta_shape():
    assert tl.histc(tl.empty(5, device="meta"), 7, 0, 1).shape == (7,)


# ---------------------------------------------------------------------------------------------- bincount

@pytest.mark.parametrize("case", [
    lambda lib: lib.bincount(T(lib, [0, 1, 1, 5], "int64")),
    lambda lib: lib.bincount(T(lib, [0, 1, 1, 5], "uint8"), minlength=8),
    lambda lib: lib.bincount(T(lib, [2, 0], "int16"), minlength=1),
    lambda lib: lib.bincount(T(lib, [0, 3, 3], "int32"), T(lib, [0.5, 1.5, 2.0])),
    lambda lib: lib.bincount(T(lib, [0, 3, 3], "int8"), T(lib, [1, 2, 3], "int64")),
    lambda lib: lib.bincount(T(lib, [0, 3, 3], "int8"), T(lib, [1, 2, 3], "float16")),
    lambda lib: lib.bincount(T(lib, [0, 3, 3], "int8"), T(lib, [True, False, True], "bool")),
    lambda lib: lib.bincount(T(lib, [0, 3, 3], "int64"), T(lib, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0])[::2]),
    lambda lib: lib.bincount(T(lib, [], "int64"), minlength=3),
    lambda lib: lib.bincount(T(lib, [], "int64"), T(lib, [])),                 # int64, as PyTorch
    lambda lib: lib.bincount(T(lib, [], "int64"), T(lib, [1.0, 2.0])),         # empty input: weights unchecked
    lambda lib: T(lib, [4, 1, 1], "int64").bincount(minlength=2),
    lambda lib: lib.bincount(T(lib, [7, 1, 1, 3, 1], "int64")[::2]),
])
def test_bincount_cases(case):
    same_as_torch(case, exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.bincount(T(lib, [-1, 2], "int64")),
    lambda lib: lib.bincount(T(lib, [[1, 2]], "int64")),
    lambda lib: lib.bincount(T(lib, 3, "int64")),
    lambda lib: lib.bincount(T(lib, [1.0, 2.0])),
    lambda lib: lib.bincount(T(lib, [True], "bool")),
    lambda lib: lib.bincount(T(lib, [1, 2], "int64"), minlength=-1),
    lambda lib: lib.bincount(T(lib, [1, 2], "int64"), T(lib, [1.0])),
    lambda lib: lib.bincount(T(lib, [1, 2], "int64"), T(lib, [[1.0], [2.0]])),
    lambda lib: lib.bincount(T(lib, [[1]], "int64"), T(lib, [1.0, 2.0, 3.0])),
])
def test_bincount_errors(case):
    same_as_torch(case, op="bincount")


def test_bincount_weights_gradient_not_implemented():
    w = tl.tensor([1.0, 2.0], requires_grad=True)
    r = tl.bincount(tl.tensor([0, 2]), w)
    assert r.requires_grad
    with pytest.raises(RuntimeError, match="derivative for aten::bincount is not implemented"):
        r.sum().backward()


# ---------------------------------------------------------------------------------------------- searchsorted / bucketize

SEQ = [-1.0, 0.0, 0.0, 0.0, 2.5, 4.0, 4.0]
VALUES = [[-2.0, -1.0, 0.0, 1.0], [2.5, 4.0, 5.0, nan]]


@pytest.mark.parametrize("kwargs", [{}, {"right": True}, {"side": "left"}, {"side": "right"},
                                    {"side": "right", "right": False}, {"out_int32": True, "right": True}])
@pytest.mark.parametrize("dtypes", [("float32", "float32"), ("float64", "float32"), ("float16", "float16"),
                                    ("int64", "float32"), ("int8", "int64"), ("uint8", "int8"), ("bfloat16", "float64")])
def test_searchsorted_sides_and_promotion(kwargs, dtypes):
    seq_dtype, val_dtype = dtypes
    values = [[v for v in row if not (math.isnan(v) and "int" in val_dtype)] for row in VALUES]
    values = [row[:3] for row in values]
    same_as_torch(lambda lib: lib.searchsorted(T(lib, SEQ, seq_dtype), T(lib, values, val_dtype), **kwargs),
                  exact=True)
    same_as_torch(lambda lib: lib.bucketize(T(lib, values, val_dtype), T(lib, SEQ, seq_dtype),
                                            **{k: v for k, v in kwargs.items() if k != "side"}), exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.searchsorted(T(lib, [5.0, 1.0, 3.0, 3.0]), T(lib, [0.0, 3.0, 4.0, 9.0]),
                                 sorter=T(lib, [1, 2, 3, 0], "int64")),
    lambda lib: lib.searchsorted(T(lib, [5.0, 1.0, 3.0, 3.0]), T(lib, [0.0, 3.0, 4.0, 9.0]), side="right",
                                 sorter=T(lib, [1, 3, 2, 0], "int64")),
    lambda lib: lib.searchsorted(T(lib, [[3.0, 1.0, 2.0], [0.0, 5.0, 4.0]]), T(lib, [[2.5, 0.0], [1.0, 4.5]]),
                                 sorter=T(lib, [[1, 2, 0], [0, 2, 1]], "int64")),
    lambda lib: lib.searchsorted(T(lib, [[0.0, 1.0, 2.0], [-5.0, 5.0, 6.0]]).t().contiguous().t(),
                                 T(lib, [[0.5, 2.0, 7.0], [5.0, -6.0, 5.5]]), right=True),
    lambda lib: lib.searchsorted(T(lib, [1, 2, 3], "int64"), 2.5),
    lambda lib: lib.searchsorted(T(lib, [1, 2, 3], "int8"), 300),
    lambda lib: lib.searchsorted(T(lib, [0.0, 1.0]), True),
    lambda lib: lib.searchsorted(T(lib, [0.0, 1.0]), T(lib, [True, False], "bool")),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, 1.5)),
    lambda lib: lib.searchsorted(T(lib, []), T(lib, [1.0, 2.0])),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [[], []])),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [0.5, 3.0]), out=lib.zeros(4, dtype=lib.int64)[::2]),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [0.5, 3.0]), out_int32=True,
                                 out=lib.empty(0, dtype=lib.int32)),
    lambda lib: lib.searchsorted(T(lib, [2 ** 62, 2 ** 62 + 1], "int64"), T(lib, [2 ** 62 + 1], "int64")),
    lambda lib: lib.bucketize(3, T(lib, [1.0, 3.0, 5.0]), right=True),
    lambda lib: lib.bucketize(T(lib, 3.0), T(lib, [1.0, 3.0, 5.0])),
])
def test_searchsorted_cases(case):
    same_as_torch(case, exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), side="up"),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), side="left", right=True),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), sorter=T(lib, [0, 1], "int32")),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), sorter=T(lib, [0], "int64")),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), sorter=T(lib, [0, 2], "int64")),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), sorter=T(lib, [-1, 0], "int64")),
    lambda lib: lib.searchsorted(T(lib, [[1.0, 2.0]]), T(lib, 1.0)),
    lambda lib: lib.searchsorted(T(lib, 1.0), T(lib, [1.0])),
    lambda lib: lib.searchsorted(T(lib, [[1.0, 2.0], [3.0, 4.0]]), T(lib, [[1.0], [2.0], [3.0]])),
    lambda lib: lib.searchsorted(T(lib, [[1.0, 2.0], [3.0, 4.0]]), T(lib, [1.0, 2.0])),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), out=lib.empty(0)),
    lambda lib: lib.searchsorted(T(lib, [1.0, 2.0]), T(lib, [1.0]), out_int32=True, out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.searchsorted(T(lib, [False, True], "bool"), T(lib, [True], "bool")),
    lambda lib: lib.bucketize(T(lib, [1.0]), T(lib, [[1.0, 2.0]])),
    lambda lib: lib.bucketize(T(lib, [1.0]), T(lib, 1.0)),
    lambda lib: lib.bucketize(T(lib, [True], "bool"), T(lib, [False, True], "bool")),
])
def test_searchsorted_errors(case):
    same_as_torch(case, op="searchsorted|bucketize")


def test_bucketize_scalar_has_no_out():
    with pytest.raises(TypeError):
        tl.bucketize(3, tl.tensor([1.0, 2.0]), out=tl.empty(0, dtype=tl.int64))


def test_searchsorted_meta_shape_and_dtype():
    r = tl.searchsorted(tl.empty(5, device="meta"), tl.empty(2, 3, device="meta"), out_int32=True)
    assert r.shape == (2, 3) and r.dtype == tl.int32 and r.is_meta


# ---------------------------------------------------------------------------------------------- diff

@pytest.mark.parametrize("case", [
    lambda lib: lib.diff(T(lib, [[1.0, 3.0, 6.0, 10.0], [2.0, 2.0, 5.0, 1.0]]), 5),
    lambda lib: lib.diff(T(lib, [[1.0, 3.0, 6.0, 10.0], [2.0, 2.0, 5.0, 1.0]]), 2, 0),
    lambda lib: lib.diff(T(lib, [True, False, False, True], "bool"), 2),
    lambda lib: lib.diff(T(lib, [1, 100, -100], "int8")),
    lambda lib: lib.diff(T(lib, [1, 0], "uint8")),
    lambda lib: lib.diff(T(lib, [True, False], "bool"), prepend=T(lib, [1], "int64")),
    lambda lib: lib.diff(T(lib, [[1.0, 2.0]]), 1, -1, T(lib, [[0]], "int32"), T(lib, [[7.0, 9.0]], "float64")),
    lambda lib: lib.diff(T(lib, [[1.0, 2.0]]), 0, 5, prepend=T(lib, [[0.0]])),   # n = 0 ignores dim and prepend
    lambda lib: lib.diff(T(lib, [])),
    lambda lib: T(lib, [[1.0, 4.0], [2.0, 8.0]]).diff(dim=0),
    lambda lib: lib.diff(T(lib, [1.0, 4.0, 9.0]), out=lib.empty(0, dtype=lib.float64)),
])
def test_diff_cases(case):
    same_as_torch(case, exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.diff(T(lib, 1.0)),
    lambda lib: lib.diff(T(lib, [1.0, 2.0]), -1),
    lambda lib: lib.diff(T(lib, [1.0, 2.0]), dim=1),
    lambda lib: lib.diff(T(lib, [[1.0, 2.0]]), append=T(lib, [1.0])),
    lambda lib: lib.diff(T(lib, [[1.0, 2.0]]), append=T(lib, [[1.0], [2.0]])),
    lambda lib: lib.diff(T(lib, [1.0, 4.0, 9.0]), out=lib.empty(0, dtype=lib.int64)),
])
def test_diff_errors(case):
    same_as_torch(case, op="diff")


def test_diff_of_transposed_zero_order_keeps_layout():
    x = tl.arange(6.0).reshape(2, 3).t()
    r = tl.diff(x, 0)
    e = torch.diff(torch.arange(6.0).reshape(2, 3).t(), 0)
    assert r.stride() == e.stride() and r.data_ptr() != x.data_ptr()


# ---------------------------------------------------------------------------------------------- cov / corrcoef

X = [[1.0, 3.0, 6.0, 10.0], [2.0, 2.0, 5.0, 1.0], [0.5, -1.0, 2.0, 2.0]]


@pytest.mark.parametrize("case", [
    lambda lib: lib.cov(T(lib, X)),
    lambda lib: lib.cov(T(lib, X), correction=0),
    lambda lib: lib.cov(T(lib, X), correction=7),                            # dof <= 0: inf / nan
    lambda lib: lib.cov(T(lib, X, "int64")),
    lambda lib: lib.cov(T(lib, X, "float16")),
    lambda lib: lib.cov(T(lib, X[0])),
    lambda lib: lib.cov(T(lib, 2.0)),
    lambda lib: lib.cov(T(lib, [[], []])),
    lambda lib: lib.cov(lib.empty(0, 3)),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1, 2, 0, 3], "int64")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1, 2, 0, 3], "int8"), correction=3),
    lambda lib: lib.cov(T(lib, X), aweights=T(lib, [1.0, 2.0, 0.5, 3.0])),
    lambda lib: lib.cov(T(lib, X, "float64"), aweights=T(lib, [1.0, 2.0, 0.5, 3.0])),
    lambda lib: lib.cov(T(lib, X, "int64"), aweights=T(lib, [1.0, 2.0, 0.5, 3.0], "float64")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1, 2, 1, 3], "int64"), aweights=T(lib, [1.0, 2.0, 0.5, 3.0]),
                        correction=2),
    lambda lib: lib.cov(T(lib, [[1.0], [2.0]])),
    lambda lib: lib.cov(T(lib, [[1.0], [2.0]]), aweights=T(lib, [2.0])),
    lambda lib: lib.cov(T(lib, [[1.0], [2.0]]), fweights=T(lib, [2], "int64"), aweights=T(lib, [2.0])),
    lambda lib: T(lib, X).cov(correction=0),
    lambda lib: lib.corrcoef(T(lib, X)),
    lambda lib: lib.corrcoef(T(lib, X, "int32")),
    lambda lib: lib.corrcoef(T(lib, X[1])),
    lambda lib: lib.corrcoef(T(lib, [3.0, 3.0])),
    lambda lib: lib.corrcoef(T(lib, 2.0)),
    lambda lib: lib.corrcoef(T(lib, X, "float16")),
    lambda lib: T(lib, X).corrcoef(),
])
def test_cov_corrcoef_cases(case):
    same_as_torch(case)


def test_cov_one_observation_leaves_input_alone():
    """PyTorch zeroes the caller's input here (in.zero_() on a view of it); torchlite only returns the zeros."""
    x = tl.tensor([[1.0], [2.0]])
    assert tl.cov(x, fweights=tl.tensor([2])).tolist() == [[0.0, 0.0], [0.0, 0.0]]
    assert x.tolist() == [[1.0], [2.0]]


@pytest.mark.parametrize("case", [
    lambda lib: lib.cov(lib.ones(2, 2, 2)),
    lambda lib: lib.cov(T(lib, X, "bool")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1.0, 2.0, 0.0, 3.0])),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [[1, 2, 0, 3]], "int64")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1, 2, 0], "int64")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [1, -2, 0, 3], "int64")),
    lambda lib: lib.cov(T(lib, X), fweights=T(lib, [0, 0, 0, 0], "int64")),
    lambda lib: lib.cov(T(lib, X), aweights=T(lib, [1, 2, 0, 3], "int64")),
    lambda lib: lib.cov(T(lib, X), aweights=T(lib, [1.0, -2.0, 0.0, 3.0])),
    lambda lib: lib.corrcoef(lib.ones(2, 2, 2)),
    lambda lib: lib.corrcoef(T(lib, X, "bool")),
])
def test_cov_corrcoef_errors(case):
    status, message = run(tl, case)
    assert status != "ok"
    same_as_torch(case)
    assert "cov" in message or "corrcoef" in message, message


# ---------------------------------------------------------------------------------------------- renorm

@pytest.mark.parametrize("case", [
    lambda lib: lib.renorm(T(lib, X), 2, 0, 5),
    lambda lib: lib.renorm(T(lib, X), 1, 1, 5),
    lambda lib: lib.renorm(T(lib, X), inf, 0, 5),
    lambda lib: lib.renorm(T(lib, X), 2.5, -1, 3),
    lambda lib: lib.renorm(T(lib, X, "float16"), 2, 0, 5),
    lambda lib: lib.renorm(T(lib, X, "bfloat16"), 3, 1, 2),
    lambda lib: lib.renorm(T(lib, X, "float64").t(), 2, 0, 1),
    lambda lib: lib.renorm(lib.empty(0, 3), 2, 0, 5),
    lambda lib: lib.renorm(T(lib, [[0.0, 0.0], [3.0, 4.0]]), 2, 0, 0),
    lambda lib: T(lib, X).renorm_(2, 0, 5),
    lambda lib: lib.renorm(T(lib, X), 2, 0, 5, out=lib.empty(0)),
])
def test_renorm_cases(case):
    same_as_torch(case)


@pytest.mark.parametrize("case", [
    lambda lib: lib.renorm(T(lib, X), 0, 0, 5),
    lambda lib: lib.renorm(T(lib, X), -1, 0, 5),
    lambda lib: lib.renorm(T(lib, X), 2, 0, -1),
    lambda lib: lib.renorm(T(lib, [3.0, 4.0]), 2, 0, 1),
    lambda lib: lib.renorm(T(lib, X), 2, 2, 1),
    lambda lib: lib.renorm(T(lib, X, "int64"), 2, 0, 1),
    lambda lib: lib.renorm(T(lib, X), 2, 0, 5, out=lib.empty(0, dtype=lib.float64)),
])
def test_renorm_errors(case):
    same_as_torch(case)


# ---------------------------------------------------------------------------------------------- norm

NX = [[1.0, -3.0, 6.0, 10.0], [2.0, 2.0, -5.0, 1.0]]


@pytest.mark.parametrize("case", [
    lambda lib: lib.norm(T(lib, NX)),
    lambda lib: lib.norm(T(lib, NX), "fro"),
    lambda lib: lib.norm(T(lib, NX), "fro", dim=1),
    lambda lib: lib.norm(T(lib, NX), "fro", (0, 1), True),
    lambda lib: lib.norm(lib.ones(2, 2, 2), "fro"),
    lambda lib: lib.norm(T(lib, NX), 3),
    lambda lib: lib.norm(T(lib, NX), 0),
    lambda lib: lib.norm(T(lib, NX), 0.5),
    lambda lib: lib.norm(T(lib, NX), -1),
    lambda lib: lib.norm(T(lib, NX), True),
    lambda lib: lib.norm(T(lib, NX), inf, dim=1),
    lambda lib: lib.norm(T(lib, NX), -inf, dim=(0, 1)),
    lambda lib: lib.norm(T(lib, NX), 2, 1, True),
    lambda lib: lib.norm(T(lib, NX), None, 1),
    lambda lib: lib.norm(T(lib, NX), 2, []),
    lambda lib: lib.norm(T(lib, NX), dtype=lib.float64),
    lambda lib: lib.norm(T(lib, NX, "float16"), 3),
    lambda lib: lib.norm(T(lib, NX, "bfloat16")),
    lambda lib: lib.norm(T(lib, NX), 2, 1, out=lib.empty(0)),
    lambda lib: lib.norm(T(lib, NX), "fro", 1, out=lib.empty(0)),
    lambda lib: lib.norm(lib.empty(0)),
    lambda lib: lib.norm(lib.empty(0, 3), inf, dim=1),
    lambda lib: lib.norm(T(lib, -3.0), 1),
    lambda lib: lib.norm(T(lib, -3.0), 3, dim=0),
    lambda lib: lib.norm(T(lib, [[-3.0, 0.0]]), 0.7, dim=0),                  # one element per norm: |x|
    lambda lib: lib.norm(T(lib, [[-3.0, 0.0]]), 0, dim=0, keepdim=True),
    lambda lib: lib.norm(T(lib, [1.0, nan]), inf),
    lambda lib: lib.norm(T(lib, [1e30, 1e30])),                               # float32 overflow, as PyTorch
    lambda lib: T(lib, NX).norm(),
    lambda lib: T(lib, NX).norm(1, dim=-1),
    lambda lib: T(lib, NX).norm(p=2, dim=[0], keepdim=True),
    lambda lib: T(lib, NX).norm("fro", 1, dtype=lib.float64),
])
def test_norm_cases(case):
    same_as_torch(case)


@pytest.mark.parametrize("case", [
    lambda lib: lib.norm(lib.ones(2, 2, 2), "fro", dim=(0, 1, 2)),
    lambda lib: lib.norm(T(lib, NX), "abc"),
    lambda lib: lib.norm(T(lib, [1.0, 2.0]), "nuc"),
    lambda lib: lib.norm(T(lib, NX, "int64"), "nuc"),
    lambda lib: lib.norm(T(lib, NX), "nuc", dim=(1, 1)),
    lambda lib: lib.norm(T(lib, NX), "nuc", dim=(1, -1)),
    lambda lib: lib.norm(T(lib, NX), "nuc", dim=1),
    lambda lib: lib.norm(T(lib, NX), "nuc", dim=(0, 5)),
    lambda lib: lib.norm(T(lib, NX), "nuc", dtype=lib.float16),
    lambda lib: lib.norm(T(lib, NX, "int64")),
    lambda lib: lib.norm(T(lib, NX), dtype=lib.float16),
    lambda lib: lib.norm(T(lib, NX), dtype=lib.int64),
    lambda lib: lib.norm(T(lib, NX), 2, 1, out=lib.empty(0, dtype=lib.float64)),
    lambda lib: lib.norm(lib.empty(0), inf),
    lambda lib: lib.norm(lib.empty(0), -1),
    lambda lib: lib.norm(lib.empty(0, 3), inf, dim=0),
    lambda lib: lib.norm(T(lib, NX), 2, (1, 1)),
    lambda lib: lib.norm(T(lib, NX), 2, 3),
])
def test_norm_errors(case):
    same_as_torch(case)


def test_nuclear_norm_through_linalg():
    # The nuclear norm is linalg.matrix_norm's (an SVD, tests/test_linalg_lapack.py).
    x = [[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]]
    expected = torch.norm(torch.tensor(x, dtype=torch.float64), "nuc").item()
    assert abs(tl.norm(tl.tensor(x, dtype=tl.float64), "nuc").item() - expected) < 1e-12
    assert abs(tl.tensor(x, dtype=tl.float64).norm("nuc").item() - expected) < 1e-12


@pytest.mark.parametrize("name,args", [
    ("Scalar", lambda lib: (T(lib, NX), 3)),
    ("ScalarOpt_dim", lambda lib: (T(lib, NX), None, [1], True)),
    ("ScalarOpt_dim", lambda lib: (T(lib, NX), inf, [])),
    ("ScalarOpt_dtype", lambda lib: (T(lib, NX), 1)),
    ("ScalarOpt_dim_dtype", lambda lib: (T(lib, NX), 2, [0], False)),
])
def test_aten_norm_overloads(name, args):
    """The C++ overloads (torchlite._C._ops.norm) against PyTorch's aten ones (torch.ops.aten.norm)."""
    kwargs = {"dtype": torch.float64} if "dtype" in name else {}
    expected = getattr(torch.ops.aten.norm, name)(*args(torch), **kwargs)
    got = tl._C._ops.norm(*args(tl), **({"dtype": tl.float64} if kwargs else {}))
    assert_same(got, expected)


def test_aten_norm_dtype_message():
    with pytest.raises(RuntimeError, match=r"^norm\(\): input dtype should be either floating point"):
        tl._C._ops.norm(tl.tensor([1, 2]), 2)


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, inf, -inf])
def test_norm_subgradients_like_torch(p):
    """At a zero vector the gradient is 0 (p >= 1); p = +-inf shares it evenly between ties."""
    values = [[0.0, 0.0, 0.0], [3.0, -3.0, 1.0], [-2.0, 1.0, 2.0], [0.0, 5.0, 0.0]]
    grads = []
    for lib in (tl, torch):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        y = lib.norm(x, p, dim=1)
        y.backward(lib.tensor([1.0, 2.0, -1.0, 0.5], dtype=lib.float64))
        grads.append(np.array(x.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-15, equal_nan=True)


def test_norm_zero_order_has_no_gradient():
    x = tl.tensor([1.0, 0.0], requires_grad=True)
    (g,) = tl.autograd.grad(tl.norm(x, 0), [x], allow_unused=True)
    assert g is None or g.tolist() == [0.0, 0.0]


def test_linalg_vector_norm_namespace():
    x = tl.tensor(NX)
    assert_same(tl.linalg.vector_norm(x, 3, 1), torch.linalg.vector_norm(torch.tensor(NX), 3, 1))


def test_norm_meta_shape():
    r = tl.norm(tl.empty(3, 4, device="meta"), 2, 1, True)
    assert r.shape == (3, 1) and r.is_meta


# ---------------------------------------------------------------------------------------------- histogram

HX = [1.0, 2.0, 1.0, 5.0, 7.0, 0.5, 1 / 3, 2 / 3, 7.0, 2.6666667]


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("bins,range_", [(3, (0.0, 8.0)), (7, (0.1, 1.0)), (10, (0, 1)), (9, (0.2, 7.0)), (1, (1, 1))])
def test_histogram_linspace_edges_like_torch(dtype, bins, range_):
    """The edges are PyTorch's linspace in the input's dtype, and elements at an edge land in its bin."""
    same_as_torch(lambda lib: lib.histogram(T(lib, HX + EDGE_VALUES, dtype), bins, range=range_), exact=True)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histogram(T(lib, HX), 3),
    lambda lib: lib.histogram(T(lib, HX, "float64").reshape(2, 5), 4),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [0.0, 1.0, 5.0, 7.0])),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [5.0, 1.0, 7.0])),                    # unsorted edges, as PyTorch
    lambda lib: lib.histogram(T(lib, HX), T(lib, [2.0])),
    lambda lib: lib.histogram(T(lib, HX), 3, range=(1.0, 1.0)),
    lambda lib: lib.histogram(T(lib, HX), 3, range=[0, 8]),
    lambda lib: lib.histogram(T(lib, []), 3),
    lambda lib: lib.histogram(T(lib, 2.0), 3),
    lambda lib: lib.histogram(T(lib, [2.0]), 3, weight=T(lib, 3.0)),
    lambda lib: lib.histogram(T(lib, HX), 3, weight=T(lib, HX) * 2),
    lambda lib: lib.histogram(T(lib, HX[:6]), 3, weight=T(lib, HX[:6]).reshape(3, 2)),
    lambda lib: lib.histogram(T(lib, HX), 3, density=True),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [0.0, 1.0, 5.0, 7.0]), weight=T(lib, HX), density=True),
    lambda lib: lib.histogram(T(lib, HX), 3, range=(10.0, 11.0), density=True),       # empty: 0 / 0
    lambda lib: lib.histogram(T(lib, [1.0, nan, inf, -inf, 2.0]), 2, range=(0, 3)),
    lambda lib: lib.histogram(T(lib, HX), 3, out=(lib.empty(0), lib.empty(0))),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [0.0, 4.0, 8.0]), out=(lib.zeros(4)[::2], lib.empty(0))),
    lambda lib: T(lib, HX).histogram(3),
    lambda lib: T(lib, HX).histogram(T(lib, [0.0, 4.0, 8.0]), density=True),
])
def test_histogram_cases(case):
    same_as_torch(case)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histogram(T(lib, HX, "float16"), 3),                                # no range: float32/64 only
    lambda lib: lib.histogram(T(lib, HX, "int64"), 3, range=(0.0, 8.0)),
    lambda lib: lib.histogram(T(lib, HX, "int64"), 3),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [0.0, 1.0], "float64")),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [[0.0, 1.0]])),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [0.0])),
    lambda lib: lib.histogram(T(lib, HX), T(lib, [])),
    lambda lib: lib.histogram(T(lib, HX), 0),
    lambda lib: lib.histogram(T(lib, HX), 3, range=(0.0, 1.0, 2.0)),
    lambda lib: lib.histogram(T(lib, HX), 3, range=(2.0, 1.0)),
    lambda lib: lib.histogram(T(lib, HX), 3, range=(0.0, inf)),
    lambda lib: lib.histogram(T(lib, [1.0, nan]), 3),
    lambda lib: lib.histogram(T(lib, HX), 3, weight=lib.ones(5)),
    lambda lib: lib.histogram(T(lib, HX), 3, weight=lib.ones(10, dtype=lib.float64)),
    lambda lib: lib.histogram(T(lib, HX), 3, out=(lib.empty(0, dtype=lib.float64), lib.empty(0))),
    lambda lib: lib.histogram(T(lib, HX), 3, out=(lib.empty(0), lib.empty(0, dtype=lib.float64))),
    lambda lib: lib.histogram(T(lib, HX), 3, range=("a", "b")),
])
def test_histogram_errors(case):
    same_as_torch(case, op="histogram")


def test_histogram_named_tuple_and_no_gradient():
    x = tl.tensor([0.5, 1.5, 1.7], requires_grad=True)
    r = tl.histogram(x, 2)
    assert isinstance(r, tl.return_types.histogram) and r.hist.tolist() == [1.0, 2.0]
    assert r.bin_edges.tolist() == [0.5, 1.100000023841858, 1.7000000476837158]
    with pytest.raises(RuntimeError, match="derivative for aten::histogram is not implemented"):
        r.hist.sum().backward()


def test_histogram_meta_shapes():
    hist, edges = tl.histogram(tl.empty(6, device="meta"), 4, range=(0.0, 1.0))
    assert hist.shape == (4,) and edges.shape == (5,) and hist.is_meta
    hist, edges = tl.histogram(tl.empty(6, device="meta"), tl.empty(3, device="meta"))
    assert hist.shape == (2,) and edges.shape == (3,)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_histogram_edges_bit_exact_on_random_ranges(dtype):
    """PyTorch's float32/float64 linspace is fused multiply-adds (its AVX2 kernels); 16-bit types round each step."""
    rng = np.random.default_rng(0)
    x = torch.linspace(-6, 16, 301, dtype=torch.float64).to(getattr(torch, dtype))
    for _ in range(60):
        lo = float(rng.uniform(-5, 5))
        hi = lo + float(rng.uniform(0.01, 10))
        bins = int(rng.integers(1, 40))
        h, e = torch.histogram(x, bins, range=(lo, hi))
        got = tl.histogram(from_torch(x), bins, range=(lo, hi))
        assert_same(got.bin_edges, e, atol=0, rtol=0)
        assert_same(got.hist, h, atol=0, rtol=0)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histogram(T(lib, [], "int8"), weight=T(lib, [1, 2], "int8")),
    lambda lib: lib.histogram(T(lib, [1, 2, 3], "int64"), range=[1.0, 3], weight=T(lib, 1, "int64")),
    lambda lib: lib.histogram(T(lib, [True], "bool"), range=[0.0, 1.0], weight=T(lib, [1.0, 2.0])),
])
def test_histogram_error_order(case):
    """PyTorch checks the weights before the input's dtype (the error types differ)."""
    t_status, _ = run(torch, case)
    l_status, message = run(tl, case)
    assert l_status == t_status or (t_status, l_status) == ("NotImplementedError", "RuntimeError"), (l_status, message)


# ---------------------------------------------------------------------------------------------- histogramdd

PTS = [[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0], [0.5, 1.5], [1 / 3, 2 / 3], [nan, 1.0], [1.0, inf]]


@pytest.mark.parametrize("case", [
    lambda lib: lib.histogramdd(T(lib, PTS), [3, 3]),
    lambda lib: lib.histogramdd(T(lib, PTS[:6]), [3, 4], weight=T(lib, [1.0, 2.0, 4.0, 8.0, 16.0, 32.0])),
    lambda lib: lib.histogramdd(T(lib, PTS), 2, [0.0, 1.0, 0.0, 1.0], density=True),
    lambda lib: lib.histogramdd(T(lib, PTS, "float64"), [5, 2], range=[-1.0, 3.0, 0.5, 0.5]),
    lambda lib: lib.histogramdd(T(lib, PTS[:6], "float16"), [2, 3], range=[0.0, 2.0, 0.0, 2.0]),
    lambda lib: lib.histogramdd(T(lib, PTS[:6], "float64").reshape(2, 3, 2), [2, 2], weight=lib.ones(2, 3,
                                                                                                    dtype=lib.float64)),
    lambda lib: lib.histogramdd(lib.empty(0, 3), [2, 2, 2]),
    lambda lib: lib.histogramdd(T(lib, [[0.5, 0.25, 1.0]]), [1, 2, 3]),
    lambda lib: lib._histogramdd_from_bin_tensors(T(lib, PTS), [T(lib, [0.0, 1.0, 2.0]), T(lib, [0.0, 0.5, 2.0])],
                                                  density=True),
    lambda lib: lib._histogramdd_bin_edges(T(lib, [[1, 5], [3, 2]], "int64"), [3, 2], range=[0.0, 7.0, -1.0, 9.0]),
])
def test_histogramdd_cases(case):
    same_as_torch(case)


@pytest.mark.parametrize("case", [
    lambda lib: lib.histogramdd(T(lib, PTS), [2]),
    lambda lib: lib.histogramdd(T(lib, PTS[0]), [2]),
    lambda lib: lib.histogramdd(T(lib, PTS), [2, 0]),
    lambda lib: lib.histogramdd(T(lib, PTS), [2, 2], range=[0.0, 1.0]),
    lambda lib: lib.histogramdd(T(lib, PTS), [2, 2], range=[0.0, 1.0, 2.0, 1.0]),
    lambda lib: lib.histogramdd(T(lib, PTS), [2, 2]),                                       # nan: no range
    lambda lib: lib.histogramdd(T(lib, PTS[:4]), [2, 2], weight=lib.ones(3)),
    lambda lib: lib.histogramdd(T(lib, PTS[:4]), [2, 2], weight=lib.ones(4, dtype=lib.float64)),
    lambda lib: lib.histogramdd(T(lib, PTS[:4], "float16"), [2, 2]),
    lambda lib: lib.histogramdd(T(lib, PTS[:4], "int64"), [2, 2], range=[0.0, 1.0, 0.0, 1.0]),
    lambda lib: lib._histogramdd_from_bin_tensors(T(lib, PTS), [T(lib, [0.0, 1.0])]),
    lambda lib: lib._histogramdd_from_bin_tensors(T(lib, PTS), [T(lib, [0.0, 1.0]), T(lib, [[0.0, 1.0]])]),
    lambda lib: lib._histogramdd_from_bin_tensors(T(lib, PTS), [T(lib, [0.0, 1.0]), T(lib, [0.0], "float64")]),
    lambda lib: lib._histogramdd_from_bin_tensors(T(lib, PTS), [T(lib, [0.0, 1.0]), T(lib, [])]),
])
def test_histogramdd_errors(case):
    same_as_torch(case, op="histogram")


def test_histogramdd_named_tuple():
    r = tl.histogramdd(tl.tensor(PTS[:4]), [2, 2])
    assert isinstance(r, tl.return_types.histogramdd) and isinstance(r.bin_edges, tuple) and len(r.bin_edges) == 2
