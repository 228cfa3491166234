"""Union types in script against torch.jit.script 2.13: Union[int, Tensor], Union[int, float, None], `int | str`,
Optional[X] as a Union, Unions of lists/tuples/classes; as arguments, returns, locals and module attributes;
isinstance refinement in if/elif/else, `not`, `and`, early returns and `assert isinstance(...)`; `is None` on
Unions holding None; isinstance on Any and against List[int]/List[str]; the graphs' `Union(Tensor, int)` types;
torch's errors; a module with Union-typed methods saved and loaded in a fresh process."""
import subprocess
import sys

import pytest
import torch

import torchlite as tl
from tests.script_pair import both, errors

INT_OR_TENSOR = """
def f(x: Union[int, Tensor]) -> Union[int, Tensor]:
    if isinstance(x, int):
        return x + 1
    else:
        return x * 2
"""


def _same(a, b):
    if isinstance(b, torch.Tensor):
        return isinstance(a, tl.Tensor) and a.tolist() == b.tolist()
    return type(a) is type(b) and a == b


def test_int_or_tensor_refined_in_branches():
    ours, theirs = both(INT_OR_TENSOR)
    assert _same(ours(3), theirs(3)) and ours(3) == 4
    assert _same(ours(tl.ones(2)), theirs(torch.ones(2)))


def _input_type(graph):
    """The first input's type as the graph prints it (`graph(%x : Union(Tensor, int)):`)."""
    head = str(graph).splitlines()[0]
    return head[head.index(" : ") + 3:head.rindex(")")]


def test_union_graph_types_print_as_torch():
    ours, theirs = both(INT_OR_TENSOR)
    assert _input_type(ours.graph) == _input_type(theirs.graph) == "Union(Tensor, int)"
    assert "prim::isinstance" in str(ours.graph) and "prim::unchecked_cast" in str(ours.graph)


@pytest.mark.parametrize("ann", ["Union[str, bool, float, int, Tensor, None]", "Union[int, str, None]",
                                 "Optional[Union[int, str]]", "Union[int, Union[str, float]]", "int | str",
                                 "Union[List[int], Tuple[int, int], Dict[str, int]]", "Union[List[int], List[str]]"])
def test_member_order_and_flattening_as_torch(ann):
    ours, theirs = both(f"def f(x: {ann}):\n    return x\n")
    assert _input_type(ours.graph) == _input_type(theirs.graph)


@pytest.mark.parametrize("ann,want", [("Union[int, None]", "int?"), ("int | None", "int?"), ("Union[int, int]", "int")])
def test_degenerate_unions_are_optional_or_the_type(ann, want):
    ours, theirs = both(f"def f(x: {ann}):\n    return x\n")
    assert _input_type(ours.graph) == _input_type(theirs.graph) == want


def test_none_number_chain_is_none_elif_else():
    src = """
def f(x: Union[int, float, None]) -> float:
    if x is None:
        return 0.0
    elif isinstance(x, int):
        return float(x) * 2
    else:
        return x
"""
    ours, theirs = both(src)
    for v in (None, 3, 2.5):
        assert _same(ours(v), theirs(v))


def test_is_not_none_on_a_three_member_union():
    src = """
def f(x: Union[int, str, None]) -> str:
    if x is not None:
        return str(x)
    return "none"
"""
    ours, theirs = both(src)
    for v in (1, "abc", None):
        assert ours(v) == theirs(v)


def test_assert_isinstance_refines_and_raises():
    src = """
def f(x: Union[int, Tensor]) -> int:
    assert isinstance(x, int)
    return x
"""
    ours, theirs = both(src)
    assert ours(3) == theirs(3) == 3
    with pytest.raises(torch.jit.Error, match="AssertionError"):
        theirs(torch.ones(1))
    with pytest.raises(RuntimeError, match="AssertionError"):
        ours(tl.ones(1))


def test_tuple_of_types_refines_to_a_union():
    src = """
def f(x: Union[int, float, str]) -> str:
    if isinstance(x, (int, float)):
        y = x
    else:
        y = 0
    return str(y)
"""
    ours, theirs = both(src)
    for v in (1, 2.5, "a"):
        assert ours(v) == theirs(v)
    assert "Union(float, int)" in str(ours.graph) and "Union(float, int)" in str(theirs.graph)


