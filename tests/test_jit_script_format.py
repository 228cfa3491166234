"""str()/f-strings/'{}'.format()/print() in script print values as torch.jit.script 2.13 does (torch's IValue
printing: `3.` for 3.0, 17 significant digits, dicts as `{k: v}`, strings unquoted inside containers), at run time
and when folded at compile time; round()/divmod()/pow() of numbers and max/min of a tensor and a number, against
torch.jit.script."""
import math

import pytest
import torch

import torchlite as tl
from tests.script_pair import both

FLOATS = [3.0, 0.1, 1.5e-7, -0.0, 0.0, math.inf, -math.inf, math.nan, 1e10, 1e16, 1e17, 1e18, 1e19, 1e20, 1e-5,
          1e-4, 123456789012345678.0, 2.5, 1 / 3, 1e300, 5e-324, 2.2250738585072014e-308, -2.0 ** 63, 2.0 ** 63,
          100.0, -7.25, 12345.678]


def _forms(ann):
    return (f"def f(x: {ann}):\n    return str(x) + '|' + f'<{{x}}>' + '|' + '{{}}'.format(x) + '|' + 'a{{}}b'.format(x)\n")


@pytest.mark.parametrize("x", FLOATS, ids=[repr(v) for v in FLOATS])
def test_float_str_as_torch(x):
    ours, theirs = both(_forms("float"))
    assert ours(x) == theirs(x)


VALUES = [
    ("int", [0, -5, 2 ** 62]),
    ("bool", [True, False]),
    ("str", ["a", "", "x'y\"z"]),
    ("Optional[float]", [None, 2.0, 0.1]),
    ("Optional[int]", [None, 7]),
    ("List[float]", [[], [1.0, 0.1, -0.0, 1e20]]),
    ("List[int]", [[1, 2, 3]]),
    ("List[bool]", [[True, False]]),
    ("List[str]", [["a", "b c", "d'e"]]),
    ("List[List[float]]", [[[1.0], [2.5, 3.0], []]]),
    ("Tuple[int, float, str]", [(1, 2.0, "a")]),
    ("Tuple[int]", [(4,)]),
    ("Tuple[float, Tuple[int, float]]", [(0.5, (1, 3.0))]),
    ("Dict[int, float]", [{1: 2.0, 3: 0.5}, {}]),
    ("Dict[str, float]", [{"x": 1.0, "y'q": 0.1}]),
    ("Dict[str, List[float]]", [{"a": [1.0, 2.5]}]),
    ("List[Dict[int, float]]", [[{1: 1.0}, {2: 2.5}]]),
    ("Tuple[Dict[int, float], int]", [({1: 3.0}, 2)]),
    ("Optional[Dict[int, float]]", [None, {1: 4.0}]),
    ("Union[int, float]", [3, 3.0, 0.1]),
    ("List[Optional[float]]", [[None, 1.0]]),
]
VALUE_CASES = [(ann, v) for ann, vs in VALUES for v in vs]


@pytest.mark.parametrize("ann,x", VALUE_CASES, ids=[f"{a}-{v!r}" for a, v in VALUE_CASES])
def test_value_str_as_torch(ann, x):
    ours, theirs = both(_forms(ann))
    assert ours(x) == theirs(x)


CONSTS = ["3.0", "0.1", "-0.0", "1e20", "1.5e-07", "[1.0, 2.5]", "(1, 2.0, 'a')", "{1: 2.0, 3: 0.5}", "{'k': [1.0]}",
          "None", "True", "['a', 'b']", "(1,)", "torch.float32"]


@pytest.mark.parametrize("expr", CONSTS)
def test_folded_constant_str_as_torch(expr):
    fstr = 'f"<{ ' + expr + ' }>"'
    src = f"def f(n: int):\n    return str({expr}) + '|' + {fstr} + '|' + '{{}}'.format({expr})\n"
    ours, theirs = both(src)
    assert ours(1) == theirs(1)


