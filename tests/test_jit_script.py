"""torchlite.jit.script on functions: straight-line code, control flow (if/elif/else, for, while,
break/continue, early return), Optional refinement, lists, dicts, tuples, helper calls, indexing;
results and gradients equal eager torchlite's, and a few graphs are checked against
torch.jit.script's (the oracle) by their node kinds."""
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest
import torch

import torchlite as tl
import torchlite.nn.functional as F


def _same(a, b):
    if isinstance(a, tl.Tensor):
        assert isinstance(b, tl.Tensor) and a.dtype == b.dtype and tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-6, atol=1e-6)
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            _same(a[k], b[k])
    else:
        assert a == b and type(a) is type(b)


def _check(fn, *args, **kwargs):
    s = tl.jit.script(fn)
    _same(s(*args, **kwargs), fn(*args, **kwargs))
    return s


def straight(x, y, alpha: float = 2.0):
    z = x * y + alpha
    w = (z - 1) / 3 ** 2
    return torch_like(w) @ y.t() - x.sum(1, keepdim=True)


def torch_like(t):
    return tl.tanh(F.relu(t)).clamp(min=0.1)


def test_straight_line_function():
    x, y = tl.randn(2, 3), tl.randn(2, 3)
    s = _check(straight, x, y)
    _check(straight, x, y, 0.5)
    _check(straight, x, y, alpha=-1.0)
    kinds = [n.kind() for n in s.graph.nodes()]
    assert "aten::matmul" in kinds and "aten::tanh" in kinds and "prim::Loop" not in kinds


def numbers(a: int, b: float, c: bool) -> Tuple[int, float, bool, float, int, int]:
    return a // 3, b * a - 1.5, not c and a > 2, a / 4, -a % 5, max(a, 7)


def test_int_float_bool_math_as_prim_ops():
    s = tl.jit.script(numbers)
    for args in [(7, 2.5, False), (-7, 0.25, True), (3, -1.0, False)]:
        assert s(*args) == numbers(*args)
    kinds = {n.kind() for n in s.graph.allNodes()}
    assert {"prim::floordiv", "prim::mod", "prim::truediv", "prim::max"} <= kinds
    assert not any(k.startswith("aten::") for k in kinds)


def branches(x, n: int):
    if n > 5:
        y = x * 2
    elif n > 2:
        y = x + 10
    else:
        y = -x
    return y.relu()


def test_if_elif_else_with_outputs():
    s = tl.jit.script(branches)
    x = tl.randn(4)
    for n in (0, 3, 9):
        _same(s(x, n), branches(x, n))
    ifs = s.graph.findAllNodes("prim::If")
    assert len(ifs) == 2 and ifs[0].outputsSize() == 1


def early_return(x, k: int):
    if k == 0:
        return x
    if k == 1:
        return x * 3
    y = x + k
    return y.sin()


def test_early_return():
    s = tl.jit.script(early_return)
    x = tl.randn(3)
    for k in range(4):
        _same(s(x, k), early_return(x, k))
    # the returns are prim::If outputs: one graph output, no exceptions for control
    assert len(s.graph.outputs()) == 1


def loop_with_break(x, limit: float):
    total = tl.zeros_like(x)
    steps = 0
    for i in range(100):
        if float(total.sum()) > limit:
            break
        if i % 2 == 1:
            continue
        total = total + x * i
        steps += 1
    return total, steps


def while_loop(x, n: int):
    i = 0
    while i < n:
        x = x * 2 - 1
        i += 1
        if i == 7:
            break
    return x, i


def test_loops_break_continue_while():
    x = tl.rand(3) + 0.5
    s = tl.jit.script(loop_with_break)
    for limit in (0.0, 5.0, 40.0):
        _same(s(x, limit), loop_with_break(x, limit))
    w = tl.jit.script(while_loop)
    for n in (0, 3, 10):
        _same(w(x, n), while_loop(x, n))
    assert s.graph.findNode("prim::Loop") is not None


def ranges(n: int) -> List[int]:
    out: List[int] = []
    for i in range(2, n):
        out.append(i)
    for i in range(n, 0, -3):
        out.append(i * 10)
    for i in range(-2):
        out.append(-1)
    return out


def test_range_forms():
    s = tl.jit.script(ranges)
    for n in (0, 1, 5, 10):
        assert s(n) == ranges(n)


def optional_refinement(x, bias: Optional[tl.Tensor] = None, scale: Optional[float] = None):
    if bias is not None:
        x = x + bias
    if scale is None:
        return x
    return x * scale


def assert_refines(x, w: Optional[tl.Tensor]):
    assert w is not None, "w is required"
    return x * w


def test_optional_refinement():
    s = tl.jit.script(optional_refinement)
    x, b = tl.randn(3), tl.randn(3)
    for args in [(x,), (x, b), (x, None, 2.0), (x, b, 0.5)]:
        _same(s(*args), optional_refinement(*args))
    a = tl.jit.script(assert_refines)
    _same(a(x, b), assert_refines(x, b))
    with pytest.raises(RuntimeError, match="AssertionError: w is required"):
        a(x, None)


