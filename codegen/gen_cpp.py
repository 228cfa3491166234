"""Emits the C++ side: per-op headers, dispatch shards, composite bodies, autograd shards."""
from __future__ import annotations

from dataclasses import dataclass

from codegen import cpp
from codegen.autograd import NON_DIFFERENTIABLE, BackwardInfo, analyze, node_name_base
from codegen.context import Context, OpGroup
from codegen.model import BaseType, ListType, NativeFunction, OptionalType, SchemaKind
from codegen.templates import render


@dataclass
class OpView:
    """One overload as the C++ templates see it."""
    f: NativeFunction
    schema: str
    cpp_id: str                 # add_Tensor
    name: str                   # add / add_ / add_out
    ret: str
    params_decl: str            # public API parameters with defaults
    params: str                 # public API parameters without defaults
    schema_params: str          # schema-order parameters (backend, kernel table type)
    schema_args: str            # schema-order argument names
    kind: str                   # functional / inplace / out
    composite: bool
    composite_kernel: str | None
    kernels: list[tuple[str, str]]      # (device enum name, adapter or kernel function)
    adapters: list[str]                 # adapter function definitions for out kernels
    device_expr: str
    written: list[str]                  # (a!) arguments: their versions bump
    version_bumps: list[str]            # the statements bumping them (each tensor of a Tensor(a!)[] list)
    requires_grad: str                  # C++ condition: autograd records (an input requiring grad, grad mode on)
    next_edges: str                     # C++ expression: the recorded node's next edges
    has_autograd: bool
    out_check_inputs: str
    out_source_args: str                # composite out=: the functional's arguments, dtype/device from out
    out_dtype_rule: str                 # composite out=: the OutDtype enumerator checking out's dtype
    alias_call: str                     # an alias's derived variant: the target's own variant, called
    out_factory_check: str              # factory out=: call checking dtype/device options against out
    zero_grad_node: str                 # unrecorded in-place op of a non-differentiable entry: its node name
    multi_output_view: bool             # returns several views (split, unbind): they are marked so
    math_bits_check: str                # C++ condition: a tensor argument carries a lazy conj/neg bit
    math_bits_fallback: str             # the static function resolving them (aten/core/MathBits.h)

def _tensor_ptrs(f: NativeFunction, only: set[str] | None = None, skip_written: bool = False) -> list[str]:
    ptrs = []
    for a in f.schema.arguments:
        if only is not None and a.name not in only:
            continue
        if skip_written and a.annotation is not None and a.annotation.is_write:
            continue
        if a.type == BaseType("Tensor"):
            ptrs.append(f"&{a.name}")
        elif a.type == OptionalType(BaseType("Tensor")):
            ptrs.append(f"opt_ptr({a.name})")
    return ptrs


# Entries tagged so handle the lazy conjugate/negative bits themselves: views inherit them
# (make_view), in-place views change geometry only, `math_bits` entries read them (copy_, resize_).
MATH_BITS_TAGS = frozenset({"math_bits", "view", "inplace_view"})


