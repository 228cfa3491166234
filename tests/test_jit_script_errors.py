"""Compile errors of torchlite.jit.script: unsupported syntax raises NotSupportedError
(torchlite.jit.frontend, as torch.jit.frontend's), type and name errors RuntimeError, each with the
file and line, the source line, and `~` under the offending columns followed by `<--- HERE`, as
PyTorch prints them. Run-time errors are the ops' own."""
import inspect
import re
from typing import List

import pytest

import torchlite as tl
import torchlite.nn as nn
from torchlite.jit.frontend import NotSupportedError


def _where(fn, needle):
    """(file line, column) of the first occurrence of `needle` in fn's source."""
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if needle in line:
            return first + i, line.index(needle)
    raise AssertionError(needle)


def _check_range(err, fn, needle):
    msg = str(err)
    line, col = _where(fn, needle)
    assert f'line {line}\n' in msg, msg
    src, marks = msg.split(f"line {line}\n", 1)[1].splitlines()[:2]
    assert needle in src
    assert marks.endswith("<--- HERE"), marks
    assert marks.index("~") == col, (marks, col)
    assert marks.count("~") == len(needle), (marks, needle)


def with_stmt(x):
    with tl.inference_mode():  # only no_grad, enable_grad and set_grad_enabled script
        y = x + 1
    return y


def generator_over_list(x, xs: List[int]):
    ys = tuple(x * i for i in xs)
    return ys[0]


def tensor_plus_str(x):
    return x + "a"


def unknown_method(x):
    return x.frobnicate(2)


def undefined_name(x):
    return x + missing_value  # noqa: F821


def bad_op_args(x):
    return tl.relu(x, 3)


def branch_types(x, k: int):
    if k > 0:
        y = x
    else:
        y = 1
    return y


def loop_type_change(x, n: int):
    y = None
    for i in range(n):
        y = x
    return x


def return_in_loop(x, n: int):
    for i in range(n):
        if i > 2:
            return x
        if i > 5:
            return i
    return x


def recursive(x, n: int):
    if n == 0:
        return x
    return recursive(x, n - 1)


def bad_annotation(x, s: set):
    return x


def wrong_return(x) -> int:
    return x


def append_wrong(x):
    xs: List[int] = []
    xs.append(x)
    return xs


def lambda_use(x):
    f = lambda t: t + 1  # noqa: E731
    return f(x)


def try_stmt(x):
    try:
        return x
    except Exception:
        return x


@pytest.mark.parametrize("fn,needle,what", [
    (with_stmt, "with tl.inference_mode():\n", "with statements aren't supported"),
    (lambda_use, "lambda t: t + 1", "Lambda aren't supported"),
])
def test_unsupported_syntax(fn, needle, what):
    with pytest.raises(NotSupportedError) as info:
        tl.jit.script(fn)
    assert what in str(info.value)
    if needle.endswith("\n"):  # statements: the caret runs to the end of the line
        line, col = _where(fn, needle.strip())
        assert f"line {line}\n" in str(info.value)
    else:
        _check_range(info.value, fn, needle)


def test_try_is_not_supported():
    with pytest.raises(NotSupportedError, match="try blocks aren't supported"):
        tl.jit.script(try_stmt)


@pytest.mark.parametrize("fn,needle,what", [
    (tensor_plus_str, 'x + "a"', "Arguments for call are not valid"),
    (unknown_method, "x.frobnicate(2)", "Tensor has no method 'frobnicate'"),
    (undefined_name, "missing_value", "undefined value missing_value"),
    (bad_op_args, "tl.relu(x, 3)", "aten::relu"),
    (recursive, "recursive(x, n - 1)", "Recursive calls are not supported"),
    (append_wrong, "xs.append(x)", "Could not match type Tensor to t in argument 'el': Type variable 't' previously "
                                   "matched to type int is matched to type Tensor"),
])
def test_type_and_name_errors(fn, needle, what):
    with pytest.raises(RuntimeError) as info:
        tl.jit.script(fn)
    assert what in str(info.value)
    _check_range(info.value, fn, needle)


