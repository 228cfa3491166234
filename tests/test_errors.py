"""Bad input never crashes: argument errors are TypeErrors naming the op and its signatures, shape mismatches are
RuntimeErrors naming the op and both shapes, unsupported dtypes name the op and the dtype, bad dims are IndexErrors,
devices do not mix, and a fuzz loop over every generated operator (run in a child process, so that a segfault is a
test failure and not the end of the test run) sees only the ordinary Python exceptions."""
import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import torchlite as tl
from conftest import error_types_like, mentions_shape, torch_result

# What bad input may raise. Anything else (SystemError, AttributeError, MemoryError, KeyError, ...)
# or a crash of the interpreter is a bug. Note: torch itself raises OverflowError for ints beyond uint64 ("int too
# big to convert"), as torchlite does (naming the op), and RuntimeError for impossible allocations.
ALLOWED = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError, OverflowError)


# ---------------------------------------------------------------- TypeError naming the op and the signatures

TYPE_ERROR_CASES = [
    # (call, op name, words the message must contain: the parameter names of the signatures)
    (lambda x: tl.sum(x, "a"), "sum", ["dim", "keepdim", "dtype"]),
    (lambda x: x.sum(keepdim="yes"), "sum", ["dim", "keepdim"]),
    (lambda x: tl.add(x, "a"), "add", ["other", "alpha"]),
    (lambda x: tl.add("a", x), "add", ["input", "other"]),
    (lambda x: tl.add(x, x, alpha="a"), "add", ["alpha"]),
    (lambda x: tl.zeros("a"), "zeros", ["size"]),
    (lambda x: tl.ones(2, 3, dtype="float"), "ones", ["dtype"]),
    (lambda x: tl.full((2,), None), "full", ["fill_value"]),
    (lambda x: tl.mm(x, 3), "mm", ["mat2"]),
    (lambda x: x.view("a"), "view", ["size"]),
    (lambda x: x.transpose(0), "transpose", ["dim1"]),  # arity errors: name the op and the missing argument
    (lambda x: tl.transpose(x, 0, 1, 2), "transpose", []),
    (lambda x: tl.permute(x, 0.5), "permute", ["dims"]),
    (lambda x: tl.arange("a"), "arange", ["end", "start", "step"]),
    (lambda x: tl.where(x > 0, x), "where", ["other"]),
    (lambda x: tl.sum(x, dim=0, bogus=1), "sum", ["bogus"]),
    (lambda x: x.expand("a"), "expand", ["size"]),
    (lambda x: tl.select(x, 0), "select", ["index"]),
    (lambda x: tl.neg(x, x), "neg", []),
    (lambda x: tl.clone(), "clone", ["input"]),
    (lambda x: x.fill_([1]), "fill_", ["value"]),
    (lambda x: tl.squeeze(x, 0.5), "squeeze", ["dim"]),
    (lambda x: tl.div(x, x, rounding_mode=3), "div", ["rounding_mode"]),
    (lambda x: tl.empty_strided((2, 3), "a"), "empty_strided", ["stride"]),
    (lambda x: x.as_strided((2,), None), "as_strided", ["stride"]),
    (lambda x: x.reshape(None), "reshape", ["shape"]),
    (lambda x: x.copy_(None), "copy_", ["src"]),
]


@pytest.mark.parametrize("i", range(len(TYPE_ERROR_CASES)),
                         ids=[f"{c[1]}-{n}" for n, c in enumerate(TYPE_ERROR_CASES)])
def test_type_error_names_op_and_signatures(i):
    """torchlite's parser rule (README: "a TypeError lists the valid signatures"): a wrong argument type names the op
    and the parameters of its signatures; a wrong number of arguments names the op (and the missing argument)."""
    call, op, words = TYPE_ERROR_CASES[i]
    with pytest.raises(TypeError) as info:
        call(tl.ones(2, 3))
    msg = str(info.value)
    assert op in msg, msg
    for w in words:
        assert w in msg, (w, msg)


def test_type_error_lists_every_overload():
    with pytest.raises(TypeError) as info:
        tl.squeeze(tl.ones(2), "a")
    msg = str(info.value)
    assert msg.count("squeeze(") >= 3 or msg.count("(Tensor input") >= 3, msg  # three overloads listed


