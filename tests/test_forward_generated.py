"""Forward results against PyTorch, generated from the `samples:` of every entry in native_functions.yaml.

Each sample call runs in torchlite and in PyTorch on the same values, for every dtype with contiguous
inputs, and for a few dtypes with transposed, sliced and expanded inputs, with every tensor 0-d, and with
an empty dimension, and with their values behind the lazy conjugate bit (complex64: `conj()` views of the
conjugates) and the lazy negative bit (float32: `_neg_view()` of the negations); as the functional call, the in-place variant (`x.op_(...)`) and the out= variant.
Results must match in shape, dtype and value, the tensor arguments must hold the same values afterwards
(in-place writes, or no write at all), and where PyTorch raises torchlite must raise the same exception
type. Ops tagged `random` draw PyTorch's numbers: both libraries are seeded with 0 before each call and
the values compared exactly.

A new YAML entry with samples is tested here with no code: the sample syntax (T/P/B tensors, D for the
dtype under test, `# torch: <callable>` when PyTorch spells the op differently) is in docs/testing.md.
"""
from pathlib import Path

import numpy as np
import pytest
import torch

import torchlite as tl
from codegen.loader import load_native_functions
from codegen.model import COMPLEX_DTYPE_NAMES, DTYPE_NAMES, SchemaKind, describe_dtypes
from conftest import (DTYPES, Spec, assert_same, dtype_name, error_types_like, from_torch, iter_specs, map_specs,
                      parse_sample, run_cases, sample_callables, sample_hint, torch_result, variant_index)

YAML = Path(__file__).resolve().parents[1] / "native_functions.yaml"
ALL = load_native_functions(YAML).functions
ENTRIES = [f for f in ALL if f.functional is None and f.samples]
# Layouts beyond the contiguous one run on these dtypes only (the time budget; layout bugs are rarely per dtype).
FEW_DTYPES = ["float32", "int64"]
LAYOUTS = ["transposed", "sliced", "expanded", "zero_d", "empty"]
# Inputs with a lazy bit (docs/complex.md): every op reads them resolved, writes them through the bit.
MATH_BIT_LAYOUTS = {"conj": "complex64", "neg": "float32"}

