"""torchlite.jit.trace: runs a function or module once on example inputs, recording every op it
calls (the generated bindings report them to the C++ tracer, aten/jit/Tracer.h) into a Graph, which
the C++ interpreter then runs. As torch.jit.trace: module parameters and buffers are read with
prim::GetAttr from the module; Python values (numbers, lists, shapes) are baked in as constants,
with a TracerWarning where a tensor was turned into a Python value (data-dependent control flow)."""
from __future__ import annotations

import inspect
import warnings


import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._script_module import FunctionArchive, ScriptModule, _dict_get, _is, _slot_columns, cpp_module
from torchlite.jit import _fuser

_COMPARE_TYPES = "Only tensors, lists, tuples of tensors, or dictionary of tensors can be output from traced functions"


class TracerWarning(Warning):
    """A trace may not generalize: a tensor became a Python value, or the check found a mismatch."""

    @staticmethod
    def ignore_lib_warnings():
        warnings.filterwarnings("ignore", category=TracerWarning, module="torchlite.(?!jit)")


_jit._set_tracer_warning_class(TracerWarning)
# As torch: conversions inside the library's own Python code (torchlite.nn...) do not warn, the user's do.
TracerWarning.ignore_lib_warnings()


class TracingCheckError(Exception):
    def __init__(self, graph_diff_error, tensor_compare_error, extra_msg=None):
        self.message = "Tracing failed sanity checks!\n"
        if extra_msg is not None:
            self.message += extra_msg + "\n"
        if graph_diff_error is not None:
            self.message += "ERROR: Graphs differed across invocations!\n" + graph_diff_error + "\n"
        if tensor_compare_error is not None:
            self.message += ("ERROR: Tensor-valued Constant nodes differed in value across invocations. This often "
                             "indicates that the tracer has encountered untraceable code.\n" + tensor_compare_error)
        super().__init__(self.message)


def is_tracing() -> bool:
    """Whether this thread is tracing (torch.jit.is_tracing)."""
    return _jit._is_tracing()


def _flatten(value, what):
    """The tensors of a tensor or a (nested) tuple/list of tensors, in order."""
    if isinstance(value, _tl.Tensor):
        return [value]
    if isinstance(value, (tuple, list)):
        return [t for v in value for t in _flatten(v, what)]
    raise RuntimeError(f"Type '{type(value).__name__}' cannot be traced. {what}")


def _output_value(graph, value):
    """The graph Value of a traced output: tensors by their recorded values, tuples/lists of them
    through prim::TupleConstruct / prim::ListConstruct."""
    if isinstance(value, _tl.Tensor):
        return _jit._tracer_get_value(value)
    if isinstance(value, (tuple, list)):
        elems = [_output_value(graph, v) for v in value]
        kind = "prim::TupleConstruct" if isinstance(value, tuple) else "prim::ListConstruct"
        node = graph.insertNode(graph.create(kind, elems, 1))
        types = [e.type() for e in elems]
        node.output().setType(_jit.Type.list(_jit.Type.parse("Tensor")) if isinstance(value, list)
                              else _jit.Type.tuple(types))
        return node.output()
    raise RuntimeError(_COMPARE_TYPES + f", got {type(value).__name__}")


def _module_type_name(module) -> str:
    stored = module.__dict__.get("_jit_type_name")  # a loaded module keeps its saved class name
    if stored is not None:
        return stored
    cls = type(module)
    path = cls.__qualname__ if cls.__module__ == "__main__" else f"{cls.__module__}.{cls.__qualname__}"
    return "__torch__." + path


def _module_object(module, slots=None):
    """The module as the interpreter reads it: an Object per (sub)module holding its parameters,
    buffers and submodules (the same tensors, so optimizer steps and load_state_dict show).
    `slots` collects (dict, name, tensor) for each tensor, to tell later whether one was replaced."""
    obj = _jit.Object(_module_type_name(module))
    for attrs in (module._parameters, module._buffers):
        for name, t in attrs.items():
            if t is not None:
                obj.setattr(name, t)
                if slots is not None:
                    slots.append((attrs, name, t))
    for name, sub in module._modules.items():
        if sub is not None:
            obj.setattr(name, _module_object(sub, slots))
    return obj


