"""Regression tests for what the fuzzer found only under AddressSanitizer + UBSan (tools/sanitize.sh
--fuzz): signed overflow and pointer arithmetic that the normal build happens to survive. CI runs
this file under the sanitizers too, where each of these aborted before its fix. PyTorch is the oracle
where it gives a value; where PyTorch itself overflows (and so wraps by accident), torchlite raises."""
import numpy as np
import pytest
import torch

import torchlite as tl
from conftest import assert_same, from_torch

INT64_MIN, INT64_MAX = -2**63, 2**63 - 1


# ---------------------------------------------------------------- integer scans wrap, defined


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_integer_scans_wrap_like_torch(op, dtype):
    big = {"int8": 100, "int32": 2**30 + 7, "int64": 2**62 + 3}[dtype]
    expected = torch.tensor([big, big, -3, big, big], dtype=getattr(torch, dtype))
    assert_same(getattr(from_torch(expected), op)(0), getattr(expected, op)(0))


# ---------------------------------------------------------------- geometry arithmetic


def test_view_of_empty_tensor_with_overflowing_strides_raises():
    # PyTorch wraps 2**40 * 2**40 to a stride of 0 here; torchlite refuses instead.
    with pytest.raises(RuntimeError, match="Stride calculation overflowed"):
        tl.empty(0).view(0, 2**40, 2**40, 2**40)


def test_view_of_empty_tensor_strides_match_torch():
    assert tl.empty(0).view(0, 2**20, 2**20).stride() == torch.empty(0).view(0, 2**20, 2**20).stride()


def test_empty_as_strided_with_huge_offset():
    # Nothing is read, so any offset is allowed; applying it to the data pointer would overflow.
    base = tl.tensor([[-1, -1, 2147483647, -1]], dtype=tl.int32)
    expected_base = torch.tensor([[-1, -1, 2147483647, -1]], dtype=torch.int32)
    got = tl.as_strided(base, size=(1, 0, 0), stride=[1, 2, 2], storage_offset=2**62)
    expected = torch.as_strided(expected_base, size=(1, 0, 0), stride=[1, 2, 2], storage_offset=2**62)
    assert got.storage_offset() == expected.storage_offset() == 2**62
    assert_same(got.clone(), expected.clone())
    assert got.clone().storage_offset() == 0
    assert got.sum().item() == 0
    assert got.data_ptr() == expected.data_ptr() == 0  # PyTorch's address of an empty tensor