def list_building(x, n: int) -> List[tl.Tensor]:
    parts: List[tl.Tensor] = []
    for i in range(n):
        parts.append(x * i)
    parts[0] = parts[-1] + 1
    parts.extend([x])
    return parts


def list_of_ints(xs: List[int]) -> Tuple[int, List[int], bool, int]:
    total = 0
    for v in xs:
        total += v
    ys = xs[1:]
    return total, ys, 3 in xs, len(ys)


def test_lists():
    s = tl.jit.script(list_building)
    x = tl.randn(2)
    _same(s(x, 3), list_building(x, 3))
    li = tl.jit.script(list_of_ints)
    for xs in ([1, 2, 3], [5], [4, 4, 4, 4]):
        assert li(xs) == list_of_ints(xs)
    assert li([1, 2, 3]) == li([1, 2, 3])  # no state kept between runs


def appends_each_call(n: int) -> List[int]:
    xs: List[int] = []
    for i in range(n):
        xs.append(i)
    return xs


def test_list_literal_is_fresh_each_run_after_passes():
    s = tl.jit.script(appends_each_call)
    g = s.graph
    tl.jit._passes.constant_propagation(g)
    tl.jit._passes.eliminate_common_subexpression(g)
    assert s(3) == [0, 1, 2] and s(3) == [0, 1, 2]


def dicts(x, scale: Dict[str, float]) -> Dict[str, tl.Tensor]:
    out = {"x": x}
    for k in scale.keys():
        out[k] = x * scale[k]
    if "double" in scale:
        out["sum"] = out["x"] + out["double"]
    out["n"] = tl.full([1], float(len(out)))
    return out


def int_keys(xs: List[int]) -> Dict[int, int]:
    counts: Dict[int, int] = {}
    for v in xs:
        counts[v] = counts.get(v, 0) + 1
    return counts


def test_dicts():
    s = tl.jit.script(dicts)
    x = tl.randn(3)
    for scale in ({"double": 2.0, "half": 0.5}, {}, {"neg": -1.0}):
        _same(s(x, scale), dicts(x, scale))
    c = tl.jit.script(int_keys)
    assert c([1, 2, 1, 3, 1]) == int_keys([1, 2, 1, 3, 1])


def helper(a, b: float = 1.0):
    return a * b + 1


def uses_helpers(x):
    y = helper(x)
    z = helper(y, b=3.0)
    return F.softmax(z, dim=-1), F.gelu(z), F.dropout(z, 0.3, training=False)


def test_helper_calls_and_functional_ops():
    x = tl.randn(2, 5)
    s = _check(uses_helpers, x)
    kinds = [n.kind() for n in s.graph.nodes()]
    assert "aten::softmax" in kinds and "aten::gelu" in kinds and "aten::dropout" in kinds


def tuples(x):
    a, b = x.max(0)
    t = (a, b)
    c, d = t
    return d, c * 2


def test_tuples():
    _check(tuples, tl.randn(3, 4))


def indexing(x):
    x[0, 1] = 5.0
    x[1] = x[1] * 2
    return x[0], x[:, 1:], x[..., 0], x[None, 1], x[-1, ::2], x.shape[1], x.size(0), x.dim()


def test_tensor_indexing_and_setitem():
    a = tl.randn(3, 4)
    s = tl.jit.script(indexing)
    _same(s(a.clone()), indexing(a.clone()))


def strings(name: str, n: int) -> str:
    if name == "relu":
        return name + "!"
    return f"{name}-{n}-{n / 2}-{n > 1}"


def test_strings_and_fstrings():
    s, t = tl.jit.script(strings), torch.jit.script(strings)  # (floats print as torch's: -1. for -1.0)
    for args in (("relu", 1), ("tanh", 3), ("x", -2)):
        assert s(*args) == t(*args)


def conversions(x, k: int):
    v = float(x.sum())
    i = int(v)
    b = bool(k)
    return v * 2, i, b, x.numel(), int(x[0].item() > 0)


def test_conversions():
    x = tl.tensor([1.5, 2.25, -0.5])
    s = tl.jit.script(conversions)
    assert s(x, 0) == conversions(x, 0) and s(x, 2) == conversions(x, 2)


def raises(x, k: int):
    if k < 0:
        raise ValueError(f"k must be non-negative, got {k}")
    return x + k


def test_raise_with_message():
    s = tl.jit.script(raises)
    _same(s(tl.ones(2), 1), raises(tl.ones(2), 1))
    with pytest.raises(RuntimeError, match=r"builtins.ValueError: k must be non-negative, got -3"):
        s(tl.ones(2), -3)


