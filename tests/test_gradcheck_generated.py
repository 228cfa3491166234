"""Gradient checks generated from native_functions.yaml: every op with a derivative formula (and
every composite op with samples) is run through gradcheck and gradgradcheck on each of its
`samples:` calls, with its tensor inputs contiguous, transposed, sliced and expanded.

An op added to the YAML with a formula is checked here without anyone writing a test; an op with a
formula but no samples fails `test_every_formula_has_samples`.

Sample calls use T(*shape) (float64 values in [-2, 2)), P(*shape) (positive, in [0.5, 2)) and
B(*shape) (bool, never differentiated).
"""
from pathlib import Path

import numpy as np
import pytest
import torch

import torchlite as tl
from codegen.loader import load_native_functions
from torchlite.autograd.gradcheck import gradcheck, gradgradcheck

YAML = Path(__file__).resolve().parents[1] / "native_functions.yaml"
ENTRIES = [f for f in load_native_functions(YAML).functions if f.functional is None]
LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


class Spec:
    """A tensor argument of a sample call, built per layout."""

    def __init__(self, kind, shape):
        self.kind, self.shape = kind, tuple(shape)


def _has_formula(f):
    return any(d.formula.strip() != "non_differentiable" for d in f.derivatives)


def test_every_formula_has_samples():
    missing = [str(f.schema.name) for f in ENTRIES if _has_formula(f) and not f.samples]
    assert not missing, f"ops with derivative formulas but no samples: {missing}"


def _values(spec, seed):
    rng = np.random.default_rng(seed)
    if spec.kind == "B":
        return rng.integers(0, 2, spec.shape).astype(bool)
    low, high = (0.5, 2.0) if spec.kind == "P" else (-2.0, 2.0)
    return rng.uniform(low, high, spec.shape).astype(np.float64)


def _leaf(values, layout, lib=tl):
    """(leaf, to_input): a float64 leaf holding `values` in the given layout, and how to turn the
    leaf into the op's input (identity, or an expand for the expanded layout). `lib` is torchlite,
    or torch to build the same input for the oracle."""
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
    return lib.from_numpy(np.ascontiguousarray(values)).requires_grad_(), lambda x: x


def _call(f, args, kwargs):
    name = f.schema.name.name
    fn = getattr(tl._C._ops, name, None)
    if "function" in f.variants and fn is not None:
        return fn(*args, **kwargs)
    return getattr(args[0], name)(*args[1:], **kwargs)


# Known gaps, kept visible: these cases must fail until the gap is closed (strict xfail).
KNOWN_GAPS = {
    ("as_strided", 0, "expanded"): "as_strided_backward does not yet support inputs whose own geometry overlaps",
}


def _cases():
    for f in ENTRIES:
        for i, sample in enumerate(f.samples):
            for layout in LAYOUTS:
                gap = KNOWN_GAPS.get((f.schema.name.name, i, layout))
                marks = [pytest.mark.xfail(reason=gap, strict=True)] if gap else []
                yield pytest.param(f, sample, layout, id=f"{f.schema.name}[{i}]-{layout}", marks=marks)


def _parse_sample(sample, lib):
    """(args, kwargs) of a sample call, tensors as Specs; `torchlite.x` in a sample means lib.x."""
    def collect(*a, **k):
        return a, k
    helpers = {"T": lambda *s: Spec("T", s), "P": lambda *s: Spec("P", s), "B": lambda *s: Spec("B", s),
               "torchlite": lib, "collect": collect}
    return eval(f"collect({sample})", helpers)  # noqa: S307 - samples come from our own YAML


def _torch_forward_raises(f, sample, layout, error):
    """When torchlite rejects a layout (view of a transposed tensor...), PyTorch must reject it too."""
    args, kwargs = _parse_sample(sample, torch)
    targs = []
    for pos, a in enumerate(args):
        if isinstance(a, Spec):
            leaf, to_input = _leaf(_values(a, seed=pos), layout, torch)
            targs.append(to_input(leaf))
        else:
            targs.append(a)
    name = f.schema.name.name
    fn = getattr(torch, name, None) if "function" in f.variants else None
    try:
        fn(*targs, **kwargs) if fn is not None else getattr(targs[0], name)(*targs[1:], **kwargs)
    except type(error):
        return True
    return False


def _prepare(f, sample, layout):
    args, kwargs = _parse_sample(sample, tl)
    leaves, builders, slots = [], [], []
    fixed = list(args)
    # A tensor list argument (`[T(2, 3), T(4, 3)]`) has one leaf per element: slot (pos, index).
    specs = [((pos, None), a) for pos, a in enumerate(args) if isinstance(a, Spec)]
    specs += [((pos, j), e) for pos, a in enumerate(args) if isinstance(a, list)
              for j, e in enumerate(a) if isinstance(e, Spec)]
    for (pos, j), a in specs:
        values = _values(a, seed=pos if j is None else 100 * pos + j)
        if a.kind == "B":
            if j is None:
                fixed[pos] = tl.from_numpy(values)
            else:
                fixed[pos] = list(fixed[pos])
                fixed[pos][j] = tl.from_numpy(values)
            continue
        leaf, to_input = _leaf(values, layout)
        leaves.append(leaf)
        builders.append(to_input)
        slots.append((pos, j))
    inplace = f.schema.name.inplace

    def func(*xs):
        call_args = [list(a) if isinstance(a, list) else a for a in fixed]
        for (pos, j), build, x in zip(slots, builders, xs):
            if j is None:
                call_args[pos] = build(x)
            else:
                call_args[pos][j] = build(x)
        if inplace:
            call_args[0] = call_args[0].clone()
        return _call(f, call_args, kwargs)
    return func, leaves


def _forward_or_torch_rejects(f, sample, layout, func, leaves):
    """Runs the forward once. False when both torchlite and PyTorch reject this layout."""
    try:
        func(*leaves)
    except RuntimeError as e:
        assert _torch_forward_raises(f, sample, layout, e), f"{f.schema.name}({sample}) on {layout} inputs: {e}"
        return False
    return True


@pytest.mark.parametrize("f,sample,layout", list(_cases()))
def test_gradcheck(f, sample, layout):
    func, leaves = _prepare(f, sample, layout)
    assert leaves, f"sample {sample!r} of {f.schema.name} has no differentiable tensor"
    if _forward_or_torch_rejects(f, sample, layout, func, leaves):
        assert gradcheck(func, leaves, eps=1e-6, atol=1e-5, rtol=1e-3), f"{f.schema.name} with {sample}"


@pytest.mark.parametrize("f,sample,layout", [c for c in _cases() if c.values[2] in ("contiguous", "transposed")])
def test_gradgradcheck(f, sample, layout):
    func, leaves = _prepare(f, sample, layout)
    if _forward_or_torch_rejects(f, sample, layout, func, leaves):
        assert gradgradcheck(func, leaves, eps=1e-6, atol=1e-5, rtol=1e-3), f"{f.schema.name} with {sample}"
