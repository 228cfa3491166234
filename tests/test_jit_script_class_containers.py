"""TorchScript class instances beyond single arguments, against torch.jit.script 2.13: inside lists, dicts and
Optionals passed from Python and returned to it, held in attributes of other instances, returned by a loaded
module (a Python instance of the class in this process, the interpreter's Object with the attributes in a
fresh one); static methods; isinstance refinement of an Optional instance; torch's refusals of class-level
values and classmethods."""
import subprocess
import sys
import textwrap
from typing import Dict, List, Optional

import numpy as np
import pytest
import torch

import torchlite as tl


@tl.jit.script
class Point:
    def __init__(self, x: tl.Tensor, n: int):
        self.x = x
        self.n = n

    def bump(self, k: int) -> None:
        self.n += k

    @staticmethod
    def origin(x: tl.Tensor) -> "Point":
        return Point(x * 0, 0)

    @staticmethod
    def twice(n: int) -> int:
        return n * 2


@torch.jit.script
class TPoint:
    def __init__(self, x: torch.Tensor, n: int):
        self.x = x
        self.n = n

    def bump(self, k: int) -> None:
        self.n += k

    @staticmethod
    def origin(x: torch.Tensor) -> "TPoint":
        return TPoint(x * 0, 0)

    @staticmethod
    def twice(n: int) -> int:
        return n * 2


@tl.jit.script
class Path:
    def __init__(self, start: Point, rest: List[Point]):
        self.start = start
        self.rest = rest

    def total(self) -> int:
        t = self.start.n
        for p in self.rest:
            t += p.n
        return t


@torch.jit.script
class TPath:
    def __init__(self, start: TPoint, rest: List[TPoint]):
        self.start = start
        self.rest = rest

    def total(self) -> int:
        t = self.start.n
        for p in self.rest:
            t += p.n
        return t


def containers(xs: List[Point], d: Dict[str, Point], o: Optional[Point]) -> List[Point]:
    out = [xs[0], d["k"]]
    for p in xs:
        p.bump(1)
    if o is not None:
        out.append(o)
    return out


def t_containers(xs: List[TPoint], d: Dict[str, TPoint], o: Optional[TPoint]) -> List[TPoint]:
    out = [xs[0], d["k"]]
    for p in xs:
        p.bump(1)
    if o is not None:
        out.append(o)
    return out


def _np(t):
    return t.detach().numpy() if isinstance(t, torch.Tensor) else np.asarray(t.detach().tolist())


@pytest.mark.parametrize("with_optional", [False, True])
def test_containers_in_and_out(with_optional):
    ours, theirs = tl.jit.script(containers), torch.jit.script(t_containers)
    a, b, c = Point(tl.ones(2), 1), Point(tl.zeros(2), 5), Point(tl.full((2,), 3.0), 7)
    ta, tb, tc = TPoint(torch.ones(2), 1), TPoint(torch.zeros(2), 5), TPoint(torch.full((2,), 3.0), 7)
    got = ours([a, b], {"k": c}, c if with_optional else None)
    want = theirs([ta, tb], {"k": tc}, tc if with_optional else None)
    assert [type(p) for p in got] == [Point] * len(want) and [type(p) for p in want] == [TPoint] * len(want)
    assert [p.n for p in got] == [p.n for p in want]  # the graph's bump is seen through the list
    for p, q in zip(got, want):
        np.testing.assert_array_equal(_np(p.x), _np(q.x))
    assert (a.n, b.n) == (ta.n, tb.n) == (1, 5)  # the Python instances passed in are not written


@pytest.mark.parametrize("args,which,found", [
    (([1], {}, None), "xs", "list"),
    (("p", {}, None), "xs", "str"),
    (([], {"k": 3}, None), "d", "dict"),
    (([], {}, 5), "o", "int"),
])
def test_wrong_elements_refused_as_torch(args, which, found):
    kinds = {"xs": "List\\[__torch__.*Point\\]", "d": "Dict\\[str, __torch__.*Point\\]",
             "o": "Optional\\[__torch__.*Point\\]"}
    targs = tuple([TPoint(torch.ones(1), 0) if isinstance(x, Point) else x for x in a] if isinstance(a, list) else a
                  for a in args)
    with pytest.raises(RuntimeError, match=f"Expected a value of type '{kinds[which]}' for argument '{which}' but "
                                           f"instead found type '{found}'"):
        torch.jit.script(t_containers)(*targs)
    with pytest.raises(RuntimeError, match=f"Expected a value of type '{kinds[which]}' for argument '{which}' but "
                                           f"instead found type '{found}'"):
        tl.jit.script(containers)(*args)


def make_path(x: tl.Tensor, n: int) -> Path:
    p = Path(Point.origin(x), [Point(x, i) for i in range(n)])
    p.rest[0].bump(10)
    p.start = p.rest[-1]
    return p


def t_make_path(x: torch.Tensor, n: int) -> TPath:
    p = TPath(TPoint.origin(x), [TPoint(x, i) for i in range(n)])
    p.rest[0].bump(10)
    p.start = p.rest[-1]
    return p


