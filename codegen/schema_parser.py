"""Parser for the `func:` schema strings of native_functions.yaml (PyTorch's grammar).

    name[_][.overload](Type arg, Type arg=default, *, Type kwarg=default) -> Returns

The parser is strict: it accepts only the types the generator can map to C++ (see
docs/architecture.md), and it keeps defaults verbatim, so `str(parse_schema(s)) == s`
for a schema written with canonical spacing. Errors raise SchemaError with a message
that names the offending piece; the loader adds the file and line.
"""
from __future__ import annotations

import keyword

# Python keywords PyTorch's schemas use as argument names (`random_.from`): fine in C++, passed by
# keyword from Python only through **kwargs, as in PyTorch.
_PY_ONLY_KEYWORDS = frozenset({"from"})
_CPP_KEYWORDS = frozenset({"and", "auto", "bool", "break", "case", "catch", "char", "class", "const", "continue",
                           "default", "delete", "do", "double", "else", "enum", "explicit", "export", "extern",
                           "false", "float", "for", "friend", "goto", "if", "inline", "int", "long", "namespace",
                           "new", "not", "operator", "or", "private", "protected", "public", "register", "return",
                           "short", "signed", "sizeof", "static", "struct", "switch", "template", "this", "throw",
                           "true", "try", "typedef", "union", "unsigned", "using", "virtual", "void", "volatile",
                           "while", "xor"})
import re
from typing import Optional

from codegen.model import (
    Annotation, Argument, BaseType, FunctionSchema, ListType, OperatorName,
    OptionalType, Return, Type,
)


class SchemaError(ValueError):
    """A malformed schema string; the message says what is wrong and where."""


# The type forms each base type may take: "" plain, "?" optional, "[]" list, "[N]" sized
# list. A closed table, so that every parsed type has a C++ mapping in the emitters.
_ARG_FORMS: dict[str, frozenset[str]] = {
    "Tensor": frozenset({"", "?", "[]", "?[]"}),
    "Scalar": frozenset({"", "?"}),
    "int": frozenset({"", "?", "[]", "[N]", "[]?", "[N]?"}),
    "float": frozenset({"", "?", "[]", "[]?"}),
    "bool": frozenset({"", "?", "[N]"}),
    "str": frozenset({"", "?"}),
    "ScalarType": frozenset({"", "?"}),
    "Device": frozenset({"", "?"}),
    "Generator": frozenset({"?"}),
    "Layout": frozenset({"?"}),
    "MemoryFormat": frozenset({"", "?"}),
}
_RETURN_FORMS: dict[str, frozenset[str]] = {
    "Tensor": frozenset({"", "[]"}),
    "Scalar": frozenset({""}),
    "int": frozenset({""}),
    "float": frozenset({""}),
    "bool": frozenset({""}),
}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# Base name, optional alias annotation right after it, then any ?/[]/[N] suffixes.
_TYPE = re.compile(r"([A-Za-z]+)(?:\(([^()]*)\))?((?:\?|\[[0-9]*\])*)\Z")
_SUFFIX = re.compile(r"\?|\[([0-9]*)\]")
_ALIAS = re.compile(r"([a-z]+)(!?)\Z")
_INT = re.compile(r"-?[0-9]+\Z")
_FLOAT = re.compile(r"-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?\Z")
_QUOTED = re.compile(r"(?:\"[^\"\\]*\"|'[^'\\]*')\Z")


def parse_schema(text: str) -> FunctionSchema:
    if not isinstance(text, str):
        raise SchemaError(f"a schema must be a string, not {type(text).__name__}")
    open_ = text.find("(")
    if open_ < 0:
        raise SchemaError("missing argument list: expected `name(args) -> returns`")
    close = _matching_paren(text, open_)
    name = _parse_name(text[:open_])
    arrow = text[close + 1:].strip()
    if not arrow.startswith("->"):
        raise SchemaError(f"expected `->` and the returns after the argument list, got `{arrow}`"
                          if arrow else "missing `-> returns` after the argument list")
    arguments = _parse_arguments(text[open_ + 1:close])
    returns = _parse_returns(arrow[2:].strip())
    return FunctionSchema(name, arguments, returns)


# ---- pieces ---------------------------------------------------------------------------

