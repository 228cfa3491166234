"""The Python that torchlite.nn's modules use, compiled by torchlite.jit.script: x.device and
x.is_floating_point(), warnings.warn, math functions, str.format, tuple() of run-time sizes compared with
tuples, list repetition by a run-time count, zip, list comprehensions over run-time lists, an empty list
typed by what is appended, *args in called functions, getattr with a default, `or` refining Optional,
isinstance refinement, print, `with no_grad()`: each against the same function run by Python."""
import math
import re
import warnings
from typing import List, Optional

import numpy as np
import pytest

import torchlite as tl


def _same(fn, *args):
    s = tl.jit.script(fn)
    got, want = s(*args), fn(*args)
    if isinstance(want, tl.Tensor):
        np.testing.assert_allclose(got.numpy(), want.numpy())
    else:
        assert got == want and type(got) is type(want), (got, want)
    return s


def test_device_and_dtype_predicates():
    def f(x):
        z = tl.zeros(2, dtype=x.dtype, device=x.device)
        return z.sum() + float(x.is_floating_point()) + float(x.is_complex())
    _same(f, tl.randn(3))
    _same(f, tl.tensor([1, 2]))
    g = tl.jit.script(f).graph
    assert "prim::device" in str(g) and "prim::is_floating_point" in str(g)


def test_warn_is_a_user_warning_at_run_time():
    def f(x):
        if x.dim() > 1:
            warnings.warn(f"got {x.dim()} dims", stacklevel=2)
        return x + 1
    s = tl.jit.script(f)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s(tl.ones(2))
        assert not w
        s(tl.ones(2, 2))
    assert [str(x.message) for x in w] == ["got 2 dims"]


def test_math_functions():
    def f(x: float, n: int):
        return math.sqrt(x) + math.floor(x * n) + math.ceil(x) + float(math.isinf(x)) + float(math.isnan(x)) \
            + math.exp(0.5) + math.log(x + 1) + math.prod((2, 3))
    for x in (0.25, 2.5, 7.0):
        _same(f, x, 3)
    s = tl.jit.script(f)
    with pytest.raises(RuntimeError, match="math domain error"):
        s(-1.0, 1)


def test_str_format_and_type():
    def f(x, msg: str = "Expected size {}, got {}"):
        expected = (2, x.size(0))
        if x.size(1) != 3:
            raise RuntimeError(msg.format(expected, list(x.size())) + f" {type(x)}")
        return "{}-{}".format(x.size(0), x.dim())
    _same(f, tl.ones(4, 3))
    with pytest.raises(RuntimeError) as eager:
        f(tl.ones(4, 5))
    assert str(eager.value) == f"Expected size (2, 4), got [4, 5] {type(tl.ones(1))}"
    with pytest.raises(RuntimeError, match=re.escape(str(eager.value))):
        tl.jit.script(f)(tl.ones(4, 5))


def test_tuple_of_sizes_compared_with_tuples():
    def f(x, y):
        a = tuple(x.shape) == (2, 3)
        b = tuple(x.size()) != tuple(y.size())
        c = x.shape[:1] == (y.size(0),)
        return int(a) * 100 + int(b) * 10 + int(c)
    for shapes in (((2, 3), (2, 3)), ((2, 3), (2, 4)), ((3, 3), (5, 3))):
        _same(f, tl.ones(*shapes[0]), tl.ones(*shapes[1]))


def test_list_repetition_by_a_run_time_count():
    def f(x, s: float):
        a = [s] * (x.dim() - 1)
        b = 2 * [x.size(0)]
        c = [1, 2] * -1
        return len(a) + sum_list(b) + len(c) + int(a[0])

    def sum_list(xs: List[int]) -> int:
        t = 0
        for v in xs:
            t += v
        return t
    _same(f, tl.ones(3, 2, 2), 4.0)


def test_zip_loops_and_comprehensions():
    def f(x, ks: List[int]):
        total = 0
        for a, b in zip(ks, x.shape):  # run-time lists: min(len) trips
            total += a * b
        for a, b in zip((1, 2), (10, 20)):  # static: unrolled
            total += a * b
        pairs = [a + b for a, b in zip(ks, [100, 200, 300])]
        sizes = [n * 2 for n in x.shape if n > 1]
        nested = [i * j for i in ks for j in range(2)]
        return total + len(pairs) * 1000 + pairs[0] + len(sizes) * 10000 + len(nested) * 100000
    _same(f, tl.ones(2, 1, 4), [3, 5])
    _same(f, tl.ones(2, 3), [3, 5, 7, 9])


