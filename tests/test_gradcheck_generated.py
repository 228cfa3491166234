"""Gradient checks generated from native_functions.yaml: every op with a derivative formula (and
every composite op) is run on each of its `samples:` calls that has a T/P/V tensor:

- gradcheck (finite differences) with its tensor inputs contiguous, transposed, sliced and expanded,
  and gradgradcheck on the contiguous and transposed ones;
- the same gradients as PyTorch's on the same inputs and grad_outputs (torch.autograd.grad), at tight
  tolerance, and the second derivatives on contiguous inputs: this catches formulas that finite
  differences check poorly (kinks such as relu at 0, ties, large magnitudes);
- the derived in-place variant, differentiated through `x.clone().op_(...)`, the same two ways;
- the derived out= variant refuses inputs that require grad, like PyTorch.

An op added to the YAML with a formula is checked here without anyone writing a test; an op with a
formula but no samples fails `test_every_formula_has_samples`. The sample syntax (T, P, B, V, lists for
Tensor[] arguments, `# finite_differences: no` for samples at kinks) is in conftest.parse_sample and
docs/testing.md.
"""
from pathlib import Path

import numpy as np
import pytest
import torch

import torchlite as tl
from codegen.loader import load_native_functions
from codegen.model import COMPOSITE, SchemaKind
from conftest import (Spec, iter_specs, map_specs, op_namespace, parse_sample, run_cases, sample_callables, sample_hint,
                      variant_index)
from torchlite.autograd.gradcheck import gradcheck, gradgradcheck

YAML = Path(__file__).resolve().parents[1] / "native_functions.yaml"
ALL = load_native_functions(YAML).functions
ENTRIES = [f for f in ALL if f.functional is None]
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def _has_formula(f):
    """A real gradient formula: not `non_differentiable`, nor `not_implemented(...)` (ops PyTorch has no
    derivative for, whose backward raises: tests/test_scatter_reduce.py checks that)."""
    return any(d.formula.strip() != "non_differentiable"
               and not d.formula.startswith(("not_implemented(", "not_implemented_backward("))
               for d in f.derivatives)


def _differentiable(f):
    if not any(str(r.type).startswith("Tensor") for r in f.schema.returns):
        return False  # a bool or number result (allclose, is_nonzero) has no gradient
    return _has_formula(f) or any(backend == COMPOSITE for backend, _ in f.dispatch) or f.composite_body is not None


_VARIANTS = variant_index(ALL)


def _variant(f, kind):
    """f's derived in-place/out= variant, or the out= overload the YAML writes for it (conftest.variant_index)."""
    return _VARIANTS.get((id(f), kind))


# Ops whose differentiable input can only be complex: the samples' tensors are real, so these have
# none; their gradients are checked against PyTorch's in the files named.
COMPLEX_INPUT_FORMULAS = {
    "view_as_real": "tests/test_complex_views.py",
    "_conj": "tests/test_conj_view.py",
    "_fft_c2c": "tests/test_fft.py",
    "_fft_c2r": "tests/test_fft.py",
}


def test_every_formula_has_samples():
    missing = [str(f.schema.name) for f in ENTRIES
               if _has_formula(f) and not f.samples and str(f.schema.name) not in COMPLEX_INPUT_FORMULAS]
    assert not missing, f"ops with derivative formulas but no samples: {missing}"