def _bind_attributes(graph, self_value, module):
    """prim::GetAttr nodes for every parameter and buffer (through the submodules' GetAttrs),
    mapped to their tensors for the tracer; those the trace does not use are removed afterwards."""
    for name, t in list(module._parameters.items()) + list(module._buffers.items()):
        if t is not None:
            node = graph.insertNode(graph.create("prim::GetAttr", [self_value], 1)).s_("name", name)
            node.output().setType(_jit.Type.parse("Tensor")).setDebugName(name)
            _jit._tracer_set_value(t, node.output())
    for name, sub in module._modules.items():
        if sub is not None:
            node = graph.insertNode(graph.create("prim::GetAttr", [self_value], 1)).s_("name", name)
            node.output().setType(_jit.Type.object(_module_type_name(sub))).setDebugName(name)
            _bind_attributes(graph, node.output(), sub)


def _remove_unused_attributes(graph):
    changed = True
    while changed:
        changed = False
        for node in reversed(graph.nodes()):
            if node.kind() == "prim::GetAttr" and not node.output().hasUses():
                node.destroy()
                changed = True


def _parameter_names(fn, count):
    try:
        params = [p.name for p in inspect.signature(fn).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params[:count] + [""] * (count - len(params[:count]))


def _record(fn, args, module=None):
    """Traces fn(*args) into a new Graph; returns (graph, the Python outputs)."""
    graph = _jit.Graph()
    names = _parameter_names(module.forward if module is not None else fn, len(args))
    self_value = None
    if module is not None:
        self_value = graph.addInput("self")
        self_value.setType(_jit.Type.object(_module_type_name(module)))
    _jit._tracer_enter(graph)
    try:
        for name, arg in zip(names, args):
            tensors = _flatten(arg, "Only tensors and (possibly nested) tuples/lists of tensors can be traced inputs")
            for i, t in enumerate(tensors):
                v = graph.addInput(name if len(tensors) == 1 else f"{name}_{i}" if name else "")
                v.setType(_jit.Type.of(t))
                _jit._tracer_set_value(t, v)
        if module is not None:
            _bind_attributes(graph, self_value, module)
        outputs = fn(*args)
        graph.registerOutput(_output_value(graph, outputs))
    finally:
        _jit._tracer_exit()
    _remove_unused_attributes(graph)
    return graph, outputs


def _capture_inputs(path, captured):
    """A forward pre-hook keeping the first positional inputs a submodule gets in the trace (the
    tensors themselves: copying them would record ops)."""
    def hook(module, inputs):
        captured.setdefault(path, inputs)
    return hook


def _submodule_graphs(module, captured):
    """{dotted path: graph} of the submodules called in the trace, each traced alone on the inputs
    it got there, as torch.jit traces every submodule into its own TracedModule: a saved and loaded
    module's submodules can be called. A submodule that cannot be traced alone (keyword-only
    inputs, non-tensor inputs or outputs) gets no graph."""
    graphs = {}
    subs = dict(module.named_modules())
    # Running a submodule again must leave no trace: it runs on copies of its inputs, and buffers
    # (running statistics) and the random state are put back as the module's own trace left them.
    with _tl.no_grad():
        buffers = [(b, b.clone()) for b in module.buffers()]
    rng = _tl.get_rng_state()
    try:
        for path, inputs in captured.items():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    # copies: an in-place submodule must not write the caller's tensors a second time
                    graphs[path], _ = _record(subs[path], _clone_inputs(tuple(inputs)), module=subs[path])
                except Exception:  # noqa: BLE001 - best effort, the top-level trace stands on its own
                    continue
    finally:
        with _tl.no_grad():
            for b, saved in buffers:
                b.copy_(saved)
        _tl.set_rng_state(rng)
    return graphs


def _clone_inputs(args):
    def clone(v):
        if isinstance(v, _tl.Tensor):
            c = v.detach().clone()
            return c.requires_grad_(v.requires_grad) if v.is_leaf else c
        return type(v)(clone(x) for x in v)
    return tuple(clone(a) for a in args)


def _tensor_outputs(value):
    """Top-level tensor outputs, as torch.jit's check compares them (a tuple's tensor elements)."""
    values = value if isinstance(value, tuple) else (value,)
    return [v for v in values if isinstance(v, _tl.Tensor)]


def _graph_differences(graph, check_graph):
    """(graph diff, tensor-constant diff) between a trace and its repeat on the check inputs,
    each None when they agree."""
    first, second = str(graph), str(check_graph)
    graph_diff = None if first == second else f"First graph:\n{first}\nSecond graph:\n{second}"
    tensor_diff = None
    if graph_diff is None:
        for a, b in zip(graph.nodes(), check_graph.nodes()):
            if a.kind() == "prim::Constant" and a.hasAttribute("value"):
                va, vb = a.ival("value"), b.ival("value")
                if isinstance(va, _tl.Tensor) and not (va.shape == vb.shape and va.dtype == vb.dtype
                                                       and bool(_tl.equal(va, vb))):
                    tensor_diff = f"Node:\n\t{a}\nFirst value:\n{va}\nSecond value:\n{vb}"
                    break
    return graph_diff, tensor_diff


def _check(traced, fn, check_inputs, tolerance, module):
    """torch.jit.trace's check: the trace and the Python function on each check input must agree
    (TracerWarning otherwise), and tracing again on it must give the same graph and tensor
    constants (TracingCheckError otherwise)."""
    warned_nondeterministic = []

    def warn_nondeterministic():
        nodes = [n for n in traced.graph.nodes() if n.isNondeterministic()]
        if nodes and not warned_nondeterministic:
            warned_nondeterministic.append(True)
            warnings.warn("Trace had nondeterministic nodes. Did you forget call .eval() on your model? Nodes:\n"
                          + "\n".join(f"    {n}" for n in nodes[:20])
                          + "\nThis may cause errors in trace checking. To disable trace checking, pass "
                            "check_trace=False to torch.jit.trace()", TracerWarning, stacklevel=4)

    for args in check_inputs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)
            check_graph, _ = _record(fn, _clone_inputs(args), module)
        got = _tensor_outputs(traced(*_clone_inputs(args)))
        expected = _tensor_outputs(fn(*_clone_inputs(args)))
        for i, (g, e) in enumerate(zip(got, expected)):
            try:
                if g.shape != e.shape or g.dtype != e.dtype:
                    raise AssertionError(f"The values for attribute 'shape' or 'dtype' do not match: "
                                         f"{tuple(g.shape)}/{g.dtype} != {tuple(e.shape)}/{e.dtype}.")
                values = g.numel() and not g.is_meta and not e.is_meta  # meta tensors have no values
                if values and not _tl.allclose(g.detach().double(), e.detach().double(), rtol=tolerance,
                                               atol=1e-5, equal_nan=True):
                    raise AssertionError("Tensor-likes are not close!")
            except AssertionError as err:
                warn_nondeterministic()
                warnings.warn(f"Output nr {i + 1}. of the traced function does not match the corresponding output "
                              f"of the Python function. Detailed error:\n{err}", TracerWarning, stacklevel=3)
        graph_diff, tensor_diff = _graph_differences(traced.graph, check_graph)
        if graph_diff is not None or tensor_diff is not None:
            raise TracingCheckError(graph_diff, tensor_diff)


