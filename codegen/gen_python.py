"""Emits the Python bindings: one C entry point per Python name that picks the overload itself
(PythonArgParser, first match wins), converts the arguments, releases the GIL around the op and
wraps the result; plus the type stubs."""
from __future__ import annotations

import keyword

from dataclasses import dataclass, field

from codegen import cpp
from codegen.context import Context
from codegen.model import (
    INTERNAL_MODULE, PYTHON_MODULES, Argument, BaseType, ListType, NativeFunction, OptionalType, SchemaKind,
    Type,
)
from codegen.templates import render

# Schema type -> PythonArgs accessor.
_ACCESSORS = {
    "Tensor": "tensor", "Tensor?": "optional_tensor", "Tensor[]": "tensorlist",
    "Scalar": "scalar", "Scalar?": "scalar_optional",
    "int": "toInt64", "int?": "toInt64_optional",
    "float": "toDouble", "float?": "toDouble_optional",
    "bool": "toBool", "bool?": "toBool_optional",
    "str": "string", "str?": "string_optional",
    "ScalarType": "scalartype", "ScalarType?": "scalartype_optional",
    "Device": "device", "Device?": "device_optional",
    "Generator?": "generator_optional",
    "Layout?": "layout_optional",
    "MemoryFormat": "memory_format", "MemoryFormat?": "memory_format_optional",
}
# Overloads with this tag are generated in C++ only: PyTorch generates them (`autogen:`) and gives
# them no Python binding.
PYTHON_HIDDEN_TAG = "generated"
# Owning values that do not convert implicitly to the API type.
_NEEDS_AS_ARG = {"intlist_optional", "string_optional", "doublelist", "doublelist_optional"}


def _accessor(t: Type) -> str:
    if isinstance(t, ListType) and t.elem == BaseType("int"):
        return "intlist"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType) and t.elem.elem == BaseType("int"):
        return "intlist_optional"
    if isinstance(t, ListType) and t.elem == BaseType("float"):
        return "doublelist"
    if isinstance(t, OptionalType) and isinstance(t.elem, ListType) and t.elem.elem == BaseType("float"):
        return "doublelist_optional"
    if isinstance(t, ListType) and t.elem == BaseType("bool") and t.size:
        return f"boollist<{t.size}>"
    if isinstance(t, ListType) and t.elem == OptionalType(BaseType("Tensor")):
        return "list_of_optional_tensors"
    return _ACCESSORS[str(t)]


@dataclass
class PyParam:
    arg: Argument | None     # None for Python-only parameters (requires_grad, an out= tuple)
    py_name: str
    sig: str                 # "Tensor input", "Scalar alpha=1"
    kwarg_only: bool
    out_tuple: bool = False  # `out=(values, indices)` of an op with several outputs


@dataclass
class Overload:
    f: NativeFunction
    out: NativeFunction | None
    params: list[PyParam]
    signature: str           # the parser string
    factory: bool

    def index(self, name: str) -> int:
        return next(i for i, p in enumerate(self.params) if p.arg is not None and p.arg.name == name)


@dataclass
class Binding:
    py_name: str             # Python-visible name
    c_name: str              # C function name
    is_method: bool
    not_implemented_on_type_error: bool   # Python operators
    overloads: list[Overload] = field(default_factory=list)
    module: str = "_ops"     # the torchlite._C submodule of a function (`python_module: nn` -> "_nn")

    @property
    def base(self) -> str:
        """The base name of the op it binds (the shard key)."""
        return self.overloads[0].f.schema.name.base

    @property
    def numbers_as_tensors(self) -> bool:
        return any("numbers_as_tensors" in ov.f.tags for ov in self.overloads)


def _sig_type(a: Argument) -> str:
    return str(a.type)


def _py_params(f: NativeFunction, out: NativeFunction | None, method: bool) -> list[PyParam]:
    params: list[PyParam] = []
    for a in f.schema.arguments:
        if method and a.name == "self":
            continue
        name = "input" if (a.name == "self" and a.type == BaseType("Tensor")) else a.name
        sig = f"{_sig_type(a)} {name}" + (f"={a.default}" if a.default is not None else "")
        params.append(PyParam(a, name, sig, a.kwarg_only))
    if out is not None:
        outs = out.schema.out_arguments
        if len(outs) == 1:  # Python names it `out` whatever the schema's name (`grad_input`), as PyTorch's
            params.append(PyParam(outs[0], "out", "Tensor? out=None", True))
        else:  # several outputs: Python passes them as one tuple, `out=(values, indices)`
            params.append(PyParam(None, "out", "Tensor[]? out=None", True, out_tuple=True))
    if "factory" in f.tags:
        params += _factory_options(f)
        params.append(PyParam(None, "requires_grad", "bool requires_grad=False", True))
    return params


