"""An unannotated `[]` in script is List[Tensor], as torch.jit.script 2.13 types it: passed to a function, read
(len, indexing, iteration, returned) or appended to, the results are torch's; appending, extending or `+=` with
anything but tensors is torch's compile error (the type variable message), where torchlite used to retype the
list by its first append. An annotation (`x: List[int] = []`, `torch.jit.annotate`) types it as before."""
import pytest
import torch

import torchlite as tl
from tests.script_pair import both, errors

HELPER = """
def helper(xs: List[Tensor]) -> int:
    return len(xs)
"""

RUNS = {
    "len": "    a = []\n    return len(a)\n",
    "returned": "    a = []\n    return a\n",
    "passed_then_appended": "    a = []\n    n = helper(a)\n    a.append(x)\n    return n, a\n",
    "iterated_then_appended": "    a = []\n    for t in a:\n        x = x + t\n    a.append(x)\n    return x, a\n",
    "appended_tensor": "    a = []\n    a.append(x)\n    a.append(x * 2)\n    return a\n",
    "indexed_after_check": "    a = []\n    if len(a) > 0:\n        return a[0]\n    a.append(x)\n    return a[0]\n",
    "concatenated": "    a = []\n    return a + [x]\n",
    "extended_with_tensors": "    a = []\n    a.extend([x, x])\n    a += [x]\n    return len(a)\n",
    "annotated": "    a: List[int] = []\n    a.append(1)\n    a.extend([2])\n    a += [3]\n    return a\n",
    "annotate_call": "    a = torch.jit.annotate(List[float], [])\n    a.append(1.5)\n    return a\n",
}


def _same(a, b):
    if isinstance(b, torch.Tensor):
        return isinstance(a, tl.Tensor) and a.tolist() == b.tolist()
    if isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(map(_same, a, b))
    return type(a) is type(b) and a == b


@pytest.mark.parametrize("name", sorted(RUNS))
def test_empty_list_runs_as_torch(name):
    ours, theirs = both(HELPER + "def f(x: Tensor):\n" + RUNS[name])
    assert _same(ours(tl.ones(2)), theirs(torch.ones(2)))


def test_empty_list_graph_type_is_tensor_list():
    ours, theirs = both("def f(x: Tensor):\n    a = []\n    return a\n")
    assert "Tensor[] = prim::ListConstruct()" in str(ours.graph)
    assert "Tensor[] = prim::ListConstruct()" in str(theirs.graph)


def test_reading_past_the_end_raises_when_run():
    ours, theirs = both("def f(x: Tensor):\n    a = []\n    return a[0]\n")
    with pytest.raises(Exception, match="list index out of range"):
        theirs(torch.ones(1))
    with pytest.raises(IndexError, match="list index out of range"):  # torchlite's list IndexError (docs/jit.md)
        ours(tl.ones(1))


REFUSED = {
    "append_int": ("    a = []\n    a.append(1)\n    return a\n",
                   "Could not match type int to t in argument 'el': Type variable 't' previously matched to type "
                   "Tensor is matched to type int."),
    "append_after_len": ("    a = []\n    n = len(a)\n    a.append(1)\n    return a, n\n",
                         "Type variable 't' previously matched to type Tensor is matched to type int."),
    "append_float": ("    a = []\n    a.append(2.5)\n    return a\n", "matched to type Tensor is matched to type float."),
    "append_str": ("    a = []\n    a.append('s')\n    return a\n", "matched to type Tensor is matched to type str."),
    "append_in_loop": ("    a = []\n    for i in range(3):\n        a.append(i)\n    return a\n",
                       "matched to type Tensor is matched to type int."),
    "append_in_branch": ("    a = []\n    if x.sum() > 0:\n        a.append(1)\n    return a\n",
                         "matched to type Tensor is matched to type int."),
    "append_through_alias": ("    a = []\n    b = a\n    a.append(1)\n    return b\n",
                             "matched to type Tensor is matched to type int."),
    "extend_ints": ("    a = []\n    a.extend([1, 2])\n    return a\n",
                    "Could not match type List[int] to List[t] in argument 'other': Type variable 't' previously "
                    "matched to type Tensor is matched to type int."),
    "plus_equals_ints": ("    a = []\n    a += [1]\n    return a\n", "Arguments for call are not valid."),
    "annotated_append_wrong": ("    a: List[int] = []\n    a.append(1.5)\n    return a\n",
                               "Type variable 't' previously matched to type int is matched to type float."),
    "annotated_float_append_int": ("    a: List[float] = []\n    a.append(1)\n    return a\n",
                                   "Type variable 't' previously matched to type float is matched to type int."),
    "annotated_extend_wrong": ("    a: List[int] = []\n    a.extend([1.5])\n    return a\n",
                               "Could not match type List[float] to List[t] in argument 'other'"),
}


@pytest.mark.parametrize("name", sorted(REFUSED))
def test_empty_list_refused_as_torch(name):
    body, msg = REFUSED[name]
    ours, theirs = errors("def f(x: Tensor):\n" + body)
    assert type(ours) is RuntimeError and isinstance(theirs, RuntimeError), (ours, theirs)
    assert msg in str(ours) and msg in str(theirs), (str(ours), str(theirs))


def test_the_error_names_the_schema_as_torch():
    ours, theirs = errors("def f(x: Tensor):\n    a = []\n    a.append(1)\n    return a\n")
    head = "aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!):\n"
    assert str(ours).startswith(head) and head in str(theirs)
    assert "a.append(1)" in str(ours)


HINTED = {
    "literal_argument": "def hi(xs: List[int]) -> int:\n    return len(xs)\ndef f(x: Tensor):\n    return hi([])\n",
    "literal_keyword": "def hi(n: int, xs: List[float]) -> int:\n    return len(xs) + n\n"
                       "def f(x: Tensor):\n    return hi(1, xs=[])\n",
    "returned_literal": "def f(x: Tensor) -> List[int]:\n    return []\n",
    "returned_in_tuple": "def f(x: Tensor) -> Tuple[List[int], int]:\n    return [], 1\n",
    "reassigned_annotated": "def f(x: Tensor):\n    a: List[int] = [1]\n    a = []\n    return a\n",
}


@pytest.mark.parametrize("name", sorted(HINTED))
def test_literals_typed_by_parameter_and_return_annotations_as_torch(name):
    ours, theirs = both(HINTED[name])
    assert _same(ours(tl.ones(1)), theirs(torch.ones(1)))


def test_an_unannotated_variable_is_not_retyped_by_its_use():
    ours, theirs = errors("def hi(xs: List[int]) -> int:\n    return len(xs)\n"
                          "def f(x: Tensor):\n    a = []\n    return hi(a)\n")
    for e in (ours, theirs):
        assert "Expected a value of type 'List[int]' for argument 'xs' but instead found type 'List[Tensor]'." in str(e)
        assert "Empty lists default to List[Tensor]. Add a variable annotation" in str(e)
    ours, theirs = errors("def f(x: Tensor) -> List[int]:\n    a = []\n    return a\n")
    msg = "Return value was annotated as having type List[int] but is actually of type List[Tensor]"
    assert msg in str(ours) and msg in str(theirs)
