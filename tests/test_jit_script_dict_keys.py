"""Dicts keyed by float, bool and Tensor (by identity) in script, against torch.jit.script 2.13: construction,
get/set/in/keys/items/values/pop/update, arguments and results across Python, the graph's `Dict(K, V)` types,
and torch's refusals (a key type it does not take, a key of the wrong type)."""
from typing import Dict, List, Tuple

import pytest
import torch

import torchlite as tl


def _both(tl_fn, torch_fn):
    return tl.jit.script(tl_fn), torch.jit.script(torch_fn)


def f_float(d: Dict[float, int], k: float) -> Dict[float, int]:
    d[k] = 3
    x = d.get(1.5, 0)
    if 2.5 in d:
        d[2.5] = d[2.5] + x
    return d


def t_f_float(d: Dict[float, int], k: float) -> Dict[float, int]:
    d[k] = 3
    x = d.get(1.5, 0)
    if 2.5 in d:
        d[2.5] = d[2.5] + x
    return d


@pytest.mark.parametrize("d,k", [({1.5: 1, 2.5: 2}, 0.5), ({}, 2.5), ({-0.0: 1}, 0.0), ({1.0: 4}, 1.0)])
def test_float_keys(d, k):
    ours, theirs = _both(f_float, t_f_float)
    got, want = ours(dict(d), k), theirs(dict(d), k)
    assert got == want and list(got) == list(want)


def test_float_keys_graph_types_as_torch():
    ours, theirs = _both(f_float, t_f_float)
    assert "%d : Dict(float, int)" in str(ours.graph)
    assert "Dict(float, int)" in str(theirs.graph)


def test_int_key_passed_for_float_becomes_float():
    ours, theirs = _both(f_float, t_f_float)
    got, want = ours({1: 2}, 7.0), theirs({1: 2}, 7.0)
    assert got == want
    assert [type(k) for k in got] == [type(k) for k in want] == [float, float]


def g_bool(d: Dict[bool, str]) -> List[str]:
    out: List[str] = []
    for k, v in d.items():
        out.append(v)
    d.pop(True)
    d.update({False: "z"})
    return out + list(d.values()) + [str(len(d.keys()))]


def t_g_bool(d: Dict[bool, str]) -> List[str]:
    out: List[str] = []
    for k, v in d.items():
        out.append(v)
    d.pop(True)
    d.update({False: "z"})
    return out + list(d.values()) + [str(len(d.keys()))]


def test_bool_keys_items_pop_update():
    ours, theirs = _both(g_bool, t_g_bool)
    assert ours({True: "a", False: "b"}) == theirs({True: "a", False: "b"}) == ["a", "b", "z", "1"]


def test_bool_key_missing_raises_like_torch():
    ours, theirs = _both(g_bool, t_g_bool)
    with pytest.raises(RuntimeError, match="KeyError"):
        theirs({False: "b"})
    with pytest.raises(RuntimeError, match="KeyError"):
        ours({False: "b"})


def h_tensor(a: tl.Tensor, b: tl.Tensor) -> Dict[tl.Tensor, int]:
    d = {a: 1, b: 2}
    d[a] = 5
    return d


def t_h_tensor(a: torch.Tensor, b: torch.Tensor) -> Dict[torch.Tensor, int]:
    d = {a: 1, b: 2}
    d[a] = 5
    return d


def test_tensor_keys_by_identity():
    ours, theirs = _both(h_tensor, t_h_tensor)
    a, b = tl.ones(1), tl.ones(1)  # equal values, two keys
    ta, tb = torch.ones(1), torch.ones(1)
    got, want = ours(a, b), theirs(ta, tb)
    assert list(got.values()) == list(want.values()) == [5, 2]
    assert list(ours(a, a).values()) == list(theirs(ta, ta).values()) == [5]  # one tensor: one key
    assert "Dict(Tensor, int) = prim::DictConstruct" in str(ours.graph)


def tensor_lookup(d: Dict[tl.Tensor, float], k: tl.Tensor) -> Tuple[bool, float, int]:
    found = k in d
    v = d.get(k, -1.0)
    n = len(d)
    return found, v, n