# The tensor options of PyTorch's factory signatures that a schema may leave out because they change
# nothing in torchlite (dense CPU tensors only): Python still accepts them, as PyTorch does.
# (name, parser signature, stub type); memory_format only for the `*_like` factories (input first).
_FACTORY_OPTIONS = (("layout", "Layout? layout=None", "Any"), ("pin_memory", "bool? pin_memory=False", "bool"))
_LIKE_OPTION = ("memory_format", "MemoryFormat? memory_format=None", "Any")


def _factory_options(f: NativeFunction) -> list[PyParam]:
    """Python-only keywords of a factory for the options its schema lacks."""
    options = list(_FACTORY_OPTIONS)
    first = f.schema.arguments[0] if f.schema.arguments else None
    if first is not None and first.name == "self" and first.type == BaseType("Tensor"):
        options.append(_LIKE_OPTION)
    return [PyParam(None, name, sig, True) for name, sig, _ in options if f.schema.argument(name) is None]


def _option_index(ov: Overload, name: str) -> int | None:
    """Index of the Python-only factory option `name` among ov's parameters, or None."""
    return next((i for i, p in enumerate(ov.params) if p.arg is None and p.py_name == name), None)


def _signature(name: str, params: list[PyParam]) -> str:
    parts: list[str] = []
    star = False
    for p in params:
        if p.kwarg_only and not star:
            parts.append("*")
            star = True
        parts.append(p.sig)
    return f"{name}({', '.join(parts)})"


def _overload(f: NativeFunction, out: NativeFunction | None, method: bool, name: str) -> Overload:
    params = _py_params(f, out, method)
    return Overload(f, out, params, _signature(name, params), "factory" in f.tags)


def bindings(ctx: Context) -> tuple[list[Binding], list[Binding]]:
    """(module functions, Tensor methods including Python operators), each sorted by name."""
    outs = {str(f.functional.schema.name): f for f in ctx.file.functions
            if f.derived_kind == SchemaKind.out}
    # out= overloads written in the YAML, paired with their functional overload by the loader
    outs.update({str(f.out_of.schema.name): f for f in ctx.file.functions
                 if f.out_of is not None and PYTHON_HIDDEN_TAG not in f.tags})
    functions: dict[tuple[str, str], Binding] = {}  # (name, module): a name may be in several modules
    methods: dict[str, Binding] = {}
    for f in ctx.file.functions:
        if f.schema.kind() == SchemaKind.out or PYTHON_HIDDEN_TAG in f.tags:
            continue  # out=: reached through the out= keyword of its functional overload
        name = f.schema.name.name
        out = outs.get(str(f.schema.name))
        if "function" in f.variants:
            module = f.python_namespace or "_ops"
            c_name = f"fn_{name}" if module == "_ops" else f"fn{module}_{name}"
            b = functions.setdefault((name, module), Binding(name, c_name, False, False, module=module))
            b.overloads.append(_overload(f, out, False, name))
        if f.python_binding is not None:
            continue  # bound in torchlite._C._internal only: no method, no operator
        if "method" in f.variants and f.schema.argument("self") is not None \
                and f.schema.argument("self").type == BaseType("Tensor"):
            b = methods.setdefault(name, Binding(name, f"method_{name}", True, False))
            b.overloads.append(_overload(f, None, True, name))
        for op in f.python_operators:
            b = methods.setdefault(op, Binding(op, f"operator{op}", True, True))
            b.overloads.append(_overload(f, None, True, op))
    return [functions[k] for k in sorted(functions)], [methods[k] for k in sorted(methods)]


# Names a binding's body uses itself: an argument called so (fill_diagonal_'s `wrap`) gets a local
# with a trailing underscore instead, so it does not hide them.
_BODY_NAMES = frozenset({"wrap", "wrap_named", "r", "parsed", "parser", "result", "requires_grad", "jit_trace"})