# Mismatches with PyTorch found by this suite and not fixed yet, each a strict xfail (the entry must go once the
# bug is fixed): the cases whose (op, sample index, form, layout, dtype) match a pattern (None matches anything).
KNOWN_MISMATCHES: list = [
    # PyTorch bugs with the lazy negative bit (its fallback is skipped on these paths): torchlite reads the values.
    *[(("max_pool1d", i, "functional", "neg", "float32"),
       "PyTorch's max_pool1d ignores the negative bit of its input (torch.max_pool1d(x._neg_view()) pools the "
       "memory, not the values: its result differs from that of x.resolve_neg()); torchlite pools the values")
      for i in (0, 1)],
    *[(("binary_cross_entropy", i, "out", "neg", "float32"),
       "PyTorch's binary_cross_entropy.out ignores the negative bit of its input (it reads the negated memory: "
       "NaN/0 where the functional form gives the loss of the values); torchlite's out= equals its functional")
      for i in (0, 1, 2)],
    (("_fft_r2c", None, "functional", "zero_d", "float32"),
     "PyTorch's _fft_r2c does not check its dims against a 0-d input (dim 1 of a 0-d tensor is accepted and "
     "transformed); torchlite raises IndexError \"Dimension specified as 1 but tensor has no dimensions\""),
    *[(("_fused_rms_norm", i, "functional", variant, dtype),
       "PyTorch's CPU _fused_rms_norm (a composite of ops there) skips rms_norm's checks: a 0-d input with "
       "normalized_shape [4] is normalized over its one element, and a (0,) input with [5] gives an empty result; torchlite checks as rms_norm does (RuntimeError "
       "\"Expected weight to be of same shape as normalized_shape\" / \"Given normalized_shape=...\")")
      for i, variant, dtype in ((0, "zero_d", "float32"), (1, "zero_d", "float32"), (1, "zero_d", "int64"),
                                (2, "zero_d", "float32"), (2, "empty", "float32"))],
    (("unfold_backward", None, "functional", "zero_d", None),
     "PyTorch's unfold_backward does not check grad_in's shape: a 0-d grad_in is read through strides it does not "
     "have (its result depends on the input sizes); torchlite raises RuntimeError for a grad_in that is not "
     "unfold's output shape"),
    *[(("_reshape_alias", None, "functional", variant, None),
       "PyTorch's _reshape_alias does not check its strides against the storage: on a 0-d or empty input the "
       "samples' sizes read past it (undefined values); torchlite raises RuntimeError (as_strided's check)")
      for variant in ("zero_d", "empty")],
    (("cov", 3, "functional", "zero_d", "float32"),
     "cov of one observation with weights: PyTorch zeroes the caller's input in place (its in.zero_() runs on a "
     "view of the input when the weighted observation count leaves no degrees of freedom; fweights too), a bug "
     "not copied; torchlite returns the same result and leaves the input alone"),
    (("kron", 1, "out", "transposed", None),
     "PyTorch's kron raises for this layout (it views its product, which the permuted input's layout forbids) but "
     "its out= form computes; torchlite's out= runs the functional form, so it raises like it"),
    (("baddbmm", 0, "inplace", "expanded", None),
     "PyTorch's baddbmm_ writes into a self whose elements share memory (stride 0); torchlite refuses, as PyTorch's "
     "addmm_ and copy_ do"),
    *[((name, None, None, None, dtype),
       "PyTorch's float16/bfloat16 matrix_exp is wrong (float16: exp(0.01 A) has -21072 on its diagonal, bfloat16: "
       "NaN); torchlite computes them in float32 and rounds once")
      for name in ("linalg_matrix_exp", "matrix_exp") for dtype in ("float16", "bfloat16")],
    (("addmv", 0, "inplace", "expanded", None),
     "PyTorch's addmv_ writes into a self whose elements share memory (stride 0); torchlite refuses, as PyTorch's "
     "addmm_ and copy_ do"),
    *[((op, i, None, "contiguous", "uint8"),
       "PyTorch computes uint8 bilinear/bicubic in fixed point, one separable pass at a time with intermediate "
       "rounding (its AVX uint8 path); torchlite computes in float and rounds once, so some elements differ by 1")
      for op, i in (("upsample_bilinear2d", None), ("upsample_bilinear2d.vec", None), ("upsample_bicubic2d", 0),
                    ("upsample_bicubic2d", 2), ("upsample_bicubic2d.vec", None))],
    *[(("binary_cross_entropy", i, "out", variant, dtype),
       "PyTorch's binary_cross_entropy out= computes the loss into a squeezed view of out that it resizes, not out: "
       "an empty out stays empty, so 'none' returns it empty and 'mean'/'sum' reduce nothing (nan/0), a bug not "
       "copied; torchlite writes the loss into out")
      for i in (0, 1, 2) for variant, dtype in
      [("contiguous", d) for d in ("float16", "bfloat16", "float32", "float64")]
      + [(v, "float32") for v in (("transposed", "sliced", "expanded") if i < 2 else ("sliced", "expanded"))]],
    *[(("smooth_l1_loss_backward", 1, "functional", variant, dtype),
       "PyTorch's integer smooth_l1_loss_backward gives different values in its vectorized loop (trunc(x / beta) * "
       "grad) and its scalar tail (trunc(x * grad / beta)), so a result depends on the element's position; "
       "torchlite computes every element as the vectorized loop does")
      for variant, dtype in [("contiguous", d) for d in ("uint8", "int8", "int16", "int32")]
      + [(v, "int64") for v in ("transposed", "sliced", "expanded")]],
    *[(("native_layer_norm_backward", None, "functional", variant, "float32"),
       "PyTorch's native_layer_norm_backward reads mean and rstd as contiguous memory whatever their strides (a "
       "sliced or expanded mean gives it other statistics); torchlite reads them through their strides")
      for variant in ("sliced", "expanded")],
    *[(("native_group_norm_backward", None, "functional", variant, "float32"),
       "PyTorch's native_group_norm_backward reads grad_out, input, mean and rstd as contiguous memory whatever their "
       "strides; torchlite reads them through their strides")
      for variant in ("transposed", "sliced", "expanded")],
    *[((op, i, "functional", "contiguous", dtype),
       "PyTorch samples bfloat16 grids in its scalar kernels and float16 ones in 16-bit vector arithmetic, rounding "
       "every step (positions, weights, the running sums) to the 16-bit type; torchlite computes in float and rounds "
       "once, so some elements differ by a few ulps of the 16-bit type")
      for op, i, dtype in (("grid_sampler", 0, "bfloat16"), ("grid_sampler_2d", 0, "bfloat16"),
                           ("grid_sampler_2d", 3, "bfloat16"), ("grid_sampler_2d", 6, "bfloat16"),
                           ("grid_sampler_2d", 7, "bfloat16"), ("grid_sampler_2d", 8, "bfloat16"),
                           ("grid_sampler_3d", 2, "bfloat16"), ("grid_sampler_2d_backward", 0, "bfloat16"),
                           ("grid_sampler_2d_backward", 1, "float16"), ("grid_sampler_2d_backward", 1, "bfloat16"),
                           ("grid_sampler_3d_backward", 0, "bfloat16"), ("_grid_sampler_double_backward", 0, "bfloat16"))],
]