def t_tensor_lookup(d: Dict[torch.Tensor, float], k: torch.Tensor) -> Tuple[bool, float, int]:
    found = k in d
    v = d.get(k, -1.0)
    n = len(d)
    return found, v, n


def test_tensor_key_arguments():
    ours, theirs = _both(tensor_lookup, t_tensor_lookup)
    a, b = tl.zeros(2), tl.zeros(2)
    ta, tb = torch.zeros(2), torch.zeros(2)
    assert ours({a: 1.5}, a) == theirs({ta: 1.5}, ta) == (True, 1.5, 1)
    assert ours({a: 1.5}, b) == theirs({ta: 1.5}, tb) == (False, -1.0, 1)


def pops(d: Dict[float, int]) -> int:
    return d.pop(1.0) + d.pop(7.0, 9)


def t_pops(d: Dict[float, int]) -> int:
    return d.pop(1.0) + d.pop(7.0, 9)


def test_pop_with_and_without_default():
    ours, theirs = _both(pops, t_pops)
    assert ours({1.0: 2}) == theirs({1.0: 2}) == 11
    with pytest.raises(RuntimeError, match="KeyError"):
        theirs({2.0: 2})
    with pytest.raises(RuntimeError, match="KeyError"):
        ours({2.0: 2})


def literal() -> Dict[float, float]:
    return {1.0: 2.0, 0.5: 1.0, 1.0: 3.0}


def t_literal() -> Dict[float, float]:
    return {1.0: 2.0, 0.5: 1.0, 1.0: 3.0}


def clear_copy(d: Dict[bool, int]) -> Tuple[Dict[bool, int], Dict[bool, int]]:
    c = d.copy()
    d.clear()
    c[False] = 0
    return d, c


def t_clear_copy(d: Dict[bool, int]) -> Tuple[Dict[bool, int], Dict[bool, int]]:
    c = d.copy()
    d.clear()
    c[False] = 0
    return d, c


def test_literal_clear_copy():
    ours, theirs = _both(literal, t_literal)
    assert ours() == theirs() == {1.0: 3.0, 0.5: 1.0}
    ours, theirs = _both(clear_copy, t_clear_copy)
    assert ours({True: 1}) == theirs({True: 1}) == ({}, {True: 1, False: 0})


def comp(xs: List[float]) -> Dict[float, int]:
    return {x: i for i, x in enumerate(xs)}


def t_comp(xs: List[float]) -> Dict[float, int]:
    return {x: i for i, x in enumerate(xs)}


def test_comprehension_with_float_keys():
    ours, theirs = _both(comp, t_comp)
    assert ours([0.5, 1.5, 0.5]) == theirs([0.5, 1.5, 0.5]) == {0.5: 2, 1.5: 1}


def bad_key_type(d: Dict[List[int], int]) -> int:
    return 1


def t_bad_key_type(d: Dict[List[int], int]) -> int:
    return 1


def int_key_on_float(d: Dict[float, int]) -> int:
    return d[1]


def t_int_key_on_float(d: Dict[float, int]) -> int:
    return d[1]


def test_refusals_as_torch():
    with pytest.raises(RuntimeError, match=r"Cannot create dict for key type 'int\[\]', only int, float, complex, "
                                           "Tensor, device and string keys are supported"):
        torch.jit.script(t_bad_key_type)
    with pytest.raises(RuntimeError, match=r"Cannot create dict for key type 'int\[\]', only int, float, complex, "
                                           "Tensor, device and string keys are supported"):
        tl.jit.script(bad_key_type)
    with pytest.raises(RuntimeError):
        torch.jit.script(t_int_key_on_float)
    with pytest.raises(RuntimeError, match="expected a key of type float, got int"):
        tl.jit.script(int_key_on_float)


def test_wrong_argument_type():
    ours, theirs = _both(pops, t_pops)
    with pytest.raises(RuntimeError, match="Expected a value of type 'Dict\\[float, int\\]' for argument 'd'"):
        theirs([1.0])
    with pytest.raises(RuntimeError, match="Expected a value of type 'Dict\\[float, int\\]' for argument 'd'"):
        ours([1.0])
