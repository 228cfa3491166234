"""Emits the JIT's boxed op registry: generated/jit/ops_<k>.cpp, sharded like the other kinds.

Each YAML overload gets a registry entry (its `func:` string and flags, aten/jit/OpRegistry.h) and a
boxed wrapper that unboxes the schema's arguments from a Stack of IValues, calls the public C++ API
(`tl::<name>`) and pushes the results. Which overloads can be boxed is decided by their types
alone (`unbox`); the others are listed with the reason in the shard and in
torchlite._C._jit._skipped_ops()."""
from __future__ import annotations

from dataclasses import dataclass

from codegen import cpp
from codegen.context import Context
from codegen.model import BaseType, ListType, NativeFunction, OptionalType, Type
from codegen.templates import render

# Schema type -> IValue accessor call (see aten/jit/IValue.h).
_SIMPLE = {
    "Tensor": "toTensor()", "Tensor?": "toOptionalTensor()",
    "Tensor[]": "toTensorVector()", "Tensor?[]": "toOptionalTensorVector()",
    "Scalar": "toScalar()", "int": "toInt()", "float": "toDouble()", "bool": "toBool()",
    "str": "toStringRef()", "str?": "toOptionalString()",
    "ScalarType": "toScalarType()", "Device": "toDevice()", "Layout": "toLayout()",
    "MemoryFormat": "toMemoryFormat()", "Generator": "toGenerator()",
    "float[]": "toDoubleVector()", "float[]?": "toOptionalDoubleVector()",
}
# Owning accessor results that must be borrowed back as the API's type (aten/core/OwnedArgs.h).
_AS_ARG = {"str?", "float[]", "float[]?", "int[]?"}


# API parameter types an argument is converted to by name: ArrayRef converts from any container (a
# std::string included), so a bare value would make overloads of one C++ function ambiguous.
_NAMED_TYPES = {"IntArrayRef", "ArrayRef<double>", "std::string_view", "TensorList"}


class Unboxable(Exception):
    """The reason an argument type cannot be boxed yet."""


def unbox(t: Type) -> str:
    """The accessor expression (after `a[i].`) giving an argument of schema type t."""
    name = str(t)
    if name in _SIMPLE:
        expr = _SIMPLE[name]
    elif isinstance(t, ListType) and t.elem == BaseType("int"):
        expr = f"toIntVector({t.size or 0})"
    elif isinstance(t, OptionalType) and isinstance(t.elem, ListType) and t.elem.elem == BaseType("int"):
        expr = f"toOptionalIntVector({t.elem.size or 0})"
    elif isinstance(t, ListType) and t.elem == BaseType("bool") and t.size:
        expr = f"toBoolArray<{t.size}>()"
    elif isinstance(t, OptionalType) and isinstance(t.elem, BaseType) and str(t.elem) in _SIMPLE:
        expr = f"opt(&IValue::{_SIMPLE[str(t.elem)].rstrip('()')})"
    else:
        raise Unboxable(f"argument type {name} has no IValue accessor")
    return expr


@dataclass
class BoxedOp:
    schema: str
    fn: str           # the wrapper's C++ name
    nargs: int
    call: str         # the tl:: call on the unboxed arguments
    void: bool
    flags: str


def boxed(f: NativeFunction) -> BoxedOp:
    s = f.schema
    index = {a.name: i for i, a in enumerate(s.arguments)}
    args = []
    for p in cpp.api_params(f):
        t = s.argument(p.name).type
        expr = f"a[{index[p.name]}].{unbox(t)}"
        if str(t) in _AS_ARG or (isinstance(t, OptionalType) and isinstance(t.elem, ListType)):
            expr = f"as_arg({expr})"
        if p.type in _NAMED_TYPES:  # `conv2d(..., int[2] padding)` and `conv2d.padding(..., str padding)`
            expr = f"{p.type}({expr})"
        args.append(expr)
    # Tags the JIT's passes read (aten/jit/OpRegistry.h): `random` ops are never folded or merged,
    # `pointwise` ones may join a fusion group (torchlite/jit/_passes/fusion.py).
    flags = " | ".join(flag for tag, flag in (("random", "kNondeterministic"), ("pointwise", "kPointwise"))
                       if tag in f.tags) or "0"
    return BoxedOp(str(s), f"boxed_{s.name.cpp_id}", len(s.arguments),
                   f"tl::{cpp.api_name(f)}({', '.join(args)})", not s.returns, flags)


def generate(ctx: Context) -> dict[str, str]:
    shards: list[tuple[list[str], list[BoxedOp], list[str]]] = [([], [], []) for _ in range(ctx.num_shards)]
    for g in ctx.groups:
        headers, ops, skipped = shards[ctx.shard(g.base)]
        headers.append(g.base)
        for f in g.functions:
            try:
                ops.append(boxed(f))
            except Unboxable as e:
                skipped.append(f"{f.schema.name}: {e}")
    files = {}
    for i, (headers, ops, skipped) in enumerate(shards):
        if ops or skipped:
            files[f"jit/ops_{i}.cpp"] = render("jit_shard.cpp.j2", shard=i, headers=headers, ops=ops,
                                               skipped=skipped)
    return files