def grad_fn(x, w, n: int):
    h = x
    for i in range(n):
        h = tl.tanh(h @ w) + h
    if n > 1:
        h = h * 2
    return h.sum()


def test_gradients_equal_eager():
    x = tl.randn(4, 3, requires_grad=True)
    w = tl.randn(3, 3, requires_grad=True)
    s = tl.jit.script(grad_fn)
    s(x, w, 3).backward()
    gx, gw = x.grad.clone(), w.grad.clone()
    x.grad = None
    w.grad = None
    grad_fn(x, w, 3).backward()
    _same(gx, x.grad)
    _same(gw, w.grad)


def inplace_aug(x, y):
    x += y
    x *= 2
    return x


def test_augmented_assignment_is_in_place_on_tensors():
    s = tl.jit.script(inplace_aug)
    a, b = tl.randn(3), tl.randn(3)
    a2 = a.clone()
    out = s(a2, b)
    assert out.data_ptr() == a2.data_ptr()
    _same(out, inplace_aug(a.clone(), b))
    assert [n.kind() for n in s.graph.nodes() if n.kind().startswith("aten::")] == ["aten::add_", "aten::mul_"]


def dtypes(x, y):
    return x + y, x * 2, (x > 1) & (y > 1), x // 2


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32"])
def test_dtypes(dtype):
    x = (tl.arange(6) - 2).to(getattr(tl, dtype)).reshape(2, 3)
    y = tl.ones(2, 3, dtype=getattr(tl, dtype))
    _check(dtypes, x, y)
    _check(dtypes, x.t(), y.t())  # non-contiguous


def test_empty_and_zero_dim():
    _check(branches, tl.randn(0, 3), 4)
    _check(branches, tl.tensor(2.5), 1)


def oracle_fn(x, n: int):
    y = x
    for i in range(n):
        if i % 2 == 0:
            y = y * 2
        else:
            y = y + 1
    return y.relu()


def test_graph_kinds_match_torch_jit_script():
    ours = tl.jit.script(oracle_fn)

    def torch_fn(x: torch.Tensor, n: int):
        y = x
        for i in range(n):
            if i % 2 == 0:
                y = y * 2
            else:
                y = y + 1
        return y.relu()
    theirs = torch.jit.script(torch_fn)

    def structure(g):
        out = []
        for n in g.nodes():
            k = n.kind()
            if k in ("prim::Constant",) or not (k.startswith("aten::") or k in ("prim::If", "prim::Loop")):
                continue
            out.append(k.split(".")[0])
            for b in n.blocks():
                out.append([k2 for k2 in structure(b)])
        return out
    mine = structure(ours.graph)
    torch_kinds = structure(theirs.graph)
    # torch.jit spells int math as aten::remainder/aten::eq on ints; torchlite as prim:: ops.
    assert [k for k in mine if not isinstance(k, list)] == [k for k in torch_kinds if not isinstance(k, list)]
    x = tl.randn(3)
    np.testing.assert_allclose(ours(x, 5).numpy(), theirs(torch.from_numpy(x.numpy()), 5).numpy(), rtol=1e-6)


def tensor_conversions(x, y):
    return x.float(), x.long(), x.double().bool(), y.type_as(x), x.to(tl.int32)


def test_tensor_dtype_methods():
    _check(tensor_conversions, tl.tensor([1.5, 0.0, -2.0], dtype=tl.float64), tl.tensor([1, 2, 3]))


def indexing_3d(x):
    return x[0, ..., 1], x[..., 1:, 0], x[1:, None, 0], x[:, -1], x[..., ::2], x[None, ..., 0], x[0][1][2]


def test_tensor_indexing_3d_and_ellipsis():
    x = tl.randn(3, 4, 5)
    _check(indexing_3d, x)
    _check(indexing_3d, x.permute(2, 0, 1).contiguous().permute(1, 2, 0))  # non-contiguous


def comprehensions(x, y):
    a, b = (t.relu() for t in (x, y))
    scaled = [x * i for i in range(3)]
    return a + b, scaled, isinstance(x, (list, tl.Tensor)), list((1, 2)), x.dtype == tl.float32


def test_static_comprehensions_isinstance_dtype():
    _check(comprehensions, tl.randn(3), tl.randn(3))


def find_first(xs: List[int], target: int) -> int:
    for i in range(len(xs)):
        if xs[i] == target:
            return i
    return -1


def nested_return(x, n: int):
    for i in range(n):
        j = 0
        while j < n:
            if i * j == 6:
                return x * i + j
            j += 1
    return x


def test_return_inside_loops():
    s = tl.jit.script(find_first)
    for xs, t in (([3, 5, 7], 5), ([3, 5, 7], 9), ([], 1), ([2, 2], 2)):
        assert s(xs, t) == find_first(xs, t)
    n = tl.jit.script(nested_return)
    x = tl.randn(2)
    for k in (2, 4, 7):
        _same(n(x, k), nested_return(x, k))