@pytest.mark.parametrize("call", [
    lambda m: m.ones(3).tensor_split(2**62),
    lambda m: m.empty(0, 2**62 // 8).unbind(1),
], ids=["tensor_split", "unbind"])
def test_lists_of_views_too_large_for_memory_raise(call):
    # PyTorch raises RuntimeError too ("std::bad_alloc", "cannot create std::vector larger than
    # max_size()"); it is not called here, since under the sanitizers its uninstrumented allocation aborts.
    with pytest.raises(RuntimeError, match="tensor_split|unbind"):
        call(tl)


def test_chunk_into_more_pieces_than_elements_matches_torch():
    assert [t.tolist() for t in tl.ones(3).chunk(2**62)] == [t.tolist() for t in torch.ones(3).chunk(2**62)]


# ---------------------------------------------------------------- gradients with extreme exponents


@pytest.mark.parametrize("exponent", [2**63, INT64_MIN, INT64_MAX, 2**64 - 1])
@pytest.mark.parametrize("op", ["pow", "float_power"])
def test_pow_backward_with_exponents_at_int64_limits(op, exponent):
    values = [1.0, -1.0, 0.5, 2.0, 0.0]
    x = tl.tensor(values, dtype=tl.float64, requires_grad=True)
    xt = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    getattr(x, op)(exponent).sum().backward()
    getattr(xt, op)(exponent).sum().backward()
    assert_same(x.grad, xt.grad)


@pytest.mark.parametrize("exponent", [3, -2, 2**40])
def test_pow_backward_integral_exponent_stays_exact(exponent):
    x = tl.tensor([1.5, -0.75, 2.0], dtype=tl.float64, requires_grad=True)
    xt = torch.tensor([1.5, -0.75, 2.0], dtype=torch.float64, requires_grad=True)
    x.pow(exponent).sum().backward()
    xt.pow(exponent).sum().backward()
    assert_same(x.grad, xt.grad)


def test_polygamma_backward_at_the_largest_order_raises():
    # PyTorch computes n + 1 = INT64_MIN and then reports a negative n; torchlite names the overflow.
    x = tl.tensor([-2.781, -1.353, 4.219], dtype=tl.bfloat16, requires_grad=True)
    out = tl.polygamma(INT64_MAX, x)
    with pytest.raises(RuntimeError, match="polygamma.*overflows int64"):
        out.sum().backward()


def test_polygamma_backward_matches_torch():
    x = tl.tensor([0.5, 1.25, 3.0], dtype=tl.float64, requires_grad=True)
    xt = torch.tensor([0.5, 1.25, 3.0], dtype=torch.float64, requires_grad=True)
    tl.polygamma(3, x).sum().backward()
    torch.polygamma(3, xt).sum().backward()
    assert_same(x.grad, xt.grad)


# ---------------------------------------------------------------- integer accumulation wraps, defined


@pytest.mark.parametrize("call", [
    lambda m: m.tensor(-2**31, dtype=m.int32).index_add_(-1, m.tensor(0, dtype=m.int32),
                                                        m.tensor(2**31 - 1, dtype=m.int32), alpha=-2.5),
    lambda m: m.index_put(m.tensor([[6], [0], [-1]]), [m.tensor([[1, 1]]), m.tensor([[0], [0]])],
                          m.tensor([2**63 - 4]), True),
    lambda m: m.zeros(2, dtype=m.int64).scatter_add(0, m.tensor([0, 0, 1]), m.tensor([2**62, 2**62, -2**63])),
    lambda m: m.full((2,), 3, dtype=m.int8).scatter(0, m.tensor([0, 0]), m.tensor([100, 100], dtype=m.int8),
                                                    reduce="multiply"),
], ids=["index_add_alpha", "index_put_accumulate", "scatter_add", "scatter_multiply"])
def test_integer_accumulation_wraps_like_torch(call):
    assert_same(call(tl), call(torch))


# ---------------------------------------------------------------- counts at the int64 limit (CI's sanitized fuzz)


@pytest.mark.parametrize("correction", [-2**63, 2**63 - 1])
def test_cov_correction_at_the_int64_limits_like_torch(correction):
    # observations - correction wraps in PyTorch's arithmetic: a non-positive count, so the result is inf.
    x = torch.tensor([[0.5, 1.0, 2.0, 4.0, 8.0]])
    assert_same(tl.cov(from_torch(x), correction=correction), torch.cov(x, correction=correction))


@pytest.mark.parametrize("call", [
    lambda m: m.histogram(m.ones(5), bins=2**63 - 1),
    lambda m: m.histogramdd(m.ones(5, 1), bins=[2**63 - 1]),
    lambda m: m.bincount(m.tensor([2**63 - 1])),
], ids=["histogram", "histogramdd", "bincount"])
def test_bin_counts_at_the_int64_limit_raise(call):
    # bins + 1 edges (or max + 1 bins) would overflow: RuntimeError, as PyTorch's (its messages differ).
    with pytest.raises(RuntimeError):
        call(torch)
    with pytest.raises(RuntimeError, match="overflow"):
        call(tl)


@pytest.mark.parametrize("shape", [(2, 0, 3), (0, 1), ()])
def test_bincount_of_a_non_1d_input_raises_like_torch(shape):
    # The extremes were read before the rank was checked: element 0 of an empty (2, 0, 3) input.
    x = torch.zeros(shape, dtype=torch.int64)
    with pytest.raises(RuntimeError, match="1-d non-negative"):
        torch.bincount(x)
    with pytest.raises(RuntimeError, match="1-d non-negative"):
        tl.bincount(from_torch(x))


@pytest.mark.parametrize("call", [
    lambda: tl.max_pool3d(tl.ones(1, 4, dtype=tl.float16), (-2**63, 1, -2**31 - 1)),
    lambda: tl.max_pool2d(tl.empty((4,), dtype=tl.int16, device="meta").as_strided((1, 4), (1, 1)), [-2**63, 1],
                          padding=[1], dilation=(4, -1), ceil_mode=False),
    lambda: tl.constant_pad_nd(tl.ones(2, 3), [2**63 - 1, 2**63 - 1]),
    lambda: tl.constant_pad_nd(tl.ones(2, 3), [2**62, 2**62]),
])
def test_window_and_pad_sizes_at_the_int64_limits_raise(call):
    # The sanitized CI's smoke fuzz: kernel sizes of -2**63 overflowed `k - 1` before the 128-bit window
    # arithmetic, and pads near 2**63 overflowed the padded size (UB). PyTorch overflows too (its messages
    # are accidents of the overflow); torchlite raises a RuntimeError naming the op.
    with pytest.raises(RuntimeError, match="max_pool3d|max_pool2d|constant_pad_nd"):
        call()


def test_native_group_norm_with_an_overflowing_n_c_hxw_raises():
    # The sanitized CI's fuzz: N * C * HxW overflowed int64 in the numel check (UB). PyTorch raises (on the
    # negative N); torchlite's check is now done in checked arithmetic and raises its message.
    x = tl.tensor([[0.5] * 4] * 4, dtype=tl.float64)
    with pytest.raises(RuntimeError):
        torch.native_group_norm(torch.zeros(4, 4, dtype=torch.float64), None, None, -1, 2**62, 3, 4, 1e-5)
    with pytest.raises(RuntimeError, match="N \\* C \\* HxW"):
        tl.native_group_norm(x, None, None, -1, 2**62, 3, 4, 1e-5)
    with pytest.raises(RuntimeError, match="N \\* C \\* HxW"):
        tl.native_group_norm(x, None, None, 2**62, 4, 2**62, 4, 1e-5)


@pytest.mark.parametrize("dtype", [torch.int64, torch.int32])
def test_integer_linear_and_conv_wrap_like_torch(dtype):
    # The sanitized CI's fuzz: the integer matmul loop behind linear/convolution accumulated in int64 and
    # overflowed (UB); it now accumulates in uint64 and wraps, as PyTorch's results do.
    big = torch.iinfo(dtype).max
    a = torch.tensor([[big, big, -big - 1], [big, 3, -1]], dtype=dtype)
    w = torch.tensor([[3, 5, -1], [1, 1, 1]], dtype=dtype)
    b = torch.tensor([big, 1], dtype=dtype)
    for args in ((a, w), (a, w, b)):
        expected = torch.nn.functional.linear(*args)
        got = tl.nn.functional.linear(*(from_torch(t) for t in args))
        np.testing.assert_array_equal(got.numpy(), expected.numpy())
    x = a.reshape(1, 1, 2, 3)
    k = torch.tensor([[[[big, 2], [1, big]]]], dtype=dtype)
    np.testing.assert_array_equal(tl.nn.functional.conv2d(from_torch(x), from_torch(k)).numpy(),
                                  torch.nn.functional.conv2d(x, k).numpy())


def test_pixel_shuffle_with_an_overflowing_factor_raises_like_torch():
    # The sanitized fuzz: upscale_factor**2 overflowed (UB). PyTorch raises ValueError; so does torchlite.
    x = torch.randn(2, 3, 4, dtype=torch.float64)
    for lib, t in ((torch, x), (tl, from_torch(x))):
        with pytest.raises(ValueError, match="upscale factor is too large"):
            lib.pixel_shuffle(t, 2**62)
    with pytest.raises(RuntimeError, match="pixel_shuffle"):
        tl.pixel_shuffle(tl.empty(1, 0, 2**62, 1), 4)  # no channels: only h * r can overflow


@pytest.mark.parametrize("name, k", [("replication_pad1d", 1), ("reflection_pad1d", 1), ("replication_pad2d", 2)])
def test_replication_pad_near_the_int64_limit_raises(name, k):
    # The sanitized fuzz: input size + pads overflowed int64 (UB). PyTorch cannot even take the pad (its
    # argument parser overflows, a TypeError); torchlite raises a RuntimeError naming the op.
    x = tl.empty((4, 8, 8)[-(k + 1):], dtype=tl.bfloat16, device="meta")
    with pytest.raises(RuntimeError, match=name):
        getattr(tl._C._nn, name)(x, (3, 2**63 - 1) * k)


def test_one_hot_of_the_largest_int64_raises():
    # The sanitized fuzz: num_classes = max + 1 overflowed for INT64_MAX (UB). PyTorch wraps and raises in
    # zeros(); torchlite raises naming one_hot.
    x = torch.tensor([[2**63 - 1], [0]])
    with pytest.raises(RuntimeError):
        torch.nn.functional.one_hot(x)
    with pytest.raises(RuntimeError, match="one_hot"):
        tl.nn.functional.one_hot(from_torch(x))


def test_avg_pool_int64_window_sums_wrap_like_torch():
    # The sanitized fuzz (seed 6): int64 window sums overflowed (signed-overflow UB). They wrap now, giving
    # PyTorch's numbers; a divisor_override of -1 negates with wrapping instead of trapping on INT64_MIN / -1.
    m = 2**63 - 1
    x = torch.tensor([[[m, m, 5, -m - 1, -m - 1, 3]]])
    assert tl.nn.functional.avg_pool1d(from_torch(x), 2).tolist() == torch.nn.functional.avg_pool1d(x, 2).tolist()
    for divisor in (-1, 3):
        ours = tl.nn.functional.avg_pool2d(from_torch(x), (1, 2), divisor_override=divisor)
        assert ours.tolist() == torch.nn.functional.avg_pool2d(x, (1, 2), divisor_override=divisor).tolist()


@pytest.mark.parametrize("pad", [[2**63 - 1, 0], [0, 2**63 - 1], [-2**63, -2**63], [-2, -2]])
def test_circular_pad_near_the_int64_limits_raises(pad):
    # The sanitized fuzz (seed 6): size + pads overflowed int64 (UB). For two pads of -2**63 PyTorch's sum
    # wraps back to the input's size and returns a tensor; torchlite raises, as for any pad that empties a dim.
    with pytest.raises(RuntimeError, match="_pad_circular"):
        tl.nn.functional.pad(tl.ones(1, 2, 3), pad, mode="circular")


@pytest.mark.parametrize("name, k", [("reflection_pad1d_backward", 1), ("replication_pad2d_backward", 2)])
def test_pad_backward_with_pads_near_the_int64_limits_raises(name, k):
    # The sanitized suite's fuzz: input size + pads overflowed int64 in the backward's shape check (UB).
    x = tl.randn(*((2, 3, 4, 4)[: k + 2]))
    for pads in ((-2**63, -2**63), (2**63 - 1, 2**63 - 1)):
        with pytest.raises(RuntimeError, match=name):
            getattr(tl._C._internal, name)(tl.randn(*((2, 3, 6, 6)[: k + 2])), x, pads * k)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window", "bartlett_window",
                                  "kaiser_window"])
