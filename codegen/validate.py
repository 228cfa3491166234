"""Semantic checks on a loaded native_functions.yaml.

The loader has already checked each key's shape (types of YAML values, the schema
grammar); these checks relate the keys of an entry to each other and to the rest of the
file. Each check yields (key, message); the key (or an exact Location) picks the line
the error points at.
Entry checks run on the entries written in the YAML only: a derived variant is built
from its source, so an error in it would repeat its source's.
"""
from __future__ import annotations

import re
from typing import Callable, Iterable, Optional

from codegen.model import (
    BACKENDS, COMPOSITE, INPLACE_DUNDERS, BaseType, ListType, FunctionSchema, Location,
    NativeFunction, NativeFunctionsFile, SchemaKind, is_tensor_like,
)
from codegen.cpp import api_name

VARIANTS = ("function", "method")
_TENSOR_LIST = ListType(BaseType("Tensor"))
_CPP_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DUNDER = re.compile(r"__[a-z][a-z0-9_]*[a-z0-9]__\Z")

Problems = Iterable[tuple[str | Location, str]]  # (YAML key or exact place, message)


def located(loc: Location, op: str, message: str) -> str:
    """The one error format: `native_functions.yaml:LINE: op.overload: message`."""
    return f"{loc}: {op}: {message}"


def validate(f: NativeFunctionsFile) -> list[str]:
    errors: list[str] = []
    tags = {t.name for t in f.tags}
    first: dict[str, NativeFunction] = {}
    for fn in f.functions:
        op = str(fn.schema.name)
        if op in first:
            errors.append(located(fn.loc_of("func"), op, _duplicate_message(op, first[op], fn)))
        else:
            first[op] = fn
        if fn.derived_kind is None:
            for check in _CHECKS:
                for where, message in check(fn, tags):
                    loc = where if isinstance(where, Location) else fn.loc_of(where)
                    errors.append(located(loc, op, message))
    by_api: dict[str, list[NativeFunction]] = {}
    for fn in f.functions:
        by_api.setdefault(api_name(fn), []).append(fn)
    for fn in f.functions:
        if fn.alias_of is not None:
            for message in _alias_problems(fn, by_api):
                errors.append(located(fn.loc_of("alias_of" if fn.derived_kind is None else "func"),
                                      str((fn.functional or fn).schema.name), message))
    return errors


def _alias_problems(fn: NativeFunction, by_api: dict[str, list[NativeFunction]]) -> Iterable[str]:
    """An alias (or its derived variant) needs a target of the same C++ name form taking the same
    argument types in the same order: the generated body passes its arguments straight through."""
    target = fn.alias_of + {SchemaKind.inplace: "_", SchemaKind.out: "_out"}.get(fn.derived_kind, "")
    types = [str(a.type) for a in fn.schema.arguments]
    if not any([str(a.type) for a in g.schema.arguments] == types for g in by_api.get(target, [])):
        what = {SchemaKind.inplace: "in-place variant", SchemaKind.out: "out= variant"}.get(fn.derived_kind, "op")
        yield (f"`alias_of: {fn.alias_of}`: no {what} `{target}` takes ({', '.join(types)})"
               + (f"; {fn.alias_of} has no such form" if fn.derived_kind else ""))


def _duplicate_message(op: str, earlier: NativeFunction, fn: NativeFunction) -> str:
    def origin(x: NativeFunction) -> str:
        if x.derived_kind is None:
            return f"line {x.loc.line}"
        key = "inplace" if x.derived_kind is SchemaKind.inplace else "out"
        return f"`{key}: true` of {x.functional.schema.name} at line {x.loc.line}"
    return f"duplicate overload `{op}`: declared at {origin(earlier)} and at {origin(fn)}"