# Known gaps, kept visible: these cases must fail until the gap is closed (strict xfail).
KNOWN_GAPS = {
    ("as_strided", 0, "expanded"): "as_strided_backward does not yet support inputs whose own geometry overlaps",
}
# Known gaps of the second-order checks (gradgradcheck, and the order-2 gradients against PyTorch's on
# contiguous inputs), by op: strict xfails of those cases only.
KNOWN_SECOND_ORDER_GAPS = {
    name: "the derivative of grid_sampler's backward (its double backward) is a kernel "
          "(_grid_sampler_double_backward) with no derivative of its own; PyTorch builds it from differentiable "
          "ops, so it differentiates once more" for name in ("grid_sampler_2d_backward", "grid_sampler_3d_backward")
}
# Known gaps of gradgradcheck alone, by op or (op, layout): strict xfails of test_gradgradcheck.
KNOWN_GRADGRADCHECK_GAPS = {
    key: "PyTorch has no double backward for pdist either (NotImplementedError \"the derivative for "
         "'_pdist_backward' is not implemented.\", which this check reads as 'torchlite may do more'); torchlite "
         "raises the same" for key in ("pdist", ("_pdist_forward", "contiguous"))  # _pdist_forward refuses others
}
# Known out= mismatches, by op: strict xfails of test_out_refuses_inputs_requiring_grad.
KNOWN_OUT_GAPS = {
    **{name: "PyTorch's matrix_rank out= (an integer result) neither refuses inputs that require grad nor records "
             "a graph; torchlite's composite out= refuses them" for name in
       ("linalg_matrix_rank", "linalg_matrix_rank.atol_rtol_float", "linalg_matrix_rank.atol_rtol_tensor",
        "linalg_matrix_rank.tol_tensor")},
    "binary_cross_entropy": "PyTorch's binary_cross_entropy out= computes into a squeezed view of out, which it "
                            "resizes, not out: an empty out stays empty and 'mean'/'sum' reduce nothing, so its "
                            "out= values differ from its functional ones (a bug not copied)",
    "diag": "PyTorch's diag out= (a composite of diagonal_copy.out / diag_embed.out) accepts inputs that require "
            "grad and returns out with a NotImplemented grad_fn naming the op it called; torchlite's diag is a "
            "composite whose derived out= refuses them (`out_autograd: not_implemented` would record diag, not the op "
            "PyTorch's names)",
}

# PyTorch bugs in a backward that torchlite computes (checked by gradcheck instead), by (op, sample):
# PyTorch's backward raises this RuntimeError where torchlite's gradient passes gradcheck.
TORCH_BACKWARD_BUGS = {
    **{("vander", s): "PyTorch's vander writes its result with an in-place cumprod_out, so its backward raises "
                      "'modified by an inplace operation'" for s in ("T(4)", "T(3), N=5", "T(4), 3, True")},
    ("narrow_copy", "T(3, 4), 0, -2, 2"): "PyTorch's narrow_copy backward does not wrap a negative start (a size "
                                          "mismatch error)",
    **{("as_strided_scatter", s): "PyTorch's as_strided_scatter backward gives self the gradient of the written "
                                  "positions instead of the others (its own gradcheck fails); torchlite's passes"
       for s in ("T(3, 4), T(2, 2), (2, 2), (1, 2), 1", "T(3, 4), T(4), (4,), (3,)", "T(2, 3), T(2, 3), (2, 3), (3, 1)")},
    ("dist", "T(3, 4), T(3, 4), 0"): "PyTorch's dist backward for p = 0 passes an undefined tensor on (its norm "
                                     "backward has no gradient for p = 0); torchlite gives zeros",
}


def _torch_backward_bug(f, sample):
    return TORCH_BACKWARD_BUGS.get((f.schema.name.name, sample))


def _gradient_samples(f):
    """(index, sample) of the samples of `f` that have a tensor to differentiate and defined values
    (`# check: shape` marks uninitialised results)."""
    return [(i, s) for i, s in enumerate(f.samples) if sample_hint(s, "check") != "shape"
            and any(spec.kind in "TPVUG" for spec in iter_specs(parse_sample(s, tl)))]


def _cases(forms=("functional", "inplace"), layouts=LAYOUTS, finite_differences=False, second_order_layouts=(),
           second_order_gaps=KNOWN_SECOND_ORDER_GAPS):
    for f in ENTRIES:
        if not _differentiable(f):
            continue
        if finite_differences and "random" in f.tags:  # each call draws anew: compared with PyTorch's only
            continue
        for form in forms:
            if form != "functional" and _variant(f, SchemaKind(form)) is None:
                continue
            for i, sample in _gradient_samples(f):
                for layout in layouts:
                    gap = KNOWN_GAPS.get((f.schema.name.name, i, layout))
                    if form == "out":
                        gap = KNOWN_OUT_GAPS.get(str(f.schema.name))
                    if layout in second_order_layouts:
                        gap = (gap or second_order_gaps.get(f.schema.name.name)
                               or second_order_gaps.get((f.schema.name.name, layout)))
                    marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                    yield pytest.param(f, form, sample, layout, marks=marks,
                                       id=f"{f.schema.name}[{i}]-{form}-{layout}")


