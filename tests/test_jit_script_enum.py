"""Enum in torchlite.jit.script, against torch.jit.script 2.13: Enum classes as argument and return types,
members as constants (globals and module attributes), `.value` and `.name`, `==`/`!=`/`is` (members of
different classes are never equal), iteration over the class; torch's error for a non-member argument.
A member runs as its value in the graph."""
import enum
import io

import pytest
import torch

import torchlite as tl


class Color(enum.Enum):
    RED = 1
    GREEN = 2
    BLUE = 4


class Mode(enum.Enum):
    FAST = "fast"
    SLOW = "slow"


class Scale(enum.Enum):
    HALF = 0.5
    DOUBLE = 2.0


def pick(c: Color) -> Color:
    return Color.GREEN if c == Color.RED else Color.RED


def value_and_name(c: Color, m: Mode) -> str:
    return f"{c.value}-{c.name}-{m.value}-{m.name}"


def total() -> int:
    t = 0
    for c in Color:
        t += c.value
    return t


def mixed(c: Color, m: Mode) -> bool:
    return c == m


def identity_ops(c: Color) -> bool:
    return c is not Color.GREEN and (c is Color.RED or c != Color.BLUE)


def is_red(c: Color) -> bool:
    return c is Color.RED


def scaled(s: Scale, n: float) -> float:
    return s.value * n


CASES = [(pick, (Color.RED,)), (pick, (Color.BLUE,)), (value_and_name, (Color.BLUE, Mode.SLOW)), (total, ()),
         (mixed, (Color.RED, Mode.FAST)), (scaled, (Scale.HALF, 3.0))]


@pytest.mark.parametrize("fn,args", CASES, ids=[f"{f.__name__}{i}" for i, (f, _) in enumerate(CASES)])
def test_matches_torch_jit(fn, args):
    want = torch.jit.script(fn)(*args)
    got = tl.jit.script(fn)(*args)
    assert got == want == fn(*args)
    assert type(got) is type(want)


def test_is_compares_members_as_python():
    # torch.jit 2.13 compares the boxed members by identity: `c is Color.RED` is False even for Color.RED
    # (`[s(c) for c in Color]` gives [False, False, False]); members are singletons, so torchlite compares them
    # as Python does.
    s = tl.jit.script(identity_ops)
    assert [s(c) for c in Color] == [identity_ops(c) for c in Color] == [True, False, False]
    assert torch.jit.script(is_red)(Color.RED) is False  # torch's identity comparison, documented above
    assert tl.jit.script(is_red)(Color.RED) is True


class WithMode(tl.nn.Module):
    def __init__(self, mode):
        super().__init__()
        self.mode = mode

    def forward(self, x, c: Color = Color.RED):
        if c == Color.GREEN and self.mode == Mode.FAST:
            return x * c.value, c
        return x, Color.BLUE


def test_module_attribute_default_and_keyword():
    m = tl.jit.script(WithMode(Mode.FAST))
    x = tl.ones(2)
    out, c = m(x)
    assert c is Color.BLUE and tl.equal(out, x)
    out, c = m(x, c=Color.GREEN)
    assert c is Color.GREEN and tl.equal(out, x * 2)
    out, c = tl.jit.script(WithMode(Mode.SLOW))(x, Color.GREEN)
    assert c is Color.BLUE
    assert "int" in str(m.graph)  # a member runs as its value


def test_saved_and_loaded_takes_and_gives_members():
    m = tl.jit.script(WithMode(Mode.FAST))
    buf = io.BytesIO()
    tl.jit.save(m, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    out, c = loaded(tl.ones(2), Color.GREEN)  # the archive names the class (tests/test_jit_enum_archive.py)
    ref_out, ref_c = m(tl.ones(2), Color.GREEN)
    assert c is ref_c and tl.equal(out, ref_out)
    with pytest.raises(RuntimeError, match="for argument 'c' but instead found type 'int'"):
        loaded(tl.ones(2), 2)


def test_non_member_argument_refused_as_torch():
    def f(c: Color) -> int:
        return c.value + 1
    msg = "Expected a value of type 'Enum<__torch__.test_jit_script_enum.Color>' for argument 'c' but instead found " \
          "type 'int'"
    with pytest.raises(RuntimeError, match="Expected a value of type 'Enum<"):
        torch.jit.script(f)(1)
    with pytest.raises(RuntimeError) as err:
        tl.jit.script(f)(1)
    assert msg in str(err.value)
    with pytest.raises(RuntimeError, match="Expected a value of type 'Enum<"):
        tl.jit.script(f)(Mode.FAST)


def test_mixed_value_types_refused():
    class Bad(enum.Enum):
        A = 1
        B = "b"

    def f(b: Bad) -> int:
        return 1
    with pytest.raises(RuntimeError, match="all values must be of one type"):
        tl.jit.script(f)


def test_calling_the_class_refused_as_torch():
    def f(c: Color):
        return Color(1)
    with pytest.raises(RuntimeError, match="cannot call a EnumClass"):
        torch.jit.script(f)
    with pytest.raises(RuntimeError, match="cannot call a EnumClass") as err:
        tl.jit.script(f)
    assert "~~~~~ <--- HERE" in str(err.value)
