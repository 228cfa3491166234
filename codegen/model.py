"""Typed model of native_functions.yaml: schemas, arguments and the operator entries.

Everything is a frozen dataclass so the parsed YAML can be hashed, compared and printed
back. `str()` of a FunctionSchema reproduces the `func:` string it was parsed from.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import Optional


@dataclass(frozen=True)
class Location:
    file: str
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


# ---- types ---------------------------------------------------------------------------

BASE_TYPE_NAMES = (
    "Tensor", "Scalar", "int", "float", "bool", "str",
    "ScalarType", "Device", "Generator", "Layout", "MemoryFormat",
)


@dataclass(frozen=True)
class BaseType:
    name: str  # one of BASE_TYPE_NAMES

    def __str__(self) -> str:
        return self.name


@dataclass(frozen=True)
class OptionalType:
    elem: "Type"

    def __str__(self) -> str:
        return f"{self.elem}?"


@dataclass(frozen=True)
class ListType:
    elem: "Type"
    size: Optional[int] = None  # int[2] has size 2

    def __str__(self) -> str:
        return f"{self.elem}[{'' if self.size is None else self.size}]"


Type = BaseType | OptionalType | ListType


def is_tensor_like(t: Type) -> bool:
    """Tensor, Tensor?, Tensor[] and Tensor?[]: arguments that carry autograd history."""
    if isinstance(t, BaseType):
        return t.name == "Tensor"
    return is_tensor_like(t.elem)


# ---- arguments and returns -----------------------------------------------------------

@dataclass(frozen=True)
class Annotation:
    """`(a)` aliases the argument named by the same set; `(a!)` is also written to."""
    alias_set: str
    is_write: bool

    def __str__(self) -> str:
        return f"({self.alias_set}{'!' if self.is_write else ''})"


@dataclass(frozen=True)
class Argument:
    name: str
    type: Type
    default: Optional[str] = None   # the default exactly as written: "1", "None", "[]", "False"
    annotation: Optional[Annotation] = None
    kwarg_only: bool = False

    def __str__(self) -> str:
        ty = str(self.type)
        if self.annotation is not None:
            # The annotation sits after the base type name, before ? or []: Tensor(a!)[]
            base = ty.rstrip("?[]0123456789")
            ty = base + str(self.annotation) + ty[len(base):]
        s = f"{ty} {self.name}"
        if self.default is not None:
            s += f"={self.default}"
        return s


@dataclass(frozen=True)
class Return:
    type: Type
    name: Optional[str] = None
    annotation: Optional[Annotation] = None

    def __str__(self) -> str:
        ty = str(self.type)
        if self.annotation is not None:
            base = ty.rstrip("?[]0123456789")
            ty = base + str(self.annotation) + ty[len(base):]
        return f"{ty} {self.name}" if self.name else ty


@dataclass(frozen=True)
class OperatorName:
    base: str             # "add" (without the in-place underscore)
    inplace: bool         # "add_"
    overload: str         # "Tensor", "out", "" when absent

    @property
    def name(self) -> str:
        """The base name with the in-place underscore: "add_"."""
        return self.base + ("_" if self.inplace else "")

    @property
    def cpp_id(self) -> str:
        """Identifier unique per overload, usable in C++: "add__Tensor" -> "add__Tensor"."""
        ident = self.name + (f"_{self.overload}" if self.overload else "")
        # The op's struct in tl::ops must not be named like a namespace that generated code uses
        # (a struct `std` would hide `std::` there).
        return ident + "_op" if ident == "std" else ident

    def __str__(self) -> str:
        return self.name + (f".{self.overload}" if self.overload else "")


class SchemaKind(enum.Enum):
    functional = "functional"
    inplace = "inplace"
    out = "out"


@dataclass(frozen=True)
class FunctionSchema:
    name: OperatorName
    arguments: tuple[Argument, ...]
    returns: tuple[Return, ...]

    @property
    def positional(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if not a.kwarg_only)

    @property
    def kwarg_only(self) -> tuple[Argument, ...]:
        return tuple(a for a in self.arguments if a.kwarg_only)

    @property
    def out_arguments(self) -> tuple[Argument, ...]:
        """Keyword-only arguments written in place: the outputs of an out= overload."""
        return tuple(a for a in self.kwarg_only if a.annotation is not None and a.annotation.is_write)

    def kind(self) -> SchemaKind:
        if self.name.inplace:
            return SchemaKind.inplace
        if self.out_arguments:
            return SchemaKind.out
        return SchemaKind.functional

    def argument(self, name: str) -> Optional[Argument]:
        for a in self.arguments:
            if a.name == name:
                return a
        return None

    def __str__(self) -> str:
        parts: list[str] = []
        star_done = False
        for a in self.arguments:
            if a.kwarg_only and not star_done:
                parts.append("*")
                star_done = True
            parts.append(str(a))
        if len(self.returns) == 1 and self.returns[0].name is None:
            rets = str(self.returns[0])
        else:
            rets = "(" + ", ".join(str(r) for r in self.returns) + ")"
        return f"{self.name}({', '.join(parts)}) -> {rets}"


# ---- entries -------------------------------------------------------------------------

BACKENDS = ("CPU", "Meta")

# The dtypes an entry's `dtypes:` may name, in the order docs list them, and the groups it may use.
# `all` is the ten real dtypes; an op extended to complex says so with the `complex` group
# (`dtypes: [all, complex]`), which the generated forward suite then runs in complex64/complex128.
DTYPE_NAMES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32", "float64")
COMPLEX_DTYPE_NAMES = ("complex64", "complex128")
ALL_DTYPE_NAMES = DTYPE_NAMES + COMPLEX_DTYPE_NAMES
DTYPE_GROUPS = {
    "all": DTYPE_NAMES,
    "integral": ("uint8", "int8", "int16", "int32", "int64"),
    "floating": ("float16", "bfloat16", "float32", "float64"),
    "complex": COMPLEX_DTYPE_NAMES,
}


def describe_dtypes(dtypes: tuple[str, ...]) -> str:
    """The shortest spelling of a dtype set with the group names: `bool, integral`, `all, complex`."""
    if set(DTYPE_NAMES) <= set(dtypes):
        parts = ["all"]
    else:
        parts = ["bool"] if "bool" in dtypes else []
        for group in ("integral", "floating"):
            members = DTYPE_GROUPS[group]
            parts += [group] if set(members) <= set(dtypes) else [m for m in members if m in dtypes]
    parts += ["complex"] if set(COMPLEX_DTYPE_NAMES) <= set(dtypes) else [m for m in COMPLEX_DTYPE_NAMES if m in dtypes]
    return ", ".join(parts)
COMPOSITE = "Composite"

# The Python submodules a function binding may be placed in (`python_module: nn` binds it in
# torchlite._C._nn instead of torchlite._C._ops, as PyTorch binds F.elu's op in torch._C._nn).
PYTHON_MODULES = ("nn", "special", "linalg", "fft")
# `python_binding: internal`: PyTorch gives the op no public Python binding (backward ops, `slice`,
# `_to_copy`: reached there only as torch.ops.aten.X); torchlite binds the function in this private
# module alone, for its own Python code and the tests, and binds no method.
INTERNAL_MODULE = "internal"

# Python's augmented-assignment dunders: a `python_operators` name in this set binds the
# in-place variant of an op (`__iadd__` -> add_), every other dunder binds the op itself.
INPLACE_DUNDERS = frozenset(
    f"__i{op}__" for op in
    ("add", "sub", "mul", "matmul", "truediv", "floordiv", "mod", "pow",
     "lshift", "rshift", "and", "xor", "or")
)


@dataclass(frozen=True)
class Derivative:
    """The gradient formula for one or more inputs (`"self, other": formula` covers several)."""
    inputs: tuple[str, ...]
    formula: str
    loc: Location


@dataclass(frozen=True)
class OnnxMapping:
    """How torchlite.onnx translates the op (`onnx:` key). Either `op`, a 1:1 ONNX operator whose
    inputs are the named arguments (`inputs`, default: the tensor arguments in schema order) and whose
    attributes are set from arguments (`attributes`: ONNX attribute -> argument), exported only when
    each argument in `require` has the value given; or `function`, the name of a handwritten
    translation in torchlite/onnx/ (conv, lstm, reshape: mappings that are not 1:1)."""
    op: Optional[str] = None
    function: Optional[str] = None
    inputs: Optional[tuple[str, ...]] = None
    attributes: tuple[tuple[str, str], ...] = ()
    require: tuple[tuple[str, object], ...] = ()


@dataclass(frozen=True)
class Tag:
    name: str
    doc: str


@dataclass(frozen=True)
class NativeFunction:
    """One YAML entry, or a variant (in-place, out=) derived from one."""
    schema: FunctionSchema
    loc: Location
    doc: str
    variants: frozenset[str]                 # {"function", "method"}
    dispatch: tuple[tuple[str, str], ...]    # sorted (backend, kernel name) pairs; backend in BACKENDS or COMPOSITE
    composite_body: Optional[str]            # inline C++ body for a Composite op (`impl:` key)
    derivatives: tuple[Derivative, ...]
    non_differentiable: tuple[str, ...]      # inputs declared as having no gradient
    output_differentiability: Optional[tuple[bool, ...]]
    tags: tuple[str, ...]
    python_operators: tuple[str, ...]        # dunder names bound to this overload: ("__add__",)
    view_of: Optional[str]                   # name of the input this op returns a view of
    functional: Optional["NativeFunction"] = None  # for a derived in-place/out variant: its source entry
    derived_kind: Optional[SchemaKind] = None     # which variant this is, when derived
    # For an out= overload written in the YAML (`max.unary_out`): the functional overload it is the
    # out= form of (`max`), paired by the loader; Python reaches it as that overload's `out=`.
    out_of: Optional["NativeFunction"] = None
    # What the entry asked the generator to derive (`inplace: true` -> SchemaKind.inplace,
    # `out: true` -> SchemaKind.out), kept so validation can explain a variant it could not derive.
    derive: tuple[SchemaKind, ...] = ()
    # Sample calls for the YAML-driven gradient tests: each is the argument list of a Python call,
    # e.g. "T(3, 4), T(4), alpha=2" (see tests/test_gradcheck_generated.py for the helpers).
    samples: tuple[str, ...] = ()
    # The dtypes of the tensor inputs the op computes for (`dtypes:`, group names expanded, in
    # DTYPE_NAMES order); None when the entry does not say. tests/test_forward_generated.py checks
    # the declaration against PyTorch and the op against both.
    dtypes: Optional[tuple[str, ...]] = None
    # The autograd node's name when it is not the next `<Base>Backward<n>` in file order
    # (`backward_node:`): PyTorch numbers overloads in its own order (PowBackward0 is
    # pow.Tensor_Scalar), and an alias's in-place variant records its target's node (GtBackward0).
    backward_node: Optional[str] = None
    # The op this entry is another name of (`alias_of: asin` on `arcsin`): the generator writes the
    # body, and the derived in-place and out= variants call the target's own (`asin_`, `asin_out`),
    # so they follow the target's dtype rules exactly (PyTorch's aliases are the same kernels).
    alias_of: Optional[str] = None
    # How a composite op's derived out= checks the out tensor's dtype (`out_dtype:`): None for
    # PyTorch's usual rule (the result must cast to it safely), "exact" (matmul), "any" (stack, as cat).
    out_dtype: Optional[str] = None
    # `device_check: NoCheck`: the dispatcher takes the device of `self` alone and the other tensors
    # may be anywhere (resize_as_ reads only its template's sizes), as PyTorch's key of that name.
    device_check: Optional[str] = None
    # `out_autograd: records` on a composite entry: its out= variant accepts inputs that require grad
    # and records the ops it is made of (the copy into out: CopyBackwards), as PyTorch's
    # CompositeImplicitAutograd out= overloads (quantile.out); absent, out= refuses them.
    # `not_implemented` on a kernel entry: its out= accepts them and gives out PyTorch's NotImplemented
    # grad_fn, whose backward raises (PyTorch's out= overloads without a formula: softmax.int_out).
    out_autograd: Optional[str] = None
    # The Python submodule of the function binding (`python_module: nn` -> torchlite._C._nn), as
    # PyTorch's YAML key; None for the top-level torchlite._C._ops. Methods are unaffected.
    python_module: Optional[str] = None
    # `python_binding: internal`: no public binding; the function is bound in torchlite._C._internal
    # only (INTERNAL_MODULE), and no method or operator is bound. None: bound as the other keys say.
    python_binding: Optional[str] = None
    # `inplace: method`: the derived in-place variant is a Tensor method only (`Tensor.add_`, no
    # `torchlite.add_`), as PyTorch's in-place ops declared `variants: method`; `inplace: true` also
    # binds it as a function where the entry is one (`torchlite.abs_`).
    inplace_method_only: bool = False
    # `materialize_grads: false`: the backward node passes the gradients of unused outputs to its
    # formulas undefined (they check `grads[i].defined()`, as PyTorch's std_mean_backward) instead of
    # the engine filling them with zeros, which would turn a NaN in an unused part into NaN gradients.
    materialize_grads: bool = True
    # `onnx:`: how torchlite.onnx exports the op (None: it cannot be exported). Derived in-place
    # variants keep their source's mapping (the ONNX graph is functional); out= variants drop it.
    onnx: Optional[OnnxMapping] = None
    # Line of each YAML key of the entry ("func", "doc", ...; "non_differentiable:self" for an
    # input declared so), so errors point at the key. Not part of equality.
    key_lines: tuple[tuple[str, int], ...] = field(default=(), compare=False, repr=False)

    @property
    def python_namespace(self) -> Optional[str]:
        """The torchlite._C submodule binding the function (`_nn`, `_internal`), None for the top level."""
        if self.python_binding == INTERNAL_MODULE:
            return f"_{INTERNAL_MODULE}"
        return f"_{self.python_module}" if self.python_module else None

    def loc_of(self, key: str) -> Location:
        """Where `key` is written in the YAML; the entry's own line when it is absent."""
        for k, line in self.key_lines:
            if k == key:
                return Location(self.loc.file, line)
        return self.loc

    @property
    def is_composite(self) -> bool:
        return any(b == COMPOSITE for b, _ in self.dispatch)

    def kernel_for(self, backend: str) -> Optional[str]:
        for b, k in self.dispatch:
            if b == backend:
                return k
        return None

    @property
    def differentiable(self) -> bool:
        return bool(self.derivatives)


@dataclass(frozen=True)
class NativeFunctionsFile:
    functions: tuple[NativeFunction, ...]      # every overload, derived variants included, in file order
    tags: tuple[Tag, ...]
