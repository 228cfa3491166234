"""torchlite.onnx.export: trace, run the JIT passes, translate node by node, build the ModelProto."""
from __future__ import annotations

import contextlib
import enum
import io
import os
import threading
import warnings

import torchlite as _tl
from torchlite.onnx import _dynamic
from torchlite.onnx._constants import DEFAULT_OPSET, MAX_OPSET, MIN_OPSET
from torchlite.onnx._context import Call, Context, dtype_name, onnx_dtype
from torchlite.onnx.errors import OnnxExporterError, UnsupportedOperatorError

_state = threading.local()


class TrainingMode(enum.IntEnum):
    """As torch.onnx.TrainingMode: the mode the model is exported in."""
    EVAL = 0
    PRESERVE = 1
    TRAINING = 2


def is_in_onnx_export() -> bool:
    """Whether this thread is inside torchlite.onnx.export."""
    return getattr(_state, "exporting", False)


def _import_onnx():
    try:
        import onnx
        from onnx import helper, numpy_helper
    except ImportError as e:  # onnx is optional: `pip install torchlite[onnx]`
        raise ImportError("torchlite.onnx.export needs the `onnx` package: pip install onnx "
                          "(or torchlite's `onnx` extra)") from e
    return onnx, helper, numpy_helper


def _ops_table() -> dict:
    """The generated table (setup.py copies generated/python/onnx_ops.py into the package)."""
    try:
        from torchlite.onnx._ops_table import OPS
    except ImportError as e:
        raise OnnxExporterError("torchlite/onnx/_ops_table.py is missing: rebuild torchlite "
                                "(python setup.py build_ext --inplace copies it from generated/)") from e
    return OPS


class _ModuleRef:
    """A module object of the graph (%self and its prim::GetAttr submodules) and its state_dict prefix."""

    def __init__(self, module, prefix: str):
        self.module, self.prefix = module, prefix


@contextlib.contextmanager
def _mode(model, training: TrainingMode):
    if not isinstance(model, _tl.nn.Module) or training == TrainingMode.PRESERVE:
        yield
        return
    was = model.training
    model.train(training == TrainingMode.TRAINING)
    try:
        yield
    finally:
        model.train(was)


def export(model, args, f=None, kwargs=None, *, export_params=True, verbose=None, input_names=None,
           output_names=None, opset_version=None, dynamic_axes=None, keep_initializers_as_inputs=False,
           training=TrainingMode.EVAL, do_constant_folding=True, custom_opsets=None,
           export_modules_as_functions=False, autograd_inlining=True, dynamo=False, operator_export_type=None,
           dynamic_shapes=None, external_data=True, custom_translation_table=None, report=False, optimize=True,
           verify=False, profile=False, dump_exported_program=False, artifacts_dir="."):
    """Exports `model` (an nn.Module or a function of tensors), run on `args`, to ONNX, as
    torch.onnx.export(..., dynamo=False): `f` a path or a binary file object (None: only returned);
    returns the onnx.ModelProto. The options of torch's dynamo exporter (external_data, report,
    optimize, verify, ...) are accepted and ignored, as torch's TorchScript path does. See docs/onnx.md."""
    onnx, helper, numpy_helper = _import_onnx()
    if dynamo:
        raise OnnxExporterError("torchlite.onnx.export has only the TorchScript-style (trace-based) exporter; "
                                "pass dynamo=False")
    if dynamic_shapes:
        raise ValueError("The exporter only supports dynamic shapes through parameter dynamic_axes when dynamo=False.")
    if operator_export_type is not None and getattr(operator_export_type, "name", operator_export_type) not in ("ONNX", 0):
        raise OnnxExporterError(f"torchlite.onnx.export: operator_export_type={operator_export_type!r} is not supported "
                                "(only ONNX)")
    if kwargs:
        raise OnnxExporterError("torchlite.onnx.export: keyword inputs (kwargs) cannot be traced; pass them in args")
    if export_modules_as_functions:
        raise OnnxExporterError("torchlite.onnx.export: export_modules_as_functions is not supported")
    if custom_opsets:
        raise OnnxExporterError("torchlite.onnx.export: custom_opsets is not supported (no custom ops)")
    opset = DEFAULT_OPSET if opset_version is None else opset_version
    if not isinstance(opset, int) or not MIN_OPSET <= opset <= MAX_OPSET:
        raise ValueError(f"Unsupported ONNX opset version: {opset}. torchlite.onnx supports {MIN_OPSET} to {MAX_OPSET}")
    if isinstance(args, _tl.Tensor):
        args = (args,)
    elif isinstance(args, list):
        args = tuple(args)
    if isinstance(args, tuple) and args and isinstance(args[-1], dict):
        if args[-1]:
            raise OnnxExporterError("torchlite.onnx.export: keyword inputs (a trailing dict in args) cannot be traced")
        args = args[:-1]
    if not isinstance(args, tuple):
        raise TypeError(f"export(): args must be a tensor or a tuple of inputs, not {type(args).__name__}")

    _state.exporting = True
    try:
        with _mode(model, TrainingMode(training)), _tl.no_grad():
            # A dynamic export keeps every int constant apart (no folding, no merging) so that those
            # that follow a dynamic size can be found by retracing (_dynamic.py).
            simplify = do_constant_folding and not dynamic_axes
            graph, flat_inputs = _trace(model, args, simplify)
            symbolic = {}
            if dynamic_axes:
                symbolic = _dynamic.symbolic_constants(
                    model, args, graph, _axes_by_input(graph, model, input_names, dynamic_axes),
                    lambda m, a: _trace(m, a, False)[0])
            proto = _translate(graph, model, flat_inputs, opset, helper, numpy_helper, export_params,
                               input_names, output_names, dynamic_axes or {}, keep_initializers_as_inputs,
                               symbolic, TrainingMode(training))
    finally:
        _state.exporting = False
    model_proto = helper.make_model(proto, opset_imports=[helper.make_opsetid("", opset)],
                                    producer_name="torchlite", producer_version=_tl.__version__)
    # onnx.helper stamps its own newest IR version; the runtime may not read that one yet.
    model_proto.ir_version = min(model_proto.ir_version, 8 if opset <= 18 else 9)
    if verbose:
        print(onnx.printer.to_text(model_proto.graph))
    if f is not None:
        data = model_proto.SerializeToString()
        if isinstance(f, (str, os.PathLike)):
            with open(f, "wb") as fh:
                fh.write(data)
        elif isinstance(f, io.TextIOBase):
            raise TypeError("export(): f must be a path or a binary file object")
        else:
            f.write(data)
    return model_proto


