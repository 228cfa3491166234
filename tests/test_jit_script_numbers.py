"""Union[int, float] (and an Optional of it once refined) as torch's Number/Scalar in script, against
torch.jit.script 2.13: arithmetic, comparisons, unary minus, passing it to ops that take a Scalar, int()/float(),
min/max, isinstance refinement, returning it; torch's errors where torch refuses (a Union with bool or str is not a
Number, bool() and truth tests, ~, a wrong return annotation) and torch's run-time behaviour where a Union[int, float]
on the left of a tensor takes aten::<op>(Scalar, Scalar) (a 0-d tensor is converted; another is an error)."""
import numpy as np
import pytest
import torch

import torchlite as tl
from tests.script_pair import both, errors


def _same(a, b):
    if isinstance(b, torch.Tensor):
        return isinstance(a, tl.Tensor) and repr(a.dtype).split(".")[-1] == repr(b.dtype).split(".")[-1] \
            and np.array_equal(a.numpy(), b.numpy(), equal_nan=a.dtype.is_floating_point)
    if isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


def _args(lib, spec):
    """Arguments from a spec: numbers as they are, ('t', values) as a tensor of lib."""
    return [lib.tensor(v[1]) if isinstance(v, tuple) and v and v[0] == "t" else v for v in spec]


N = "Union[int, float]"
CASES = [
    # (body, argument annotations, argument specs): f(a, b) returns body
    ("a + b", (N, "int"), [(2, 3), (2.5, 3)]),
    ("a * b", (N, "float"), [(2, 3.0), (1.5, 2.0)]),
    ("a - b", (N, N), [(1, 2.5), (4, 1), (0.5, 0.25)]),
    ("a / b", (N, "int"), [(3, 2), (3.0, 2)]),
    ("a // b", (N, "int"), [(7, 2), (7.5, 2)]),
    ("a % b", (N, "int"), [(7, 3), (7.5, 2)]),
    ("a ** b", (N, "int"), [(3, 2), (1.5, 2)]),
    ("-a", (N, "int"), [(3, 0), (2.5, 0)]),
    ("a < b", (N, "int"), [(2, 3), (3.5, 3)]),
    ("a == b", (N, "float"), [(2, 2.0), (2.5, 2.0)]),
    ("a != b", (N, "float"), [(2.5, 2.5), (2, 2.5)]),
    ("a >= b", (N, N), [(1, 1.5), (2.0, 2)]),
    ("int(a) + b", (N, "int"), [(2.7, 1), (3, 1)]),
    ("float(a) * b", (N, "int"), [(2, 3), (0.5, 3)]),
    ("max(a, b)", (N, N), [(1, 2.5), (3, 2)]),
    ("min(a, b)", (N, "int"), [(1.5, 2), (3, 2)]),
    ("str(a) + str(b)", (N, "int"), [(2.5, 1), (2, 1)]),
    ("f'{a}/{b}'", (N, "int"), [(2.5, 1)]),
    ("[a, a]", (N, "int"), [(1, 0), (1.5, 0)]),
]


@pytest.mark.parametrize("body,anns,calls", CASES, ids=[c[0] for c in CASES])
def test_number_union_arithmetic_and_comparisons_as_torch(body, anns, calls):
    src = f"def f(a: {anns[0]}, b: {anns[1]}):\n    return {body}\n"
    ours, theirs = both(src)
    for args in calls:
        got, want = ours(*args), theirs(*args)
        assert _same(got, want), (body, args, got, want)


SCALAR_OPS = [
    ("x + a", [2, 2.5]),
    ("torch.add(x, x, alpha=a)", [2, 0.5]),
    ("x.clamp(min=a)", [1, 1.5]),
    ("x.pow(a)", [2, 0.5]),
    ("torch.full([2], a)", [3, 1.5]),
    ("x[0] == a", [0, 1.0]),
    ("x * a - a", [3, 0.25]),
]


@pytest.mark.parametrize("body,values", SCALAR_OPS, ids=[c[0] for c in SCALAR_OPS])
def test_number_union_passed_to_scalar_arguments(body, values):
    src = f"def f(x: Tensor, a: {N}):\n    return {body}\n"
    ours, theirs = both(src)
    for v in values:
        assert _same(ours(tl.arange(4.0), v), theirs(torch.arange(4.0), v)), (body, v)


def test_scalar_argument_node_is_the_scalar_overload():
    ours, _ = both(f"def f(x: Tensor, a: {N}):\n    return x.clamp(min=a)\n")
    assert "aten::clamp(" in str(ours.graph) or "aten::clamp " in str(ours.graph)
    assert ours.graph.findNode("aten::clamp").schema().startswith("aten::clamp(Tensor self, Scalar? min")


LEFT_OF_TENSOR = ["a * x", "a - x", "a + x", "a / x", "a // x", "a < x", "a == x", "a ** x", "a % x"]


@pytest.mark.parametrize("body", LEFT_OF_TENSOR)
def test_number_union_left_of_a_tensor_as_torch(body):
    # torch has no reflected op for a Union: (Scalar, Tensor) overloads where the op has one (pow, remainder), else
    # aten::<op>(Scalar, Scalar) with the tensor converted to a number (0-d only; an error when run otherwise)
    ours, theirs = both(f"def f(x: Tensor, a: {N}):\n    return {body}\n")
    for v in (3, 2.5):
        for make in (lambda lib: lib.tensor(2.0), lambda lib: lib.arange(3.0)):
            try:
                want = theirs(make(torch), v)
            except Exception as e:  # noqa: BLE001 (torch.jit.Error)
                msg = "Cannot input a tensor of dimension other than 0 as a scalar argument"
                assert msg in str(e)
                with pytest.raises(RuntimeError, match=msg):
                    ours(make(tl), v)
                continue
            assert _same(ours(make(tl), v), want), (body, v)