@pytest.mark.parametrize("op", ["add", "mul", "sub", "lt", "matmul"])
def test_python_operators_with_bad_operands(op):
    """x + "a" is a TypeError (the operator returns NotImplemented and Python gives up), never another error."""
    sym = {"add": "+", "mul": "*", "sub": "-", "lt": "<", "matmul": "@"}[op]
    x = tl.ones(2)
    for bad in ["a", None, object(), [1, "b"]]:
        with pytest.raises(TypeError):
            eval(f"x {sym} bad")
        with pytest.raises(TypeError):
            eval(f"bad {sym} x")


# ---------------------------------------------------------------- shape mismatches

SHAPE_CASES = [
    ("add", lambda a, b: tl.add(a, b), (2, 3), (2, 4)),
    ("mul", lambda a, b: tl.mul(a, b), (5, 3), (4, 3)),
    ("sub", lambda a, b: a - b, (2, 3, 4), (3, 3, 4)),
    ("div", lambda a, b: a.div(b), (3,), (4,)),
    ("lt", lambda a, b: tl.lt(a, b), (2, 3), (3, 2)),
    ("where", lambda a, b: tl.where(a > 0, a, b), (2, 3), (2, 4)),
    ("add_", lambda a, b: a.add_(b), (3,), (2, 3)),
    ("copy_", lambda a, b: a.copy_(b), (2, 3), (2, 4)),
    ("mm", lambda a, b: tl.mm(a, b), (3, 4), (5, 6)),
    ("bmm", lambda a, b: tl.bmm(a, b), (2, 3, 4), (2, 5, 6)),
    ("matmul", lambda a, b: tl.matmul(a, b), (3, 4), (5, 6)),
    ("add", lambda a, b: tl.add(a, b, out=tl.empty(0)), (2, 3), (4, 3)),
]


@pytest.mark.parametrize("i", range(len(SHAPE_CASES)), ids=[c[0] for c in SHAPE_CASES])
def test_shape_mismatch_names_op_and_both_shapes(i):
    """torchlite's rule (docs/architecture.md: messages start with the op name; shape mismatches name both shapes).
    Stricter than torch, whose broadcast message names only the two sizes."""
    op, call, sa, sb = SHAPE_CASES[i]
    with pytest.raises(RuntimeError) as info:
        call(tl.ones(sa), tl.ones(sb))
    msg = str(info.value)
    assert op.rstrip("_") in msg, msg
    assert mentions_shape(msg, sa) and mentions_shape(msg, sb), msg


def test_view_and_expand_errors_name_shapes():
    with pytest.raises(RuntimeError) as info:
        tl.ones(2, 3).view(4, 2)
    assert "view" in str(info.value) and mentions_shape(str(info.value), (4, 2)), str(info.value)
    with pytest.raises(RuntimeError) as info:
        tl.ones(3, 1).expand(4, 4)
    msg = str(info.value)
    assert "expand" in msg and mentions_shape(msg, (3, 1)) and mentions_shape(msg, (4, 4)), msg


# ---------------------------------------------------------------- unsupported dtypes

DTYPE_CASES = [
    ("randn", lambda: tl.randn(2, dtype=tl.int64), ["int64", "long"], lambda: torch.randn(2, dtype=torch.int64)),
    ("rand", lambda: tl.rand(2, dtype=tl.int32), ["int32", "int"], lambda: torch.rand(2, dtype=torch.int32)),
    ("rand", lambda: tl.rand(2, dtype=tl.bool), ["bool"], lambda: torch.rand(2, dtype=torch.bool)),
    ("mm", lambda: tl.mm(tl.ones(2, 2, dtype=tl.bool), tl.ones(2, 2, dtype=tl.bool)), ["bool"],
     lambda: torch.mm(torch.ones(2, 2, dtype=torch.bool), torch.ones(2, 2, dtype=torch.bool))),
    ("bmm", lambda: tl.bmm(tl.ones(1, 2, 2, dtype=tl.bool), tl.ones(1, 2, 2, dtype=tl.bool)), ["bool"],
     lambda: torch.bmm(torch.ones(1, 2, 2, dtype=torch.bool), torch.ones(1, 2, 2, dtype=torch.bool))),
    ("matmul", lambda: tl.ones(2, 2, dtype=tl.bool) @ tl.ones(2, 2, dtype=tl.bool), ["bool"],
     lambda: torch.ones(2, 2, dtype=torch.bool) @ torch.ones(2, 2, dtype=torch.bool)),
    ("mean", lambda: tl.mean(tl.ones(2, dtype=tl.int64)), ["int64", "long"],
     lambda: torch.mean(torch.ones(2, dtype=torch.int64))),
    ("mean", lambda: tl.ones(2, dtype=tl.bool).mean(0), ["bool"], lambda: torch.ones(2, dtype=torch.bool).mean(0)),
    ("neg", lambda: tl.neg(tl.ones(2, dtype=tl.bool)), ["bool"], lambda: torch.neg(torch.ones(2, dtype=torch.bool))),
    ("sub", lambda: tl.sub(tl.ones(2, dtype=tl.bool), tl.ones(2, dtype=tl.bool)), ["bool"],
     lambda: torch.sub(torch.ones(2, dtype=torch.bool), torch.ones(2, dtype=torch.bool))),
    ("relu", lambda: tl.relu(tl.ones(2, dtype=tl.bool)), ["bool"], lambda: torch.relu(torch.ones(2, dtype=torch.bool))),
    ("arange", lambda: tl.arange(5, dtype=tl.bool), ["bool"], lambda: torch.arange(5, dtype=torch.bool)),
]