class TracedModule(ScriptModule):
    """A traced module: `forward` runs the traced graph in the C++ interpreter, reading the
    parameters and buffers of the module it was traced from (shared, not copied)."""

    def __init__(self, module, graph):
        super().__init__()
        self.__dict__["_parameters"] = module._parameters
        self.__dict__["_buffers"] = module._buffers
        self.__dict__["_modules"] = module._modules
        self.__dict__["_traced_from"] = module
        self.__dict__["graph"] = graph
        self.training = module.training

    @property
    def code(self) -> str:
        from torchlite.jit._code import graph_code

        return graph_code(self.graph)

    @property
    def inlined_graph(self):
        return self.graph

    def _object(self):
        """The module Object, rebuilt only when a parameter or buffer was replaced (assigned anew):
        in-place updates need nothing, as the Object holds the same tensors."""
        cached = self.__dict__.get("_cached_object")
        if cached is not None:
            dicts, names, tensors = cached[1]  # still current: the same tensor under each name
            if all(map(_is, map(_dict_get, dicts, names), tensors)):
                return cached[0]
        slots = []
        obj = _module_object(self._traced_from, slots)
        self.__dict__["_cached_object"] = (obj, _slot_columns(slots))
        return obj

    def forward(self, *args):
        if _jit._is_tracing():  # traced inside another trace: run the Python module so its ops are recorded
            return self._traced_from(*args)
        inputs = [self._object()]
        for a in args:
            if isinstance(a, _tl.Tensor):  # the common case, without a call
                inputs.append(a)
            else:
                inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be traced inputs")
        graph = _fuser.optimized_graph(self)
        _fuser.record_executed(graph)
        return _jit.run_graph(graph, inputs)[0]

    def graph_for(self, *args, **kwargs):
        """The graph a call runs (torch.jit's graph_for): the fused copy when fusion is on."""
        return _fuser.optimized_graph(self)

    def _get_name(self):
        return type(self._traced_from).__name__

    def _cpp_module(self):
        m = cpp_module(self._traced_from, [("forward", _jit.Method(self.graph, True))])
        m.training = self.training
        graphs = self.__dict__.get("_submodule_graphs", {})

        def attach(tree, prefix):  # the tree's submodules are shared C++ objects: setting methods sticks
            for name, sub in tree.submodules:
                path = f"{prefix}.{name}" if prefix else name
                if path in graphs:
                    sub.methods = [("forward", _jit.Method(graphs[path], True))]
                attach(sub, path)
        attach(m, "")
        return m