def test_return_types_in_loops_must_agree():
    with pytest.raises(RuntimeError, match="Previous return statement returned a value of type Tensor but this "
                                           "return statement returns a value of type int") as info:
        tl.jit.script(return_in_loop)
    line, _ = _where(return_in_loop, "return i")
    assert f"line {line}\n" in str(info.value)


def test_branch_type_mismatch():
    with pytest.raises(RuntimeError, match="Type mismatch: y is set to type Tensor in the true branch and type int"):
        tl.jit.script(branch_types)


def test_loop_carried_type_change():
    with pytest.raises(RuntimeError, match="Variable 'y' previously had type None but is now being assigned to a "
                                           "value of type Tensor"):
        tl.jit.script(loop_type_change)


def test_annotations():
    with pytest.raises(RuntimeError, match="Unknown type annotation"):
        tl.jit.script(bad_annotation)
    with pytest.raises(RuntimeError, match="Return value was annotated as having type int but is actually of type "
                                           "Tensor"):
        tl.jit.script(wrong_return)


def test_module_errors():
    class NoAttr(nn.Module):
        def forward(self, x):
            return x * self.missing

    with pytest.raises(RuntimeError, match="Module 'NoAttr' has no attribute 'missing'") as info:
        tl.jit.script(NoAttr())
    assert "self.missing" in str(info.value) and "<--- HERE" in str(info.value)

    class SetsState(nn.Module):
        def forward(self, x):
            self.count = 1
            return x

    # an attribute __init__ did not create (torch's error; assigning existing ones: test_jit_script_attributes.py)
    with pytest.raises(RuntimeError, match=r"Tried to set nonexistent attribute: count. Did you forget to initialize it "
                                           r"in __init__\(\)\?"):
        tl.jit.script(SetsState())
    # (an @ignore'd method is a prim::PythonOp now: test_jit_script_ignored_methods.py)
    with pytest.raises(RuntimeError, match="no forward method"):
        tl.jit.script(nn.Module())


def test_run_time_errors_are_the_ops_own():
    def f(x, y):
        return x @ y
    s = tl.jit.script(f)
    with pytest.raises(RuntimeError) as scripted:
        s(tl.randn(2, 3), tl.randn(2, 3))
    with pytest.raises(RuntimeError) as eager:
        f(tl.randn(2, 3), tl.randn(2, 3))
    assert str(scripted.value) == str(eager.value)

    def g(xs: List[int], i: int):
        return xs[i]
    with pytest.raises(IndexError, match="list index out of range"):
        tl.jit.script(g)([1, 2], 5)

    def h(a: int, b: int):
        return a // b
    with pytest.raises(RuntimeError, match="division by 0"):  # torch's aten::floordiv.int message
        tl.jit.script(h)(1, 0)


def test_wrong_call_arguments():
    def f(x, n: int = 2):
        return x * n
    s = tl.jit.script(f)
    with pytest.raises(RuntimeError, match=re.escape("f() expected at most 2 argument(s) but received 3")):
        s(tl.ones(1), 1, 2)
    with pytest.raises(RuntimeError, match="f\\(\\) is missing value for argument 'x'"):
        s()
    with pytest.raises(RuntimeError, match="unexpected keyword argument 'm'"):
        s(tl.ones(1), m=3)


def test_script_of_other_objects():
    with pytest.raises(RuntimeError, match="script of a class"):
        tl.jit.script(nn.Linear)
    with pytest.raises(RuntimeError, match="expects a function or an nn.Module"):
        tl.jit.script(3)


def _add_ints(a: int, b: int):
    return a + b


def _rezip(data, record, pattern, repl):
    import io
    import zipfile
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        records = {n: z.read(n) for n in z.namelist()}
    text = records["archive/" + record]
    new = re.sub(pattern.encode(), repl.encode(), text, count=1)
    assert new != text
    records["archive/" + record] = new
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as z:
        for n, b in records.items():
            z.writestr(n, b)
    return out.getvalue()