@pytest.mark.parametrize("i", range(len(DTYPE_CASES)), ids=[f"{c[0]}-{n}" for n, c in enumerate(DTYPE_CASES)])
def test_unsupported_dtype_names_op_and_dtype(i):
    op, call, dtype_words, torch_call = DTYPE_CASES[i]
    _, err = torch_result(torch_call)
    assert err is not None
    with pytest.raises(error_types_like(err)) as info:
        call()
    msg = str(info.value)
    # matmul is composite: its message may come from the mm/bmm/dot it calls.
    names = [op] if op != "matmul" else ["matmul", "mm", "dot"]
    assert any(n in msg for n in names), msg
    assert any(w in msg.lower() for w in dtype_words), msg


# ---------------------------------------------------------------- dims out of range

class _TorchNamespace:
    """torch under torchlite's names (torch has no public `slice`)."""

    def __getattr__(self, name):
        return getattr(torch, name)

    @staticmethod
    def slice(t, dim=0, start=None, end=None, step=1):
        return torch.ops.aten.slice.Tensor(t, dim, start, end, step)


DIM_CASES = [
    lambda m, x: m.sum(x, 2), lambda m, x: x.sum((0, -3)), lambda m, x: m.mean(x, 5), lambda m, x: x.transpose(0, 2),
    lambda m, x: m.transpose(x, -3, 0), lambda m, x: x.select(2, 0), lambda m, x: x.select(0, 2),
    lambda m, x: x.select(1, -4), lambda m, x: x.unsqueeze(3), lambda m, x: x.unsqueeze(-4),
    lambda m, x: x.squeeze(2), lambda m, x: x.squeeze((0, 2)), lambda m, x: x.permute(0, 2),
    lambda m, x: m._C._internal.slice(x, 2) if m is tl else m.slice(x, 2), lambda m, x: x[2], lambda m, x: x[0, 0, 0], lambda m, x: x[:, 3],
    lambda m, x: m.ones(()).sum(1), lambda m, x: m.ones(()).select(0, 0),
]


@pytest.mark.parametrize("i", range(len(DIM_CASES)))
def test_dim_out_of_range_is_index_error(i):
    call = DIM_CASES[i]
    _, err = torch_result(lambda: call(_TorchNamespace(), torch.ones(2, 3)))
    assert isinstance(err, IndexError), err
    with pytest.raises(IndexError):
        call(tl, tl.ones(2, 3))
    with pytest.raises(IndexError):
        call(tl, tl.empty(2, 3, device="meta"))


# ---------------------------------------------------------------- devices do not mix

