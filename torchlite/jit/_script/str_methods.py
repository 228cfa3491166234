"""str methods in script, as TorchScript 2.13 takes them: torch's schemas (`aten::find(str self, str substr,
int start=0, int end=-1) -> int`) bind the arguments, defaults filled in, and one `prim::str_method[fn=...]`
node runs the method (aten/jit/StrMethods.cpp, byte-wise with ASCII classes, as torch's). Methods torch does
not have (casefold, encode, format_map, ...) are torch's compile error "'str' object has no attribute or
method 'casefold'." Constant strings fold through constant propagation (the prim is pure)."""
from __future__ import annotations

from torchlite.jit._script import types as T
from torchlite.jit._script.values import SV

_WS = " \n\t\f\v"
_S, _I, _B, _OS = T.STR, T.INT, T.BOOL, T.Optional(T.STR)
_RANGE = [("substr", _S, None), ("start", _I, 0), ("end", _I, -1)]

# name -> ([(parameter, type, default or None for required)], return type); torch's schemas (parameter names too)
SCHEMAS = {
    "split": ([("separator", _OS, "None"), ("max", _I, -1)], T.List(_S)),
    "rsplit": ([("separator", _S, " "), ("max", _I, -1)], T.List(_S)),
    "strip": ([("chars", _S, _WS)], _S), "lstrip": ([("chars", _S, _WS)], _S), "rstrip": ([("chars", _S, _WS)], _S),
    "startswith": (_RANGE, _B), "endswith": (_RANGE, _B),
    "join": ([("values", T.List(_S), None)], _S),
    "replace": ([("old", _S, None), ("new", _S, None), ("max", _I, -1)], _S),
    "find": (_RANGE, _I), "rfind": (_RANGE, _I), "index": (_RANGE, _I), "rindex": (_RANGE, _I), "count": (_RANGE, _I),
    "center": ([("width", _I, None), ("fillchar", _S, " ")], _S),
    "ljust": ([("width", _I, None), ("fillchar", _S, " ")], _S),
    "rjust": ([("width", _I, None), ("fillchar", _S, " ")], _S),
    "zfill": ([("width", _I, None)], _S), "expandtabs": ([("tabsize", _I, 8)], _S),
    "partition": ([("separator", _S, None)], T.Tuple([_S, _S, _S])),
    "rpartition": ([("separator", _S, None)], T.Tuple([_S, _S, _S])),
    "splitlines": ([("keepends", _B, False)], T.List(_S)),
}
for _name in ("lower", "upper", "title", "capitalize", "swapcase"):
    SCHEMAS[_name] = ([], _S)
for _name in ("isdigit", "isalpha", "isalnum", "isspace", "islower", "isupper", "istitle", "isdecimal", "isnumeric",
              "isidentifier", "isprintable"):
    SCHEMAS[_name] = ([], _B)


def _default(d):
    if isinstance(d, str) and d != "None":  # torch writes str defaults in double quotes, escaped
        return '"' + d.encode("unicode_escape").decode() + '"'
    return str(d)


def _schema_str(name, params, ret):
    ps = ", ".join(["str self"] + [f"{T.schema_str(t)} {p}" + ("" if d is None else "=" + _default(d))
                                   for p, t, d in params])
    return f"aten::{name}({ps}) -> {T.schema_str(ret)}"


def call(c, obj, name, args, kwargs, node):
    """obj.name(*args, **kwargs) on a str: the prim node, or torch's errors."""
    if name not in SCHEMAS:
        raise c.error(node, f"'str' object has no attribute or method '{name}'.")
    params, ret = SCHEMAS[name]
    if len(args) > len(params):
        raise c.error(node, f"{_schema_str(name, params, ret)}:\nExpected at most {len(params) + 1} arguments but "
                            f"found {len(args) + 1} positional arguments.")
    bound = list(args)
    for p, t, d in params[len(args):]:
        if p in kwargs:
            bound.append(kwargs.pop(p))
        elif d is not None:
            bound.append(SV(T.NONE, const=None) if d == "None" else SV(t, const=d))
        else:
            raise c.error(node, f"{_schema_str(name, params, ret)}:\nArgument {p} not provided.")
    if kwargs:
        raise c.error(node, f"{_schema_str(name, params, ret)}:\nKeyword argument {next(iter(kwargs))} unknown.")
    for (p, t, _), a in zip(params, bound):
        if a.type is None or not T.is_subtype(a.type, t):
            raise c.error(node, f"{_schema_str(name, params, ret)}:\nExpected a value of type '{T.schema_str(t)}' "
                                f"for argument '{p}' but instead found type '{T.schema_str(a.type)}'.")
    return emit(c, name, [obj] + bound, ret, node)


def emit(c, fn, inputs, ret, node):
    n = c.insert("prim::str_method", [c.value(i, node) for i in inputs], [ret])
    n.s_("fn", fn)
    return SV(ret, value=n.output())