def _matching_paren(text: str, open_: int) -> int:
    """Index of the `)` closing text[open_], skipping quoted strings and nested brackets."""
    stack: list[str] = []
    pairs = {")": "(", "]": "["}
    i = open_
    while i < len(text):
        c = text[i]
        if c in "\"'":
            end = text.find(c, i + 1)
            if end < 0:
                raise SchemaError(f"unterminated string starting at column {i + 1}")
            i = end
        elif c in "([":
            stack.append(c)
        elif c in ")]":
            if not stack or stack[-1] != pairs[c]:
                raise SchemaError(f"unbalanced `{c}` at column {i + 1}")
            stack.pop()
            if not stack:
                return i
        i += 1
    raise SchemaError("unbalanced parentheses: the argument list is not closed")


def _split_top_level(text: str, what: str) -> list[str]:
    """Split on commas outside brackets and quotes; strip each piece."""
    if not text.strip():
        return []
    pieces, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c in "\"'":
            end = text.find(c, i + 1)
            if end < 0:
                raise SchemaError(f"unterminated string in {what}")
            i = end
        elif c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
            if depth < 0:
                raise SchemaError(f"unbalanced `{c}` in {what}")
        elif c == "," and depth == 0:
            pieces.append(text[start:i].strip())
            start = i + 1
        i += 1
    if depth != 0:
        raise SchemaError(f"unbalanced brackets in {what}")
    pieces.append(text[start:].strip())
    if "" in pieces:
        raise SchemaError(f"empty entry in {what} (stray comma?)")
    return pieces


def _parse_name(text: str) -> OperatorName:
    full = text.strip()
    if not full:
        raise SchemaError("missing operator name before `(`")
    base, dot, overload = full.partition(".")
    if not _IDENT.match(base):
        raise SchemaError(f"bad operator name `{base}`: expected an identifier")
    if dot and not _IDENT.match(overload):
        raise SchemaError(f"bad overload name `{overload}` in `{full}`: expected an identifier after `.`")
    # A trailing underscore marks the in-place variant; dunder names (`__and__`) are not.
    inplace = base.endswith("_") and not (base.startswith("__") and base.endswith("__"))
    if inplace:
        base = base[:-1]
        if not base.strip("_"):
            raise SchemaError(f"bad operator name `{full}`")
    return OperatorName(base=base, inplace=inplace, overload=overload)


def _split_type(piece: str) -> tuple[str, str]:
    """Split `Type rest` at the first space outside the annotation's parentheses."""
    depth = 0
    for i, c in enumerate(piece):
        depth += (c == "(") - (c == ")")
        if c.isspace() and depth == 0:
            return piece[:i], piece[i:].strip()
    return piece, ""


def _parse_type(text: str, forms: dict[str, frozenset[str]], where: str) -> tuple[Type, Optional[Annotation]]:
    m = _TYPE.match(text)
    if not m:
        raise SchemaError(f"{where}: malformed type `{text}`")
    base, ann_text, suffix = m.groups()
    if base not in forms:
        known = ", ".join(forms)
        raise SchemaError(f"{where}: unknown type `{base}` (expected one of {known})")
    annotation = None
    if ann_text is not None:
        if base != "Tensor":
            raise SchemaError(f"{where}: alias annotation `({ann_text})` on `{base}`; only Tensor types take one")
        am = _ALIAS.match(ann_text)
        if not am:
            raise SchemaError(f"{where}: bad alias annotation `({ann_text})`: expected `(a)` or `(a!)`")
        annotation = Annotation(alias_set=am.group(1), is_write=bool(am.group(2)))
    ty: Type = BaseType(base)
    form = ""
    for sm in _SUFFIX.finditer(suffix):
        if sm.group(0) == "?":
            ty, form = OptionalType(ty), form + "?"
        else:
            size = sm.group(1)
            if size.startswith("0"):
                raise SchemaError(f"{where}: bad list size `[{size}]` in `{text}`")
            ty = ListType(ty, int(size) if size else None)
            form += "[N]" if size else "[]"
    if form not in forms[base]:
        allowed = ", ".join(base + f for f in sorted(forms[base]))
        raise SchemaError(f"{where}: unsupported type `{text}` (allowed: {allowed})")
    return ty, annotation