# The patterns by op name (None: any op), so that collecting ~60,000 cases does not scan them all for each.
_MISMATCHES_BY_OP: dict = {}
for _pattern, _reason in KNOWN_MISMATCHES:
    _MISMATCHES_BY_OP.setdefault(_pattern[0], []).append((_pattern, _reason))


def _known_mismatch(key):
    candidates = _MISMATCHES_BY_OP.get(key[0], []) + _MISMATCHES_BY_OP.get(None, [])
    return next((reason for pattern, reason in candidates
                 if all(p is None or p == k for p, k in zip(pattern, key))), None)


_VARIANTS = variant_index(ALL)


def _variant(f, kind):
    """f's derived in-place/out= variant, or the out= overload the YAML writes for it (conftest.variant_index)."""
    return _VARIANTS.get((id(f), kind))


def _dtype_free(sample):
    args, kwargs = parse_sample(sample, tl)
    return not iter_specs((args, kwargs)) and "D" not in sample.partition("#")[0]


def _layout_applies(sample, layout):
    shapes = [s.shape for s in iter_specs(parse_sample(sample, tl)) if s.kind != "B"]
    if layout == "transposed":
        return any(len(s) >= 2 for s in shapes)
    if layout in ("sliced", "empty"):
        return any(len(s) >= 1 for s in shapes)
    if layout == "expanded":
        return any(len(s) >= 1 and s[0] > 1 for s in shapes)
    return bool(shapes)  # zero_d


def _cases():
    """One pytest item per (entry, sample, form), running the (layout, dtype) cases of that call (conftest.run_cases),
    each with its known mismatch (a reason) or None."""
    for f in ENTRIES:
        forms = ["functional"] + [k.value for k in (SchemaKind.inplace, SchemaKind.out) if _variant(f, k)]
        # Complex dtypes for the entries that declare them (`dtypes: [..., complex]`), complex64 in every layout.
        complex_dtypes = [d for d in (f.dtypes or ()) if d in COMPLEX_DTYPE_NAMES]
        for i, sample in enumerate(f.samples):
            plan = [("contiguous", d) for d in ([None] if _dtype_free(sample) else DTYPES + complex_dtypes)]
            plan += [(lay, d) for lay in LAYOUTS if _layout_applies(sample, lay) for d in FEW_DTYPES + complex_dtypes[:1]]
            plan += [(lay, d) for lay, d in MATH_BIT_LAYOUTS.items()
                     if (d in complex_dtypes or (d == "float32" and not _dtype_free(sample)))
                     and _layout_applies(sample, "zero_d")]
            for form in forms:
                cases = [(lay, dtype, _known_mismatch((str(f.schema.name), i, form, lay, dtype))) for lay, dtype in plan]
                yield pytest.param(f, i, form, cases, id=f"{f.schema.name}[{i}]-{form}")


