"""--compare-torch: runs each call again with PyTorch (the same source, `torchlite.` read as `torch.`)
and reports a 'mismatch' where the two disagree: one raises and the other does not, different
exception types, or results (and the tensors passed in, for in-place and out= writes) that differ in
shape, dtype, device or value. A mismatch is a finding to look at, not a crash: PyTorch's own quirks
(a warning-only path, a dtype it cannot handle) show up here too."""
import math
import warnings

import numpy as np

FLOATS = ("float16", "bfloat16", "float32", "float64")
TOLERANCE = {"float16": 1e-2, "bfloat16": 1e-2, "float32": 1e-5, "float64": 1e-7}


def torch_source(body):
    return body.replace("torchlite.", "torch.")


def _dtype(t):
    return str(t.dtype).split(".")[-1]


def _array(t):
    t = t.detach()
    if _dtype(t) in FLOATS:
        t = t.double()
    return np.asarray(t.numpy())


def difference(got, expected, check_values=True):
    """None when torchlite's `got` matches torch's `expected`, else what differs."""
    import torch
    import torchlite
    if isinstance(expected, torch.Tensor):
        if not isinstance(got, torchlite.Tensor):
            return f"a {type(got).__name__} where PyTorch returns a Tensor"
        for what, a, b in (("shape", tuple(got.shape), tuple(expected.shape)), ("dtype", _dtype(got), _dtype(expected)),
                           ("device", got.device.type, expected.device.type)):
            if a != b:
                return f"{what} {a} vs PyTorch's {b}"
        if not check_values or expected.device.type == "meta" or expected.numel() > 1 << 16:
            return None
        a, b = _array(got), _array(expected)
        tol = TOLERANCE.get(_dtype(expected), 0)
        if tol:
            same = np.isclose(a, b, rtol=tol, atol=tol, equal_nan=True)
        else:
            same = a == b
        if not np.all(same):
            bad = np.argwhere(~np.asarray(same))[:1]
            idx = tuple(bad[0]) if bad.size else ()
            return f"values differ at {idx}: {a[idx]!r} vs PyTorch's {b[idx]!r}"
        return None
    if isinstance(expected, (tuple, list)):
        if not isinstance(got, (tuple, list)) or len(got) != len(expected):
            return f"{got!r} vs PyTorch's {expected!r}"
        return next((d for d in (difference(g, e, check_values) for g, e in zip(got, expected)) if d), None)
    if isinstance(expected, float) and isinstance(got, float) and math.isnan(expected) and math.isnan(got):
        return None
    if type(expected).__name__ in ("Size", "dtype", "device"):
        return None if str(got).replace("torchlite", "torch") == str(expected) else f"{got} vs PyTorch's {expected}"
    return None if got == expected else f"{got!r} vs PyTorch's {expected!r}"


def run_torch(body, torch_prelude):
    """(scope, exception) of running the call with PyTorch."""
    scope = {}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            exec(torch_prelude, scope)  # noqa: S102 - the fuzzer's own generated code
            exec(compile(torch_source(body), "<torch call>", "exec"), scope)  # noqa: S102
    except Exception as e:  # noqa: BLE001 - the kind of error is what we compare
        return scope, e
    return scope, None


def mismatch(scope, exc, t_scope, t_exc, check_values):
    """None when torchlite (scope, exc) behaved like PyTorch (t_scope, t_exc), else what differs."""
    if isinstance(t_exc, AttributeError):
        return None  # PyTorch has no such function (the ops torchlite binds in torchlite._C._internal)
    if exc is not None or t_exc is not None:
        if exc is None:
            return f"PyTorch raises {type(t_exc).__name__}: {str(t_exc)[:200]}"
        if t_exc is None:
            return f"PyTorch succeeds where torchlite raises {type(exc).__name__}: {str(exc)[:200]}"
        # torch reports "not implemented for 'Bool'" as NotImplementedError, a RuntimeError subclass.
        subclass = isinstance(t_exc, NotImplementedError) and isinstance(exc, RuntimeError)
        if type(exc) is not type(t_exc) and not subclass:
            return f"{type(exc).__name__} vs PyTorch's {type(t_exc).__name__}: {str(exc)[:150]} | {str(t_exc)[:150]}"
        return None
    names = ["result"] + sorted(k for k in t_scope if k.startswith("t") and k[1:].isdigit())
    for name in names:
        d = difference(scope.get(name), t_scope.get(name), check_values)
        if d:
            return f"{name}: {d}"
    return None