def derive_problem(s: FunctionSchema, kind: SchemaKind) -> Optional[str]:
    """Why the in-place or out= variant of `s` cannot be derived, or None when it can.

    Shared by the loader (which derives only when this is None) and the checks below."""
    key = "inplace" if kind is SchemaKind.inplace else "out"
    if s.name.inplace:
        return f"`{key}: true` on `{s.name.name}`, whose name already ends in `_`"
    if kind is SchemaKind.out and is_out_overload(s):
        return f"`out: true` on `{s.name}`, which is already an out= overload"
    if any(a.annotation for a in s.arguments) or any(r.annotation for r in s.returns):
        return f"`{key}: true` on an entry with alias annotations (a view or an in-place op)"
    tensor = BaseType("Tensor")
    if kind is SchemaKind.inplace:
        if len(s.returns) != 1 or s.returns[0].type != tensor:
            return "`inplace: true` needs an entry returning a single Tensor"
        self_arg = s.argument("self")
        if self_arg is None or self_arg.type != tensor:
            return "`inplace: true` needs a `Tensor self` argument to write into"
        return None
    if not s.returns or any(r.type != tensor for r in s.returns):
        return "`out: true` needs an entry returning Tensors only"
    if len(s.returns) > 1 and s.returns[0].name is None:
        return "`out: true` on several returns needs them named, to name the out arguments"
    return None


# PyTorch's names of out= overloads: `out`, `*_out`, and those of the pooling and backward ops
# (`fractional_max_pool2d.output`, `*_backward.grad_input`).
_OUT_OVERLOAD_NAMES = ("out", "output", "grad_input")


def is_out_overload(s: FunctionSchema) -> bool:
    return s.name.overload in _OUT_OVERLOAD_NAMES or s.name.overload.endswith("_out")


def _tensor_inputs(fn: NativeFunction) -> list[str]:
    """Inputs that can carry a gradient: tensor arguments except out= outputs."""
    outs = set(a.name for a in fn.schema.out_arguments)
    return [a.name for a in fn.schema.arguments if is_tensor_like(a.type) and a.name not in outs]


# ---- checks ---------------------------------------------------------------------------

def _check_doc(fn: NativeFunction, tags: set[str]) -> Problems:
    if not fn.doc.strip():
        yield "doc", "`doc:` is empty"


def _check_variants(fn: NativeFunction, tags: set[str]) -> Problems:
    for v in sorted(fn.variants):
        if v not in VARIANTS:
            yield "variants", f"unknown variant `{v}` (expected function and/or method)"
    if not fn.variants:
        yield "variants", "`variants:` lists nothing (expected function and/or method)"
    self_arg = fn.schema.argument("self")
    if is_out_overload(fn.schema) and fn.schema.out_arguments and "method" in fn.variants:
        yield "variants", ("an out= overload is a function only: Python reaches it as the `out=` keyword "
                           "of its functional overload")
    if "method" in fn.variants and (self_arg is None or not is_tensor_like(self_arg.type)
                                    or self_arg.kwarg_only):
        yield "variants", "a method needs a positional `Tensor self` argument"


def _check_dispatch(fn: NativeFunction, tags: set[str]) -> Problems:
    if not fn.dispatch:
        yield "func", "has neither `dispatch:` nor `impl:`"
        return
    backends = [b for b, _ in fn.dispatch]
    for b, kernel in fn.dispatch:
        if b not in BACKENDS and b != COMPOSITE:
            yield "dispatch", f"unknown backend `{b}` (expected {', '.join(BACKENDS)} or {COMPOSITE})"
        if not _CPP_IDENT.match(kernel):
            yield "dispatch", f"kernel name `{kernel}` for {b} is not a C++ identifier"
    for b in sorted(set(backends)):
        if backends.count(b) > 1:
            yield "dispatch", f"backend {b} is given more than one kernel"
    if COMPOSITE in backends and len(set(backends)) > 1:
        yield "dispatch", (f"{COMPOSITE} cannot be combined with other backends: a composite op "
                           "runs the same code on every device")