MIXED_DEVICE_CASES = {
    "add": lambda c, m: tl.add(c, m),
    "add reversed": lambda c, m: m + c,
    "mul": lambda c, m: c * m,
    "where": lambda c, m: tl.where(c > 0, m, c),
    "mm": lambda c, m: tl.mm(c, m.t()),
    "mm reversed": lambda c, m: tl.mm(m, c.t()),
    "bmm": lambda c, m: tl.bmm(c[None], m[None].transpose(1, 2)),
    "matmul": lambda c, m: tl.matmul(c, m.t()),
    "add_ into cpu": lambda c, m: c.add_(m),
    "add_ into meta": lambda c, m: m.add_(c),
    "sum out=meta": lambda c, m: tl.sum(c, 0, out=tl.empty(0, device="meta")),
    "add out=meta": lambda c, m: tl.add(c, c, out=tl.empty(0, device="meta")),
    "add out=cpu": lambda c, m: tl.add(m, m, out=tl.empty(0)),
    "copy_ meta into cpu": lambda c, m: c.copy_(m),
}


@pytest.mark.parametrize("case", list(MIXED_DEVICE_CASES))
def test_mixing_meta_and_cpu_is_an_error(case):
    """Intentional difference: torch is inconsistent here (torch.mm(cpu, meta) and cpu.add_(meta) succeed, cpu + meta
    fails); torchlite always raises a RuntimeError when dimensioned cpu and meta tensors meet."""
    with pytest.raises(RuntimeError):
        MIXED_DEVICE_CASES[case](tl.ones(2, 3), tl.empty(2, 3, device="meta"))


# ---------------------------------------------------------------- item()

@pytest.mark.parametrize("shape", [(2,), (2, 3), (0,), (3, 0)], ids=repr)
def test_item_of_many_elements(shape):
    _, err = torch_result(lambda: torch.ones(shape).item())
    assert isinstance(err, RuntimeError)
    with pytest.raises(error_types_like(err)) as info:
        tl.ones(shape).item()
    n = 1
    for s in shape:
        n *= s
    assert str(n) in str(info.value)  # "a Tensor with 6 elements cannot be converted to Scalar"


# ---------------------------------------------------------------- fuzzing (in a child process)