@pytest.mark.parametrize("periodic", [True, False])
def test_window_of_the_largest_length_raises(name, periodic):
    # A periodic window is the symmetric one of length + 1: for 2**63 - 1 that sum overflowed int64 (UB).
    # PyTorch raises a RuntimeError from its arange/size checks; torchlite names the window.
    with pytest.raises(RuntimeError):
        getattr(torch, name)(2**63 - 1, periodic=periodic)
    with pytest.raises(RuntimeError, match=f"{name}: window_length=9223372036854775807 is too large"
                       if periodic else "arange"):
        getattr(tl, name)(2**63 - 1, periodic=periodic)


@pytest.mark.parametrize("op, kernel, output, samples", [
    ("fractional_max_pool2d", (1, 1), (1, 2**63 - 1), (2, 2, 2)),
    ("fractional_max_pool2d", (2, 2), (2**63 - 1, 1), (2, 2, 2)),
    ("fractional_max_pool3d", (1, 1, 1), (1, 1, 2**63 - 1), (2, 2, 3)),
])
def test_fractional_max_pool_output_sizes_at_the_int64_limit_raise(op, kernel, output, samples):
    # The sanitized fuzz: output + kernel - 1 overflowed int64 in the size check (UB). PyTorch raises a
    # RuntimeError (its sum wraps, or its storage size overflows); torchlite's check is done in checked
    # arithmetic and names the op.
    shape = (2, 3, 4) if op.endswith("2d") else (2, 3, 4, 5)
    with pytest.raises(RuntimeError):
        getattr(torch._C._nn, op)(torch.ones(shape), kernel, output, torch.rand(samples))
    with pytest.raises(RuntimeError, match=op):
        getattr(tl._C._nn, op)(tl.ones(*shape), kernel, output, tl.rand(*samples))