def _local(name: str) -> str:
    """The C++ local holding argument `name` in a binding's body."""
    return name + "_" if name in _BODY_NAMES else name


def _typed_lists(b: Binding, f: NativeFunction) -> set[str]:
    """f's list arguments that need their C++ type named in the call: where another overload of the
    same C++ function takes another list type at that position (`histogramdd(self, int[] bins)` and
    `histogramdd(self, Tensor[] bins)`), a bare local would be ambiguous, as `ArrayRef` converts from
    any container, a `std::string` included (`conv2d(..., int[2] padding)` and `conv2d.padding(...,
    str padding)`)."""
    mine = cpp.api_params(f)
    names: set[str] = set()
    for other in (g for ov in b.overloads for g in (ov.f, ov.out) if g is not None and g is not f):
        if cpp.api_name(other) != cpp.api_name(f):
            continue
        for p, q in zip(mine, cpp.api_params(other)):
            a, c = f.schema.argument(p.name), other.schema.argument(q.name)
            listy = [isinstance(t, ListType) or t == BaseType("str") for t in (a.type, c.type)]
            if p.type != q.type and all(listy) and ListType in (type(a.type), type(c.type)):
                names.add(p.name)
    return names


def _arg_exprs(f: NativeFunction, typed_lists: frozenset[str]) -> dict[str, str]:
    """The C++ expression passing each schema argument of f to the public API, by name."""
    exprs = {}
    for p in cpp.api_params(f):
        needs_conversion = _accessor(f.schema.argument(p.name).type) in _NEEDS_AS_ARG
        local = _local(p.name)
        if p.name in typed_lists:
            local = f"{p.type}({local})"
        exprs[p.name] = f"as_arg({local})" if needs_conversion else local
    return exprs


def _call(ov: Overload, f: NativeFunction, typed_lists: frozenset[str] = frozenset()) -> str:
    """C++ call of the public API for entry f with locals named after the schema arguments
    (those in `typed_lists` converted to their C++ type explicitly)."""
    exprs = _arg_exprs(f, typed_lists)
    return f"tl::{cpp.api_name(f)}({', '.join(exprs[p.name] for p in cpp.api_params(f))})"


# API types a traced argument is converted to before boxing (parsed lists are small vectors).
_TRACE_CASTS = ("IntArrayRef", "OptionalIntArrayRef", "ArrayRef<double>", "std::optional<ArrayRef<double>>",
                "TensorList")


def _trace_scope(f: NativeFunction, typed_lists: frozenset[str]) -> str:
    """The statement recording the call in the JIT tracer when this thread traces
    (aten/jit/Tracer.h): the op's schema name and its arguments in schema order."""
    exprs = _arg_exprs(f, typed_lists)
    # Boxed as the API's own types (a parsed int list is a small vector that converts to IntArrayRef).
    types = {p.name: p.type for p in cpp.api_params(f)}
    for name, ty in types.items():
        if ty in _TRACE_CASTS and not exprs[name].startswith(ty + "("):
            exprs[name] = f"{ty}({exprs[name]})"
    args = "".join(f", {exprs[a.name]}" for a in f.schema.arguments)
    return f'jit::tracer::TraceScope jit_trace("{f.schema.name}"{args});'


def named_return(f: NativeFunction) -> tuple[str, list[str]] | None:
    """(type name, field names) of the named tuple an overload returns in Python: ops with several
    named returns give torchlite.return_types.<name> (<name>_out for their out= overloads)."""
    rets = f.schema.returns
    if len(rets) < 2 or not all(r.name for r in rets):
        return None
    if f.python_binding is not None:
        return None  # a plain tuple, as torch.ops.aten gives: torch.return_types has no type for it
    name = f.schema.name.base + ("_out" if f.schema.kind() == SchemaKind.out else "")
    return name, [r.name for r in rets]


def _wrap(f: NativeFunction) -> str:
    rets = f.schema.returns
    if len(rets) == 0:
        return "Py_RETURN_NONE;"
    named = named_return(f)
    if named:
        return f"return wrap_named({named[0]}_type, wrap(result));"
    return "return wrap(std::move(result));"