def _check_derivatives(fn: NativeFunction, tags: set[str]) -> Problems:
    has_key = bool(fn.derivatives or fn.non_differentiable)
    if is_out_overload(fn.schema) and fn.schema.out_arguments:
        if has_key:
            yield "derivatives", ("an out= overload has no `derivatives:`: out= never records autograd "
                                  "(it refuses inputs that require grad, as PyTorch does)")
        return
    if fn.is_composite:
        if has_key:
            yield "derivatives", ("a composite op must not have `derivatives:`: its gradient "
                                  "comes from the ops it calls")
        return
    tensor_inputs = _tensor_inputs(fn)
    if not has_key:
        if tensor_inputs:
            names = ", ".join(tensor_inputs)
            yield "func", (f"has tensor inputs ({names}) but no `derivatives:`; write "
                           f"`{tensor_inputs[0]}: non_differentiable` if it has no gradient")
        return
    covered: set[str] = set()
    named = [(n, d.loc, "derivative") for d in fn.derivatives for n in d.inputs]
    named += [(n, f"non_differentiable:{n}", "`non_differentiable`") for n in fn.non_differentiable]
    for name, where, what in named:
        arg = fn.schema.argument(name)
        if arg is None:
            yield where, f"{what} for `{name}`, which is not an input"
        elif name not in tensor_inputs:
            yield where, f"{what} for `{name}`, which is a `{arg.type}`, not a tensor input"
        elif name in covered:
            yield where, f"`{name}` appears more than once under `derivatives:`"
        covered.add(name)
    for name in tensor_inputs:
        if name not in covered:
            yield "derivatives", (f"tensor input `{name}` has no derivative; write "
                                  f"`{name}: non_differentiable` if it has no gradient")


def _check_derive(fn: NativeFunction, tags: set[str]) -> Problems:
    for kind in fn.derive:
        problem = derive_problem(fn.schema, kind)
        if problem:
            yield ("inplace" if kind is SchemaKind.inplace else "out"), problem


def _check_writes(fn: NativeFunction, tags: set[str]) -> Problems:
    s = fn.schema
    self_arg = s.argument("self")
    writes_self = (self_arg is not None and is_tensor_like(self_arg.type)
                   and self_arg.annotation is not None and self_arg.annotation.is_write)
    if s.name.inplace and not writes_self:
        yield "func", f"`{s.name.name}` ends in `_` (in-place) but has no `Tensor(a!) self` argument"
    if writes_self and not s.name.inplace:
        yield "func", "writes `self` (`Tensor(a!) self`) but its name does not end in `_`"
    if s.out_arguments and not is_out_overload(s):
        names = ", ".join(f"`{a}`" for a in s.out_arguments)
        yield "func", (f"keyword-only output {names} on an overload not named `out`, `*_out`, `output` or "
                       "`grad_input` (use `out: true` to derive the out= variant)")
    elif is_out_overload(s) and not s.out_arguments:
        yield "func", f"overload `{s.name.overload}` has no keyword-only `Tensor(a!)` output"


def _check_view(fn: NativeFunction, tags: set[str]) -> Problems:
    s = fn.schema
    ret = s.returns[0] if len(s.returns) == 1 else None
    ret_set = ret.annotation.alias_set if ret and ret.annotation and not ret.annotation.is_write else None
    aliased = [a.name for a in s.arguments
               if a.annotation and not a.annotation.is_write and a.annotation.alias_set == ret_set]
    if fn.view_of is not None:
        if fn.is_composite:
            yield "view_of", ("`view_of:` on a composite op: its views come from the ops it calls")
        elif s.argument(fn.view_of) is None:
            yield "view_of", f"`view_of: {fn.view_of}` names no input"
        elif aliased != [fn.view_of] or ret is None or ret.type not in (BaseType("Tensor"), _TENSOR_LIST):
            yield "view_of", (f"`view_of: {fn.view_of}` needs `Tensor(a) {fn.view_of}` as the only "
                              "`(a)` argument and a single `Tensor(a)` or `Tensor(a)[]` return")
    elif aliased and not fn.is_composite:
        # A composite op may return its input as is (`contiguous`), so it may say `(a)`
        # without being a view; a kernel that returns an alias must declare it.
        yield "func", (f"`{aliased[0]}` is annotated `({ret_set})` like the return, but there is "
                       f"no `view_of: {aliased[0]}`")
    if ("view" in fn.tags) != (fn.view_of is not None and not fn.is_composite):
        yield "tags", "the `view` tag and `view_of:` go together"