_WORKER = textwrap.dedent(r'''
    import json, math, random, re, sys
    import torchlite as tl

    ALLOWED = (TypeError, ValueError, IndexError, RuntimeError, NotImplementedError, OverflowError)
    mode, target = sys.argv[1], sys.argv[2]

    TENSORS = {
        "f32": lambda: tl.ones(2, 3),
        "i64": lambda: tl.ones(2, 3, dtype=tl.int64),
        "bool": lambda: tl.ones(2, 3, dtype=tl.bool),
        "f16": lambda: tl.ones(2, 3, dtype=tl.float16),
        "bf16": lambda: tl.ones(2, 3, dtype=tl.bfloat16),
        "u8vec": lambda: tl.ones(3, dtype=tl.uint8),
        "f64_3d": lambda: tl.ones(2, 3, 4, dtype=tl.float64),
        "zero_d": lambda: tl.tensor(1.5),
        "zero_d_int": lambda: tl.tensor(3),
        "empty": lambda: tl.ones(0, 3),
        "meta": lambda: tl.empty(2, 3, device="meta"),
        "meta_0d": lambda: tl.empty((), device="meta", dtype=tl.int64),
        "grad": lambda: tl.ones(2, 3, requires_grad=True),
        "transposed": lambda: tl.ones(3, 2).t(),
        "expanded": lambda: tl.ones(1, 3).expand(2, 3),
        "sliced": lambda: tl.ones(2, 6)[:, ::2],
    }

    class T:
        def __init__(self, kind):
            self.kind = kind
        def __repr__(self):
            return "<" + self.kind + ">"

    ODD = [None, "abc", "", 2 ** 62, 2 ** 63 - 1, 2 ** 64, -2 ** 63, -1, -7, 0, 3, [], [[1, 2], [3]], [1, "a"],
           [2 ** 64], [-1, -1], [2 ** 62, 2 ** 62], [0, 0], 1.5, float("nan"), float("inf"), -0.0, True, object(),
           tl.float64, tl.int64, tl.bool, "meta", "cpu", b"x", {}, [None], (1,), [2, 3]]
    ODD += [T(k) for k in TENSORS]
    ODD.append([T("f32"), T("f32")])

    def realize(v):
        if isinstance(v, T):
            return TENSORS[v.kind]()
        if isinstance(v, list) and v and all(isinstance(e, T) for e in v):
            return [TENSORS[e.kind]() for e in v]
        return v

    def valid(ty, name):
        base = ty.rstrip("?")
        if base == "Tensor":
            return T("f32")
        if base == "Scalar":
            return 2
        if base == "int":
            return {"index": 1, "dim0": 0, "dim1": 1}.get(name, 1)
        if base.startswith("int["):
            return {"size": [2, 3], "shape": [3, 2], "stride": [3, 1], "dims": [1, 0]}.get(name, [0])
        if base == "float":
            return 0.5
        if base == "bool":
            return False
        if base == "str":
            return None if ty.endswith("?") else "floor"
        if base == "ScalarType":
            return tl.float32
        if base == "Device":
            return "cpu"
        return None

    def split_params(s):
        parts, depth, cur = [], 0, ""
        for ch in s:
            if ch in "[(":
                depth += 1
            elif ch in "])":
                depth -= 1
            if ch == "," and depth == 0:
                parts.append(cur.strip()); cur = ""
            else:
                cur += ch
        if cur.strip():
            parts.append(cur.strip())
        return parts

    def overloads(fn, name):
        """[(positional [(type, name)], keyword-only [(type, name)])] parsed from the docstring signatures."""
        result = []
        for line in (fn.__doc__ or "").splitlines():
            m = re.match(r"^" + re.escape(name) + r"\((.*)\) -> ", line.strip())
            if not m:
                continue
            pos, kw, star = [], [], False
            for p in split_params(m.group(1)):
                if p == "*":
                    star = True
                    continue
                decl = p.split("=")[0].strip()
                ty, _, pname = decl.rpartition(" ")
                (kw if star else pos).append((ty, pname, "=" in p))
            result.append((pos, kw))
        return result

    failures, calls = [], 0

    def attempt(desc, thunk):
        global calls
        calls += 1
        sys.stderr.write(desc + "\n")
        sys.stderr.flush()
        try:
            r = thunk()
        except ALLOWED:
            return
        except BaseException as e:  # noqa: BLE001
            failures.append(f"{desc}: {type(e).__name__}: {str(e)[:200]}")
            return
        try:  # touch what came back: a bad view shows up when read
            if isinstance(r, tl.Tensor):
                _ = (r.shape, r.dtype, r.stride())
                if r.device.type == "cpu" and r.numel() <= 10000:
                    r.tolist()
        except ALLOWED:
            pass
        except BaseException as e:  # noqa: BLE001
            failures.append(f"{desc} (reading the result): {type(e).__name__}: {str(e)[:200]}")

    def call(fn, args, kwargs):
        return fn(*[realize(a) for a in args], **{k: realize(v) for k, v in kwargs.items()})

    def fuzz_function(name):
        module, _, attr = name.rpartition(".")  # `_special.special_erf`; a bare name is in _ops
        fn = getattr(getattr(tl._C, module or "_ops"), attr)
        rng = random.Random(name)
        sigs = overloads(fn, attr)
        attempt(f"{name}()", lambda: fn())
        for pos, kw in sigs:
            base_args = [valid(t, n) for t, n, has_default in pos]
            attempt(f"{name}{tuple(base_args)}", lambda: call(fn, base_args, {}))
            # every tensor kind in every tensor position
            for i, (t, n, _) in enumerate(pos):
                if t.rstrip("?") == "Tensor":
                    for kind in TENSORS:
                        args = list(base_args)
                        args[i] = T(kind)
                        attempt(f"{name}{tuple(args)}", lambda: call(fn, args, {}))
            # each positional argument replaced by each odd value
            for i in range(len(pos)):
                for v in ODD:
                    args = list(base_args)
                    args[i] = v
                    attempt(f"{name}{tuple(args)}", lambda: call(fn, args, {}))
            # each keyword-only argument given each odd value
            for t, n, _ in kw:
                for v in ODD:
                    attempt(f"{name}{tuple(base_args)} {n}={v!r}", lambda: call(fn, base_args, {n: v}))
            # several odd values at once
            for _ in range(60):
                args = list(base_args)
                for i in rng.sample(range(len(args)), min(len(args), rng.randint(1, 3))):
                    args[i] = rng.choice(ODD)
                kwargs = {n: rng.choice(ODD) for t, n, _ in kw if rng.random() < 0.3}
                attempt(f"{name}{tuple(args)} {kwargs}", lambda: call(fn, args, kwargs))
            # arity
            attempt(f"{name}{tuple(base_args)}+extra", lambda: call(fn, base_args + [1], {}))
            attempt(f"{name}{tuple(base_args[:-1])}", lambda: call(fn, base_args[:-1], {}))
            attempt(f"{name} bogus kwarg", lambda: call(fn, base_args, {"bogus": 1}))
            if pos:
                attempt(f"{name} positional as keyword", lambda: call(fn, [], {pos[0][1]: base_args[0]}))
                attempt(f"{name} positional twice", lambda: call(fn, base_args, {pos[0][1]: base_args[0]}))
        # untyped random calls, in case the docstring could not be parsed
        for _ in range(80):
            args = [rng.choice(ODD) for _ in range(rng.randint(0, 4))]
            attempt(f"{name}{tuple(args)}", lambda: call(fn, args, {}))
        if not sigs:
            failures.append(f"{name}: no signature found in its docstring {fn.__doc__!r:.200}")

    METHOD_EXPRS = [
        "x.view(2 ** 62)", "x.view(-1, 0)", "x.view(2 ** 62, 2 ** 62)", "x.view(-2, -3)", "x.view([2 ** 64])",
        "x.view(None)", "x.view(3, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)",
        "x.expand(2 ** 62, 3)", "x.expand(-5, 3)", "x.expand(2, 3, 2 ** 63 - 1)", "x.expand([])", "x.expand('a')",
        "x.reshape(2 ** 62)", "x.reshape(-1, -1)", "x.reshape(0, -1)", "x.as_strided((2,), (2 ** 62,))",
        "x.as_strided((2 ** 62,), (1,))", "x.as_strided((2,), (1,), 2 ** 62)", "x.as_strided((2,), (1,), -2 ** 63)",
        "x.as_strided((-1,), (1,))", "x.as_strided((2, 2), (1,))", "x.as_strided((2 ** 62, 4), (0, 2 ** 61))",
        "x[2 ** 62]", "x[-2 ** 63]", "x[::2 ** 62]", "x[2 ** 63 - 1:]", "x[:-2 ** 63]", "x[::-1]", "x[::0]",
        "x[1.5]", "x['a']", "x[None, None, None, ..., None]", "x[..., ..., 0]", "x[[0, 1]]", "x[x > 0]", "x[{}]",
        "x[0, 0, 0, 0]", "x[True]", "x[tl.tensor(1)]",
        "x.transpose(2 ** 62, 0)", "x.transpose(-2 ** 63, 0)", "x.permute(2 ** 62, 0)", "x.permute()",
        "x.permute(0, 1, 2)", "x.unsqueeze(2 ** 62)", "x.squeeze(-2 ** 63)", "x.select(0, 2 ** 62)",
        "x.select(0, -2 ** 63)", "tl._C._internal.slice(x, 0, -2 ** 63, 2 ** 63 - 1, 2 ** 62)",
        "tl._C._internal.slice(x, 0, 0, 2, -1)",
        "x.to('foo')", "x.to('meta:0')", "x.to(tl.float64, 'cpu')", "x.to(None)", "x.to(2 ** 62)",
        "x.item()", "x.tolist()", "x.numpy()", "x.contiguous()", "x.clone()", "x.detach()",
        "x.fill_(2 ** 64)", "x.fill_(float('nan'))", "x.fill_(x)", "x.fill_('a')", "x.copy_(x.t())",
        "x.copy_(tl.empty(2, 3, device='meta'))", "x.float().int()", "x.half().bfloat16().bool().byte().char()",
        "x + 2 ** 64", "x * 2 ** 62", "x / 0", "x // 0", "x.long() // 0", "x ** 2 ** 62", "x @ x", "x @ x.t()",
        "x.sum(2 ** 62)", "x.sum([0, 0])", "x.mean(dtype=tl.int8)", "x.sum(dtype=tl.bool)", "-x.bool()",
        "tl.empty(2 ** 62, dtype=tl.bool)", "tl.zeros(2 ** 62)", "tl.zeros(2 ** 31, 2 ** 31, 2 ** 31)",
        "tl.ones(2 ** 63 - 1, device='meta')", "tl.empty(2 ** 62, 4, device='meta')", "tl.full((2 ** 62,), 1.0)",
        "tl.arange(2 ** 62)", "tl.arange(-2 ** 63, 2 ** 63 - 1)", "tl.arange(0, 1, 1e-300)",
        "tl.arange(0, float('inf'), 1)", "tl.rand(2 ** 62)", "tl.randn(-1)", "tl.empty_strided((2,), (2 ** 63 - 1,))",
        "tl.empty_strided((2 ** 62,), (2 ** 62,))", "tl.empty_strided((2, 2), (-1, 1))", "tl.tensor([[1], [2, 3]])",
        "tl.tensor([2 ** 64])", "tl.tensor(" + "[" * 40 + "1" + "]" * 40 + ")",
        "tl.tensor(object())", "tl.tensor([1, [2]])", "tl.from_numpy(None)", "tl.manual_seed(-1)",
        "tl.manual_seed(2 ** 64)", "tl.manual_seed('a')", "tl.set_default_dtype(None)",
        "tl.promote_types(None, None)", "tl.result_type(None, 1)", "tl.can_cast(tl.float32, None)",
        "x.requires_grad_()", "tl.ones(2, 3, dtype=tl.int64).requires_grad_()",
    ]

    def fuzz_methods():
        for expr in METHOD_EXPRS:
            for kind in ["f32", "i64", "meta", "transposed", "zero_d", "empty", "grad", "expanded"]:
                x = TENSORS[kind]()
                attempt(f"{expr} with x={kind}", lambda: eval(expr, {"tl": tl, "x": x}))
        tl.set_default_dtype(tl.float32)

    if mode == "function":
        for name in target.split(","):  # a chunk of functions: one interpreter start for all of them
            fuzz_function(name)
            tl.set_default_dtype(tl.float32)  # what one function's odd calls changed stays with it
            tl.set_grad_enabled(True)
    else:
        fuzz_methods()
    print(json.dumps({"calls": calls, "failures": failures}))
''')