def _trace(model, args, simplify):
    """The traced graph after dead-code elimination and peepholes; with `simplify`, also common
    subexpressions merged and constants folded (constant_propagation runs the ops on constants)."""
    from torchlite.jit import trace
    from torchlite.jit._passes import (constant_propagation, eliminate_common_subexpression, eliminate_dead_code,
                                       peephole)
    traced = trace(model, args, check_trace=False)
    graph = traced.graph
    eliminate_dead_code(graph)
    peephole(graph)
    if simplify:
        eliminate_common_subexpression(graph)
        constant_propagation(graph)
        eliminate_dead_code(graph)
    flat = []
    for a in args:
        flat.extend(_flatten(a))
    return graph, flat


def _flatten(v):
    if isinstance(v, _tl.Tensor):
        return [v]
    if isinstance(v, (tuple, list)):
        return [t for x in v for t in _flatten(x)]
    raise OnnxExporterError(f"torchlite.onnx.export: inputs must be tensors or tuples/lists of them, not "
                            f"{type(v).__name__}")


def _graph_inputs(graph, model):
    inputs = list(graph.inputs())
    return inputs[1:] if isinstance(model, _tl.nn.Module) else inputs


def _names(values, given, kind):
    given = list(given or [])
    if len(given) > len(values):
        raise ValueError(f"number of {kind}_names ({len(given)}) exceeds the model's number of {kind}s ({len(values)})")
    return given + [v.debugName() if kind == "input" and v.debugName() else f"{kind}_{i}"
                    for i, v in enumerate(values)][len(given):]


def _axes_by_input(graph, model, input_names, dynamic_axes):
    """{graph input index: {axis: dim name}} for the inputs dynamic_axes names."""
    names = _names(_graph_inputs(graph, model), input_names, "input")
    return {names.index(k): _axis_names(k, v) for k, v in dynamic_axes.items() if k in names}


def _axis_names(name, axes):
    """dynamic_axes' value: {axis: name} or a list of axes (named as torch names them)."""
    if isinstance(axes, dict):
        return {int(a): str(n) for a, n in axes.items()}
    named = {}
    for i, a in enumerate(axes):
        if not isinstance(a, int):
            raise ValueError("The type of axis index is expected to be an integer")
        named.setdefault(a, f"{name}_dynamic_axes_{i + 1}")
    return named


def _check_dynamic_axes(dynamic_axes, valid_names):
    """torch's warnings: a key that names no input or output, unnamed axes, an axis given twice."""
    for key, axes in dynamic_axes.items():
        if key not in valid_names:
            warnings.warn(f"Provided key {key} for dynamic axes is not a valid input/output name", stacklevel=3)
        if isinstance(axes, (list, tuple)):
            warnings.warn("No names were found for specified dynamic axes of provided input."
                          f"Automatically generated names will be applied to each dynamic axes of input {key}",
                          stacklevel=3)
            for a in {a for a in axes if list(axes).count(a) > 1}:
                warnings.warn(f"Duplicate dynamic axis index {a} was provided for input {key}.", stacklevel=3)