class TopLevelTracedModule(TracedModule):
    """What trace() returns for a module (torch.jit's name)."""


class _TracedFunction(FunctionArchive):
    """A traced function: calling it runs the graph in the interpreter."""

    def __init__(self, fn, graph):
        self.graph = graph
        self._fn = fn
        self.__name__ = getattr(fn, "__name__", "traced")
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def code(self) -> str:
        from torchlite.jit._code import graph_code

        return graph_code(self.graph)

    @property
    def inlined_graph(self):
        return self.graph

    def __call__(self, *args):
        if _jit._is_tracing():  # inside another trace: run the function so its ops are recorded
            return self._fn(*args)
        inputs = []
        for a in args:
            inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be traced inputs")
        graph = _fuser.optimized_graph(self)
        _fuser.record_executed(graph)
        return _jit.run_graph(graph, inputs)[0]

    def graph_for(self, *args, **kwargs):
        """The graph a call runs (torch.jit's graph_for): the fused copy when fusion is on."""
        return _fuser.optimized_graph(self)

    def __repr__(self):
        return f"<torchlite.jit traced function {self.__name__}>"


def trace(func, example_inputs=None, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5,
          strict=True, _force_outplace=False, _module_class=None, _compilation_unit=None,
          example_kwarg_inputs=None, _store_inputs=True):
    """Traces `func` (a function or an nn.Module, whose forward is traced) on `example_inputs` (a
    tensor or a tuple of them) and returns a callable that runs the recorded graph: a
    TopLevelTracedModule for a module, a traced function otherwise. With check_trace, the traced
    callable is run on check_inputs (or the example inputs) and compared with func (TracerWarning
    on a mismatch)."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                      "instead", FutureWarning, stacklevel=2)
    if example_kwarg_inputs is not None:
        raise NotImplementedError("torchlite.jit.trace: example_kwarg_inputs is not supported yet")
    if example_inputs is None:
        raise RuntimeError("example_kwarg_inputs or example_inputs should be provided")
    args = (example_inputs,) if isinstance(example_inputs, _tl.Tensor) else tuple(example_inputs)
    if isinstance(func, _tl.nn.Module):
        captured = {}
        handles = [sub.register_forward_pre_hook(_capture_inputs(path, captured))
                   for path, sub in func.named_modules() if path]
        try:
            graph, _ = _record(func, args, module=func)
        finally:
            for h in handles:
                h.remove()
        traced = TopLevelTracedModule(func, graph)
        traced.__dict__["_submodule_graphs"] = _submodule_graphs(func, captured)
        python_fn = func
    elif callable(func):
        graph, _ = _record(func, args)
        traced = _TracedFunction(func, graph)
        python_fn = func
    else:
        raise TypeError(f"trace(): expected a function or an nn.Module, got {type(func).__name__}")
    if check_trace:
        checks = [args] if check_inputs is None else [
            (c,) if isinstance(c, _tl.Tensor) else tuple(c) for c in check_inputs]
        _check(traced, python_fn, checks, check_tolerance, func if isinstance(func, _tl.nn.Module) else None)
    return traced