def _parse_arguments(text: str) -> tuple[Argument, ...]:
    args: list[Argument] = []
    kwarg_only = False
    last_default: Optional[str] = None  # name of the last positional argument with a default
    for i, piece in enumerate(_split_top_level(text, "the argument list"), 1):
        if piece == "*":
            if kwarg_only:
                raise SchemaError("`*` appears twice in the argument list")
            kwarg_only = True
            continue
        where = f"argument {i} (`{piece}`)"
        type_text, rest = _split_type(piece)
        if not rest:
            raise SchemaError(f"{where}: expected `Type name`")
        ty, annotation = _parse_type(type_text, _ARG_FORMS, where)
        name, eq, default = rest.partition("=")
        name = name.strip()
        if not _IDENT.match(name) or name in _CPP_KEYWORDS or (keyword.iskeyword(name) and name not in _PY_ONLY_KEYWORDS):
            raise SchemaError(f"{where}: bad argument name `{name}`")
        if any(a.name == name for a in args):
            raise SchemaError(f"{where}: duplicate argument name `{name}`")
        default_or_none = None
        if eq:
            default_or_none = default.strip()
            _check_default(ty, default_or_none, where)
        if not kwarg_only:
            if default_or_none is not None:
                last_default = name
            elif last_default is not None:
                raise SchemaError(f"{where}: positional argument `{name}` has no default "
                                  f"but follows `{last_default}`, which has one")
        args.append(Argument(name, ty, default_or_none, annotation, kwarg_only))
    if kwarg_only and not any(a.kwarg_only for a in args):
        raise SchemaError("`*` must be followed by at least one keyword-only argument")
    return tuple(args)


def _parse_returns(text: str) -> tuple[Return, ...]:
    if not text:
        raise SchemaError("missing return type after `->`")
    if not text.startswith("("):
        type_text, rest = _split_type(text)
        if rest:
            raise SchemaError(f"return `{text}`: a named return must be in parentheses: `({text})`")
        ty, annotation = _parse_type(type_text, _RETURN_FORMS, "return")
        return (Return(ty, None, annotation),)
    if _matching_paren(text, 0) != len(text) - 1:
        raise SchemaError(f"unexpected text after the returns `{text}`")
    returns: list[Return] = []
    for i, piece in enumerate(_split_top_level(text[1:-1], "the returns"), 1):
        where = f"return {i} (`{piece}`)"
        type_text, rest = _split_type(piece)
        if len(rest.split()) > 1:
            raise SchemaError(f"{where}: expected `Type` or `Type name`")
        ty, annotation = _parse_type(type_text, _RETURN_FORMS, where)
        name = rest or None
        if name is not None:
            if not _IDENT.match(name) or keyword.iskeyword(name):
                raise SchemaError(f"{where}: bad return name `{name}`")
            if any(r.name == name for r in returns):
                raise SchemaError(f"{where}: duplicate return name `{name}`")
        returns.append(Return(ty, name, annotation))
    if len({r.name is None for r in returns}) > 1:
        raise SchemaError("returns must be all named or all unnamed")
    if len(returns) == 1 and returns[0].name is None:
        raise SchemaError(f"a single unnamed return is written without parentheses: `{returns[0]}`")
    return tuple(returns)


# ---- defaults -------------------------------------------------------------------------

def _check_default(ty: Type, default: str, where: str) -> None:
    """Check that a default is a literal of the argument's type; it is kept as written."""
    if not default:
        raise SchemaError(f"{where}: missing default after `=`")
    if isinstance(ty, OptionalType):
        if default == "None":
            return
        ty = ty.elem
    elif default == "None":
        raise SchemaError(f"{where}: default `None` needs an optional type (`{ty}?`)")
    if isinstance(ty, ListType):
        ok = _list_default_ok(ty, default)
    else:
        ok = _scalar_default_ok(ty.name, default)
    if not ok:
        raise SchemaError(f"{where}: default `{default}` is not a valid `{ty}`")


def _scalar_default_ok(base: str, d: str) -> bool:
    if base == "int":
        return bool(_INT.match(d))
    if base in ("float", "Scalar"):
        return bool(_FLOAT.match(d))
    if base == "bool":
        return d in ("True", "False")
    if base == "str":
        # A quoted string, or a bare word such as `mean` (an enum-like choice).
        return bool(_QUOTED.match(d) or _IDENT.match(d))
    if base == "Device":
        return bool(_QUOTED.match(d) or _IDENT.match(d))
    if base in ("ScalarType", "Layout", "MemoryFormat"):
        return bool(_IDENT.match(d))
    return False  # Tensor and Generator have no defaults other than None


def _list_default_ok(ty: ListType, d: str) -> bool:
    elem = ty.elem
    if not isinstance(elem, BaseType) or elem.name not in ("int", "bool"):
        return False  # Tensor[] and Tensor?[] take no default
    if not (d.startswith("[") and d.endswith("]")):
        # A bare element is accepted for sized lists: `int[2] stride=1` means [1, 1].
        return ty.size is not None and _scalar_default_ok(elem.name, d)
    inner = d[1:-1].strip()
    return not inner or all(_scalar_default_ok(elem.name, x.strip()) for x in inner.split(","))
