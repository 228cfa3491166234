"""Tests for codegen/schema_parser.py: every type, annotation, default and return form,
round trips on the real YAML, and the message of every error."""
from pathlib import Path

import pytest
import yaml

from codegen.model import (
    Annotation, Argument, BaseType, FunctionSchema, ListType, OperatorName, OptionalType,
    Return, SchemaKind,
)
from codegen.schema_parser import SchemaError, parse_schema

ROOT = Path(__file__).resolve().parents[2]

T = BaseType
TENSOR = T("Tensor")


def arg(schema: str) -> Argument:
    (a,) = parse_schema(schema).arguments
    return a


# ---- types ---------------------------------------------------------------------------

TYPES = {
    "Tensor": TENSOR,
    "Tensor?": OptionalType(TENSOR),
    "Tensor[]": ListType(TENSOR),
    "Tensor?[]": ListType(OptionalType(TENSOR)),
    "Scalar": T("Scalar"),
    "Scalar?": OptionalType(T("Scalar")),
    "int": T("int"),
    "int?": OptionalType(T("int")),
    "int[]": ListType(T("int")),
    "int[2]": ListType(T("int"), 2),
    "int[]?": OptionalType(ListType(T("int"))),
    "int[1]?": OptionalType(ListType(T("int"), 1)),
    "float": T("float"),
    "float?": OptionalType(T("float")),
    "float[]": ListType(T("float")),
    "float[]?": OptionalType(ListType(T("float"))),
    "bool": T("bool"),
    "bool?": OptionalType(T("bool")),
    "bool[3]": ListType(T("bool"), 3),
    "str": T("str"),
    "str?": OptionalType(T("str")),
    "ScalarType": T("ScalarType"),
    "ScalarType?": OptionalType(T("ScalarType")),
    "Device": T("Device"),
    "Device?": OptionalType(T("Device")),
    "Generator?": OptionalType(T("Generator")),
    "Layout?": OptionalType(T("Layout")),
    "MemoryFormat?": OptionalType(T("MemoryFormat")),
}


@pytest.mark.parametrize("text", TYPES)
def test_every_argument_type(text):
    s = f"f({text} x) -> Tensor"
    a = arg(s)
    assert a == Argument("x", TYPES[text])
    assert str(parse_schema(s)) == s


@pytest.mark.parametrize("text, annotation", [
    ("Tensor(a)", Annotation("a", False)),
    ("Tensor(a!)", Annotation("a", True)),
    ("Tensor(b!)[]", Annotation("b", True)),
    ("Tensor(a)?", Annotation("a", False)),
])
def test_annotations(text, annotation):
    s = f"f({text} x) -> Tensor"
    a = arg(s)
    assert a.annotation == annotation
    assert a.type == TYPES[text.replace(f"({annotation.alias_set}{'!' if annotation.is_write else ''})", "")]
    assert str(parse_schema(s)) == s


# ---- defaults ------------------------------------------------------------------------

@pytest.mark.parametrize("decl", [
    "int x=1", "int x=-1", "int x=0", "int? x=None", "int? x=3",
    "float x=1.5", "float x=-1", "float x=1e-05", "float x=.5", "float? x=None",
    "Scalar x=1", "Scalar x=-0.5", "Scalar? x=None",
    "bool x=True", "bool x=False", "bool? x=None",
    "int[] x=[]", "int[] x=[0,1]", "int[] x=[0, 1]", "int[2] x=1", "int[2] x=[1, 1]",
    "int[]? x=None", "int[1]? x=None", "bool[3] x=[True, False, True]",
    'str x="mean"', "str x='sum'", "str x=mean", 'str x="a, b"', "str? x=None",
    "ScalarType x=float32", "ScalarType? x=None",
    "Device x=cpu", 'Device x="cpu"', "Device? x=None",
    "Layout? x=strided", "MemoryFormat? x=contiguous_format", "MemoryFormat? x=None",
    "Generator? x=None", "Tensor? x=None",
])
def test_defaults_are_kept_verbatim(decl):
    s = f"f({decl}) -> Tensor"
    a = arg(s)
    assert a.default == decl.split("=", 1)[1]
    assert str(parse_schema(s)) == s


# ---- names, kwarg-only, returns --------------------------------------------------------

@pytest.mark.parametrize("text, name", [
    ("add", OperatorName("add", False, "")),
    ("add.Tensor", OperatorName("add", False, "Tensor")),
    ("add_.Tensor", OperatorName("add", True, "Tensor")),
    ("copy_", OperatorName("copy", True, "")),
    ("_to_copy", OperatorName("_to_copy", False, "")),
    ("sum.dim_IntList", OperatorName("sum", False, "dim_IntList")),
    ("__and__.Tensor", OperatorName("__and__", False, "Tensor")),
])
def test_operator_names(text, name):
    s = parse_schema(f"{text}(Tensor self) -> Tensor")
    assert s.name == name
    assert str(s.name) == text