# ---------------------------------------------------------------- building the same inputs in both libraries

# Value ranges of the sample kinds: T any, P positive, U inside (-1, 1), G above 1.
FLOAT_RANGES = {"P": (0.5, 2.0), "U": (-0.9, 0.9), "G": (1.1, 3.0)}
INT_RANGES = {"P": (1, 5), "U": (0, 1), "G": (2, 4)}


def _values(spec, dtype, seed):
    """A contiguous torch tensor for `spec` in `dtype`: small integers for integer dtypes (positive for P)."""
    g = torch.Generator().manual_seed(seed)
    if spec.kind == "V":
        values = torch.from_numpy(spec.values)
        return values != 0 if dtype == "bool" else values.to(getattr(torch, dtype))
    if spec.kind == "B" or dtype == "bool":
        if spec.kind == "P":
            return torch.ones(spec.shape, dtype=torch.bool)
        return torch.randint(0, 2, spec.shape, generator=g).bool()
    dt = getattr(torch, dtype)
    if dt.is_complex:  # real part in the kind's range, imaginary part in (-1, 1)
        low, high = FLOAT_RANGES.get(spec.kind, (-2.0, 2.0))
        re = torch.rand(spec.shape, generator=g, dtype=torch.float64) * (high - low) + low
        im = torch.rand(spec.shape, generator=g, dtype=torch.float64) * 2 - 1
        return torch.complex(re, im).to(dt)
    if dt.is_floating_point:
        low, high = FLOAT_RANGES.get(spec.kind, (-2.0, 2.0))
        return (torch.rand(spec.shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dt)
    low, high = INT_RANGES.get(spec.kind, (0, 9) if dtype == "uint8" else (-4, 5))
    return torch.randint(low, high, spec.shape, generator=g).to(dt)


def _shape_for(spec, layout, emptied):
    if layout == "zero_d":
        return ()
    if layout == "empty":
        return tuple(0 if s == emptied else s for s in spec.shape)
    return spec.shape


def _pair(values, layout):
    """(torch input, torchlite input) with the values of contiguous torch tensor `values` in `layout`."""
    if layout == "conj" and values.is_complex():  # the memory holds the conjugates; the conj bit undoes it
        memory = values.conj_physical()
        return memory.conj(), from_torch(memory).conj()
    if layout == "neg" and values.is_floating_point():
        memory = values.neg()
        return memory._neg_view(), from_torch(memory)._neg_view()
    if layout == "transposed" and values.dim() >= 2:
        base = values.transpose(-1, -2).contiguous()
        return base.transpose(-1, -2), from_torch(base).transpose(-1, -2)
    if layout == "sliced" and values.dim() >= 1:
        big = torch.zeros(values.shape[:-1] + (2 * values.shape[-1] + 1,), dtype=values.dtype)
        big[..., 1::2] = values
        return big[..., 1::2], from_torch(big)[..., 1::2]
    if layout == "expanded" and values.dim() >= 1 and values.shape[0] > 1:
        row = values[:1].clone()
        return row.expand(values.shape), from_torch(row).expand(*values.shape)
    return values, from_torch(values)


def _build(sample, layout, dtype):
    """((torch args, torch kwargs), (torchlite args, torchlite kwargs)) of one sample call."""
    # Parsed once per library so that `D` and `torchlite.x` resolve in it; Specs come in the same order.
    t_call, l_call = parse_sample(sample, torch, dtype), parse_sample(sample, tl, dtype)
    specs = iter_specs(t_call)
    sized = [s for s in specs if s.kind != "B" and s.shape]
    emptied = sized[0].shape[0] if sized else None
    pairs = []
    for i, s in enumerate(specs):
        shape = _shape_for(s, layout, emptied)
        kind = "T" if s.kind == "V" and shape != s.shape else s.kind  # fixed values fit their own shape only
        pairs.append(_pair(_values(Spec(kind, shape, s.values), dtype or "float32", seed=i), layout))
    t_inputs, l_inputs = iter([p[0] for p in pairs]), iter([p[1] for p in pairs])
    return map_specs(t_call, lambda s: next(t_inputs)), map_specs(l_call, lambda s: next(l_inputs))


# ---------------------------------------------------------------- calling both libraries the same way

def _callables(f, form, sample):
    """(torch callable, torchlite callable), each taking (args, kwargs)."""
    if form == "inplace":
        return sample_callables(f, sample, _variant(f, SchemaKind.inplace).schema.name.name)
    return sample_callables(f, sample)


def _tensors(obj):
    if isinstance(obj, (list, tuple)):
        return [t for o in obj for t in _tensors(o)]
    if isinstance(obj, dict):
        return [t for o in obj.values() for t in _tensors(o)]
    return [obj] if isinstance(obj, (torch.Tensor, tl.Tensor)) else []


def _assert_results(got, expected):
    if isinstance(expected, torch.Tensor):
        assert isinstance(got, tl.Tensor), type(got)
        assert_same(got, expected)
    elif isinstance(expected, (tuple, list)):
        assert len(got) == len(expected)
        for g, e in zip(got, expected):
            _assert_results(g, e)
    else:
        assert got == expected, (got, expected)


def _float64_args(args, kwargs):
    """The call's arguments with every floating-point tensor as float64 (new tensors: the inputs stay as they are)."""
    up = lambda v: v.double() if isinstance(v, torch.Tensor) and v.is_floating_point() else v  # noqa: E731
    return [_map_values(a, up) for a in args], {k: _map_values(v, up) for k, v in kwargs.items()}


def _map_values(v, fn):
    if isinstance(v, (list, tuple)):
        return type(v)(_map_values(x, fn) for x in v)
    return fn(v)


def _seeded(lib, fn):
    """`fn` drawing from a generator freshly seeded with 0 at each call."""
    def call(*a):
        lib.manual_seed(0)
        return fn(*a)
    return call


def _out_call(f, t_expected, dtype):
    """Runs the out= form of a call (fn of (args, kwargs)) with out tensors of the functional result's dtype."""
    out_args = _variant(f, SchemaKind.out).schema.out_arguments
    results = t_expected if isinstance(t_expected, (tuple, list)) else (t_expected,)
    if t_expected is not None:
        dtypes = [r.dtype for r in results]
    else:
        dtypes = [getattr(torch, dtype or "float32")] * len(out_args)

    def run(lib, call, a, k):
        outs = tuple(lib.empty(0, dtype=getattr(lib, str(dt).split(".")[-1])) for dt in dtypes)
        res = call(a, {**k, "out": outs[0] if len(outs) == 1 else outs})
        for o, r in zip(outs, res if isinstance(res, tuple) else (res,)):
            assert r is o or lib is torch, "out= must return its out tensor"
        return res
    return run


@pytest.mark.parametrize("f", ENTRIES, ids=[str(f.schema.name) for f in ENTRIES])
def test_samples_run_in_torch(f):
    """Every sample is a valid call for PyTorch in some dtype: one that raises everywhere tests nothing."""
    for sample in f.samples:
        errors = []
        for dtype in ("float64", "float32", "int64", "bool"):
            (t_args, t_kwargs), _ = _build(sample, "contiguous", dtype)
            _, err = torch_result(lambda: sample_callables(f, sample)[0](t_args, t_kwargs))
            if err is None:
                break
            errors.append(repr(err))
        else:
            pytest.fail(f"{f.schema.name}: PyTorch rejects sample {sample!r} in every dtype: {errors[0]}")


def torch_dtypes(f):
    """The dtypes for which PyTorch runs at least one of `f`'s dtype-dependent samples; None if it has none."""
    samples = [s for s in f.samples if not _dtype_free(s)]
    if not samples:
        return None
    accepted = []
    for dtype in DTYPE_NAMES:
        for sample in samples:
            (t_args, t_kwargs), _ = _build(sample, "contiguous", dtype)
            if torch_result(lambda: sample_callables(f, sample)[0](t_args, t_kwargs))[1] is None:
                accepted.append(dtype)
                break
    return tuple(accepted)


@pytest.mark.parametrize("f", ENTRIES, ids=[str(f.schema.name) for f in ENTRIES])
def test_declared_dtypes(f):
    """`dtypes:` states what PyTorch accepts (test_forward then holds torchlite to the same, dtype by dtype)."""
    expected = torch_dtypes(f)
    if expected is None:
        assert f.dtypes is None, f"{f.schema.name}: no sample depends on the dtype, so `dtypes:` cannot be checked"
        return
    declared_complex = tuple(d for d in (f.dtypes or ()) if d in COMPLEX_DTYPE_NAMES)
    line = f"dtypes: [{describe_dtypes(expected + declared_complex)}]"
    assert f.dtypes is not None, f"{f.schema.name} ({f.loc}): declare the dtypes PyTorch accepts: `{line}`"
    real = tuple(d for d in f.dtypes if d in DTYPE_NAMES)
    assert real == expected, f"{f.schema.name} ({f.loc_of('dtypes')}): PyTorch accepts `{line}`"
    # Complex dtypes are opt-in (declared once torchlite computes them): PyTorch must accept each one.
    samples = [s for s in f.samples if not _dtype_free(s)]
    for dtype in declared_complex:
        assert any(torch_result(lambda: sample_callables(f, s)[0](*_build(s, "contiguous", dtype)[0]))[1] is None
                   for s in samples), f"{f.schema.name}: PyTorch rejects every sample in {dtype}"


@pytest.mark.parametrize("f,index,form,cases", list(_cases()))
def test_forward(f, index, form, cases):
    run_cases(f"{f.schema.name}[{index}]-{form}", cases, lambda layout, dtype: _check_forward(f, index, form, layout, dtype))


def _check_forward(f, index, form, layout, dtype):
    sample = f.samples[index]
    (t_args, t_kwargs), (l_args, l_kwargs) = _build(sample, layout, dtype)
    t_fn, l_fn = _callables(f, form, sample)
    if "random" in f.tags:  # PyTorch's streams: the same seed gives the same numbers, compared exactly
        t_fn, l_fn = _seeded(torch, t_fn), _seeded(tl, l_fn)
    if form == "out":
        functional, _ = torch_result(lambda: t_fn(*_build(sample, layout, dtype)[0]))
        run = _out_call(f, functional, dtype)
        expected, err = torch_result(lambda: run(torch, t_fn, t_args, t_kwargs))
        call = lambda: run(tl, l_fn, l_args, l_kwargs)  # noqa: E731
    else:
        expected, err = torch_result(lambda: t_fn(t_args, t_kwargs))
        call = lambda: l_fn(l_args, l_kwargs)  # noqa: E731
    what = f"{f.schema.name}({sample}) {form} {layout} {dtype}"
    if err is not None:
        with pytest.raises(error_types_like(err)):
            call()
        return
    got = call()
    if sample_hint(sample, "check") == "shape":  # uninitialised data, or values not unique: nothing else to compare
        for g, e in (zip(got, expected) if isinstance(expected, tuple) else [(got, expected)]):
            assert (tuple(g.shape), dtype_name(g.dtype)) == (tuple(e.shape), dtype_name(e.dtype))
        return
    if sample_hint(sample, "check") == "float64-rounded" and dtype in ("float16", "bfloat16"):
        # PyTorch's own half-precision kernels round differently on different CPUs (its bfloat16 convolution on an
        # AVX2 host is off the correctly rounded result in 150 of 360 elements, off by up to 4% of a value):
        # the oracle is PyTorch's float64 computation of the same values, rounded once to the dtype.
        expected, _ = torch_result(lambda: t_fn(*_float64_args(t_args, t_kwargs)))
        expected = tuple(e.to(getattr(torch, dtype)) if isinstance(e, torch.Tensor) else e for e in expected) \
            if isinstance(expected, tuple) else expected.to(getattr(torch, dtype))
    _assert_results(got, expected)
    if form == "inplace":
        assert got is l_args[0], f"{what}: the in-place variant must return self"
    # Inputs afterwards: written where PyTorch writes (in place, out=), untouched elsewhere.
    for g, e in zip(_tensors((l_args, l_kwargs)), _tensors((t_args, t_kwargs))):
        assert_same(g, e)