# Names a derivative formula gives its own meaning; an argument may not take them.
_FORMULA_NAMES = ("grad", "grads", "result", "grad_input_mask", "grad_inputs")


def _check_argument_names(fn: NativeFunction, tags: set[str]) -> Problems:
    for a in fn.schema.arguments:
        if a.name in _FORMULA_NAMES:
            yield "func", (f"argument `{a.name}` shadows the name derivative formulas use for "
                           f"{'the incoming gradient' if a.name.startswith('grad') else 'the output'}; "
                           "rename it (e.g. `grad_output`)")


def _check_types(fn: NativeFunction, tags: set[str]) -> Problems:
    from codegen import cpp  # the C++ type table decides what is bound
    for a in fn.schema.arguments:
        try:
            cpp.argument_type(a.type)
        except cpp.CppTypeError as e:
            yield "func", f"argument `{a.name}`: {e}"
    try:
        cpp.return_type(fn.schema.returns)
    except cpp.CppTypeError as e:
        yield "func", f"returns: {e}"


_GRADS_INDEX = re.compile(r"\bgrads\[(\d+)\]")
_LIST_ATTR = re.compile(r"\b([A-Za-z_]\w*)\.(\w+)\(\)")
_LIST_ATTRIBUTES = ("sizes", "scalar_type", "dtype")


def _check_formulas(fn: NativeFunction, tags: set[str]) -> Problems:
    """What the generated backward node can evaluate: grads[i] within the outputs, a Tensor[]
    input's gradient computed on its own (a vector of gradients), its saved attributes."""
    rets = fn.schema.returns
    returns_list = len(rets) == 1 and rets[0].type == _TENSOR_LIST
    for d in fn.derivatives:
        for m in _GRADS_INDEX.finditer(d.formula):
            if not returns_list and int(m.group(1)) >= len(rets):
                yield d.loc, f"`{m.group(0)}` in a formula, but the op has {len(rets)} output(s)"
        lists = [n for n in d.inputs if fn.schema.argument(n) is not None
                 and fn.schema.argument(n).type == _TENSOR_LIST]
        if lists and len(d.inputs) > 1:
            yield d.loc, (f"the gradient of the Tensor[] input `{lists[0]}` must have a formula of its own "
                          "(it gives one gradient per element)")
        for m in _LIST_ATTR.finditer(d.formula):
            arg = fn.schema.argument(m.group(1))
            if arg is not None and arg.type == _TENSOR_LIST and m.group(2) not in _LIST_ATTRIBUTES:
                yield d.loc, (f"`{m.group(0)}`: a Tensor[] input keeps only "
                              f"{', '.join(a + '()' for a in _LIST_ATTRIBUTES)} per element")
        if len(rets) > 1 and re.search(r"\bresult\b", d.formula):
            yield d.loc, "`result` in a formula of an op with several outputs: use the output names"