def test_kwarg_only_arguments():
    s = parse_schema("add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor")
    assert [a.name for a in s.positional] == ["self", "other"]
    assert s.kwarg_only == (Argument("alpha", T("Scalar"), "1", kwarg_only=True),)
    assert s.kind() is SchemaKind.functional


def test_kwarg_only_after_defaulted_positional_needs_no_default():
    s = parse_schema("f(Tensor self, int x=1, *, Tensor(a!) out) -> Tensor(a!)")
    assert s.kind() is SchemaKind.out
    assert [a.name for a in s.out_arguments] == ["out"]


def test_no_arguments():
    s = parse_schema("f() -> Tensor")
    assert s.arguments == ()
    assert str(s) == "f() -> Tensor"


@pytest.mark.parametrize("text, returns", [
    ("Tensor", (Return(TENSOR),)),
    ("Tensor(a)", (Return(TENSOR, None, Annotation("a", False)),)),
    ("Tensor(a!)", (Return(TENSOR, None, Annotation("a", True)),)),
    ("Tensor[]", (Return(ListType(TENSOR)),)),
    ("Tensor(a)[]", (Return(ListType(TENSOR), None, Annotation("a", False)),)),
    ("()", ()),
    ("(Tensor values, Tensor indices)", (Return(TENSOR, "values"), Return(TENSOR, "indices"))),
    ("(Tensor(a!) values, Tensor(b!) indices)",
     (Return(TENSOR, "values", Annotation("a", True)), Return(TENSOR, "indices", Annotation("b", True)))),
    ("(Tensor, Tensor)", (Return(TENSOR), Return(TENSOR))),
    ("(Tensor values)", (Return(TENSOR, "values"),)),
    ("int", (Return(T("int")),)),
    ("float", (Return(T("float")),)),
    ("bool", (Return(T("bool")),)),
    ("Scalar", (Return(T("Scalar")),)),
])
def test_return_forms(text, returns):
    s = f"f(Tensor self) -> {text}"
    assert parse_schema(s).returns == returns
    assert str(parse_schema(s)) == s


def test_full_schema_structure():
    s = parse_schema("max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)")
    assert s == FunctionSchema(
        OperatorName("max", False, "dim"),
        (Argument("self", TENSOR), Argument("dim", T("int")), Argument("keepdim", T("bool"), "False")),
        (Return(TENSOR, "values"), Return(TENSOR, "indices")),
    )


def test_inplace_schema_kind():
    s = parse_schema("add_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)")
    assert s.kind() is SchemaKind.inplace
    assert s.arguments[0].annotation == Annotation("a", True)


def test_non_canonical_spacing_parses_to_canonical_form():
    s = parse_schema("  add.Tensor( Tensor  self ,Tensor other,*,Scalar alpha = 1 )->Tensor ")
    assert str(s) == "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"


def test_defaults_with_commas_and_parens_in_strings():
    s = 'f(str a="x, (y", str b=\')\') -> Tensor'
    assert [a.default for a in parse_schema(s).arguments] == ['"x, (y"', "')'"]
    assert str(parse_schema(s)) == s


def real_funcs():
    data = yaml.safe_load((ROOT / "native_functions.yaml").read_text())
    return [e["func"] for e in data["functions"]]


@pytest.mark.parametrize("func", real_funcs())
def test_round_trip_on_real_yaml(func):
    assert str(parse_schema(func)) == func