def test_malformed_prim_nodes_are_refused():
    import io
    from torchlite._C import _jit
    buf = io.BytesIO()
    tl.jit.save(tl.jit.script(_add_ints), buf)
    data = buf.getvalue()
    assert tl.jit.load(io.BytesIO(data))(2, 3) == 5
    fewer = _rezip(data, "code/forward.graph", r'"prim::add" "" in 2 (\d+) (\d+)', r'"prim::add" "" in 1 \1')
    with pytest.raises(RuntimeError, match="malformed prim::add node: prim::add takes 2 inputs"):
        tl.jit.load(io.BytesIO(fewer))
    unknown = _rezip(data, "code/forward.graph", r'"prim::add"', '"prim::bogus"')
    with pytest.raises(RuntimeError, match="unknown node kind 'prim::bogus'"):
        tl.jit.load(io.BytesIO(unknown))
    g = _jit.Graph()
    a = g.addInput("a")
    g.registerOutput(g.insertNode(g.create("prim::add", [a], 1)).output())
    with pytest.raises(RuntimeError, match="malformed node: prim::add takes 2 inputs"):
        _jit.run_graph(g, [1])
    g2 = _jit.Graph()
    x = g2.addInput("x")
    g2.registerOutput(g2.insertNode(g2.create("prim::len", [x], 1)).output())
    with pytest.raises(TypeError):
        _jit.run_graph(g2, [3])


def test_argument_types_checked_at_call():
    def f(x, n: int, scale: float = 1.5, dtype: tl.dtype = tl.float64):
        return (x * n * scale).to(dtype)
    s = tl.jit.script(f)
    x = tl.ones(2)
    assert s(x, 2).dtype == tl.float64 and s(x, 2, 2).tolist() == [4.0, 4.0]  # an int where a float is expected
    with pytest.raises(RuntimeError, match="f\\(\\) Expected a value of type 'Tensor' for argument 'x' but instead "
                                           "found type 'str'"):
        s("x", 2)
    with pytest.raises(RuntimeError, match="Expected a value of type 'int' for argument 'n' but instead found "
                                           "type 'float'"):
        s(x, 2.5)
    with pytest.raises(RuntimeError, match="type 'int' for argument 'n' but instead found type 'bool'"):
        s(x, True)


def test_int_edge_cases_do_not_crash():
    def div(a: int, b: int):
        return a // b, a % b, -a

    def add(a: int, b: int):
        return a + b

    def to_int(x: float):
        return int(x)

    def sl(xs: List[int], step: int):
        return xs[1::step]
    lo = -2**63
    s = tl.jit.script(div)
    with pytest.raises(RuntimeError, match="integer overflow in floordiv"):
        s(lo, -1)
    assert s(-7, 2) == div(-7, 2) and s(7, -2) == div(7, -2)
    assert tl.jit.script(add)(2**63 - 1, 1) == lo  # int64 wraps, as TorchScript's ints
    with pytest.raises(ValueError, match="out of the range of int64"):
        tl.jit.script(to_int)(1e30)
    f = tl.jit.script(sl)
    for xs, step in (([1, 2, 3, 4], 2**63 - 1), ([1, 2, 3], -2**63), ([1, 2, 3, 4, 5], -2), ([1, 2, 3], 1)):
        assert f(xs, step) == xs[1::step]


def comprehension_adds_str(xs: List[int]):
    return [x + "a" for x in xs]


def test_error_inside_comprehension_points_at_its_expression_every_compile():
    # the parsed source is cached across compiles: the second compile must point at the same place
    for _ in range(2):
        with pytest.raises(RuntimeError) as info:
            tl.jit.script(comprehension_adds_str)
        lines = str(info.value).splitlines()
        marker = next(i for i, line in enumerate(lines) if "<--- HERE" in line)
        assert lines[marker - 1].strip() == 'return [x + "a" for x in xs]'
        assert lines[marker].strip().startswith("~~~~~~~ <---")