def _math_bits(f: NativeFunction, ret: str, sp: str, composite: bool = False) -> tuple[str, str]:
    """The dispatcher's test of the arguments' math bits and the fallback it calls when one is set
    (PyTorch's Conjugate/Negative fallback): inputs are read resolved; each written tensor with a bit is
    replaced by a resolved copy that is copied back (copy_ honours the destination's bits) after the
    kernel ran."""
    src = f.functional or f
    if MATH_BITS_TAGS & set(src.tags):
        return "", ""
    s = f.schema
    if composite:
        # A composite's body may reach kernels or memory directly (rms_norm's fused kernel, LAPACK), so a
        # functional composite reads its inputs resolved, through the differentiable resolve_conj/resolve_neg
        # (it runs above autograd). Composites returning views (conj, real, reshape, mH) keep the bits.
        if s.kind() != SchemaKind.functional or any(r.annotation is not None for r in s.returns):
            return "", ""
        checks, setup, args = [], [], []
        for a in s.arguments:
            t = a.type
            if t in (BaseType("Tensor"), OptionalType(BaseType("Tensor")), ListType(BaseType("Tensor")),
                     ListType(OptionalType(BaseType("Tensor")))):
                checks.append(f"{a.name}.math_bits()" if t == BaseType("Tensor") else f"math_bits::of({a.name})")
                setup.append(f"  const auto {a.name}_r = math_bits::resolved_differentiable({a.name});")
                # (the overload of a list is chosen by its type: histogramdd's bins are a count or a list)
                args.append(f"TensorList({a.name}_r)" if t == ListType(BaseType("Tensor")) else f"{a.name}_r")
            else:
                args.append(a.name)
        if not checks:
            return "", ""
        fn = (f"static {ret} math_bits_fallback_{s.name.cpp_id}({sp}) {{\n" + "\n".join(setup)
              + f"\n  return ::tl::{cpp.api_name(f)}({', '.join(args)});\n}}\n")  # (an argument may share its name)
        return " | ".join(checks), fn
    checks, setup, args = [], [], []
    for a in s.arguments:
        t = a.type
        is_tensor = t == BaseType("Tensor")
        is_list = t in (ListType(BaseType("Tensor")), ListType(OptionalType(BaseType("Tensor"))))
        is_opt = t == OptionalType(BaseType("Tensor"))
        if not (is_tensor or is_list or is_opt):
            args.append(a.name)
            continue
        checks.append(f"{a.name}.math_bits()" if is_tensor else f"math_bits::of({a.name})")
        written = a.annotation is not None and a.annotation.is_write
        if written and is_list:
            setup.append(f"  const std::vector<Tensor> {a.name}_r = written.list({a.name});")
        elif written:
            setup.append(f"  const Tensor {a.name}_r = written.arg({a.name});")
        else:
            setup.append(f"  const auto {a.name}_r = math_bits::resolved({a.name});")
        args.append(f"{a.name}_r")
    if not checks:
        return "", ""
    call = f"ops::{s.name.cpp_id}::call({', '.join(args)})"
    if not any("written." in line for line in setup):  # nothing written: the kernel's result is the op's
        return " | ".join(checks), (
            f"static {ret} math_bits_fallback_{s.name.cpp_id}({sp}) {{\n"
            f"  autograd::NoGradGuard no_grad;  // below autograd: resolving records nothing\n"
            + "\n".join(setup) + f"\n  return {call};\n}}\n")
    w_rets = [r for r in s.returns if r.annotation is not None and r.annotation.is_write]
    if ret == "void":
        tail = f"  {call};\n  written.finish();\n"
    elif w_rets and len(w_rets) == len(s.returns):
        by_set = {a.annotation.alias_set: a.name for a in s.arguments if a.annotation is not None}
        outs = [by_set[r.annotation.alias_set] for r in w_rets]
        back = outs[0] if len(outs) == 1 else f"std::forward_as_tuple({', '.join(outs)})"
        tail = f"  {call};\n  written.finish();\n  return {back};\n"
    else:
        tail = f"  auto result = {call};\n  written.finish();\n  return result;\n"
    fn = (f"static {ret} math_bits_fallback_{s.name.cpp_id}({sp}) {{\n"
          f"  autograd::NoGradGuard no_grad;  // below autograd: resolving records nothing\n"
          f"  math_bits::WriteBack written;\n" + "\n".join(setup) + "\n" + tail + "}\n")
    return " | ".join(checks), fn


def _device_expr(f: NativeFunction) -> str:
    op = str(f.schema.name)
    if f.device_check == "NoCheck" and f.schema.argument("self") is not None:
        return f'dispatch_device("{op}", {{&self}})'
    lists = [a for a in f.schema.arguments if a.type == ListType(BaseType("Tensor"))]
    if lists:
        return f'dispatch_device("{op}", {lists[0].name})'
    ptrs = _tensor_ptrs(f)
    fallback = ""
    for a in f.schema.arguments:
        if a.type == OptionalType(BaseType("Device")):
            fallback = f", {a.name}.value_or(Device(DeviceType::CPU))"
        elif a.type == BaseType("Device"):
            fallback = f", {a.name}"
    return f'dispatch_device("{op}", {{{", ".join(ptrs)}}}{fallback})'