def _grouped(cases):
    """The layouts of one (entry, form, sample) as one pytest item (conftest.run_cases: pytest's and pytest-xdist's
    per-item work costs as much as a small case): params (f, form, sample, name, [(layout, known gap or None)])."""
    groups = {}
    for c in cases:
        f, form, sample, layout = c.values
        name = c.id.rsplit("-", 1)[0]
        groups.setdefault(name, (f, form, sample, name, []))[4].append((layout, c.marks[0].kwargs["reason"]
                                                                       if c.marks else None))
    return [pytest.param(*g, id=g[3]) for g in groups.values()]


# ---------------------------------------------------------------- inputs: the same values in both libraries

def _values(spec, seed):
    if spec.kind == "V":
        return spec.values
    rng = np.random.default_rng(seed)
    if spec.kind == "B":
        return rng.integers(0, 2, spec.shape).astype(bool)
    low, high = {"P": (0.5, 2.0), "U": (-0.9, 0.9), "G": (1.1, 3.0)}.get(spec.kind, (-2.0, 2.0))
    return rng.uniform(low, high, spec.shape).astype(np.float64)


def _leaf(values, layout, lib):
    """(leaf, to_input): a float64 leaf of `lib` holding `values` in the given layout, and how to turn
    the leaf into the op's input (identity, or an expand for the expanded layout)."""
    if layout == "transposed" and values.ndim >= 2:
        leaf = lib.from_numpy(np.ascontiguousarray(values.swapaxes(-1, -2))).transpose(-1, -2)
        return leaf.detach().requires_grad_(), lambda x: x
    if layout == "sliced" and values.ndim >= 1:
        big = np.zeros(values.shape[:-1] + (2 * values.shape[-1] + 1,))
        big[..., 1::2] = values
        return lib.from_numpy(big)[..., 1::2].detach().requires_grad_(), lambda x: x
    if layout == "expanded" and values.ndim >= 1 and values.shape[0] > 1:
        small = np.ascontiguousarray(values[:1])
        shape = values.shape
        return lib.from_numpy(small).requires_grad_(), lambda x: x.expand(*shape)
    # np.array, not np.ascontiguousarray: the latter makes a 0-d array 1-d.
    return lib.from_numpy(np.array(values, order="C")).requires_grad_(), lambda x: x


def _prepare(call, sample, layout, lib=tl, inplace=None, random=False, namespace=None):
    """(func, leaves): `func(*leaves)` runs `call` (a callable of (args, kwargs)) on the sample's inputs
    built from the leaves. With `inplace` (a method name), func runs `args[0].clone().<inplace>(...)`."""
    args, kwargs = parse_sample(sample, lib)
    leaves, inputs = [], []  # inputs[i](leaves) is the tensor standing for the i-th Spec
    for pos, spec in enumerate(iter_specs((args, kwargs))):
        values = _values(spec, seed=pos)
        if spec.kind == "B":
            inputs.append(lambda xs, v=lib.from_numpy(values): v)
            continue
        leaf, to_input = _leaf(values, layout, lib)
        inputs.append(lambda xs, k=len(leaves), build=to_input: build(xs[k]))
        leaves.append(leaf)

    def func(*xs):
        if random:
            lib.manual_seed(0)
        slots = iter(inputs)
        a, k = map_specs((args, kwargs), lambda s: next(slots)(xs))
        if inplace:  # a method, or a function of the module (F.elu_ is torch._C._nn.elu_ only)
            x = a[0].clone()
            method = getattr(x, inplace, None)
            return method(*a[1:], **k) if method else getattr(namespace, inplace)(x, *a[1:], **k)
        return call(a, k)

    return func, leaves


def _both(f, form, sample, layout):
    """((torchlite func, leaves), (torch func, leaves)) for one case."""
    # In-place ops run on a clone of their first input (a leaf that requires grad cannot be written).
    name = _variant(f, SchemaKind.inplace).schema.name.name if form == "inplace" else \
        f.schema.name.name if f.schema.name.inplace else None
    t_call, l_call = sample_callables(f, sample)
    random = "random" in f.tags
    return (_prepare(l_call, sample, layout, tl, name, random, op_namespace(f, tl)),
            _prepare(t_call, sample, layout, torch, name, random, op_namespace(f, torch)))