def test_number_union_left_of_a_tensor_refused_as_torch():
    ours, theirs = errors(f"def f(x: Tensor, a: {N}):\n    return a & x\n")
    assert type(ours) is RuntimeError and isinstance(theirs, RuntimeError)
    assert "Arguments for call are not valid" in str(ours) and "Arguments for call are not valid" in str(theirs)


def test_isinstance_refinement_and_returns():
    src = f"""
def f(a: {N}) -> {N}:
    if isinstance(a, int):
        return a + 1
    return a * 2
"""
    ours, theirs = both(src)
    for v in (3, 2.5, -1):
        assert _same(ours(v), theirs(v))
    src = f"""
def f(a: Optional[{N}]):
    if a is None:
        return 0
    return a + 1
"""
    ours, theirs = both(src)
    for v in (None, 2, 2.5):
        assert _same(ours(v), theirs(v))
    ours, theirs = both(f"def f(a: {N}):\n    b = a\n    b += 1\n    return b\n")
    for v in (1, 1.5):
        assert _same(ours(v), theirs(v))
    ours, theirs = both(f"def f(a: {N}):\n    if a > 1:\n        return a\n    return 2\n")
    for v in (3.5, 0.5, 7):
        assert _same(ours(v), theirs(v))


REFUSED = [
    # not Numbers (bool is not a member of torch's Number; str, None)
    ("def f(x: Tensor, a: Union[int, bool]):\n    return x + a\n", "Arguments for call are not valid"),
    ("def f(a: Union[int, bool]):\n    return a + 1\n", None),
    ("def f(x: Tensor, a: Union[int, str]):\n    return x + a\n", "Arguments for call are not valid"),
    ("def f(a: Union[int, str]):\n    return a + 1\n", None),
    (f"def f(a: Optional[{N}]):\n    return a + 1\n", None),
    (f"def f(x: Tensor, a: Optional[{N}]):\n    return x + a\n", "Arguments for call are not valid"),
    # what torch refuses on a Union[int, float] itself
    (f"def f(a: {N}) -> float:\n    return a\n",
     "Return value was annotated as having type float but is actually of type Union[float, int]"),
    (f"def f(a: {N}) -> int:\n    return a\n",
     "Return value was annotated as having type int but is actually of type Union[float, int]"),
    (f"def f(a: {N}):\n    if a:\n        return 1\n    return 0\n",
     "Could not cast value of type Union[float, int] to bool"),
    (f"def f(a: {N}):\n    return bool(a)\n", None),
    (f"def f(a: {N}):\n    return ~a\n", None),
    (f"def f(a: {N}):\n    return a < 's'\n", None),
    (f"def f(a: {N}):\n    l: List[float] = []\n    l.append(a)\n    return l\n",
     "Expected a value of type 't' for argument 'el' but instead found type 'Union[float, int]'."),
]


@pytest.mark.parametrize("src,msg", REFUSED, ids=range(len(REFUSED)))
def test_refused_as_torch(src, msg):
    ours, theirs = errors(src)
    assert isinstance(theirs, RuntimeError), theirs
    assert type(ours) is RuntimeError, ours
    if msg is not None:
        assert msg in str(ours) and msg in str(theirs)


def test_a_number_result_converts_to_an_int_or_float_return_and_loop_variable():
    # torch's implicit aten::Int / aten::Float of a Scalar where an int or float is expected
    for src, calls in (
            (f"def f(a: {N}) -> int:\n    return a + 1\n", [(2,), (2.5,)]),
            (f"def f(a: {N}) -> float:\n    return a * 2\n", [(2,), (2.5,)]),
            (f"def f(a: {N}, n: int):\n    s = 0\n    for i in range(n):\n        s = s + a\n    return s\n",
             [(2.5, 3), (2, 3), (1.5, 0)]),
            (f"def f(a: {N}, n: int):\n    s = 0.0\n    for i in range(n):\n        s = s + a\n    return s\n",
             [(2, 3), (0.5, 3)])):
        ours, theirs = both(src)
        for args in calls:
            assert _same(ours(*args), theirs(*args)), (src, args)


@pytest.mark.parametrize("src,msg", [
    (f"def f(a: {N}) -> {N}:\n    return a * 2\n",
     "Return value was annotated as having type Union[float, int] but is actually of type number"),
    (f"def f(a: {N}, n: int):\n    s: {N} = 0\n    for i in range(n):\n        s = s + a\n    return s\n",
     "Variable 's' previously had type Union[float, int] but is now being assigned to a value of type number"),
    (f"def f(a: {N}):\n    x = a + 1\n    y: int = x\n    return y\n",
     "Variable 'y' is annotated with type int but is being assigned to a value of type number"),
])
def test_number_results_refused_as_torch(src, msg):
    ours, theirs = errors(src)
    assert type(ours) is RuntimeError and isinstance(theirs, RuntimeError)
    assert msg in str(ours) and msg in str(theirs), (str(ours), str(theirs))


@pytest.mark.parametrize("ann,values", [("int", (-3, 4, 0)), ("float", (-2.5, 3.0, -0.0)), (N, (-3, -2.5, 4))])
def test_abs_of_numbers_as_torch(ann, values):
    ours, theirs = both(f"def f(a: {ann}):\n    return abs(a)\n")
    for v in values:
        got, want = ours(v), theirs(v)
        assert _same(got, want) and repr(got) == repr(want), (ann, v, got, want)
    ours, theirs = both("def f(x: Tensor):\n    return abs(x)\n")
    assert ours(tl.tensor([-1.0, 2.0])).tolist() == theirs(torch.tensor([-1.0, 2.0])).tolist()