def _kernel_call_adapter(f: NativeFunction, kernel: str, schema_params: str) -> tuple[str, str]:
    """For out kernels, a function with the overload's own signature that calls the kernel:
    `<kernel>_functional` (allocates), `<kernel>_inplace` (writes self) or `<kernel>_out`."""
    src = f.functional or f
    fn = f"{kernel}_{f.schema.kind().value}"
    src_args = [a.name for a in src.schema.arguments]
    ret = cpp.return_type(f.schema.returns)
    kind = f.schema.kind()
    if kind == SchemaKind.functional:
        n = len(f.schema.returns)
        outs = ["out"] if n == 1 else [r.name or f"out{i}" for i, r in enumerate(f.schema.returns)]
        decls = "".join(f"  Tensor {o};\n" for o in outs)
        call = f"  native::{kernel}({', '.join(src_args + outs)});\n"
        back = "out" if n == 1 else "{" + ", ".join(outs) + "}"
        body = decls + call + f"  return {back};\n"
    elif kind == SchemaKind.inplace:
        body = (f"  Tensor out = self;\n"
                f"  native::{kernel}({', '.join(src_args + ['out'])});\n"
                f"  return self;\n")
    else:
        outs = [a.name for a in f.schema.out_arguments]
        handles = [f"{o}_handle" for o in outs]
        # An input that is an out tensor itself (`amax(a, 0, out=a)`) is read through its own handle,
        # so resizing the out tensor cannot change the geometry the kernel reads it with.
        unaliased = []
        for a in src.schema.arguments:
            if a.type == BaseType("Tensor"):
                expr = a.name
                for o in outs:
                    expr = f"native::input_unaffected_by_resize({expr}, {o})"
                unaliased.append(f"  const Tensor {a.name}_in = {expr};\n")
                src_args = [f"{n}_in" if n == a.name else n for n in src_args]
        decls = "".join(unaliased) + "".join(f"  Tensor {h} = {o};\n" for h, o in zip(handles, outs))
        back = outs[0] if len(outs) == 1 else "{" + ", ".join(outs) + "}"
        body = decls + f"  native::{kernel}({', '.join(src_args + handles)});\n  return {back};\n"
    return fn, f"{ret} {fn}({schema_params}) {{\n{body}}}\n"


def op_view(ctx: Context, f: NativeFunction, backward: dict[str, BackwardInfo],
            zero_grad_nodes: dict[str, str]) -> OpView:
    s = f.schema
    api = cpp.api_params(f)
    sp = cpp.schema_params(f)
    src = f.functional or f
    kernels: list[tuple[str, str]] = []
    adapters: list[str] = []
    composite_kernel = None
    if f.is_composite:
        composite_kernel = f.kernel_for("Composite")
    else:
        made: dict[str, str] = {}
        for backend, kernel in f.dispatch:
            if ctx.uses_out_kernel(f) and not f.is_composite:
                if kernel not in made:
                    fn, text = _kernel_call_adapter(f, kernel, ", ".join(p.decl(False) for p in sp))
                    made[kernel] = fn
                    adapters.append(text)
                kernels.append((backend, made[kernel]))
            else:
                kernels.append((backend, f"native::{kernel}"))
    written_args = [a for a in s.arguments if a.annotation is not None and a.annotation.is_write]
    written = [a.name for a in written_args]
    version_bumps = [f"for (const Tensor& t : {a.name}) t.bump_version();" if isinstance(a.type, ListType)
                     else f"{a.name}.bump_version();" for a in written_args]
    info = backward.get(str(src.schema.name))
    has_autograd = info is not None and s.kind() != SchemaKind.out and not f.is_composite
    requires_grad = next_edges = ""
    if has_autograd:
        diff = [a.name for a in info.diff_inputs]
        lists = [e.name for e in info.lists]
        ptrs = _tensor_ptrs(f, set(diff) - set(lists))
        conds = ([f"autograd::compute_requires_grad({{{', '.join(ptrs)}}})"] if ptrs else [])
        conds += [f"autograd::compute_requires_grad({n})" for n in lists]
        requires_grad = " || ".join(conds)
        next_edges = (f"next_edges_of({', '.join(diff)})" if lists
                      else f"collect_next_edges({{{', '.join(ptrs)}}})")
    ret = cpp.return_type(s.returns)
    bits_check, bits_fallback = _math_bits(f, ret, ", ".join(p.decl(False) for p in sp), f.is_composite)
    return OpView(
        f=f, schema=str(s), cpp_id=s.name.cpp_id, name=cpp.api_name(f), ret=cpp.return_type(s.returns),
        params_decl=", ".join(p.decl(True) for p in api), params=", ".join(p.decl(False) for p in api),
        schema_params=", ".join(p.decl(False) for p in sp), schema_args=", ".join(a.name for a in s.arguments),
        kind=s.kind().value, composite=f.is_composite, composite_kernel=composite_kernel, kernels=kernels,
        adapters=adapters, device_expr=_device_expr(f), written=written, version_bumps=version_bumps, requires_grad=requires_grad,
        next_edges=next_edges,
        has_autograd=has_autograd,
        out_check_inputs=_out_check_inputs(f),
        out_factory_check=_out_factory_check(f),
        zero_grad_node=zero_grad_nodes.get(str(s.name), ""),
        out_source_args=_out_source_args(f),
        out_dtype_rule=OUT_DTYPE_RULES[(f.functional or f).out_dtype],
        alias_call=_alias_call(f, written),
        multi_output_view=(not f.is_composite and f.view_of is not None
                           and [r.type for r in s.returns] == [ListType(BaseType("Tensor"))]),
        math_bits_check=bits_check, math_bits_fallback=bits_fallback,
    )