def return_types(bs: list[Binding]) -> list[tuple[str, list[str]]]:
    """The named-tuple types a shard's bindings return, each once."""
    found: dict[str, list[str]] = {}
    for b in bs:
        for ov in b.overloads:
            for f in (ov.f, ov.out):
                named = f and named_return(f)
                if named:
                    found.setdefault(*named)
    return sorted(found.items())


def case_body(b: Binding, ov: Overload) -> list[str]:
    """Lines of C++ for one matched overload (the `r` holds the parsed arguments)."""
    lines: list[str] = []
    if b.is_method:
        lines.append("const Tensor& self = unpack_tensor(py_self);")
    for i, p in enumerate(ov.params):
        if p.arg is None or (ov.out is not None and p.arg in ov.out.schema.out_arguments):
            continue
        lines.append(f"auto {_local(p.arg.name)} = r.{_accessor(p.arg.type)}({i});")
    if ov.factory:
        lines.append(f"bool requires_grad = r.toBool({len(ov.params) - 1});")
        pin = _option_index(ov, "pin_memory")
        if pin is not None:  # layout needs no check: torchlite.strided is the only layout
            lines.append(f"native::check_pin_memory(r.toBool_optional({pin}));")
    memory_format = _option_index(ov, "memory_format")

    def invoke(f: NativeFunction, indent: str) -> list[str]:
        typed = frozenset(_typed_lists(b, f))
        call = _call(ov, f, typed)
        trace = indent + _trace_scope(f, typed)
        if not f.schema.returns:
            return [trace, f"{indent}[&] {{ GilRelease no_gil; {call}; }}();", f"{indent}jit_trace.done();",
                    f"{indent}Py_RETURN_NONE;"]
        out = [trace, f"{indent}auto result = [&] {{ GilRelease no_gil; return {call}; }}();",
               f"{indent}jit_trace.done(result);"]
        if memory_format is not None and f is ov.f:  # the result follows self's layout (preserve_format)
            out.append(f"{indent}if (auto format = r.memory_format_optional({memory_format}); "
                       "format && *format != MemoryFormat::Preserve)")
            out.append(f"{indent}  result = tl::contiguous(result, *format);")
        if ov.factory:
            out.append(f"{indent}if (requires_grad) result.set_requires_grad(true);")
        out.append(f"{indent}{_wrap(f)}")
        return out

    if ov.out is not None:
        names = [a.name for a in ov.out.schema.out_arguments]
        if len(names) == 1:
            idx = ov.index(names[0])
            lines.append(f"if (!r.is_none({idx})) {{")
            lines.append(f"  auto {_local(names[0])} = r.tensor({idx});")
        else:
            idx = next(i for i, p in enumerate(ov.params) if p.out_tuple)
            lines.append(f"if (!r.is_none({idx})) {{")
            # `outs`, not `out`: PyTorch names the first output `out` in some (max_pool2d_with_indices.out).
            lines.append(f"  auto outs = r.tensorlist({idx});")
            lines.append(f"  check_out_tuple(outs, {len(names)});")
            for k, n in enumerate(names):
                lines.append(f"  const Tensor& {_local(n)} = outs[{k}];")
        lines += invoke(ov.out, "  ")
        lines.append("}")
    lines += invoke(ov.f, "")
    return lines


def uses_args(b: Binding) -> bool:
    """Whether any overload reads a parsed argument (else the parse result is not kept)."""
    return len(b.overloads) > 1 or any("r." in line for line in case_body(b, b.overloads[0]))


def _doc(f: NativeFunction) -> str:
    if f.derived_kind == SchemaKind.inplace:
        return f"In-place version of {f.schema.name.base}(): writes the result into self. {f.doc.strip()}"
    return f.doc.strip()


def docstring(b: Binding) -> str:
    parts = []
    for ov in b.overloads:
        parts.append(f"{ov.signature} -> {_py_return(ov.f)}\n\n{_doc(ov.f)}")
    return "\n\n".join(parts)