def _value_info(helper, name, dtype, dims):
    """dims: ints, dim names (str) or None (unknown)."""
    return helper.make_tensor_value_info(name, onnx_dtype(dtype), dims)


def _translate(graph, model, flat_inputs, opset, helper, numpy_helper, export_params, input_names, output_names,
               dynamic_axes, keep_initializers_as_inputs, symbolic, training):
    from torchlite.onnx._translations import load_all
    translations = load_all()
    table = _ops_table()
    ctx = Context(opset, helper, numpy_helper)
    ctx.training = training
    graph_inputs = _graph_inputs(graph, model)
    in_names = _names(graph_inputs, input_names, "input")
    if len(set(in_names)) != len(in_names):
        raise ValueError(f"input_names must be unique: {in_names}")
    if isinstance(model, _tl.nn.Module):
        ctx.py[graph.inputs()[0].unique()] = _ModuleRef(model, "")
    onnx_inputs, param_inputs = [], []
    for v, name, t in zip(graph_inputs, in_names, flat_inputs):
        ctx.names[v.unique()] = name
        axes = _axis_names(name, dynamic_axes[name]) if name in dynamic_axes else {}
        onnx_inputs.append(_value_info(helper, name, t.dtype, [axes.get(i, s) for i, s in enumerate(t.shape)]))
    dynamic_sizes = {t.shape[a] for name, t in zip(in_names, flat_inputs) if name in dynamic_axes
                     for a in _axis_names(name, dynamic_axes[name])}
    ctx.dim_sources, ctx.dim_cache = {}, {}  # dynamic dim name -> (input, axis) it is read from
    for name in in_names:
        if name in dynamic_axes:
            for axis, dim in _axis_names(name, dynamic_axes[name]).items():
                ctx.dim_sources.setdefault(dim, (name, axis))
    params: dict[int, str] = {}
    for node in graph.nodes():
        kind = node.kind()
        if kind == "prim::Constant":
            out = node.output()
            ctx.py[out.unique()] = _dynamic.resolve(ctx, symbolic.get(out.unique(), out.toIValue()))
        elif kind == "prim::GetAttr":
            owner = ctx.py[node.input().unique()]
            name = node.s("name")
            attr = getattr(owner.module, name)
            qual = owner.prefix + name
            if isinstance(attr, _tl.Tensor):
                if id(attr) not in params:
                    array = attr.detach().contiguous().numpy()
                    if export_params:
                        ctx.initializer(qual, array)
                        if keep_initializers_as_inputs:
                            param_inputs.append(helper.make_tensor_value_info(qual, onnx_dtype(attr.dtype),
                                                                              list(attr.shape)))
                    else:
                        param_inputs.append(helper.make_tensor_value_info(qual, onnx_dtype(attr.dtype),
                                                                          list(attr.shape)))
                    params[id(attr)] = qual
                    ctx.tensor_info[qual] = (dtype_name(attr.dtype), list(attr.shape))
                ctx.names[node.output().unique()] = params[id(attr)]
            else:
                ctx.py[node.output().unique()] = _ModuleRef(attr, qual + ".")
        elif kind in ("prim::ListConstruct", "prim::TupleConstruct"):
            elems = []
            for v in node.inputs():
                elems.append(ctx.py[v.unique()] if v.unique() in ctx.py and not isinstance(
                    ctx.py[v.unique()], _tl.Tensor) else v)
            ctx.py[node.output().unique()] = elems
        elif kind in ("prim::ListUnpack", "prim::TupleUnpack"):
            elems = ctx.py.get(node.input().unique())
            if not isinstance(elems, list):
                elems = ctx.names.get(node.input().unique())
            for out, e in zip(node.outputs(), elems):
                if isinstance(e, str):
                    ctx.names[out.unique()] = e
                elif hasattr(e, "unique"):
                    _alias(ctx, out, e)
                else:
                    ctx.py[out.unique()] = e
        elif kind.startswith("aten::"):
            overload = node.schema().split("(", 1)[0].split("::", 1)[1]
            row = table.get(overload)
            if row is None:
                raise UnsupportedOperatorError(f"aten::{overload}", opset)
            call = Call(ctx, node, overload)
            if "function" in row:
                outs = translations[row["function"]](ctx, call)
            else:
                outs = _generic(ctx, call, row)
            for out, name in zip(node.outputs(), outs):
                if isinstance(name, list):   # a Tensor[] output: a list of ONNX names
                    ctx.py[out.unique()] = name
                else:
                    ctx.names[out.unique()] = name
        else:
            raise UnsupportedOperatorError(kind, opset, "no translation for this node kind")

    outputs = []
    for v in graph.outputs():
        outputs.extend(_flatten_output(ctx, v))
    out_names = _names(outputs, output_names, "output")
    _check_dynamic_axes(dynamic_axes, set(in_names) | set(out_names))
    out_infos = []
    for (name, dtype, sizes), final in zip(outputs, out_names):
        if final != name:  # the graph output's own name: an Identity from the computed value
            ctx.add("Identity", [name], [final])
        axes = _axis_names(final, dynamic_axes[final]) if final in dynamic_axes else {}
        dims = None
        if sizes is not None:
            # A dim the user did not name, of the traced size of a dynamic input dim, may follow it: unknown.
            dims = [axes.get(i, None if s in dynamic_sizes else s) for i, s in enumerate(sizes)]
        if dtype is None:
            raise OnnxExporterError(f"the dtype of output {final} is not known")
        out_infos.append(_value_info(helper, final, dtype, dims))
    # Parameters a translation replaced by a derived constant (the LSTM's reordered gates) are dropped.
    used = {i for n in ctx.nodes for i in n.input} | {o.name for o in out_infos}
    initializers = [i for i in ctx.initializers if i.name in used]
    param_inputs = [p for p in param_inputs if p.name in used or not export_params]
    return helper.make_graph(ctx.nodes, "main_graph", onnx_inputs + param_inputs, out_infos,
                             initializer=initializers)