def _forward_or_torch_rejects(case, t_case, what, strict):
    """Runs the forward once. False when both torchlite and PyTorch reject these inputs (a view of a
    transposed input, an in-place op that cannot broadcast its self...); never when `strict` (the
    functional form on contiguous inputs), where that would mean a sample testing nothing."""
    try:
        case[0](*case[1])
    except RuntimeError as e:
        if strict:
            raise
        try:
            t_case[0](*t_case[1])
        except type(e):
            return False
        raise AssertionError(f"{what}: torchlite raised {e!r}, PyTorch did not") from e
    return True


def _strict(form, layout):
    return form == "functional" and layout == "contiguous"


def _what(f, form, sample, layout):
    return f"{f.schema.name} {form} on {layout} inputs, sample {sample!r}"


@pytest.mark.parametrize("f,form,sample,name,cases", _grouped(_cases(finite_differences=True)))
def test_gradcheck(f, form, sample, name, cases):
    run_cases(name, cases, lambda layout: _check_gradcheck(f, form, sample, layout))


def _fast(layout):
    """Finite differences element by element on contiguous inputs; on the other layouts, which check that the
    kernels read strides right, one random projection v^T J u (gradcheck's fast_mode, as PyTorch's): a wrong
    gradient there still fails it, at a fraction of the cost (the per-element Jacobians were a quarter of the
    suite's CPU time). Every layout's gradients are also compared with PyTorch's (test_gradients_like_torch)."""
    return layout != "contiguous"


def _check_gradcheck(f, form, sample, layout):
    case, t_case = _both(f, form, sample, layout)
    assert case[1], f"sample {sample!r} of {f.schema.name} has no differentiable tensor"
    if sample_hint(sample, "finite_differences") == "no":
        return  # a kink or tie: checked against PyTorch only (test_gradients_like_torch)
    if _forward_or_torch_rejects(case, t_case, _what(f, form, sample, layout), _strict(form, layout)):
        assert gradcheck(*case, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=_fast(layout)), \
            _what(f, form, sample, layout)


@pytest.mark.parametrize("f,form,sample,name,cases", _grouped(_cases(
    layouts=("contiguous", "transposed"), finite_differences=True, second_order_layouts=("contiguous", "transposed"),
    second_order_gaps={**KNOWN_SECOND_ORDER_GAPS, **KNOWN_GRADGRADCHECK_GAPS})))
def test_gradgradcheck(f, form, sample, name, cases):
    run_cases(name, cases, lambda layout: _check_gradgradcheck(f, form, sample, layout))


def _check_gradgradcheck(f, form, sample, layout):
    case, t_case = _both(f, form, sample, layout)
    if sample_hint(sample, "finite_differences") == "no":
        return
    if _forward_or_torch_rejects(case, t_case, _what(f, form, sample, layout), _strict(form, layout)):
        if _torch_backward_bug(f, sample):
            assert gradgradcheck(*case, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=_fast(layout)), _what(f, form, sample, layout)
            return
        if _torch_lacks_derivative(lambda: _grads(*t_case, torch, 2)):
            # PyTorch has no second derivative here (hardsigmoid_backward): torchlite must refuse alike.
            with pytest.raises(RuntimeError, match="derivative for .* is not implemented"):
                gradgradcheck(*case, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=_fast(layout))
            return
        assert gradgradcheck(*case, eps=1e-6, atol=1e-5, rtol=1e-3, fast_mode=_fast(layout)), _what(f, form, sample, layout)


def _torch_lacks_derivative(run):
    """Whether `run` raises PyTorch's "derivative for aten::x is not implemented"."""
    try:
        run()
    except NotImplementedError:  # asinh_...: torchlite may do more; gradgradcheck is the oracle
        return False
    except RuntimeError as e:
        if "derivative for" in str(e) and "is not implemented" in str(e):
            return True
        raise
    return False


# ---------------------------------------------------------------- gradients against PyTorch's

def _outputs(result):
    outs = result if isinstance(result, (tuple, list)) else (result,)
    return [o for o in outs if o.requires_grad]


def _grad_outputs(outs, lib):
    rng = np.random.default_rng(1)
    return [lib.from_numpy(rng.standard_normal(tuple(o.shape))) for o in outs]