def generate(ctx: Context) -> dict[str, str]:
    functions, methods = bindings(ctx)
    # Sharded by the op's base name, like the C++ shards: an op's function, method and operator
    # bindings land in one file.
    shards: list[tuple[list[Binding], list[Binding]]] = [([], []) for _ in range(ctx.num_shards)]
    for b in functions:
        shards[ctx.shard(b.base)][0].append(b)
    for b in methods:
        shards[ctx.shard(b.base)][1].append(b)
    files: dict[str, str] = {}
    used = [i for i, (fns, mths) in enumerate(shards) if fns or mths]
    for i in used:
        fns, mths = shards[i]
        headers = {ov.f.schema.name.base for b in fns + mths for ov in b.overloads}
        if any(_option_index(ov, "memory_format") is not None for b in fns + mths for ov in b.overloads):
            headers.add("contiguous")  # a *_like factory's memory_format=
        headers = sorted(headers)
        factory_options = any(_option_index(ov, "pin_memory") is not None for b in fns + mths for ov in b.overloads)
        out_tuples = any(p.out_tuple for b in fns + mths for ov in b.overloads for p in ov.params)
        files[f"python/bindings_{i}.cpp"] = render("python_shard.cpp.j2", shard=i, functions=fns, methods=mths,
                                                   headers=headers, factory_options=factory_options,
                                                   case_body=case_body, docstring=docstring,
                                                   uses_args=uses_args, return_types=return_types(fns + mths),
                                                   out_tuples=out_tuples)
    files["python/init.cpp"] = render("python_init.cpp.j2", shards=used,
                                      modules=["_ops"] + [f"_{m}" for m in (*PYTHON_MODULES, INTERNAL_MODULE)])
    files["python/_ops.pyi"] = render("ops.pyi.j2", functions=[b for b in functions if b.module == "_ops"],
                                      stub=stub_lines)
    files["python/_C.pyi"] = render("C.pyi.j2", methods=methods, stub=stub_lines)
    return files


# ---- stubs -------------------------------------------------------------------------------

_PY_TYPES = {
    "Tensor": "Tensor", "Scalar": "Number", "int": "int", "float": "float", "bool": "bool", "str": "str",
    "ScalarType": "dtype", "Device": "DeviceLike", "Generator": "Generator",
    "Layout": "Any", "MemoryFormat": "Any",
}


def _py_type(t: Type) -> str:
    if isinstance(t, BaseType):
        return _PY_TYPES.get(t.name, "Any")
    if isinstance(t, OptionalType):
        return f"Optional[{_py_type(t.elem)}]"
    if t.elem == BaseType("int"):
        return "Union[int, Sequence[int]]" if t.size else "Sequence[int]"
    return f"Sequence[{_py_type(t.elem)}]"


def _py_return(f: NativeFunction) -> str:
    rets = f.schema.returns
    if not rets:
        return "None"
    if len(rets) == 1:
        return _py_type(rets[0].type)
    return "tuple[" + ", ".join(_py_type(r.type) for r in rets) + "]"


def _py_default(d: str) -> str:
    return {"[]": "()"}.get(d, d.replace("[", "(").replace("]", ")") if d.startswith("[") else d)


def stub_lines(b: Binding) -> list[str]:
    """`def` lines (with @overload when needed) and docstrings for one binding."""
    lines: list[str] = []
    many = len(b.overloads) > 1
    for ov in b.overloads:
        params = ["self"] if b.is_method else []
        star = False
        for p in ov.params:
            if p.kwarg_only and not star:
                params.append("*")
                star = True
            if p.out_tuple:
                ty = "Optional[tuple[Tensor, ...]]"
            elif p.arg is None:
                ty = next((t for n, _, t in _FACTORY_OPTIONS + (_LIKE_OPTION,) if n == p.py_name), "bool")
            else:
                ty = "Optional[Tensor]" if p.sig.startswith("Tensor? out") else _py_type(p.arg.type)
            default = p.sig.split("=", 1)[1] if "=" in p.sig else None
            if default is not None:
                default = _py_default(default)
            # A Python keyword (`from` of random_) is a keyword argument only through **kwargs; the stub spells it `from_`.
            name = p.py_name + "_" if keyword.iskeyword(p.py_name) else p.py_name
            params.append(f"{name}: {ty}" + (f" = {default}" if default is not None else ""))
        if many:
            lines.append("@overload")
        lines.append(f"def {b.py_name}({', '.join(params)}) -> {_py_return(ov.f)}:")
        lines.append(f'    """{_doc(ov.f)}"""')
        lines.append("    ...")
    return lines