def test_empty_diagonal_of_strides_near_int64_max():
    # The sanitized fuzz (seed 7): diagonal_backward of input_sizes [0, 2**63 - 1] takes the diagonal of a
    # [0, 2**63 - 1] zeros tensor, whose strides (2**63 - 1, 1) summed overflowed int64 (UB). PyTorch cannot
    # even represent the wrapped stride (it raises); torchlite's empty diagonal keeps the wrapped sum.
    grad = tl.tensor([], dtype=tl.float16)
    r = tl._C._internal.diagonal_backward(grad, [0, INT64_MAX], offset=-1, dim1=1, dim2=-2)
    assert tuple(r.shape) == (0, INT64_MAX) and r.dtype == tl.float16
    d = tl.empty(0, INT64_MAX).diagonal(-1, 1, 0)
    assert tuple(d.shape) == (0,) and d.stride() == (INT64_MIN,)
    # a diagonal with elements is computed as before
    x = tl.arange(12.0).view(3, 4)
    assert_same(x.diagonal(1), torch.arange(12.0).view(3, 4).diagonal(1))


def test_view_of_other_bytes_as_bool_is_refused():
    # The sanitized fuzz smoke (seed 20261124): int16 bytes viewed as bool held 0x80 and 0xff, which torchlite's
    # bool kernels load as a C++ bool (UB; sum gave 931 where PyTorch, reading nonzero as True, gives 5). Refused.
    t = tl.tensor([-32768, -1, 0, 24008], dtype=tl.int16).reshape(1, 4)
    with pytest.raises(RuntimeError, match="as bool is not supported"):
        t.view(tl.bool)
    for dt in (tl.uint8, tl.int8, tl.float32):
        with pytest.raises(RuntimeError, match="as bool is not supported"):
            tl.ones(4, dtype=dt).view(tl.bool)
    b = tl.tensor([True, False, True])
    assert b.view(tl.bool).tolist() == [True, False, True]  # bool as bool is the identity
    assert b.view(tl.uint8).tolist() == [1, 0, 1]  # bool's bytes seen as other types are fine
