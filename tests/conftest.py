"""Shared helpers: converting between torchlite and the PyTorch oracle, and layouts to test on."""
import gc
import os
import re
import zlib

# Before torch and torchlite load OpenMP (it reads this once): pytest-xdist runs one worker per core, each with
# one thread per core, so an OpenMP thread spinning at a barrier takes the core another worker's thread needs.
# Sleeping waits: tests/test_gradcheck_generated.py with -n 2 on 2 cores 184 -> 106 CPU-s, 138 -> 79 s.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")

import numpy as np
import pytest
import torch

import torchlite as tl

pytest_plugins = ["sharding", "cpu_report"]  # TORCHLITE_TEST_SHARD=k/n (tests/sharding.py), TORCHLITE_TEST_CPU_REPORT=DIR

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64"]
FLOAT_DTYPES = ["float16", "bfloat16", "float32", "float64"]
INT_DTYPES = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """Collection builds ~120,000 items (each process: every xdist worker collects the whole suite) and allocates
    millions of objects that live until the end, so the cyclic GC's full passes over them were a quarter of the
    collection's CPU time; it is off while collecting, and what collection made is then frozen (left out of later
    passes, also those during the tests). Garbage cycles made while collecting are not freed: a few MB at most."""
    gc.disable()
    try:
        return (yield)
    finally:
        gc.freeze()
        gc.enable()


@pytest.fixture(autouse=True)
def _seed_torch_per_test(request):
    """torch's global generator seeded from the test's id: a test's unseeded oracle inputs (torch.randn) are the
    same whatever ran before it, so adding or reordering tests cannot change another test's inputs."""
    # The CPU generator alone: torch.manual_seed also queues a seeding of every lazily initialized accelerator
    # module, each with a formatted stack trace of the caller (~5-10 ms per call under pytest's deep stacks:
    # a fifth of the suite's time), and the CPU build has nothing else to seed.
    torch.default_generator.manual_seed(zlib.crc32(request.node.nodeid.encode()))


def run_cases(name, cases, check):
    """Runs `check(*case)` for each case of one generated test and fails once, listing every case that failed.

    The generated suites check tens of thousands of (op, sample, form, layout, dtype) cases; as one pytest item each,
    pytest's and pytest-xdist's own per-item work (~4 ms of CPU: three reports pickled to the controller and
    processed there) cost more than most cases themselves. So an item runs the cases of one (op, sample, form) and
    reports them all. `cases` are tuples whose last element is the case's known mismatch (a reason) or None: a case
    with one must fail (a strict expected failure); one that passes fails the item, so its entry gets removed."""
    failures, first = [], None
    for *case, known in cases:
        what = f"{name}-{'-'.join(str(c) for c in case)}"
        try:
            check(*case)
        except (Exception, pytest.fail.Exception) as e:  # pytest.raises reports a missing exception with Failed
            if known is None:
                failures.append(f"{what}: {type(e).__name__}: {str(e).strip().splitlines()[0] if str(e).strip() else ''}")
                first = first or (what, e)
        else:
            if known is not None:
                failures.append(f"{what}: passes, but is listed as a known mismatch ({known}): remove the entry")
    if failures:
        detail = ""
        if first is not None:
            import traceback
            detail = f"\n\nThe first failure, {first[0]}:\n" + "".join(traceback.format_exception(first[1]))[-4000:]
        pytest.fail(f"{len(failures)} of {len(cases)} cases failed:\n  " + "\n  ".join(failures) + detail,
                    pytrace=False)


def variant_index(functions):
    """{(id of a functional entry, kind): its derived in-place/out= variant, or the out= overload the YAML writes for
    it (except those PyTorch gives no Python binding, tag `generated`)}, the first in YAML order: one pass instead of a
    scan of every entry for each of the generated suites' ~80,000 cases."""
    from codegen.model import SchemaKind
    found = {}
    for v in functions:
        if v.functional is not None:
            found.setdefault((id(v.functional), v.derived_kind), v)
        if v.out_of is not None and "generated" not in v.tags:
            found.setdefault((id(v.out_of), SchemaKind.out), v)
    return found


