"""Dict comprehensions in torchlite.jit.script, against torch.jit.script 2.13: the same results, the
same refusals (a comprehension `if`, several `for`s; set comprehensions: UnsupportedNodeError at the
brace). Also an empty dict filled in a loop is a new dict per call (it was folded into a constant that
every call wrote)."""
import inspect
from typing import Dict, List, Tuple

import pytest
import torch

import torchlite as tl
from torchlite.jit.frontend import NotSupportedError, UnsupportedNodeError


def squares(xs: List[int]) -> Dict[int, int]:
    return {k: k * k for k in xs}


def from_items(d: Dict[str, int]) -> Dict[str, int]:
    return {k: v + 1 for k, v in d.items()}


def over_range() -> Dict[int, float]:
    return {i: i / 2 for i in range(4)}


def later_key_wins(xs: List[int]) -> Dict[int, int]:
    return {k % 3: k for k in xs}


def string_keys(names: List[str]) -> Dict[str, int]:
    out = {n: len(n) for n in names}
    out["total"] = len(names)
    return out


def over_dict_keys(d: Dict[str, int]) -> Dict[str, str]:
    return {k: k + "!" for k in d}


def over_tuple_pairs(ps: List[Tuple[int, int]]) -> Dict[int, int]:
    return {a: b for a, b in ps}


def filled_in_loop(xs: List[int]) -> Dict[int, int]:
    d: Dict[int, int] = {}
    for k in xs:
        d[k] = k + 1
    return d


def tensors(x: torch.Tensor, names: List[str]) -> Dict[str, torch.Tensor]:
    return {n: x * float(i) for i, n in enumerate(names)}


def tl_tensors(x: tl.Tensor, names: List[str]) -> Dict[str, tl.Tensor]:
    return {n: x * float(i) for i, n in enumerate(names)}


def nested_in_expression(xs: List[int]) -> int:
    return len({k: 0 for k in xs})


CASES = [
    (squares, ([1, 2, 3],)), (squares, ([],)), (from_items, ({"a": 1, "b": 5},)), (over_range, ()),
    (later_key_wins, ([1, 2, 3, 4, 5],)), (string_keys, (["ab", "c"],)), (over_dict_keys, ({"x": 1, "yz": 2},)),
    (over_tuple_pairs, ([(1, 2), (3, 4), (1, 9)],)), (filled_in_loop, ([4, 5],)), (filled_in_loop, ([],)),
    (nested_in_expression, ([1, 1, 2],)),
]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_torch_jit(fn, args):
    expected = torch.jit.script(fn)(*args)
    scripted = tl.jit.script(fn)
    assert scripted(*args) == expected
    assert scripted(*args) == expected  # a second call starts from a new dict
    assert scripted(*args) == fn(*args)


def test_tensor_values_and_order():
    x = torch.randn(3)
    expected = torch.jit.script(tensors)(x, ["a", "b", "c"])
    got = tl.jit.script(tl_tensors)(tl.tensor(x.numpy()), ["a", "b", "c"])
    assert list(got) == list(expected) == ["a", "b", "c"]
    for k in expected:
        assert tl.equal(got[k], tl.tensor(expected[k].numpy()))


def test_empty_dict_filled_in_loop_is_new_each_call():
    f = tl.jit.script(filled_in_loop)
    assert f([1, 2]) == {1: 2, 2: 3}
    assert f([]) == {}
    assert "prim::DictConstruct" in str(f.graph)


def test_type_comes_from_the_annotation_when_empty():
    def empty(xs: List[int]) -> Dict[int, float]:
        return {k: 1.0 for k in xs}
    assert tl.jit.script(empty)([]) == torch.jit.script(empty)([]) == {}


def comp_with_if(xs: List[int]) -> Dict[int, int]:
    return {k: k for k in xs if k > 1}


def comp_two_fors(xs: List[int], ys: List[int]) -> Dict[int, int]:
    return {k: j for k in xs for j in ys}


def set_comp(xs: List[int]):
    return {k for k in xs}


def _line(fn, needle):
    lines, first = inspect.getsourcelines(fn)
    for i, line in enumerate(lines):
        if needle in line:
            return first + i, line.index(needle)
    raise AssertionError(needle)


@pytest.mark.parametrize("fn,msg", [(comp_with_if, "Comprehension ifs are not supported yet"),
                                    (comp_two_fors, "Only a single generator is currently supported")])
def test_refused_as_torch(fn, msg):
    with pytest.raises(torch.jit.frontend.NotSupportedError, match=msg):
        torch.jit.script(fn)
    with pytest.raises(NotSupportedError, match=msg) as err:
        tl.jit.script(fn)
    line, _ = _line(fn, "return {")
    assert f"line {line}\n" in str(err.value)


def test_set_comprehension_refused_at_the_brace():
    with pytest.raises(torch.jit.frontend.UnsupportedNodeError) as terr:
        torch.jit.script(set_comp)
    with pytest.raises(UnsupportedNodeError) as err:
        tl.jit.script(set_comp)
    assert str(err.value).startswith("SetComp aren't supported:")
    line, col = _line(set_comp, "{k for")
    msg = str(err.value)
    assert f"line {line}\n" in msg
    marks = msg.split(f"line {line}\n", 1)[1].splitlines()[1]
    assert marks == " " * col + "~ <--- HERE"
    assert marks in str(terr.value)


def test_key_types_as_torch():  # float keys are taken (tests/test_jit_script_dict_keys.py), list keys refused
    def float_keys(xs: List[float]) -> Dict[float, int]:
        return {k: 1 for k in xs}
    assert tl.jit.script(float_keys)([0.5, 1.5]) == torch.jit.script(float_keys)([0.5, 1.5]) == {0.5: 1, 1.5: 1}

    def list_keys(xs: List[List[int]]) -> int:
        d = {k: 1 for k in xs}
        return len(d)
    msg = "Cannot create dict for key type 'int\\[\\]'"
    with pytest.raises(RuntimeError, match=msg):
        torch.jit.script(list_keys)
    with pytest.raises(RuntimeError, match=msg):
        tl.jit.script(list_keys)
