"""A Union of named tuples of different classes: the run-time `isinstance(v, A)` / `B` tells them apart (the
interpreter's tuples of a NamedTuple class carry the class: IValue::named_tuple), against torch.jit.script 2.13
where torch runs the program (named tuples made in script, returned, in lists, through a module saved and loaded)
and against Python where torch 2.13 cannot (it refuses a named tuple passed from Python for a Union argument,
and a Union of two classes with the same field types fails its own internal assert)."""
import io
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple, Optional, Union

import pytest
import torch

import torchlite as tl

ROOT = Path(__file__).resolve().parent.parent


class A(NamedTuple):
    x: int
    y: int


class B(NamedTuple):
    p: int
    q: str


class C(NamedTuple):  # A's field types: a Union[A, C] is told apart only by the class
    u: int
    v: int


def f(v: Union[A, B]) -> int:
    if isinstance(v, A):
        return v.x + v.y
    return -v.p


def mk(k: int) -> Union[A, B]:
    if k > 0:
        return A(k, 2)
    return B(k, "s")


def made_in_script(k: int) -> int:
    return f(mk(k))


def in_a_list(n: int) -> List[int]:
    vs: List[Union[A, B]] = []
    for i in range(n):
        vs.append(mk(i - 1))
    return [f(v) for v in vs]


def optional(k: int) -> int:
    v: Optional[Union[A, B]] = None
    if k != 0:
        v = mk(k)
    if v is None:
        return 0
    if isinstance(v, B):
        return 5
    return 6


@pytest.mark.parametrize("fn,arg", [(made_in_script, 1), (made_in_script, -1), (mk, 3), (mk, -3),
                                    (optional, 0), (optional, 2), (optional, -2)])
def test_run_time_isinstance_as_torch(fn, arg):
    want = torch.jit.script(fn)(arg)
    got = tl.jit.script(fn)(arg)
    assert got == want == fn(arg)
    assert type(got).__name__ == type(want).__name__  # a returned Union member: an instance of its class (by name)


def test_list_of_union_as_python():
    with pytest.raises(RuntimeError, match="INTERNAL ASSERT"):  # torch 2.13: "We don't have an op for aten::append"
        torch.jit.script(in_a_list)(4)
    assert tl.jit.script(in_a_list)(4) == in_a_list(4) == [1, 0, 3, 4]


def test_arguments_from_python_as_python():
    # torch 2.13 refuses these arguments ("Expected a member of Union[__torch__.A, __torch__.B] but instead found
    # type Tuple[int, int]"); torchlite takes them as Python runs the function
    with pytest.raises(RuntimeError, match="Expected a value of type 'Union"):
        torch.jit.script(f)(A(1, 2))
    s = tl.jit.script(f)
    assert [s(A(1, 2)), s(B(3, "a"))] == [f(A(1, 2)), f(B(3, "a"))] == [3, -3]


def same_fields(v: Union[A, C]) -> int:
    if isinstance(v, C):
        return v.u * 100
    return v.x


def make_same(k: int) -> int:
    v: Union[A, C] = A(k, 0)
    if k > 1:
        v = C(k, 0)
    return same_fields(v)


def test_same_field_types_told_apart_as_python():
    with pytest.raises(RuntimeError, match="INTERNAL ASSERT"):  # torch: unifies both into Tuple[int, int]
        torch.jit.script(same_fields)
    s, m = tl.jit.script(same_fields), tl.jit.script(make_same)
    assert [s(A(3, 4)), s(C(3, 4)), m(1), m(2)] == [3, 300, 1, 200]


def make_module(lib):
    class M(lib.nn.Module):
        def forward(self, k: int) -> List[int]:
            out: List[int] = []
            for i in range(k):
                v = mk(i - 1)
                if isinstance(v, B):
                    out.append(v.p * 10)
                else:
                    out.append(f(v))
            return out
    return M()


def test_module_save_and_load_as_torch():
    want = torch.jit.script(make_module(torch))(4)  # (torch 2.13 saves it but cannot load it: "Type mismatch: _5
    # is set to type __torch__...A in the true branch and type __torch__...B in the false branch")
    m = tl.jit.script(make_module(tl))
    buf = io.BytesIO()
    tl.jit.save(m, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    assert m(4) == loaded(4) == want == [-10, 0, 3, 4]


def test_loaded_module_takes_tagged_arguments():
    class Take(tl.nn.Module):
        def forward(self, v: Union[A, C]) -> int:
            return same_fields(v)
    buf = io.BytesIO()
    tl.jit.save(tl.jit.script(Take()), buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    assert [loaded(A(7, 1)), loaded(C(7, 1))] == [7, 700]


def test_fresh_process_tells_classes_apart(tmp_path):
    """A module loaded in a process that never compiled A or C: arguments of the user's classes are matched by
    class name, and the results are the same."""
    class Take(tl.nn.Module):
        def forward(self, v: Union[A, C]) -> int:
            return same_fields(v)
    path = tmp_path / "take.pt"
    tl.jit.save(tl.jit.script(Take()), str(path))
    code = (f"import sys; sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]\n"
            "import torchlite as tl\n"
            "from test_jit_union_named_tuples import A, C\n"
            f"m = tl.jit.load({str(path)!r})\n"
            "print(m(A(7, 1)), m(C(7, 1)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["7", "700"]