@pytest.mark.parametrize("src,calls", [
    ("""
def f(x: Union[int, str]) -> int:
    if isinstance(x, str):
        return 0
    return x + 1
""", [(1,), ("a",)]),
    ("""
def f(x: Union[int, str]) -> int:
    if not isinstance(x, int):
        return len(x)
    return x
""", [(1,), ("abc",)]),
    ("""
def f(x: Union[int, str], b: bool) -> int:
    if isinstance(x, int) and b:
        return x
    return 0
""", [(1, True), ("abc", True), (4, False)]),
    ("""
def f(x: Union[int, str, float]) -> str:
    if isinstance(x, int):
        r = "i"
    elif isinstance(x, str):
        r = x
    else:
        r = "f"
    return r
""", [(1,), ("q",), (2.0,)]),
    ("""
def f(x: Union[int, str]) -> str:
    if isinstance(x, str):
        return x.upper()
    return "n"
""", [("ab",), (3,)]),
    ("""
def f(b: bool) -> Union[int, str]:
    x: Union[int, str] = 1
    if b:
        x = "a"
    return x
""", [(True,), (False,)]),
    ("""
def f(x: Union[int, str]) -> Union[int, str]:
    if isinstance(x, int):
        pass
    else:
        pass
    return x
""", [(1,), ("s",)]),
    ("""
def f(x: Optional[int]) -> int:
    if isinstance(x, int):
        return x
    return -1
""", [(1,), (None,)]),
    ("""
def f(x: Union[int, str, None]) -> str:
    if x is None:
        x = 'd'
    if isinstance(x, int):
        return str(x + 1)
    return x
""", [(None,), (3,), ("q",)]),
    ("""
def f(xs: List[Union[int, str]]) -> int:
    n = 0
    for x in xs:
        if isinstance(x, int):
            n += x
        else:
            n += len(x)
    return n
""", [([1, "ab", 3],), ([],)]),
])
def test_refinement_forms(src, calls):
    ours, theirs = both(src)
    for args in calls:
        assert _same(ours(*args), theirs(*args)), args


def test_union_return_of_int_or_tensor():
    src = """
def f(b: bool) -> Union[int, Tensor]:
    if b:
        return 1
    return torch.ones(1)
"""
    ours, theirs = both(src)
    assert _same(ours(True), theirs(True))
    assert _same(ours(False), theirs(False))


def test_lists_tested_by_element_type_at_run_time():
    src = """
def f(x: Union[List[int], List[str]]) -> int:
    if isinstance(x, List[int]):
        return len(x) + 10
    return len(x)
"""
    ours, theirs = both(src)
    for v in ([1, 2], ["a"]):
        assert ours(v) == theirs(v)


@pytest.mark.parametrize("check,want", [("List[int]", True), ("List[str]", False), ("list", True)])
def test_isinstance_of_a_static_list_type_folds(check, want):
    ours, theirs = both(f"def f(x: List[int]) -> bool:\n    return isinstance(x, {check})\n")
    assert ours([1]) == theirs([1]) == want


def test_isinstance_on_any_is_a_run_time_test():
    src = """
def f(x: Any) -> int:
    if isinstance(x, int):
        return x + 1
    if isinstance(x, Tensor):
        return 5
    return 0
"""
    ours, theirs = both(src)
    assert ours(1) == theirs(1) == 2
    assert ours("a") == theirs("a") == 0
    assert ours(tl.ones(1)) == theirs(torch.ones(1)) == 5


def test_union_of_lists_tuples_and_dicts():
    src = """
def f(x: Union[List[int], Tuple[int, int], Dict[str, int]]) -> int:
    if isinstance(x, List[int]):
        return len(x)
    elif isinstance(x, Tuple[int, int]):
        return x[0] + x[1]
    return x["k"]
"""
    ours, theirs = both(src)
    for v in ([1, 2, 3], (4, 5), {"k": 9}):
        assert ours(v) == theirs(v)


def test_union_with_a_script_class():
    src = """
@torch.jit.script
class Acc:
    def __init__(self, n: int):
        self.n = n

def f(x: Union[Acc, int]) -> int:
    if isinstance(x, Acc):
        return x.n * 10
    return x

def g(b: bool) -> Union[Acc, int]:
    if b:
        return Acc(7)
    return 3
"""
    from tests.script_pair import load
    m_tl, m_t = load(src, "torchlite"), load(src, "torch")
    ours, theirs = tl.jit.script(m_tl.f), torch.jit.script(m_t.f)
    assert ours(m_tl.Acc(2)) == theirs(m_t.Acc(2)) == 20
    assert ours(4) == theirs(4) == 4
    g_ours, g_theirs = tl.jit.script(m_tl.g), torch.jit.script(m_t.g)
    assert g_ours(True).n == g_theirs(True).n == 7 and isinstance(g_ours(True), m_tl.Acc)
    assert g_ours(False) == g_theirs(False) == 3


