"""A Union's run-time type test tells a dict from a list, as torch.jit.script 2.13's: `Union[Dict[int, int],
List[int]]` (whose dict, running as a list of alternating keys and values, looks like a list of ints) dispatches
by the value passed (a dict or a list), also inside a list of Unions, for dicts made in script (literals, copies);
a Union result is a dict or a list as the value was; empty lists and dicts passed for a Union are refused with
torch's error; the same through save and load."""
import io

import torch

import torchlite as tl
from tests.script_pair import both, load

DISPATCH = """
def f(x: Union[Dict[int, int], List[int]]) -> int:
    if isinstance(x, Dict[int, int]):
        return 1000 + len(x)
    return len(x)
"""

ROUND_TRIP = """
def f(x: Union[Dict[int, int], List[int]]) -> Union[Dict[int, int], List[int]]:
    if isinstance(x, Dict[int, int]):
        x[5] = 6
        return x
    return x + [9]
"""

NESTED = """
def f(x: List[Union[Dict[int, int], List[int]]]) -> List[int]:
    out: List[int] = []
    for v in x:
        if isinstance(v, List[int]):
            out.append(0)
        else:
            out.append(1)
    return out
"""

MADE_IN_SCRIPT = """
def g(x: Union[Dict[int, int], List[int]]) -> int:
    if isinstance(x, List[int]):
        return 1
    return 2

def f(n: int) -> List[int]:
    d = {n: n + 1}
    e = {n: n for n in range(n)}
    return [g(d), g([n, n + 1]), g(d.copy()), g(e), g(list(d.keys()))]
"""

EMPTY = """
def f(x: Union[int, List[int]]) -> int:
    if isinstance(x, int):
        return x
    return len(x)

def g(x: Optional[List[int]]) -> int:
    if x is None:
        return -1
    return len(x)

def h(x: Union[Dict[int, int], List[int]]) -> int:
    if isinstance(x, List[int]):
        return 1
    return 2
"""


def _error(fn, *args):
    try:
        return fn(*args)
    except RuntimeError as e:
        return "RuntimeError: " + str(e).split("\n")[0]


def test_dict_or_list_dispatches_by_the_value_as_torch():
    ours, theirs = both(DISPATCH)
    for v in ({1: 2}, [1, 2], {1: 2, 3: 4}, [7]):
        assert ours(v) == theirs(v)
    assert ours({1: 2}) == 1001 and ours([1, 2]) == 2


def test_union_result_is_a_dict_or_a_list_as_torch():
    ours, theirs = both(ROUND_TRIP)
    for v in ({1: 2}, [1, 2]):
        got, want = ours(v), theirs(v)
        assert type(got) is type(want) and got == want


def test_list_of_unions_as_torch():
    ours, theirs = both(NESTED)
    for v in ([{1: 2}, [1, 2]], [[3]], [{4: 5}]):
        assert ours(v) == theirs(v)


def test_dicts_made_in_script_as_torch():
    ours, theirs = both(MADE_IN_SCRIPT)
    assert ours(3) == theirs(3) == [2, 1, 2, 2, 1]


def test_empty_containers_refused_as_torch():
    for name, args in (("f", ([],)), ("f", (3,)), ("g", ([],)), ("g", (None,)), ("h", ({},)), ("h", ([],)),
                       ("h", ([1],))):
        ours, theirs = both(EMPTY, name)
        assert _error(ours, *args) == _error(theirs, *args)
    ours, _ = both(EMPTY, "f")
    assert _error(ours, []) == "RuntimeError: Tracer cannot infer type of []"


MODULE = """
class M(torch.nn.Module):
    def forward(self, x: Union[Dict[int, int], List[int]]) -> Union[Dict[int, int], List[int]]:
        if isinstance(x, Dict[int, int]):
            x[len(x) + 10] = 6
            return x
        return x + [9]
"""


def test_saved_and_loaded_as_torch(tmp_path):
    out = {}
    for lib, jit in (("torchlite", tl.jit), ("torch", torch.jit)):
        m = jit.script(load(MODULE, lib).M())
        path = str(tmp_path / f"{lib}.pt")
        m.save(path)
        loaded = jit.load(path)
        res = []
        for v in ({1: 2}, [1, 2]):
            got = loaded(v)
            res.append((type(got).__name__, got))
        res.append(_error(loaded, []))
        out[lib] = res
    assert out["torchlite"] == out["torch"]


CPP = """
class M(torch.nn.Module):
    def forward(self, d: Dict[int, int], xs: List[Dict[int, int]]) -> List[int]:
        u: Union[Dict[int, int], List[int]] = d
        out: List[int] = [1 if isinstance(u, Dict[int, int]) else 0]
        for x in xs:
            v: Union[Dict[int, int], List[int]] = x
            out.append(1 if isinstance(v, Dict[int, int]) else 0)
        return out
"""


def test_cpp_module_lists_for_dicts_dispatch_as_dicts():
    """The C++ Module (torchlite::jit::load) takes a dict in its list form (keys and values alternating): run_method
    marks it as a dict by the method's argument type, so a Union's run-time test takes it for the dict."""
    from torchlite._C import _jit
    m = tl.jit.script(load(CPP, "torchlite").M())
    theirs = torch.jit.script(load(CPP, "torch").M())
    assert m({1: 2}, [{3: 4}, {5: 6}]) == theirs({1: 2}, [{3: 4}, {5: 6}]) == [1, 1, 1]
    cpp, _ = _jit._load_module(m.save_to_buffer(), None, "the buffer")
    assert cpp.run_method("forward", [[1, 2], [[3, 4], [5, 6]]])[0] == [1, 1, 1]


NUMBERS = """
class M(torch.nn.Module):
    def forward(self, x: Union[int, float], t: Union[Tensor, int], b: Union[bool, str]) -> str:
        s = "int" if isinstance(x, int) else "float"
        s += " int" if isinstance(t, int) else " tensor"
        if isinstance(b, bool):
            s += " bool"
        return s
"""


def test_loaded_union_members_told_apart_exactly_as_torch():
    # an int is not taken for a Union's float member, nor a bool for its int member (scripted and loaded)
    out = {}
    for lib, name in ((tl, "torchlite"), (torch, "torch")):
        m = lib.jit.script(load(NUMBERS, name).M())
        buf = io.BytesIO()
        lib.jit.save(m, buf)
        buf.seek(0)
        loaded = lib.jit.load(buf)
        out[name] = [_error(f, *args) for args in ((3, 1, True), (2.5, lib.ones(1), "s"), (True, 1, 1))
                     for f in (m, loaded)]
    assert out["torchlite"] == out["torch"]
    assert out["torch"][1] == "int int bool"