def _check_python_module(fn: NativeFunction, tags: set[str]) -> Problems:
    if fn.python_module is not None and "function" not in fn.variants:
        yield "python_module", ("`python_module:` places the function binding, but the entry is not a "
                                "function (`variants:` has no `function`)")
    if fn.python_binding is not None and "function" not in fn.variants:
        yield "python_binding", (f"`python_binding: {fn.python_binding}` binds the function in torchlite._C._"
                                 f"{fn.python_binding} only, but the entry is not a function (`variants:` has no "
                                 "`function`)")
    if fn.python_binding is not None and fn.python_operators:
        yield "python_binding", (f"`python_binding: {fn.python_binding}` binds no method, so no "
                                 "`python_operators:` either")
    if fn.inplace_method_only and fn.derived_kind is None:
        if fn.python_module is not None:
            yield "inplace", ("`inplace: method` on an entry with `python_module:`, whose in-place variant is a "
                              "function there (torch._C._nn.elu_, no Tensor.elu_)")
        elif "function" not in fn.variants:
            yield "inplace", "`inplace: method` on an entry that is no function: `inplace: true` says it"


def _check_out_autograd(fn: NativeFunction, tags: set[str]) -> Problems:
    if fn.out_autograd == "not_implemented" and (fn.composite_body is not None or len(fn.schema.returns) != 1
                                                 or (fn.is_composite and SchemaKind.out not in fn.derive)):
        yield "out_autograd", ("`out_autograd: not_implemented` is for an entry with one output: a kernel "
                               "(`dispatch:`), or a composite whose out= is derived (`out: true`), computed with "
                               "grad mode off (PyTorch's linalg_eigvals.out)")


def _check_materialize_grads(fn: NativeFunction, tags: set[str]) -> Problems:
    if fn.materialize_grads:
        return
    differentiable = [d for d in (fn.output_differentiability or [True] * len(fn.schema.returns)) if d]
    if not fn.derivatives or fn.is_composite or len(differentiable) < 2:
        yield "materialize_grads", ("`materialize_grads: false` is for an entry with `derivatives:` and several "
                                    "differentiable outputs (one output's gradient is always defined)")
    for d in fn.derivatives:
        if "grads[" not in d.formula:
            yield "materialize_grads", (f"`materialize_grads: false`, but the formula for {', '.join(d.inputs)} does "
                                        "not read `grads[i]` (it must check which are defined)")


def _check_tags(fn: NativeFunction, tags: set[str]) -> Problems:
    for t in fn.tags:
        if t not in tags:
            yield "tags", f"unknown tag `{t}` (declared: {', '.join(sorted(tags))})"
    if "factory" in fn.tags and [r.type for r in fn.schema.returns] != [BaseType("Tensor")]:
        yield "tags", "a `factory` op must return a single Tensor"


def _check_python_operators(fn: NativeFunction, tags: set[str]) -> Problems:
    for name in fn.python_operators:
        if not _DUNDER.match(name):
            yield "python_operators", f"`{name}` is not a `__dunder__` name"
        elif name in INPLACE_DUNDERS and not fn.schema.name.inplace:
            yield "python_operators", (f"in-place operator `{name}` needs an in-place variant "
                                       "(`inplace: true`, or a name ending in `_`)")
    if len(set(fn.python_operators)) != len(fn.python_operators):
        yield "python_operators", "an operator is listed twice"


def _check_output_differentiability(fn: NativeFunction, tags: set[str]) -> Problems:
    od = fn.output_differentiability
    if od is not None and len(od) != len(fn.schema.returns):
        yield "output_differentiability", (f"`output_differentiability:` has {len(od)} entries "
                                           f"for {len(fn.schema.returns)} returns")


def _check_samples(fn: NativeFunction, tags: set[str]) -> Problems:
    # Coverage (every formula has samples) is enforced by tests/test_gradcheck_generated.py.
    if fn.samples and is_out_overload(fn.schema) and fn.schema.out_arguments:
        yield "samples", ("an out= overload has no `samples:`: the generated tests run the out= form "
                          "on the samples of its functional overload")
    for s in fn.samples:
        if not s.strip():
            yield "samples", "a sample call is empty"