def tl_dtype(name):
    return getattr(tl, name)


def torch_dtype(name):
    return getattr(torch, name)


def to_torch(t):
    """A torch copy of a torchlite tensor (through float32 for bfloat16 and complex64 for complex32, which
    NumPy lacks; both conversions are exact); the values of a tensor with a lazy conj/neg bit."""
    if t.is_conj() or t.is_neg():
        t = t.resolve_conj().resolve_neg()
    if t.dtype == tl.bfloat16:
        return torch.from_numpy(t.float().numpy().copy()).to(torch.bfloat16)
    if t.dtype == tl.complex32:
        return torch.from_numpy(t.to(tl.complex64).numpy().copy()).to(torch.complex32)
    return torch.from_numpy(t.numpy().copy())


def from_torch(t):
    if t.numel() == 0:
        # NumPy gives an empty array zero strides; keep PyTorch's (view(dtype) reads the last one).
        return _from_torch(t).as_strided(tuple(t.shape), t.stride())
    return _from_torch(t)


def _from_torch(t):
    if t.dtype == torch.bfloat16:
        return tl.from_numpy(t.float().numpy().copy()).to(tl.bfloat16)
    if t.dtype == torch.complex32:
        return tl.from_numpy(t.to(torch.complex64).numpy().copy()).to(tl.complex32)
    return tl.from_numpy(t.numpy().copy())


def make(shape, dtype, seed=0, low=-5, high=5):
    """A torch tensor of this dtype with varied values (no zeros for integer types)."""
    g = torch.Generator().manual_seed(seed)
    dt = torch_dtype(dtype)
    if dtype == "bool":
        return torch.randint(0, 2, shape, generator=g).bool()
    if dtype == "uint8":
        return torch.randint(1, 10, shape, generator=g).to(dt)
    if dt.is_floating_point:
        return (torch.rand(shape, generator=g, dtype=torch.float64) * (high - low) + low).to(dt)
    t = torch.randint(low, high, shape, generator=g)
    t[t == 0] = 1
    return t.to(dt)


def assert_same(actual, expected, atol=None, rtol=None, check_dtype=True):
    """torchlite `actual` equals torch `expected` in shape, dtype and values (NaNs equal)."""
    assert tuple(actual.shape) == tuple(expected.shape), (actual.shape, expected.shape)
    if check_dtype:
        assert str(actual.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1], (actual.dtype, expected.dtype)
    if expected.is_neg() and expected.dtype in (torch.bool, torch.uint16, torch.uint32, torch.uint64):
        # neither library can negate these dtypes (resolving the bit raises): compare memories
        assert actual.is_neg()
        actual, expected = actual._neg_view(), expected._neg_view()
    got = to_torch(actual)
    if expected.dtype == torch.complex32:  # torch.testing compares no complex32: both as complex64 (exact)
        got, expected = got.to(torch.complex64), expected.to(torch.complex64)
        atol = 1e-2 if atol is None else atol
        rtol = 1e-2 if rtol is None else rtol
    if expected.dtype in (torch.float16, torch.bfloat16):
        atol = 1e-2 if atol is None else atol
        rtol = 1e-2 if rtol is None else rtol
    torch.testing.assert_close(got.to(expected.dtype), expected, atol=atol, rtol=rtol, equal_nan=True,
                               check_dtype=False)


LAYOUTS = ["contiguous", "transposed", "sliced", "expanded"]


def layout(t, kind):
    """The same values as torch tensor `t` (2-D) presented with another memory layout, as (torch, torchlite)."""
    base = from_torch(t)
    if kind == "contiguous":
        return t, base
    if kind == "transposed":
        tt = t.t().contiguous().t()
        return tt, from_torch(t.t().contiguous()).t()
    if kind == "sliced":
        big = torch.zeros(t.shape[0], 2 * t.shape[1], dtype=t.dtype)
        big[:, ::2] = t
        return big[:, ::2], from_torch(big)[:, ::2]
    if kind == "expanded":
        row = t[:1]
        return row.expand_as(t), from_torch(row).expand(*t.shape)
    raise ValueError(kind)