def test_print_as_torch(capfd):
    src = ("def f(x: float, d: Dict[int, float], t: Tuple[int, float, str]):\n"
           "    print(x, d, t, 0.1, [1.0], {2: 3.0})\n")
    ours, theirs = both(src)
    args = (3.0, {1: 2.0, 3: 0.5}, (1, 2.0, "a"))
    ours(*args)
    got = capfd.readouterr().out
    theirs(*args)
    want = capfd.readouterr().out
    assert got == want == "3. {1: 2., 3: 0.5} (1, 2., a) 0.10000000000000001 [1.] {2: 3.}\n"


def test_dtype_and_device_str_as_torch():
    src = "def f(x: Tensor):\n    return f'{x.dtype}|{x.device}|' + str(x.dtype)\n"
    ours, theirs = both(src)
    assert ours(tl.ones(2)) == theirs(torch.ones(2))


def _same(a, b):
    if isinstance(b, tuple):
        return isinstance(a, tuple) and len(a) == len(b) and all(map(_same, a, b))
    if isinstance(b, float) and math.isnan(b):
        return isinstance(a, float) and math.isnan(a)
    return type(a) is type(b) and a == b and (not isinstance(b, float) or math.copysign(1, a) == math.copysign(1, b))


def _run(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 (compared)
        # the last line of the message, less the "RuntimeError: " torch's interpreter puts before it
        return None, (type(e), str(e).splitlines()[-1].removeprefix("RuntimeError: "))


NUMBER_CASES = [
    ("round(a)", "float", [(2.5,), (3.5,), (-2.5,), (0.5,), (-0.4,), (2.6,), (1e300,), (math.inf,), (math.nan,)]),
    ("round(a)", "int", [(3,), (-7,)]),
    ("round(a)", "Union[int, float]", [(3,), (2.5,), (-0.5,)]),
    ("round(2.5) + round(3)", "int", [(0,)]),
    ("divmod(a, b)", "int, b: int", [(7, 2), (-7, 2), (7, -2), (0, 3), (1, 0)]),
    ("divmod(a, b)", "float, b: float", [(7.5, 2.0), (-7.5, 2.0), (1.0, 0.1), (0.3, 0.1), (1.0, 0.0)]),
    ("divmod(a, b)", "float, b: int", [(7.5, 2), (-1.0, 3)]),
    ("divmod(a, b)", "int, b: float", [(7, 2.5)]),
    ("pow(a, b)", "int, b: int", [(2, 3), (2, -1), (0, 0)]),
    ("pow(a, b)", "float, b: float", [(2.0, 0.5), (-8.0, 1 / 3)]),
]


@pytest.mark.parametrize("body,ann,calls", NUMBER_CASES, ids=[f"{c[0]}-{c[1]}" for c in NUMBER_CASES])
def test_number_builtins_as_torch(body, ann, calls):
    ours, theirs = both(f"def f(a: {ann}):\n    return {body}\n")
    for args in calls:
        (got, gerr), (want, werr) = _run(ours, args), _run(theirs, args)
        assert gerr == werr and (werr is not None or _same(got, want)), (body, args, got, want, gerr, werr)


TENSOR_NUMBER_CASES = [
    ("max(x, a)", "float", [((2.5,), 1.0), ((3,), 4.0), ((1.0, 2.0), 1.0)]),
    ("min(a, x)", "float", [((2.5,), 1.0), ((True,), 0.5)]),
    ("max(x, a)", "int", [((5,), 1), ((5.5,), 1), ((True,), 0)]),
    ("min(a, x)", "int", [((5,), 9), ((1, 2), 0)]),
    ("max(a, x)", "Union[int, float]", [((5,), 1), ((5,), 7.5)]),
]


@pytest.mark.parametrize("body,ann,calls", TENSOR_NUMBER_CASES, ids=[f"{c[0]}-{c[1]}" for c in TENSOR_NUMBER_CASES])
def test_max_min_of_tensor_and_number_as_torch(body, ann, calls):
    ours, theirs = both(f"def f(x: Tensor, a: {ann}):\n    return {body}\n")
    for vals, a in calls:
        mk = (lambda lib: lib.tensor(vals[0])) if len(vals) == 1 else (lambda lib: lib.tensor(list(vals)))
        (got, gerr), (want, werr) = _run(ours, (mk(tl), a)), _run(theirs, (mk(torch), a))
        assert gerr == werr and (werr is not None or _same(got, want)), (body, vals, a, got, want, gerr, werr)


def test_max_of_tensor_requiring_grad_as_torch():
    ours, theirs = both("def f(x: Tensor, a: float):\n    return max(x, a)\n")
    _, gerr = _run(ours, (tl.tensor(1.0, requires_grad=True), 0.0))
    _, werr = _run(theirs, (torch.tensor(1.0, requires_grad=True), 0.0))
    assert gerr == werr and werr is not None


def _tensors(lib):
    return [lib.tensor(2.5), lib.tensor(3), lib.tensor(True), lib.tensor(1e-7), lib.tensor(-0.0), lib.tensor(1e10),
            lib.tensor(123456789.0), lib.tensor([1.5, 2.0]), lib.tensor([1, 2, 300]), lib.tensor([1.5, -1000.5]),
            lib.tensor([1e10, 1.0]), lib.tensor([123456.5, 1.25]), lib.tensor([0.001, 0.002]),
            lib.tensor([float("nan"), 1.0, float("inf")]), lib.tensor([[1.0, 2.0], [3.0, 4.5]]),
            lib.arange(24.0).reshape(2, 3, 4), lib.arange(24.0).reshape(2, 3, 2, 2) / 7, lib.zeros(0),
            lib.zeros(2, 0), lib.tensor([1e20, 1e-20]), lib.tensor([[1e200, 1e-200]]), lib.tensor([True, False]),
            lib.tensor([1.5], dtype=lib.float64), lib.tensor([2], dtype=lib.int32),
            lib.tensor([0.5], dtype=lib.float16), lib.tensor([0.5], dtype=lib.bfloat16),
            lib.tensor([3], dtype=lib.uint8), lib.tensor([3], dtype=lib.int8), lib.tensor([3], dtype=lib.int16),
            lib.arange(30.0).reshape(1, 30) * 1000.5, lib.tensor([-1.5, -2.25]), lib.tensor([0.0, 0.0]),
            lib.tensor([1e-3, 1e5]), lib.tensor(1.0, requires_grad=True), lib.arange(12.0).reshape(3, 4).t(),
            lib.tensor([[1e-5, 2e-5]]), lib.tensor([1e-310, 1.0])]


@pytest.mark.parametrize("i", range(len(_tensors(torch))))
def test_tensor_str_as_torch(i):
    """A tensor in an f-string/str()/format prints as ATen's C++ printing (values, then `[ CPUFloatType{2} ]`)."""
    ours, theirs = both("def f(x: Tensor, xs: List[Tensor]):\n"
                        "    return f'<{x}>' + str(x) + '{}'.format(x) + str(xs)\n")
    a, b = _tensors(tl)[i], _tensors(torch)[i]
    assert ours(a, [a, a]) == theirs(b, [b, b])


FORMATS = ["a{0}b{1}", "a{{}}b{}", "a{}b{}", "a{}b", "{:d}", "a}b{", "{}{}", "", "{} and {}!"]


@pytest.mark.parametrize("fmt", FORMATS)
def test_str_format_follows_torch_rule(fmt):
    """torch's aten::format replaces each "{}" in turn and leaves other text ("{0}", "{{", specs) as written; too
    few arguments raise when run. Constant formats (folded) and run-time ones alike."""
    for src, args in ((f"def f(x: int, y: float):\n    return {fmt!r}.format(x, y)\n", (5, 0.5)),
                      ("def f(s: str, x: int, y: float):\n    return s.format(x, y)\n", (fmt, 5, 0.5)),
                      (f"def f(x: int):\n    return {fmt!r}.format(x)\n", (5,))):
        ours, theirs = both(src)
        (got, gerr), (want, werr) = _run(ours, args), _run(theirs, args)
        assert (got, gerr) == (want, werr), (src, got, want, gerr, werr)


def test_enum_and_named_tuple_str_as_torch(capfd):
    src = ("from enum import Enum\nfrom typing import NamedTuple\n"
           "class Color(Enum):\n    RED = 1\n    GREEN = 2\n"
           "class P(NamedTuple):\n    x: int\n    y: float\n"
           "def f(c: Color, p: P):\n"
           "    print(c, p)\n"
           "    return f'{c}|{p}|{Color.GREEN}|' + str(c) + '{}'.format(c)\n")
    from tests.script_pair import load
    mods = [load(src, "torchlite"), load(src, "torch")]
    outs = []
    for lib, m in zip((tl, torch), mods):
        res = lib.jit.script(m.f)(m.Color.RED, m.P(1, 2.0))
        outs.append((res, capfd.readouterr().out))
    assert outs[0] == outs[1] == ("Enum<Color.RED>|(1, 2.)|Enum<Color.GREEN>|Enum<Color.RED>Enum<Color.RED>",
                                  "Enum<Color.RED> (1, 2.)\n")


def test_fstring_conversion_is_torchs_error():
    from tests.script_pair import errors
    ours, theirs = errors("def f(x: int):\n    return f'{x!r}'\n")
    assert type(ours).__name__ == type(theirs).__name__ == "NotSupportedError"
    assert str(ours).splitlines()[0] == str(theirs).splitlines()[0]


DIVISIONS = [("a / b", "int, b: int", (1, 0)), ("a / b", "float, b: float", (-1.0, 0.0)),
             ("a / b", "Union[int, float], b: int", (0, 0)), ("a / b", "Union[int, float], b: float", (1, 0.0)),
             ("a // b", "float, b: float", (1.0, 0.0)), ("a // b", "Union[int, float], b: int", (-1.5, 0)),
             ("a // b", "int, b: int", (1, 0)), ("a % b", "float, b: float", (1.0, 0.0)),
             ("a % b", "Union[int, float], b: int", (1.0, 0)), ("1 / 0 + a", "int, b: int", (1, 0))]


@pytest.mark.parametrize("body,ann,args", DIVISIONS, ids=[f"{d[0]}-{d[1]}" for d in DIVISIONS])
def test_number_division_by_zero_as_torch(body, ann, args):
    """torch's number division: `/`, float `//` and `%` by zero give inf/nan (no ZeroDivisionError); int `//` is
    torch's "division by 0". (int % 0 is not compared: torch 2.13's process dies of SIGFPE there.)"""
    ours, theirs = both(f"def f(a: {ann}):\n    return {body}\n")
    (got, gerr), (want, werr) = _run(ours, args), _run(theirs, args)
    assert gerr == werr and (werr is not None or _same(got, want)), (got, want, gerr, werr)


def test_new_number_ops_and_dict_constants_save_and_load(tmp_path):
    """prim::divmod / implicit_num / math[round] and a folded dict constant (typed Dict) survive an archive."""
    src = ("class M(torch.nn.Module):\n"
           "    def forward(self, x: Tensor, a: float, d: Dict[int, float]):\n"
           "        q, r = divmod(a, 2.0)\n"
           "        return f'{round(a)}|{q}|{r}|{max(x, a)}|{d}|{ {1: 0.5} }|{x}|{pow(2, 3)}'\n")
    from tests.script_pair import load
    mods = [load(src, "torchlite"), load(src, "torch")]
    ours, theirs = tl.jit.script(mods[0].M()), torch.jit.script(mods[1].M())
    path = str(tmp_path / "m.pt")
    tl.jit.save(ours, path)
    loaded = tl.jit.load(path)
    want = theirs(torch.tensor(1.5), 2.5, {1: 0.1})
    assert ours(tl.tensor(1.5), 2.5, {1: 0.1}) == loaded(tl.tensor(1.5), 2.5, {1: 0.1}) == want
    assert "divmod(a, 2.0)" in ours.code and "{ {1: 0.5} }" in ours.code


def test_object_str_as_torch():
    """An object of a TorchScript class prints as Python's default: `<__torch__.<module>.Foo object at 0x...>`
    (the module and address differ between the two runs; the rest is compared)."""
    import re
    src = ("@torch.jit.script\nclass Foo:\n    def __init__(self, a: int):\n        self.a = a\n"
           "def f(a: int):\n    o = Foo(a)\n    return f'{o}|{[o]}'\n")
    from tests.script_pair import load
    outs = []
    for lib in (tl, torch):
        text = lib.jit.script(load(src, lib.__name__).f)(1)
        outs.append(re.sub(r"_pair_\w+?_\d+\.Foo object at 0x[0-9a-f]+", "M.Foo object at ADDR", text))
    assert outs[0] == outs[1] == "<__torch__.M.Foo object at ADDR>|[<__torch__.M.Foo object at ADDR>]"


MATH_CASES = [("math.fmod(a, b)", "float, b: float", [(7.5, 2.0), (-7.5, 2.0), (1.0, 0.0)]),
              ("math.copysign(a, b)", "float, b: float", [(2.0, -1.0), (-3.0, 0.0)]),
              ("math.atan2(a, b)", "float, b: float", [(1.0, 1.0), (0.0, -1.0)]),
              ("math.pow(a, b)", "float, b: float", [(3.0, 2.0), (2.0, 0.5)]),
              ("math.pow(a, b)", "int, b: int", [(2, 10)]),
              ("math.log(a, b)", "float, b: float", [(8.0, 2.0), (100.0, 10.0)]),
              ("math.gcd(a, b)", "int, b: int", [(4, 6), (-12, 18), (0, 0), (7, 0)]),
              ("math.log10(a)", "float, b: int", [(100.0, 0), (2.5, 0)]),
              ("math.degrees(a) + math.radians(a)", "float, b: int", [(1.0, 0), (-2.5, 0)]),
              ("math.fmod(7.5, 2.0) + math.gcd(4, 6) + math.log(8.0, 2.0)", "int, b: int", [(0, 0)])]


@pytest.mark.parametrize("body,ann,calls", MATH_CASES, ids=[f"{c[0]}-{c[1]}" for c in MATH_CASES])
def test_math_two_argument_functions_as_torch(body, ann, calls):
    ours, theirs = both(f"import math\ndef f(a: {ann}):\n    return {body}\n")
    for args in calls:
        (got, gerr), (want, werr) = _run(ours, args), _run(theirs, args)
        assert gerr == werr and (werr is not None or _same(got, want)), (body, args, got, want, gerr, werr)


SEQ_CASES = [("max(xs)", "xs: List[float]", [([1.0, 3.5, float("nan")],), ([float("nan"), 1.0],), ([],), ([-0.0, 0.0],)]),
             ("min(xs)", "xs: List[int]", [([4, 2, 9],), ([],)]),
             ("max(xs), min(xs)", "xs: List[bool]", [([True, False],)]),
             ("max(a, b, a), min(b, a, b, a)", "a: int, b: int", [(1, 3), (5, -2)]),
             ("max(a, b, a)", "a: float, b: float", [(1.5, 0.5)]),
             ("max([3, 1, 2]) + min([0.5, 0.25])", "a: int", [(0,)])]


@pytest.mark.parametrize("body,ann,calls", SEQ_CASES, ids=[f"{c[0]}-{c[1]}" for c in SEQ_CASES])
def test_max_min_of_lists_and_several_values_as_torch(body, ann, calls):
    ours, theirs = both(f"def f({ann}):\n    return {body}\n")
    for args in calls:
        (got, gerr), (want, werr) = _run(ours, args), _run(theirs, args)
        assert gerr == werr and (werr is not None or _same(got, want)), (body, args, got, want, gerr, werr)


@pytest.mark.parametrize("a", [0, 255, -255, 8, 5, 2 ** 63 - 1, -2 ** 63])
def test_hex_oct_bin_as_torch(a):
    ours, theirs = both("def f(a: int):\n    return hex(a), oct(a), bin(a), hex(255) + bin(5)\n")
    assert ours(a) == theirs(a)