# ---- errors --------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    # names
    ("(Tensor self) -> Tensor", "missing operator name"),
    ("1add(Tensor self) -> Tensor", "bad operator name `1add`"),
    ("add.(Tensor self) -> Tensor", "bad overload name ``"),
    ("add.a.b(Tensor self) -> Tensor", "bad overload name `a.b`"),
    ("add.a-b(Tensor self) -> Tensor", "bad overload name `a-b`"),
    ("add.1(Tensor self) -> Tensor", "bad overload name `1`"),
    ("_(Tensor self) -> Tensor", "bad operator name `_`"),
    # structure
    ("add -> Tensor", "missing argument list"),
    ("add(Tensor self -> Tensor", "unbalanced parentheses"),
    ("add(Tensor self)) -> Tensor", "expected `->`"),
    ("add(int[ x) -> Tensor", "unbalanced `)`"),
    ("add(Tensor self)", "missing `-> returns`"),
    ("add(Tensor self) ->", "missing return type"),
    ("add(Tensor self) Tensor", "expected `->`"),
    ("add(Tensor self, ) -> Tensor", "empty entry in the argument list"),
    ('add(str x="abc) -> Tensor', "unterminated string"),
    # types
    ("add(Tensr self) -> Tensor", "unknown type `Tensr`"),
    ("add(float[2] x) -> Tensor", "unsupported type `float[2]`"),
    ("add(Generator g) -> Tensor", "unsupported type `Generator`"),
    ("add(int?? x) -> Tensor", "unsupported type `int??`"),
    ("add(int[0] x) -> Tensor", "bad list size `[0]`"),
    ("add(int[N] x) -> Tensor", "malformed type `int[N]`"),
    ("add(Tensor[](a) x) -> Tensor", "malformed type `Tensor[](a)`"),
    ("add(int(a) x) -> Tensor", "alias annotation `(a)` on `int`"),
    ("add(Tensor(A!) x) -> Tensor", "bad alias annotation `(A!)`"),
    ("add(Tensor(a -> *) x) -> Tensor", "bad alias annotation `(a -> *)`"),
    ("add(Tensor?[] x=None) -> Tensor", "default `None` needs an optional type (`Tensor?[]?`)"),
    # arguments
    ("add(Tensor) -> Tensor", "argument 1 (`Tensor`): expected `Type name`"),
    ("add(Tensor 1x) -> Tensor", "bad argument name `1x`"),
    ("add(Tensor class) -> Tensor", "bad argument name `class`"),
    ("add(Tensor self, Tensor self) -> Tensor", "duplicate argument name `self`"),
    ("add(Tensor self, *, int a=1, *, int b=2) -> Tensor", "`*` appears twice"),
    ("add(Tensor self, *) -> Tensor", "`*` must be followed by at least one keyword-only argument"),
    ("add(Tensor self, int a=1, int b) -> Tensor", "positional argument `b` has no default but follows `a`"),
    # defaults
    ("add(int x=abc) -> Tensor", "default `abc` is not a valid `int`"),
    ("add(int x=1.5) -> Tensor", "default `1.5` is not a valid `int`"),
    ("add(bool b=1) -> Tensor", "default `1` is not a valid `bool`"),
    ("add(bool b=true) -> Tensor", "default `true` is not a valid `bool`"),
    ("add(float x=abc) -> Tensor", "default `abc` is not a valid `float`"),
    ("add(Scalar x=one) -> Tensor", "default `one` is not a valid `Scalar`"),
    ("add(int x=None) -> Tensor", "default `None` needs an optional type (`int?`)"),
    ("add(int x=) -> Tensor", "missing default after `=`"),
    ("add(int[] x=1) -> Tensor", "default `1` is not a valid `int[]`"),
    ("add(int[] x=[1, a]) -> Tensor", "default `[1, a]` is not a valid `int[]`"),
    ("add(Tensor x=0) -> Tensor", "default `0` is not a valid `Tensor`"),
    ("add(Tensor[] x=[]) -> Tensor", "default `[]` is not a valid `Tensor[]`"),
    ('add(str x="a"b) -> Tensor', 'default `"a"b` is not a valid `str`'),
    ("add(ScalarType t=1) -> Tensor", "default `1` is not a valid `ScalarType`"),
    ("add(Generator? g=default) -> Tensor", "default `default` is not a valid `Generator`"),
    # returns
    ("add(Tensor self) -> Tensr", "return: unknown type `Tensr`"),
    ("add(Tensor self) -> Tensor?", "return: unsupported type `Tensor?`"),
    ("add(Tensor self) -> str", "return: unknown type `str`"),
    ("add(Tensor self) -> int(a)", "alias annotation `(a)` on `int`"),
    ("add(Tensor self) -> Tensor out", "a named return must be in parentheses"),
    ("add(Tensor self) -> (Tensor)", "a single unnamed return is written without parentheses"),
    ("add(Tensor self) -> (Tensor a, Tensor)", "returns must be all named or all unnamed"),
    ("add(Tensor self) -> (Tensor a, Tensor a)", "duplicate return name `a`"),
    ("add(Tensor self) -> (Tensor a b)", "expected `Type` or `Type name`"),
    ("add(Tensor self) -> (Tensor a) x", "unexpected text after the returns"),
    ("add(Tensor self) -> (Tensor a", "unbalanced parentheses"),
    ("add(Tensor self) -> (Tensor if)", "bad return name `if`"),
])
def test_errors(text, message):
    with pytest.raises(SchemaError) as e:
        parse_schema(text)
    assert message in str(e.value)


def test_non_string_is_an_error():
    with pytest.raises(SchemaError, match="must be a string"):
        parse_schema(None)


def test_schema_error_is_a_value_error():
    assert issubclass(SchemaError, ValueError)