def _run_worker(mode, target):
    env = dict(os.environ)
    env["PYTHONFAULTHANDLER"] = "1"
    # The child imports the torchlite this process imported.
    pkg_parent = os.path.dirname(os.path.dirname(os.path.abspath(tl.__file__)))
    env["PYTHONPATH"] = os.pathsep.join([pkg_parent] + [p for p in [env.get("PYTHONPATH")] if p])
    proc = subprocess.run([sys.executable, "-c", _WORKER, mode, target], capture_output=True, text=True,
                          timeout=600, env=env, cwd=os.path.dirname(os.path.abspath(__file__)))
    if proc.returncode != 0:
        last = [line for line in proc.stderr.splitlines() if line.strip()][-25:]
        pytest.fail(f"the interpreter died (exit code {proc.returncode}) fuzzing {target}; last calls and "
                    "output:\n" + "\n".join(last))
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    assert report["calls"] > 0
    assert not report["failures"], f"{len(report['failures'])} bad exception(s):\n" + "\n".join(report["failures"][:30])
    return report


def _generated_functions():
    """The generated functions of torchlite._C._ops (bare names), _special and _internal (`_internal.slice`)."""
    names = [name for name in dir(tl._C._ops) if not name.startswith("__")]
    for module in ("_special", "_internal"):
        names += [f"{module}.{name}" for name in dir(getattr(tl._C, module)) if not name.startswith("__")]
    return sorted(names)