def _grads(func, leaves, lib, order):
    """The first (order=1) or second (order=2, along a fixed direction) derivatives, as NumPy arrays."""
    outs = _outputs(func(*leaves))
    if not outs:
        return []
    grads = lib.autograd.grad(outs, leaves, _grad_outputs(outs, lib), create_graph=order > 1, allow_unused=True)
    if order > 1:
        rng = np.random.default_rng(2)
        terms = [(g * lib.from_numpy(rng.standard_normal(tuple(g.shape)))).sum() for g in grads
                 if g is not None and g.requires_grad]
        if not terms:  # the first derivatives are constant: the second ones are zero
            return [np.zeros(tuple(x.shape)) for x in leaves]
        total = terms[0]
        for t in terms[1:]:
            total = total + t
        grads = lib.autograd.grad([total], leaves, allow_unused=True)
    # force=True: PyTorch may return its lazy "ZeroTensor" for a gradient known to be zero.
    return [None if g is None else g.detach().numpy(**({"force": True} if lib is torch else {})) for g in grads]


@pytest.mark.parametrize("f,form,sample,name,cases", _grouped(_cases(second_order_layouts=("contiguous",))))
def test_gradients_like_torch(f, form, sample, name, cases):
    run_cases(name, cases, lambda layout: _check_gradients_like_torch(f, form, sample, layout))


def _check_gradients_like_torch(f, form, sample, layout):
    case, t_case = _both(f, form, sample, layout)
    what = _what(f, form, sample, layout)
    if not _forward_or_torch_rejects(case, t_case, what, _strict(form, layout)):
        return
    for order in (1, 2) if layout == "contiguous" else (1,):
        try:
            expected = _grads(*t_case, torch, order)
        except NotImplementedError:  # PyTorch has no derivative here (asinh_...): gradcheck is the oracle
            return
        except RuntimeError as e:  # e.g. "derivative for aten::hardsigmoid_backward is not implemented"
            if _torch_backward_bug(f, sample):
                return  # a PyTorch bug (TORCH_BACKWARD_BUGS): test_gradcheck checks torchlite's gradient
            with pytest.raises(RuntimeError, match="derivative for .* is not implemented" if "derivative for" in str(e)
                               else None):
                _grads(*case, tl, order)
            return
        if _torch_backward_bug(f, sample):
            return  # PyTorch's gradient is wrong here (TORCH_BACKWARD_BUGS): test_gradcheck checks torchlite's
        got = _grads(*case, tl, order)
        assert len(got) == len(expected), what
        for k, (g, e) in enumerate(zip(got, expected)):
            # PyTorch returns None for an input its graph does not reach; torchlite may return zeros.
            e = np.zeros_like(g) if e is None and g is not None else e
            g = np.zeros_like(e) if g is None and e is not None else g
            if g is None:
                continue
            np.testing.assert_allclose(g, e, rtol=1e-7, atol=1e-10, equal_nan=True,
                                       err_msg=f"{what}: order-{order} gradient of input {k}")


# ---------------------------------------------------------------- out= variants

@pytest.mark.parametrize("f,form,sample,layout", list(_cases(forms=("out",), layouts=("contiguous",))))
def test_out_refuses_inputs_requiring_grad(f, form, sample, layout):
    """Like PyTorch: an out= call records no graph, so it refuses inputs that require grad; without them it
    gives the functional values (the value checks for every dtype are in test_forward_generated.py)."""
    t_call, l_call = sample_callables(f, sample)
    random = "random" in f.tags  # each call seeded alike, so the out= values equal the functional ones
    for lib, call in ((torch, t_call), (tl, l_call)):
        with lib.no_grad():
            leaves = _prepare(call, sample, layout, lib)[1]
            expected = _prepare(call, sample, layout, lib, random=random)[0](*leaves)
        expected = expected if isinstance(expected, tuple) else (expected,)

        def outs():  # one tensor per output, of the functional result's shape and dtype (several: a tuple)
            made = tuple(lib.empty(tuple(e.shape), dtype=e.dtype) for e in expected)
            return made[0] if len(made) == 1 else made

        func, leaves = _prepare(lambda a, k, c=call: c(a, {**k, "out": outs()}), sample, layout, lib, random=random)
        if _variant(f, SchemaKind.out).out_autograd is not None:
            continue  # recorded as PyTorch records it: test_out_records_like_torch, test_out_not_implemented_like_torch
        with pytest.raises(RuntimeError, match="requires grad|require grad|automatic differentiation"):
            func(*leaves)
        with lib.no_grad():
            got = func(*leaves)
        got = got if isinstance(got, tuple) else (got,)
        for g, e in zip(got, expected, strict=True):
            assert not g.requires_grad
            np.testing.assert_array_equal(g.numpy(), e.numpy())


