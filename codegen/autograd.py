"""What a backward node needs, worked out from an entry's derivative formulas.

A formula is C++ over `grad`/`grads[i]`, `result` (or named results), and the op's inputs.
`x.sizes()`-style calls on an input become saved attributes (`x_sizes`), so the node keeps the
sizes rather than the tensor; any other mention of a tensor input saves the tensor itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from codegen import cpp
from codegen.model import Argument, BaseType, ListType, NativeFunction, OptionalType

# Tensor accessors a formula may call; each is saved as a plain value of this C++ type.
SAVED_ATTRIBUTES = {
    "sizes": "DimVector",
    "strides": "DimVector",
    "storage_offset": "int64_t",
    "scalar_type": "ScalarType",
    "dtype": "ScalarType",
    "device": "Device",
    "numel": "int64_t",
    "dim": "int64_t",
}
_ATTR_RE = re.compile(r"\b([A-Za-z_]\w*)\.(" + "|".join(SAVED_ATTRIBUTES) + r")\(\)")
NON_DIFFERENTIABLE = "non_differentiable"


def node_name_base(base: str) -> str:
    """add -> Add, floor_divide -> FloorDivide, _to_copy -> ToCopy, log1p -> Log1P (as PyTorch's
    names: a letter after a digit is capitalized too)."""
    return "".join(part.title() for part in base.split("_") if part)


def _mentions(formula: str, name: str) -> bool:
    return re.search(rf"(?<![\w.:]){re.escape(name)}\b(?!\s*\()", formula) is not None


_TENSOR = BaseType("Tensor")
_OPT_TENSOR = OptionalType(_TENSOR)
_TENSOR_LIST = ListType(_TENSOR)
# Attributes of a Tensor[] input a formula may use (`tensors.sizes()`): saved as one value per
# element by these helpers of FunctionsManual.h.
LIST_ATTRIBUTES = {"sizes": ("std::vector<DimVector>", "list_sizes"),
                   "scalar_type": ("std::vector<ScalarType>", "list_scalar_types"),
                   "dtype": ("std::vector<ScalarType>", "list_scalar_types")}


@dataclass(frozen=True)
class EdgeRange:
    """The next edges of one differentiable input: one for a tensor, one per element of a list
    (whose length the node records as `<name>_size_`)."""
    name: str
    start: str       # C++ expression in the node: "1", "tensors_size_ + 1"
    is_list: bool

    @property
    def count(self) -> str:
        return f"{self.name}_size_" if self.is_list else "1"

    def needed(self, prefix: str = "") -> str:
        """C++ condition: the input needs a gradient (prefix `grad_fn->` outside the node)."""
        start = re.sub(r"\b(\w+_size_)", prefix + r"\1", self.start)
        if self.is_list:
            return f"{prefix}should_compute_any({start}, {prefix}{self.count})"
        return f"{prefix}should_compute_output({start})"


@dataclass(frozen=True)
class SavedItem:
    member: str          # member name in the node: self_, self_sizes, alpha_
    cpp_type: str        # SavedVariable, DimVector, Scalar, ...
    init: str            # expression (in the wrapper) that produces the saved value
    local: str | None    # name bound in apply() (None for attributes, used directly)
    unpack: str | None   # expression in apply() giving the local
    inputs: tuple[str, ...]  # differentiable inputs whose formulas use it (save only if one needs it)
    is_output: bool = False

    @property
    def is_tensor(self) -> bool:
        return self.cpp_type in ("SavedVariable", "std::vector<SavedVariable>")


@dataclass(frozen=True)
class GradFormula:
    inputs: tuple[EdgeRange, ...]   # the inputs it produces gradients for
    formula: str                    # rewritten C++ expression
    uses_mask: bool                 # reads `grad_input_mask`


@dataclass(frozen=True)
class BackwardInfo:
    node: str                          # class name, e.g. MulBackward0
    source: NativeFunction
    diff_inputs: tuple[Argument, ...]  # tensor inputs with a formula, in schema order = next-edge order
    edges: tuple[EdgeRange, ...]       # one per diff input
    formulas: tuple[GradFormula, ...]
    saved: tuple[SavedItem, ...]
    result_names: tuple[str, ...]
    differentiable_outputs: tuple[bool, ...]

    @property
    def saved_tensors(self) -> tuple[SavedItem, ...]:
        return tuple(s for s in self.saved if s.is_tensor)

    @property
    def lists(self) -> tuple[EdgeRange, ...]:
        return tuple(e for e in self.edges if e.is_list)

    @property
    def has_lists(self) -> bool:
        return any(e.is_list for e in self.edges)

    @property
    def returns_list(self) -> bool:
        rets = self.source.schema.returns
        return len(rets) == 1 and rets[0].type == _TENSOR_LIST

    def needed(self, inputs: tuple[str, ...], prefix: str = "") -> str:
        """C++ condition: one of these inputs needs a gradient."""
        by_name = {e.name: e for e in self.edges}
        return " || ".join(by_name[n].needed(prefix) for n in inputs)


def result_names(f: NativeFunction) -> tuple[str, ...]:
    rets = f.schema.returns
    if len(rets) == 1:
        return ("result",)
    return tuple(r.name or f"result{i}" for i, r in enumerate(rets))


def _edges(diff_inputs: tuple[Argument, ...]) -> tuple[EdgeRange, ...]:
    edges, fixed, lists = [], 0, []
    for a in diff_inputs:
        start = " + ".join(lists + ([str(fixed)] if fixed or not lists else []))
        is_list = a.type == _TENSOR_LIST
        edges.append(EdgeRange(a.name, start, is_list))
        if is_list:
            lists.append(f"{a.name}_size_")
        else:
            fixed += 1
    return tuple(edges)


def analyze(f: NativeFunction, node: str) -> BackwardInfo | None:
    """None when the entry has no differentiable input."""
    formulas = [d for d in f.derivatives if d.formula.strip() != NON_DIFFERENTIABLE]
    if not formulas:
        return None
    covered = {name for d in formulas for name in d.inputs}
    diff_inputs = tuple(a for a in f.schema.arguments if a.name in covered)
    edges = _edges(diff_inputs)
    edge_of = {e.name: e for e in edges}
    results = result_names(f)

    rewritten: list[GradFormula] = []
    uses: dict[str, set[str]] = {}   # saved member -> inputs needing it
    attr_items: dict[str, SavedItem] = {}
    for d in formulas:
        text = d.formula.strip()

        def attr(m: re.Match) -> str:
            owner, what = m.group(1), m.group(2)
            arg = f.schema.argument(owner)
            if arg is None and owner not in results:
                return m.group(0)
            member = f"{owner}_{what}"
            if arg is not None and arg.type == _TENSOR_LIST:
                if what not in LIST_ATTRIBUTES:
                    return m.group(0)
                ty, helper = LIST_ATTRIBUTES[what]
                item = SavedItem(member, ty, f"{helper}({owner})", None, None, ())
            elif arg is not None and arg.type == _OPT_TENSOR:
                ty = SAVED_ATTRIBUTES[what]
                item = SavedItem(member, ty, f"{owner} ? {ty}({owner}->{what}()) : {ty}()", None, None, ())
            else:
                item = SavedItem(member, SAVED_ATTRIBUTES[what], f"{owner}.{what}()", None, None, ())
            attr_items.setdefault(member, item)
            uses.setdefault(member, set()).update(d.inputs)
            return member

        text = _ATTR_RE.sub(attr, text)
        for a in f.schema.arguments:
            if _mentions(text, a.name):
                uses.setdefault(a.name + "_", set()).update(d.inputs)
        for r in results:
            if _mentions(text, r):
                uses.setdefault(r + "_", set()).update(d.inputs)
        rewritten.append(GradFormula(tuple(edge_of[n] for n in d.inputs), text,
                                     _mentions(text, "grad_input_mask")))

    order = [e.name for e in edges]

    def inputs_of(member: str) -> tuple[str, ...]:
        return tuple(sorted(uses[member], key=order.index))

    saved: list[SavedItem] = []
    for a in f.schema.arguments:  # inputs first, in schema order
        member = a.name + "_"
        if member not in uses:
            continue
        if a.type == _TENSOR:
            saved.append(SavedItem(member, "SavedVariable", f"SavedVariable({a.name}, false)", a.name,
                                   f"{member}.unpack(shared_from_this())", inputs_of(member)))
        elif a.type == _OPT_TENSOR:
            saved.append(SavedItem(member, "SavedVariable", f"save_optional({a.name}, false)", a.name,
                                   f"unpack_optional({member}, shared_from_this())", inputs_of(member)))
        elif a.type == _TENSOR_LIST:
            saved.append(SavedItem(member, "std::vector<SavedVariable>", f"save_list({a.name}, false)", a.name,
                                   f"unpack_list({member}, shared_from_this())", inputs_of(member)))
        else:
            saved.append(SavedItem(member, cpp.saved_type(a.type), _owning_init(a), a.name,
                                   f"as_arg({member})", inputs_of(member)))
    for member in sorted(attr_items):
        item = attr_items[member]
        saved.append(SavedItem(item.member, item.cpp_type, item.init, None, None, inputs_of(member)))
    for r in results:
        member = r + "_"
        if member in uses:
            saved.append(SavedItem(member, "SavedVariable", f"SavedVariable({r}, true)", r,
                                   f"{member}.unpack(shared_from_this())", inputs_of(member),
                                   is_output=True))
    od = f.output_differentiability or tuple(True for _ in f.schema.returns)
    return BackwardInfo(node, f, diff_inputs, edges, tuple(rewritten), tuple(saved), results, tuple(od))


def _owning_init(a: Argument) -> str:
    owning = cpp.saved_type(a.type)
    api = cpp.argument_type(a.type)
    if owning == api or owning in ("Scalar", "std::optional<Scalar>"):
        return a.name
    if owning == "std::vector<int64_t>":
        return f"{a.name}.vec()"
    if owning == "std::optional<std::vector<int64_t>>":
        return f"{a.name} ? std::optional<std::vector<int64_t>>({a.name}->vec()) : std::nullopt"
    if owning == "std::string":
        return f"std::string({a.name})"
    if owning == "std::optional<std::string>":
        return f"{a.name} ? std::optional<std::string>(std::string(*{a.name})) : std::nullopt"
    return a.name