def test_every_generated_function_is_fuzzed():
    names = _generated_functions()
    assert len(names) >= 60, names  # native_functions.yaml has ~70 function names
    for expected in ["add", "sum", "mm", "reshape", "zeros", "arange", "_special.special_erf", "_internal.slice"]:
        assert expected in names


def _function_chunks(size=24):
    """The generated functions in chunks, each fuzzed in one child process (an interpreter start and an
    import per function cost more than the fuzzing itself)."""
    names = _generated_functions()
    return [names[i:i + size] for i in range(0, len(names), size)]


@pytest.mark.parametrize("names", _function_chunks(), ids=lambda c: f"{c[0]}..{c[-1]}")
def test_fuzz_generated_functions(names):
    """Odd arguments (None, strings, huge ints, negative sizes, empty and nested lists, meta / 0-d / empty / grad /
    strided tensors) for every parameter of every overload, alone and combined: only ALLOWED exceptions, no crash.
    The child process prints each call before making it, so a crash names the call that caused it."""
    report = _run_worker("function", ",".join(names))
    assert report["calls"] > 50 * len(names)


def test_fuzz_methods_indexing_and_python_api():
    """Methods, indexing and package functions that are not in torchlite._C._ops, with hostile arguments."""
    _run_worker("methods", "-")
