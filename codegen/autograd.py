"""What a backward node needs, worked out from an entry's derivative formulas.

A formula is C++ over `grad`/`grads[i]`, `result` (or named results), and the op's inputs.
`x.sizes()`-style calls on an input become saved attributes (`x_sizes`), so the node keeps the
sizes rather than the tensor; any other mention of a tensor input saves the tensor itself.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from codegen import cpp
from codegen.model import Argument, BaseType, NativeFunction, OptionalType

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
    """add -> Add, floor_divide -> FloorDivide, _to_copy -> ToCopy."""
    return "".join(part.capitalize() for part in base.split("_") if part)


def _mentions(formula: str, name: str) -> bool:
    return re.search(rf"(?<![\w.:]){re.escape(name)}\b(?!\s*\()", formula) is not None


@dataclass(frozen=True)
class SavedItem:
    member: str          # member name in the node: self_, self_sizes, alpha_
    cpp_type: str        # SavedVariable, DimVector, Scalar, ...
    init: str            # expression (in the wrapper) that produces the saved value
    local: str | None    # name bound in apply() (None for attributes, used directly)
    unpack: str | None   # expression in apply() giving the local
    edges: tuple[int, ...]  # next-edge indices whose formulas use it (save only if one is needed)
    is_output: bool = False


@dataclass(frozen=True)
class GradFormula:
    edges: tuple[int, ...]   # next-edge indices it produces (one per input it covers)
    formula: str             # rewritten C++ expression


@dataclass(frozen=True)
class BackwardInfo:
    node: str                          # class name, e.g. MulBackward0
    source: NativeFunction
    diff_inputs: tuple[Argument, ...]  # tensor inputs with a formula, in schema order = next-edge order
    formulas: tuple[GradFormula, ...]
    saved: tuple[SavedItem, ...]
    result_names: tuple[str, ...]

    @property
    def saved_tensors(self) -> tuple[SavedItem, ...]:
        return tuple(s for s in self.saved if s.cpp_type == "SavedVariable")


def result_names(f: NativeFunction) -> tuple[str, ...]:
    rets = f.schema.returns
    if len(rets) == 1:
        return ("result",)
    return tuple(r.name or f"result{i}" for i, r in enumerate(rets))


def analyze(f: NativeFunction, node: str) -> BackwardInfo | None:
    """None when the entry has no differentiable input."""
    formulas = [d for d in f.derivatives if d.formula.strip() != NON_DIFFERENTIABLE]
    if not formulas:
        return None
    covered = {name for d in formulas for name in d.inputs}
    diff_inputs = tuple(a for a in f.schema.arguments if a.name in covered)
    edge_of = {a.name: i for i, a in enumerate(diff_inputs)}
    results = result_names(f)

    rewritten: list[GradFormula] = []
    uses: dict[str, set[int]] = {}   # saved member -> edges needing it
    attr_items: dict[str, SavedItem] = {}
    for d in formulas:
        edges = tuple(edge_of[n] for n in d.inputs)
        text = d.formula.strip()

        def attr(m: re.Match) -> str:
            owner, what = m.group(1), m.group(2)
            if f.schema.argument(owner) is None and owner not in results:
                return m.group(0)
            member = f"{owner}_{what}"
            attr_items.setdefault(member, SavedItem(member, SAVED_ATTRIBUTES[what], f"{owner}.{what}()",
                                                    None, None, ()))
            uses.setdefault(member, set()).update(edges)
            return member

        text = _ATTR_RE.sub(attr, text)
        for a in f.schema.arguments:
            if _mentions(text, a.name):
                uses.setdefault(a.name + "_", set()).update(edges)
        for r in results:
            if _mentions(text, r):
                uses.setdefault(r + "_", set()).update(edges)
        rewritten.append(GradFormula(edges, text))

    saved: list[SavedItem] = []
    for a in f.schema.arguments:  # inputs first, in schema order
        member = a.name + "_"
        if member not in uses:
            continue
        edges = tuple(sorted(uses[member]))
        if a.type in (BaseType("Tensor"), OptionalType(BaseType("Tensor"))):
            saved.append(SavedItem(member, "SavedVariable", f"SavedVariable({a.name}, false)", a.name,
                                   f"{member}.unpack(shared_from_this())", edges))
        else:
            saved.append(SavedItem(member, cpp.saved_type(a.type), _owning_init(a), a.name,
                                   f"as_arg({member})", edges))
    for member in sorted(attr_items):
        item = attr_items[member]
        saved.append(SavedItem(item.member, item.cpp_type, item.init, None, None, tuple(sorted(uses[member]))))
    for r in results:
        member = r + "_"
        if member in uses:
            saved.append(SavedItem(member, "SavedVariable", f"SavedVariable({r}, true)", r,
                                   f"{member}.unpack(shared_from_this())", tuple(sorted(uses[member])),
                                   is_output=True))
    return BackwardInfo(node, f, diff_inputs, tuple(rewritten), tuple(saved), results)


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