def _alias(ctx, out, value):
    if value.unique() in ctx.names:
        ctx.names[out.unique()] = ctx.names[value.unique()]
    else:
        ctx.py[out.unique()] = ctx.py[value.unique()]


def _flatten_output(ctx, v):
    """(ONNX name, dtype, traced sizes or None) of each tensor output, tuples and lists flattened; `v` is an IR
    value, or an element of a recorded list (an ONNX name, a folded tensor constant)."""
    if isinstance(v, str):  # a piece of a Tensor[] result of a translation
        dtype, sizes = ctx.tensor_info.get(v, (None, None))
        return [(v, dtype, sizes)]
    if isinstance(v, _tl.Tensor):
        return [(ctx.add1("Identity", [ctx.as_name(v)]), dtype_name(v.dtype), list(v.shape))]
    if isinstance(v, list):  # a nested list or tuple
        return [out for e in v for out in _flatten_output(ctx, e)]
    key = v.unique()
    if key in ctx.names:
        t = v.type()
        dtype = dtype_name(t.dtype()) if t.isTensor() and t.dtype() is not None else ctx.dtype_of(v)
        return [(ctx.names[key], dtype, list(t.sizes()) if t.isTensor() and t.sizes() is not None else None)]
    if key in ctx.py and isinstance(ctx.py[key], list):
        return [out for e in ctx.py[key] for out in _flatten_output(ctx, e)]
    if key in ctx.py and isinstance(ctx.py[key], _tl.Tensor):
        return _flatten_output(ctx, ctx.py[key])
    raise OnnxExporterError(f"graph output %{v.debugName()} is not a tensor")


def _requirement_met(actual, required) -> bool:
    if isinstance(actual, _tl.Tensor) and actual.numel() == 1:
        actual = actual.item()
    if required is None or actual is None:
        return actual is required
    return type(actual) is not bool and type(required) is not bool and actual == required or actual is required


def _generic(ctx, call, row):
    """A 1:1 row: the ONNX op over the named inputs, attributes from the named arguments."""
    for arg, required in row["require"].items():
        actual = call.value(arg)
        if not _requirement_met(actual, required):
            raise call.unsupported(f"{arg}={actual!r} (exported only for {arg}={required!r})")
    inputs = row["inputs"]
    dtype = call.out_dtype()
    if dtype is None or dtype == "bool":
        dtype = call.common_dtype([n for n in inputs if not call.is_none(n)])
    names = ["" if call.is_none(n) else call.operand(n, dtype) for n in inputs]
    while names and names[-1] == "":
        names.pop()
    attrs = {}
    for onnx_name, arg in row["attributes"].items():
        value = call.number(arg) if not isinstance(call.value(arg), list) else call.value(arg)
        if call.types[arg].startswith(("Scalar", "float")):  # ONNX's float attributes (LeakyRelu's alpha)
            value = float(value)
        attrs[onnx_name] = int(value) if isinstance(value, bool) else value
    return ctx.add(row["op"], names, len(call.node.outputs()), **attrs)