# `out_dtype:` values -> native::OutDtype (aten/native/OutputUtils.h); absent means PyTorch's usual rule.
OUT_DTYPE_RULES = {None: "CanCast", "exact": "Exact", "any": "Any"}


def _alias_call(f: NativeFunction, written: list[str]) -> str:
    """`asin_out(out, self)` for the out= variant of `arcsin` (`alias_of: asin`), `asin_(self)` for its
    in-place one; empty for anything else. The functional itself has a generated `impl:` body."""
    if f.functional is None or f.functional.alias_of is None:
        return ""
    args = [a.name for a in f.functional.schema.arguments]
    if f.derived_kind is SchemaKind.out:
        return f"{f.functional.alias_of}_out({', '.join(written + args)})"
    return f"{f.functional.alias_of}_({', '.join(args)})"


def _out_check_inputs(f: NativeFunction) -> str:
    """check_out_no_grad's inputs: the Tensor and Tensor? arguments, then the Tensor[] lists
    (cat(tensors, out=o) is refused when a list element requires grad)."""
    args = "{" + ", ".join(_tensor_ptrs(f, skip_written=True)) + "}"
    outs = "{&" + ", &".join(a.name for a in f.schema.arguments if a.annotation is not None and a.annotation.is_write) + "}"
    lists = [a.name for a in f.schema.arguments if a.type == ListType(BaseType("Tensor"))]
    return f"{args}, {outs}" + (f", {{{', '.join(lists)}}}" if lists else "")


def _out_factory_check(f: NativeFunction) -> str:
    """A factory's out= variant (it has `dtype` and `device` options) refuses options that
    contradict out: `zeros(3, dtype=bool, out=double_tensor)` raises, as in PyTorch."""
    if f.schema.kind() != SchemaKind.out:
        return ""
    names = {a.name: a.type for a in f.schema.arguments}
    if (names.get("dtype") != OptionalType(BaseType("ScalarType"))
            or names.get("device") != OptionalType(BaseType("Device"))):
        return ""
    return f"check_factory_out({f.schema.out_arguments[0].name}, dtype, device)"


def _out_source_args(f: NativeFunction) -> str:
    """Arguments for the functional call behind a composite out= variant. An unset `dtype`/`device`
    option takes the out tensor's, so `zeros(2, out=int_tensor)` makes int64 zeros, as in PyTorch;
    not with `out_dtype: exact`, whose out must have the dtype the call computes (linalg.matrix_norm)."""
    if f.functional is None or f.schema.kind() != SchemaKind.out:
        return ""
    out = f.schema.out_arguments[0].name
    exact = f.functional.out_dtype == "exact"
    args = []
    for a in f.functional.schema.arguments:
        if a.type == OptionalType(BaseType("ScalarType")) and a.name == "dtype" and not exact:
            args.append(f"{a.name} ? {a.name} : std::optional<ScalarType>({out}.dtype())")
        elif a.type == OptionalType(BaseType("Device")) and a.name == "device":
            args.append(f"{a.name} ? {a.name} : std::optional<Device>({out}.device())")
        else:
            args.append(a.name)
    return ", ".join(args)


def zero_grad_nodes(ctx: Context) -> dict[str, str]:
    """In-place variants of entries whose derivatives are all `non_differentiable` (eq_, lt_, ...),
    keyed by str(schema.name): the name of the zero-gradient node that becomes self's history,
    numbered per base name like PyTorch's EqBackward0 (Scalar), EqBackward1 (Tensor)."""
    nodes: dict[str, str] = {}
    for g in ctx.groups:
        names = _NodeNames(g)
        for f in g.functions:
            if f.functional is not None or f.is_composite or not f.non_differentiable:
                continue
            if any(d.formula.strip() != NON_DIFFERENTIABLE for d in f.derivatives):
                continue
            name = names.next(f)
            for v in g.functions:
                if v.functional is f and v.schema.kind() == SchemaKind.inplace:
                    nodes[str(v.schema.name)] = name
    return nodes


class _NodeNames:
    """Node names of one op group: an entry's `backward_node:` if it has one, otherwise
    `<Base>Backward<n>` with the next n in file order that no entry of the group claims."""

    def __init__(self, g: OpGroup):
        self.base = node_name_base(g.base)
        self.taken = {f.backward_node for f in g.functions if f.backward_node}
        self.n = 0

    def next(self, f: NativeFunction) -> str:
        if f.backward_node:
            return f.backward_node
        while f"{self.base}Backward{self.n}" in self.taken:
            self.n += 1
        self.n += 1
        return f"{self.base}Backward{self.n - 1}"