def test_comprehension_types_and_empty_lists():
    def f(x):
        sizes: List[int] = []  # an unannotated [] is List[Tensor], as torch's (test_jit_script_empty_lists.py)
        for i in range(x.dim()):
            sizes.append(x.size(i) * 2)
        floats = [float(v) for v in sizes]
        none_yet = [t for t in [x, x] if t.dim() > 5]
        return len(sizes) + int(floats[0]) + len(none_yet)
    s = _same(f, tl.ones(3, 2))
    assert "int[]" in str(s.graph) and "float[]" in str(s.graph)


def test_varargs_of_called_functions_and_getattr_default():
    def total(*xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out

    def f(x):
        op = getattr(tl, "no_such_op", None)
        y = total(x, x, x * 2)
        if op is not None:
            y = op(y)
        return tl.broadcast_tensors(y, x[0])[1]
    _same(f, tl.randn(2, 3))


def test_or_refines_optional_and_isinstance_refinement():
    def f(x, mask: Optional[tl.Tensor] = None, scale: Optional[float] = None):
        if mask is None or mask.dim() != 2:
            x = x * 2
        if isinstance(mask, tl.Tensor):
            x = x + mask.sum()
        if not isinstance(scale, float):
            return x
        return x * scale
    s = tl.jit.script(f)
    x = tl.randn(2, 2)
    for args in ((), (tl.ones(2, 2),), (tl.ones(3),), (tl.ones(2, 2), 0.5)):
        np.testing.assert_allclose(s(x, *args).numpy(), f(x, *args).numpy())


def test_print(capfd):
    def f(x, n: int):
        print("value", n, [n, 2], x.size(0), 1.5, True)
        return x
    tl.jit.script(f)(tl.ones(2), 7)
    assert capfd.readouterr().out == "value 7 [7, 2] 2 1.5 True\n"


def test_with_no_grad_and_enable_grad():
    def f(x, w):
        with tl.no_grad():
            frozen = x * w
        y = frozen + x * w
        with tl.set_grad_enabled(False):
            with tl.enable_grad():
                z = y * w
        return z
    s = tl.jit.script(f)
    x, w = tl.randn(3), tl.randn(3, requires_grad=True)
    out = s(x, w)
    out.sum().backward()
    got = w.grad.clone()
    w.grad = None
    f(x, w).sum().backward()
    np.testing.assert_allclose(got.numpy(), w.grad.numpy())
    assert tl.is_grad_enabled()


def test_with_no_grad_restores_the_mode_when_the_body_raises():
    def f(x):
        with tl.no_grad():
            if x.sum() > 0:
                raise ValueError("positive")
            y = x * 2
        return y
    s = tl.jit.script(f)
    with pytest.raises(RuntimeError, match="positive"):
        s(tl.ones(2))
    assert tl.is_grad_enabled()
    assert not s(-tl.ones(2, requires_grad=True)).requires_grad


def test_with_over_a_builtin_and_return_inside_with():
    def other(x):
        with open("f") as fh:  # noqa: F841
            return x

    def ret(x):
        with tl.no_grad():
            return x * 2
    # as torch ("Python builtin <built-in function open> is currently not supported in Torchscript")
    with pytest.raises(RuntimeError, match="Python builtin <built-in function open> is currently not supported in Torchscript"):
        tl.jit.script(other)
    # a return inside a grad-mode block restores the mode first, as torch (tests/test_jit_with.py)
    assert tl.jit.script(ret)(tl.ones(2, requires_grad=True)).requires_grad is False and tl.is_grad_enabled()


def test_grad_mode_nodes_save_and_load(tmp_path):
    class M(tl.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = tl.nn.Linear(3, 3)

        def forward(self, x):
            with tl.no_grad():
                y = self.fc(x)
            return y + self.fc(x)
    m = M()
    path = str(tmp_path / "m.pt")
    tl.jit.save(tl.jit.script(m), path)
    loaded = tl.jit.load(path)
    x = tl.randn(2, 3)
    np.testing.assert_allclose(loaded(x).detach().numpy(), m(x).detach().numpy(), rtol=1e-6)
    x.requires_grad_()
    loaded(x).sum().backward()  # only the term outside no_grad reaches x
    np.testing.assert_allclose(x.grad.numpy(), m.fc.weight.detach().sum(0).expand(2, 3).numpy(), rtol=1e-6)