# PyTorch's names, `_copy` included for the copying variants of view ops (DiagonalBackward0_copy).
_NODE_NAME = re.compile(r"^[A-Z][A-Za-z0-9]*Backward([0-9]+(_copy)?|s)$")  # `s`: PyTorch's hand-written CopyBackwards


def _check_out_dtype(fn: NativeFunction, tags: set[str]) -> Problems:
    if fn.out_dtype is not None and not (fn.is_composite and fn.alias_of is None and SchemaKind.out in fn.derive):
        yield "out_dtype", ("`out_dtype:` is for a composite entry with `out: true` (kernels check out's dtype "
                            "themselves; an alias follows its target)")


def _check_backward_node(fn: NativeFunction, tags: set[str]) -> Problems:
    if fn.backward_node is None or fn.functional is not None:
        return
    if not _NODE_NAME.match(fn.backward_node):
        yield "backward_node", f"`{fn.backward_node}` is not a node name like `PowBackward0`"
    elif fn.is_composite or not (fn.derivatives or fn.non_differentiable):
        yield "backward_node", "only an entry with `derivatives:` records a node"


def _check_onnx(fn: NativeFunction, tags: set[str]) -> Problems:
    """`onnx:` names arguments of the schema: `inputs:` tensors or Scalars (a Scalar becomes a constant
    tensor), `attributes:` and `require:` the other arguments (read from the traced call's constants)."""
    m = fn.onnx
    if m is None:
        return
    if fn.schema.kind() is SchemaKind.out:
        yield "onnx", "an out= overload is not exported; put `onnx:` on its functional overload"
        return
    if m.function is not None:
        return
    names = [a.name for a in fn.schema.arguments]

    def where(key: str) -> str:
        return f"onnx.{key}" if any(k == f"onnx.{key}" for k, _ in fn.key_lines) else "onnx"

    for name in m.inputs or ():
        a = fn.schema.argument(name)
        if a is None:
            yield where("inputs"), f"`onnx: inputs:` names `{name}`, which is not an argument ({', '.join(names)})"
        elif not (is_tensor_like(a.type) or str(a.type) in ("Scalar", "Scalar?")) or str(a.type).endswith("[]"):
            yield where("inputs"), (f"`onnx: inputs:` names `{name}` of type {a.type}; ONNX inputs are tensors "
                                    "(Tensor, Tensor?) or Scalars; map other arguments with `attributes:`")
    if m.inputs is None and not any(is_tensor_like(a.type) for a in fn.schema.arguments):
        yield "onnx", "the op has no tensor argument; name the ONNX inputs with `inputs:`"
    if len(set(m.inputs or ())) != len(m.inputs or ()):
        yield where("inputs"), "`onnx: inputs:` names an argument twice"
    for key, pairs in (("attributes", [(v, k) for k, v in m.attributes]), ("require", list(m.require))):
        for name, _ in pairs:
            a = fn.schema.argument(name)
            if a is None:
                yield where(key), f"`onnx: {key}:` names `{name}`, which is not an argument ({', '.join(names)})"
            elif is_tensor_like(a.type):
                yield where(key), (f"`onnx: {key}:` names the tensor argument `{name}`; only non-tensor arguments "
                                   "(read from the traced call's constants) can be attributes or requirements")
    for k, _ in m.attributes:
        if not re.match(r"[a-z_][a-z0-9_]*\Z", k):
            yield where("attributes"), f"`onnx: attributes:` key `{k}` is not an ONNX attribute name"


_CHECKS: tuple[Callable[[NativeFunction, set[str]], Problems], ...] = (
    _check_doc, _check_argument_names, _check_types, _check_variants, _check_dispatch, _check_derivatives, _check_derive,
    _check_writes, _check_view, _check_tags, _check_python_operators,
    _check_output_differentiability, _check_samples, _check_formulas, _check_backward_node,
    _check_out_dtype, _check_python_module, _check_materialize_grads,
    _check_out_autograd, _check_onnx,
)