def test_bad_argument_type_message_as_torch():
    ours, theirs = both(INT_OR_TENSOR)
    with pytest.raises(RuntimeError) as e_t:
        theirs("a")
    with pytest.raises(RuntimeError) as e_o:
        ours("a")
    want = "f() Expected a value of type 'Union[Tensor, int]' for argument 'x' but instead found type 'str'."
    assert str(e_t.value).startswith(want) and str(e_o.value).startswith(want)


@pytest.mark.parametrize("src,msg", [
    ("def f(x: Union[int, Tensor]) -> int:\n    return x\n",
     "Return value was annotated as having type int but is actually of type Union[Tensor, int]"),
    ("def f(b: bool) -> Union[int, str]:\n    return 1.5\n",
     "Return value was annotated as having type Union[int, str] but is actually of type float"),
    ("def f(b: bool) -> int:\n    x: Union[int, str] = 1.5\n    return 0\n",
     "Variable 'x' is annotated with type Union[int, str] but is being assigned to a value of type float"),
    ("def f(x: Union[int, Tensor]) -> Tensor:\n    return torch.add(x, 1)\n", "Arguments for call are not valid"),
    ("def f(b: bool):\n    if b:\n        x = 1\n    else:\n        x = 'a'\n    return x\n",
     "Type mismatch: x is set to type int in the true branch and type str in the false branch"),
])
def test_compile_errors_as_torch(src, msg):
    e_ours, e_theirs = errors(src)
    assert e_theirs is not None and msg in str(e_theirs)
    assert isinstance(e_ours, RuntimeError) and msg in str(e_ours), e_ours
    line = src.splitlines()[1].strip()
    assert line.split("(")[0] in str(e_ours)  # the error shows the offending source line, as torch's


def test_union_module_attribute_and_method():
    src = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.v: Union[int, str] = 3

    def forward(self, x: Union[int, Tensor]) -> Union[int, Tensor]:
        v = self.v
        if isinstance(v, int) and isinstance(x, int):
            return x + v
        return x
"""
    from tests.script_pair import load
    ours, theirs = tl.jit.script(load(src, "torchlite").M()), torch.jit.script(load(src, "torch").M())
    assert ours(2) == theirs(2) == 5
    assert _same(ours(tl.ones(1)), theirs(torch.ones(1)))


def test_save_load_union_methods_in_a_fresh_process(tmp_path):
    src = INT_OR_TENSOR.replace("def f(", "def forward(self, ").replace("\n", "\n    ")
    mod_src = "class M(torch.nn.Module):" + src + "\n"
    from tests.script_pair import load
    m = tl.jit.script(load(mod_src, "torchlite").M())
    path = tmp_path / "u.pt"
    m.save(str(path))
    code = (f"import torchlite as tl\nm = tl.jit.load({str(path)!r})\n"
            "print(m(3), m(tl.ones(2)).tolist())\nprint(m.graph)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=str(tmp_path.parent),
                         env={**__import__('os').environ, "PYTHONPATH": __import__('os').getcwd()}, timeout=120)
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first == "4 [2.0, 2.0]"
    assert "prim::isinstance" in out.stdout


def test_arithmetic_on_a_union_of_numbers():
    ours, theirs = both("def f(x: Union[int, float]) -> float:\n    return x * 2.0 + 1\n")
    for v in (1, 2.5):
        assert _same(ours(v), theirs(v))


def test_loaded_union_arguments_are_checked_and_converted_as_torch(tmp_path):
    # The archive keeps Union types (format 5): a loaded module checks a Union argument as torch.jit.load's does and
    # converts it as the member it fits (a dict member: a real dict in and out).
    src = ("class M(torch.nn.Module):\n"
           "    def forward(self, x: Union[Dict[str, int], int]) -> Union[Dict[str, int], int]:\n"
           "        if isinstance(x, int):\n"
           "            return x + 1\n"
           "        return x\n")
    from tests.script_pair import load
    ours = tl.jit.script(load(src, "torchlite").M())
    theirs = torch.jit.script(load(src, "torch").M())
    ours.save(str(tmp_path / "ours.pt"))
    theirs.save(str(tmp_path / "theirs.pt"))
    loaded, loaded_torch = tl.jit.load(str(tmp_path / "ours.pt")), torch.jit.load(str(tmp_path / "theirs.pt"))
    for v in (3, {"a": 1, "b": 2}):
        assert loaded(v) == loaded_torch(v) == ours(v)
    with pytest.raises(RuntimeError) as ours_err:
        loaded("s")
    with pytest.raises(RuntimeError) as torch_err:
        loaded_torch("s")
    assert str(ours_err.value).splitlines()[0] == str(torch_err.value).splitlines()[0]