# ---------------------------------------------------------------- shared by the reduction/view/linalg/factory tests

def dtype_name(dt):
    """'float32' for torch.float32 and torchlite.float32 alike."""
    return str(dt).split(".")[-1]


def tl_of(dt):
    """The torchlite dtype with the name of torch dtype `dt`."""
    return getattr(tl, dtype_name(dt))


def torch_of(dt):
    """The torch dtype with the name of torchlite dtype `dt`."""
    return getattr(torch, dtype_name(dt))


def torch_result(fn):
    """(result, None) or (None, exception) of running the torch oracle."""
    try:
        return fn(), None
    except Exception as e:  # noqa: BLE001 - the kind of error is what we compare
        return None, e


def error_types_like(err):
    """The exception types torchlite may raise where torch raised `err`.

    torch reports "not implemented for 'Bool'" as NotImplementedError, a subclass of RuntimeError; torchlite may use
    either, so RuntimeError (which matches both) is expected. Every other type must match exactly.
    """
    if isinstance(err, NotImplementedError):
        return (RuntimeError,)
    return (type(err),)


def expect_like_torch(tl_fn, torch_fn, check=None, **tol):
    """Runs both: either both raise (compatible types) and None is returned, or `check(tl_result, torch_result)`
    passes (assert_same by default) and the pair is returned."""
    expected, err = torch_result(torch_fn)
    if err is not None:
        with pytest.raises(error_types_like(err)):
            tl_fn()
        return None
    got = tl_fn()
    (check or assert_same)(got, expected, **tol)
    return got, expected


def assert_geometry(actual, expected):
    """torchlite `actual` has the shape, strides, offset, contiguity, dtype and device type of torch `expected`."""
    assert tuple(actual.shape) == tuple(expected.shape), (tuple(actual.shape), tuple(expected.shape))
    assert tuple(actual.stride()) == tuple(expected.stride()), (actual.stride(), expected.stride())
    assert actual.storage_offset() == expected.storage_offset(), (actual.storage_offset(), expected.storage_offset())
    assert actual.is_contiguous() == expected.is_contiguous()
    assert dtype_name(actual.dtype) == dtype_name(expected.dtype), (actual.dtype, expected.dtype)
    assert actual.device.type == expected.device.type, (actual.device, expected.device)


def storage_base(t):
    """The address of element 0 of the storage behind `t` (equal for tensors sharing storage)."""
    return t.data_ptr() - t.storage_offset() * t.element_size()


def shape_spellings(shape):
    """Ways an error message may spell a shape: [2, 3], (2, 3), 2x3."""
    dims = [str(int(s)) for s in shape]
    spellings = ["[" + ", ".join(dims) + "]", "(" + ", ".join(dims) + ("," if len(dims) == 1 else "") + ")"]
    if len(dims) > 1:
        spellings.append("x".join(dims))
    return spellings


def mentions_shape(message, shape):
    if any(s in message for s in shape_spellings(shape)):
        return True
    # A 1-D shape may be written as its bare size next to a 2-D one written AxB: "(3 and 4x5)".
    return len(shape) == 1 and re.search(r"(?<![\w.\[,x-])%d(?![\w.\],x])" % shape[0], message) is not None


# ---------------------------------------------------------------- YAML sample calls (generated suites)

class Spec:
    """A tensor argument of a YAML sample call: T (values in [-2, 2)), P (positive), B (always bool) or
    V (the given values, for stress cases: ties, kinks, large magnitudes).

    The suites turn it into a tensor of the dtype and layout under test; a list in a sample
    ("[T(2, 3), T(2, 3)], 0") holds Specs like any other value, for Tensor[] arguments."""

    def __init__(self, kind, shape, values=None):
        self.kind, self.shape, self.values = kind, tuple(shape), values

    def __repr__(self):
        return f"{self.kind}{self.shape}"