@pytest.mark.parametrize("f,form,sample,layout", [c for c in _cases(forms=("out",), layouts=("contiguous",))
                                                  if _variant(c.values[0], SchemaKind.out).out_autograd
                                                  == "not_implemented"])
def test_out_not_implemented_like_torch(f, form, sample, layout):
    """`out_autograd: not_implemented`: out= with inputs that require grad returns `out` itself with PyTorch's
    NotImplemented grad_fn, whose backward raises PyTorch's error; an `out` that requires grad is refused."""
    for lib in (torch, tl):
        call = sample_callables(f, sample)[0 if lib is torch else 1]
        with lib.no_grad():
            expected = _prepare(call, sample, layout, lib)[0](*_prepare(call, sample, layout, lib)[1])
        out = lib.empty(tuple(expected.shape), dtype=expected.dtype)
        func, leaves = _prepare(lambda a, k, c=call: c(a, {**k, "out": out}), sample, layout, lib)
        got = func(*leaves)
        assert got is out and got.requires_grad and not got.is_leaf
        assert got.grad_fn.name() == "torch::autograd::NotImplemented"
        assert type(got.grad_fn).__name__ == "NotImplemented"
        assert [type(e[0]).__name__ for e in got.grad_fn.next_functions] == ["AccumulateGrad"] * len(leaves)
        # detach(): PyTorch's functional conj_physical of a real tensor returns the input itself, a leaf here.
        np.testing.assert_array_equal(got.detach().numpy(), expected.detach().numpy())
        with pytest.raises(RuntimeError, match=rf"^derivative for aten::{f.schema.name.name} is not implemented$"):
            (got.real if got.is_complex() else got).sum().backward()  # complex (eigvals): a real loss
        out = lib.empty(tuple(expected.shape), dtype=expected.dtype, requires_grad=True)
        with pytest.raises(RuntimeError, match="functions with out=... arguments don't support automatic"):
            func(*leaves)


@pytest.mark.parametrize("f,form,sample,layout", [c for c in _cases(forms=("out",), layouts=("contiguous",))
                                                  if _variant(c.values[0], SchemaKind.out).out_autograd == "records"])
def test_out_records_like_torch(f, form, sample, layout):
    """`out_autograd: records` (PyTorch's CompositeImplicitAutograd out= overloads): out= with inputs that
    require grad records the copy into out (CopyBackwards), and the gradients are PyTorch's."""
    grads, names = [], []
    for lib in (torch, tl):
        call = sample_callables(f, sample)[0 if lib is torch else 1]
        with lib.no_grad():
            expected = _prepare(call, sample, layout, lib)[0](*_prepare(call, sample, layout, lib)[1])
        func, leaves = _prepare(lambda a, k, c=call, e=expected: c(a, {**k, "out": lib.empty(tuple(e.shape),
                                                                                               dtype=e.dtype)}),
                                sample, layout, lib)
        got = func(*leaves)
        assert got.requires_grad
        names.append(type(got.grad_fn).__name__)
        got.sum().backward()
        grads.append([None if x.grad is None else x.grad.numpy() for x in leaves])
    assert names[1] == names[0] == "CopyBackwards"
    for g, e in zip(grads[1], grads[0], strict=True):
        assert (g is None) == (e is None)
        if e is not None:
            np.testing.assert_allclose(g, e, rtol=1e-6, atol=1e-7)


# ---------------------------------------------------------------- the sample syntax itself

def test_list_samples_are_differentiated():
    """A Tensor[] argument is written as a list of tensors in a sample; every tensor in it is a leaf."""
    sample = "[T(2, 3), P(3)], 2.5"

    def call(lib):
        return lambda a, k: lib.add(a[0][0], a[0][1], alpha=a[1])

    case, t_case = _prepare(call(tl), sample, "transposed"), _prepare(call(torch), sample, "transposed", torch)
    assert len(case[1]) == 2 and case[1][0].shape == (2, 3)
    assert gradcheck(*case)
    for g, e in zip(_grads(*case, tl, 1), _grads(*t_case, torch, 1)):
        np.testing.assert_allclose(g, e, rtol=1e-12)
    assert isinstance(parse_sample(sample, tl)[0][0][1], Spec)
