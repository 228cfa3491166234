"""Schema types and signatures rendered as C++ (see the type table in docs/architecture.md)."""
from __future__ import annotations

import re
from dataclasses import dataclass

from codegen.model import (
    Argument, BaseType, FunctionSchema, ListType, NativeFunction, OptionalType, Return, SchemaKind, Type,
)


class CppTypeError(Exception):
    pass


_BASE_ARG = {
    "Tensor": "const Tensor&",
    "Scalar": "const Scalar&",
    "int": "int64_t",
    "float": "double",
    "bool": "bool",
    "str": "std::string_view",
    "ScalarType": "ScalarType",
    "Device": "Device",
    "Generator": "Generator",
    "Layout": "Layout",
    "MemoryFormat": "MemoryFormat",
}
_BASE_VALUE = {**_BASE_ARG, "Tensor": "Tensor", "Scalar": "Scalar"}


def _value_type(t: Type) -> str:
    """The by-value C++ type of a schema type (element types inside optionals)."""
    if isinstance(t, BaseType):
        if t.name not in _BASE_VALUE:
            raise CppTypeError(f"type {t.name} has no C++ binding yet")
        return _BASE_VALUE[t.name]
    if isinstance(t, OptionalType):
        return f"std::optional<{_value_type(t.elem)}>"
    raise CppTypeError(f"no by-value C++ type for {t}")


def argument_type(t: Type) -> str:
    """C++ parameter type for a schema argument type."""
    if isinstance(t, BaseType):
        if t.name not in _BASE_ARG:
            raise CppTypeError(f"type {t.name} has no C++ binding yet")
        return _BASE_ARG[t.name]
    if isinstance(t, OptionalType):
        elem = t.elem
        if isinstance(elem, ListType) and elem.elem == BaseType("int"):
            return "OptionalIntArrayRef"
        if isinstance(elem, ListType) and elem.elem == BaseType("float"):
            return "std::optional<ArrayRef<double>>"
        inner = _value_type(elem)
        if inner in ("Tensor", "Scalar"):
            return f"const std::optional<{inner}>&"
        return f"std::optional<{inner}>"
    if isinstance(t, ListType):
        if t.elem == BaseType("int"):
            return "IntArrayRef"
        if t.elem == BaseType("float"):
            return "ArrayRef<double>"
        if t.elem == BaseType("Tensor"):
            return "TensorList"
        if t.elem == BaseType("bool") and t.size is not None:
            return f"std::array<bool, {t.size}>"
        if t.elem == OptionalType(BaseType("Tensor")):
            return "const std::vector<std::optional<Tensor>>&"
    raise CppTypeError(f"type {t} has no C++ binding yet")


def saved_type(t: Type) -> str:
    """An owning C++ type to keep an argument of type t in a backward node."""
    api = argument_type(t)
    return {
        "IntArrayRef": "std::vector<int64_t>",
        "OptionalIntArrayRef": "std::optional<std::vector<int64_t>>",
        "ArrayRef<double>": "std::vector<double>",
        "std::optional<ArrayRef<double>>": "std::optional<std::vector<double>>",
        "std::string_view": "std::string",
        "std::optional<std::string_view>": "std::optional<std::string>",
        "const Scalar&": "Scalar",
        "const std::optional<Scalar>&": "std::optional<Scalar>",
        # index tensors (Tensor?[], never differentiable) are kept as they are
        "const std::vector<std::optional<Tensor>>&": "std::vector<std::optional<Tensor>>",
    }.get(api, api)


def return_type(rets: tuple[Return, ...]) -> str:
    def one(r: Return) -> str:
        if r.type == BaseType("Tensor"):
            return "const Tensor&" if r.annotation is not None and r.annotation.is_write else "Tensor"
        if r.type == ListType(BaseType("Tensor")):
            return "std::vector<Tensor>"
        return _value_type(r.type)
    if len(rets) == 0:
        return "void"
    if len(rets) == 1:
        return one(rets[0])
    return "std::tuple<" + ", ".join(one(r) for r in rets) + ">"


_LIST_DEFAULT = re.compile(r"^\[(.*)\]$")


def default_value(arg: Argument) -> str:
    """The C++ default for an argument's schema default."""
    d = arg.default
    assert d is not None
    if d == "None":
        return "std::nullopt" if isinstance(arg.type, OptionalType) else "{}"
    if d in ("True", "False"):
        return d.lower()
    if arg.type in (BaseType("MemoryFormat"), OptionalType(BaseType("MemoryFormat"))):
        return "MemoryFormat::" + "".join(p.capitalize() for p in d.split("_")).replace("Format", "")
    m = _LIST_DEFAULT.match(d)
    if m:
        return "{" + m.group(1) + "}"
    if d.startswith(("'", '"')):
        return '"' + d[1:-1] + '"'
    return d


def api_name(f: NativeFunction) -> str:
    """Name of the public C++ function: add, add_, add_out."""
    s = f.schema
    if s.kind() == SchemaKind.out:
        return s.name.base + "_out"
    return s.name.name


@dataclass(frozen=True)
class CppParam:
    type: str
    name: str
    default: str | None = None

    def __str__(self) -> str:
        return self.decl(False)

    def decl(self, with_default: bool) -> str:
        d = f" = {self.default}" if with_default and self.default is not None else ""
        return f"{self.type} {self.name}{d}"


def api_params(f: NativeFunction) -> list[CppParam]:
    """Public API parameters: out arguments first (as in PyTorch's C++ API), then the rest."""
    s = f.schema
    outs = list(s.out_arguments)
    rest = [a for a in s.arguments if a not in outs]
    params = [CppParam(argument_type(a.type), a.name) for a in outs]
    params += [CppParam(argument_type(a.type), a.name, default_value(a) if a.default is not None else None)
               for a in rest]
    # A default is only usable if every later parameter has one too.
    seen_required = False
    for i in range(len(params) - 1, -1, -1):
        if params[i].default is None:
            seen_required = True
        elif seen_required:
            params[i] = CppParam(params[i].type, params[i].name)
    return params


def schema_params(f: NativeFunction) -> list[CppParam]:
    """Parameters in schema order, without defaults (backends, wrappers)."""
    return [CppParam(argument_type(a.type), a.name) for a in f.schema.arguments]


def kernel_params(f: NativeFunction, out_kernel: bool) -> list[CppParam]:
    """Kernel parameters: the functional's arguments, plus one `Tensor&` per return for out kernels
    (entries with derived in-place/out variants share one kernel that writes into `out`)."""
    src = f.functional or f
    params = schema_params(src)
    if out_kernel:
        rets = src.schema.returns
        names = ["out"] if len(rets) == 1 else [r.name or f"out{i}" for i, r in enumerate(rets)]
        params += [CppParam("Tensor&", n) for n in names]
    return params


def kernel_return(f: NativeFunction, out_kernel: bool) -> str:
    src = f.functional or f
    return "void" if out_kernel else return_type(src.schema.returns)