def parse_sample(sample, lib, dtype=None):
    """(args, kwargs) of a sample call with tensors as Specs. In a sample, `torchlite.x` means lib.x,
    `D` the dtype under test (lib's dtype named `dtype`, float64 when None) and `# ...` starts a
    hint for the suites (`# torch: torch.clone`: the PyTorch callable to compare with)."""
    def collect(*a, **k):
        return a, k
    names = {"T": lambda *s: Spec("T", s), "P": lambda *s: Spec("P", s), "B": lambda *s: Spec("B", s),
             "U": lambda *s: Spec("U", s), "G": lambda *s: Spec("G", s),
             "V": lambda v: Spec("V", np.shape(v), np.asarray(v, dtype=np.float64)),
             "torchlite": lib, "collect": collect, "D": getattr(lib, dtype or "float64"),
             "nan": float("nan"), "inf": float("inf")}
    return eval(f"collect({sample}\n)", names)  # noqa: S307 - samples come from our own YAML


def sample_hint(sample, key):
    """The value of `# key: value` in a sample, or None."""
    _, _, comment = sample.partition("#")
    for part in comment.split(";"):
        k, _, v = part.partition(":")
        if k.strip() == key:
            return v.strip()
    return None


def map_specs(obj, fn):
    """`obj` (an argument, or a list/tuple/dict of them) with every Spec replaced by fn(Spec)."""
    if isinstance(obj, Spec):
        return fn(obj)
    if isinstance(obj, (list, tuple)):
        return type(obj)(map_specs(o, fn) for o in obj)
    if isinstance(obj, dict):
        return {k: map_specs(v, fn) for k, v in obj.items()}
    return obj


def iter_specs(obj):
    """Every Spec in `obj`, in order."""
    found = []
    map_specs(obj, found.append)
    return found


def op_namespace(f, lib):
    """Where `lib` binds entry f's function: the top level, lib._C._nn for `python_module: nn`, and
    torchlite._C._internal for `python_binding: internal` (PyTorch binds those nowhere in Python:
    torch.ops.aten reaches them)."""
    if f.python_binding and lib is torch:
        return torch.ops.aten
    return getattr(lib._C, f.python_namespace) if f.python_namespace else lib


def sample_callables(f, sample, name=None):
    """(torch callable, torchlite callable) of YAML entry `f` (or its variant `name`), each taking
    (args, kwargs): the function where PyTorch has one, else the method on the first argument, or
    the PyTorch callable named by the sample's `# torch:` hint."""
    name = name or f.schema.name.name
    hint = sample_hint(sample, "torch")
    t_ns, l_ns = op_namespace(f, torch), op_namespace(f, tl)
    if hint and name == f.schema.name.name:
        oracle = eval(hint, {"torch": torch})  # noqa: S307 - hints come from our own YAML
        if hint.startswith("torch._C._VariableFunctions."):
            # PyTorch's raw binding (a list where the Python front end takes *tensors): torchlite's is _C._ops.
            return (lambda a, k: oracle(*a, **k)), (lambda a, k: getattr(tl._C._ops, name)(*a, **k))
        return (lambda a, k: oracle(*a, **k)), (lambda a, k: getattr(l_ns, name)(*a, **k))
    if "function" in f.variants and hasattr(t_ns, name) and hasattr(l_ns, name):
        return (lambda a, k: getattr(t_ns, name)(*a, **k)), (lambda a, k: getattr(l_ns, name)(*a, **k))
    if not hasattr(torch.Tensor, name):
        pytest.fail(f"{f.schema.name}: PyTorch has no function or method {name}; give its samples a "
                    "`# torch: <callable>` hint")
    method = (lambda a, k: getattr(a[0], name)(*a[1:], **k))
    return method, method


def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker per core, at most 4 (each holds torch and torchlite, ~0.5 GB; the suite's
    big tensors use two threads each)."""
    return max(1, min(4, len(os.sched_getaffinity(0))))