def test_instances_held_by_instances():
    ours, theirs = tl.jit.script(make_path), torch.jit.script(t_make_path)
    got, want = ours(tl.ones(2), 3), theirs(torch.ones(2), 3)
    assert type(got) is Path and type(got.start) is Point and type(got.rest[0]) is Point
    assert got.start.n == want.start.n == 2
    assert [p.n for p in got.rest] == [p.n for p in want.rest] == [10, 1, 2]
    assert got.total() == want.total()  # a Python instance: its methods run in Python


def path_total(p: Path) -> int:
    p.rest.append(p.start)
    return p.total()


def t_path_total(p: TPath) -> int:
    p.rest.append(p.start)
    return p.total()


def test_nested_instance_argument():
    ours, theirs = tl.jit.script(path_total), torch.jit.script(t_path_total)
    p = Path(Point(tl.ones(1), 4), [Point(tl.ones(1), 1), Point(tl.ones(1), 2)])
    tp = TPath(TPoint(torch.ones(1), 4), [TPoint(torch.ones(1), 1), TPoint(torch.ones(1), 2)])
    assert ours(p, ) == theirs(tp) == 11
    assert len(p.rest) == len(tp.rest) == 2  # converted copies: the Python list is not appended to


def statics(n: int) -> int:
    return Point.twice(n) + Point.origin(tl.ones(1)).n


def t_statics(n: int) -> int:
    return TPoint.twice(n) + TPoint.origin(torch.ones(1)).n


def static_on_instance(n: int) -> int:
    return Point(tl.ones(1), 1).twice(n)


def t_static_on_instance(n: int) -> int:
    return TPoint(torch.ones(1), 1).twice(n)


def test_static_methods():
    assert tl.jit.script(statics)(3) == torch.jit.script(t_statics)(3) == 6
    msg = "object has no attribute or method 'twice'. Did you forget to initialize an attribute in __init__"
    with pytest.raises(RuntimeError, match=msg):
        torch.jit.script(t_static_on_instance)
    with pytest.raises(RuntimeError, match=msg):  # torch takes them on the class only
        tl.jit.script(static_on_instance)


def refine(o: Optional[Point]) -> int:
    if isinstance(o, Point):
        return o.n
    return -1


def t_refine(o: Optional[TPoint]) -> int:
    if isinstance(o, TPoint):
        return o.n
    return -1


def test_isinstance_refines_optional_instance():
    ours, theirs = tl.jit.script(refine), torch.jit.script(t_refine)
    assert ours(Point(tl.ones(1), 6)) == theirs(TPoint(torch.ones(1), 6)) == 6
    assert ours(None) == theirs(None) == -1


class WithConstant:
    LIMIT = 10

    def __init__(self, n: int):
        self.n = n

    def over(self) -> bool:
        return self.n > self.LIMIT


class WithClassmethod:
    def __init__(self, n: int):
        self.n = n

    @classmethod
    def make(cls, n: int):
        return cls(n)


def uses_constant(n: int) -> bool:
    return WithConstant(n).over()


def reads_class_constant(n: int) -> int:
    return WithConstant.LIMIT + n


def uses_classmethod(n: int) -> int:
    return WithClassmethod.make(n).n


def test_class_level_values_and_classmethods_refused_as_torch():
    tl.jit.script(WithConstant)
    tl.jit.script(WithClassmethod)
    with pytest.raises(RuntimeError, match="'LIMIT' is defined as a class attribute which currently is not "
                                           "supported. Consider converting this to an instance attribute."):
        tl.jit.script(uses_constant)
    with pytest.raises(RuntimeError, match="python value of type 'int' cannot be used as a value"):
        tl.jit.script(reads_class_constant)
    with pytest.raises(RuntimeError, match="classmethod"):
        tl.jit.script(uses_classmethod)


class Maker(tl.nn.Module):
    def forward(self, x: tl.Tensor, n: int) -> List[Point]:
        return [Point(x * i, i) for i in range(n)]


def test_loaded_module_returns_instances(tmp_path):
    path = str(tmp_path / "m.pt")
    tl.jit.save(tl.jit.script(Maker()), path)
    loaded = tl.jit.load(path)
    out = loaded(tl.ones(2), 3)
    assert [type(p) for p in out] == [Point] * 3 and [p.n for p in out] == [0, 1, 2]
    np.testing.assert_array_equal(_np(out[2].x), [2.0, 2.0])
    code = textwrap.dedent(f"""
        import torchlite as tl
        out = tl.jit.load({path!r})(tl.ones(2), 3)
        # a fresh process never saw the class: the interpreter's objects, attributes by name
        print(type(out[0]).__name__, out[0].type_name, [p.getattr("n") for p in out], out[2].getattr("x").tolist())
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["Object", "__torch__.test_jit_script_class_containers.Point", "[0,", "1,", "2]",
                                "[2.0,", "2.0]"]


class HoldsInstance(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.acc = Point(tl.ones(1), 3)

    def forward(self, x):
        return x + self.acc.n


def test_module_attribute_instance_taken():  # as torch: an attribute of the module's type (test_jit_class_attributes.py)
    m = HoldsInstance()
    assert tl.jit.script(m)(tl.ones(1)).tolist() == [4.0]