def backward_infos(ctx: Context) -> dict[str, BackwardInfo]:
    """Backward node per differentiable source entry, keyed by str(schema.name); numbered per base name."""
    infos: dict[str, BackwardInfo] = {}
    for g in ctx.groups:
        names = _NodeNames(g)
        for f in g.functions:
            if f.functional is not None or f.is_composite:
                continue
            if all(d.formula.strip() == NON_DIFFERENTIABLE for d in f.derivatives):
                continue  # analyze() would give no node
            infos[str(f.schema.name)] = analyze(f, names.next(f))
    return infos


def kernel_decls(ctx: Context, g: OpGroup) -> list[str]:
    """Declarations of the handwritten kernels this group's entries name (each once)."""
    seen: dict[str, str] = {}
    for f in g.functions:
        if f.functional is not None:
            continue  # derived variants share their source's kernel
        for backend, kernel in f.dispatch:
            out = ctx.uses_out_kernel(f) and not f.is_composite
            params = ", ".join(p.decl(False) for p in cpp.kernel_params(f, out))
            seen.setdefault(kernel, f"{cpp.kernel_return(f, out)} {kernel}({params});")
    return [seen[k] for k in sorted(seen)]


def _drop_repeated_adapters(ops: list[OpView]) -> None:
    """Entries of several names may share a kernel (an alias: `greater` runs gt_kernel), so the
    same adapter can come up twice in one shard: keep the first."""
    seen: set[str] = set()
    for op in ops:
        op.adapters = [a for a in op.adapters if a not in seen and not seen.add(a)]


def _with_includes(ctx: Context, template: str, own: list[str], **values) -> str:
    """Renders a shard that includes generated/ops/<name>.h for its own ops and for every op its
    code calls (formulas, `impl:` bodies), found by matching identifiers against the op names."""
    text = render(template, headers=[], **values)
    headers = sorted(set(own) | ctx.ops_called(text))
    return render(template, headers=headers, **values)


def generate(ctx: Context) -> dict[str, str]:
    backward = backward_infos(ctx)
    files: dict[str, str] = {}
    zero_grad = zero_grad_nodes(ctx)
    views = {g.base: [op_view(ctx, f, backward, zero_grad) for f in g.functions] for g in ctx.groups}

    for g in ctx.groups:
        files[f"ops/{g.base}.h"] = render("op_header.h.j2", group=g, ops=views[g.base],
                                          kernels=kernel_decls(ctx, g))
    files["Functions.h"] = render("functions.h.j2", groups=ctx.groups)

    n = ctx.num_shards
    dispatch_shards: list[list[OpGroup]] = [[] for _ in range(n)]
    composite_shards: list[list[OpGroup]] = [[] for _ in range(n)]
    autograd_shards: list[list[OpGroup]] = [[] for _ in range(n)]
    for g in ctx.groups:
        k = ctx.shard(g.base)
        dispatch_shards[k].append(g)
        if any(f.composite_body for f in g.functions):
            composite_shards[k].append(g)
        if any(str(f.schema.name) in backward for f in g.functions):
            autograd_shards[k].append(g)

    for i, groups in enumerate(dispatch_shards):
        if groups:
            _drop_repeated_adapters([op for g in groups for op in views[g.base]])
            files[f"dispatch/ops_{i}.cpp"] = _with_includes(
                ctx, "dispatch_shard.cpp.j2", [g.base for g in groups], shard=i, groups=groups, views=views,
                not_implemented_out=any(f.out_autograd == "not_implemented" for g in groups for f in g.functions))
    for i, groups in enumerate(composite_shards):
        if groups:
            entries = [f for g in groups for f in g.functions if f.composite_body and f.functional is None]
            files[f"composite/ops_{i}.cpp"] = _with_includes(
                ctx, "composite_shard.cpp.j2", [g.base for g in groups], shard=i, entries=entries, cpp=cpp)
    for i, groups in enumerate(autograd_shards):
        if groups:
            infos = [backward[str(f.schema.name)] for g in groups for f in g.functions
                     if str(f.schema.name) in backward]
            wrappers = [v for g in groups for v in views[g.base] if v.has_autograd]
            files[f"autograd/nodes_{i}.cpp"] = _with_includes(
                ctx, "autograd_shard.cpp.j2", [g.base for g in groups], shard=i, infos=infos,
                wrappers=wrappers, backward=backward)
    return files
