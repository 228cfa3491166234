"""torchlite.jit.trace: runs a function or module once on example inputs, recording every op it
calls (the generated bindings report them to the C++ tracer, aten/jit/Tracer.h) into a Graph, which
the C++ interpreter then runs. As torch.jit.trace: module parameters and buffers are read with
prim::GetAttr from the module; Python values (numbers, lists, shapes) are baked in as constants,
with a TracerWarning where a tensor was turned into a Python value (data-dependent control flow)."""
from __future__ import annotations

import inspect
import re
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


def _record(fn, args, module=None, names_from=None):
    """Traces fn(*args) into a new Graph; returns (graph, the Python outputs). With a module, the graph's first
    input is the module (`%self`); the inputs are named after the parameters of `names_from` (the module's
    forward by default, a traced method's own for trace_module)."""
    graph = _jit.Graph()
    if names_from is None:
        names_from = module.forward if module is not None else fn
    names = _parameter_names(names_from, len(args))
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
    """A forward pre-hook keeping the positional inputs of each call of a submodule in the trace (the
    tensors themselves: copying them would record ops)."""
    def hook(module, inputs):
        captured.setdefault(path, []).append(inputs)
    return hook


def _traced_with_hooks(module, record):
    """record() with every submodule's calls captured: (its result, {path: [inputs of each call]})."""
    captured = {}
    handles = [sub.register_forward_pre_hook(_capture_inputs(path, captured))
               for path, sub in module.named_modules() if path]
    try:
        return record(), captured
    finally:
        for h in handles:
            h.remove()


def submodule_method_names(count):
    """The methods a submodule's calls become, as torch.jit names them: forward, forward1, forward2..."""
    return ["forward" if i == 0 else f"forward{i}" for i in range(count)]


def _submodule_graphs(module, captured):
    """{dotted path: [graph per call]} of the submodules called in the trace, each call traced alone on
    the inputs it got there, as torch.jit traces every call of a submodule into a method of its own
    (`forward`, `forward1`, ... in call order, over every traced method): a saved and loaded module's
    submodules can be called. A call that cannot be traced alone (keyword-only inputs, non-tensor
    inputs or outputs) gets no graph."""
    graphs = {}
    subs = dict(module.named_modules())
    # Running a submodule again must leave no trace: it runs on copies of its inputs, and buffers
    # (running statistics) and the random state are put back as the module's own trace left them.
    with _tl.no_grad():
        buffers = [(b, b.clone()) for b in module.buffers()]
    rng = _tl.get_rng_state()
    try:
        for path, calls in captured.items():
            for inputs in calls:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        # copies: an in-place submodule must not write the caller's tensors a second time
                        g, _ = _record(subs[path], _clone_inputs(tuple(inputs)), module=subs[path])
                    except Exception:  # noqa: BLE001 - best effort, the top-level trace stands on its own
                        continue
                graphs.setdefault(path, []).append(g)
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


_SHAPED = re.compile(r"(?<!::)\b[A-Z][A-Za-z0-9]*\([^()]*\)")  # a complete tensor type: Float(2, 3, strides=...)


def _graph_differences(graph, check_graph):
    """(graph diff, tensor-constant diff) between a trace and its repeat on the check inputs,
    each None when they agree."""
    first, second = str(graph), str(check_graph)
    # as torch's check, the graphs are compared with their shape information erased (a check input of
    # another shape traces the same graph; what the trace specialized to shapes shows in its constants)
    same = _SHAPED.sub("Tensor", first) == _SHAPED.sub("Tensor", second)
    graph_diff = None if same else f"First graph:\n{first}\nSecond graph:\n{second}"
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


def _check(graph, run, fn, check_inputs, tolerance, module, names_from=None):
    """torch.jit.trace's check of a traced `graph` (run by `run(*args)`) against the Python `fn`: on each
    check input they must agree (TracerWarning otherwise), and tracing again on it must give the same
    graph and tensor constants (TracingCheckError otherwise)."""
    warned_nondeterministic = []

    def warn_nondeterministic():
        nodes = [n for n in graph.nodes() if n.isNondeterministic()]
        if nodes and not warned_nondeterministic:
            warned_nondeterministic.append(True)
            warnings.warn("Trace had nondeterministic nodes. Did you forget call .eval() on your model? Nodes:\n"
                          + "\n".join(f"    {n}" for n in nodes[:20])
                          + "\nThis may cause errors in trace checking. To disable trace checking, pass "
                            "check_trace=False to torch.jit.trace()", TracerWarning, stacklevel=4)

    for args in check_inputs:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", TracerWarning)
            check_graph, _ = _record(fn, _clone_inputs(args), module, names_from)
        got = _tensor_outputs(run(*_clone_inputs(args)))
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
        graph_diff, tensor_diff = _graph_differences(graph, check_graph)
        if graph_diff is not None or tensor_diff is not None:
            raise TracingCheckError(graph_diff, tensor_diff)


class TracedModule(ScriptModule):
    """A traced module: `forward` runs the traced graph in the C++ interpreter, reading the
    parameters and buffers of the module it was traced from (shared, not copied). Made by
    trace_module, it holds a graph per traced method: the others are ScriptMethods
    (`traced.encode(...)`, `.graph`, `.code`, `.schema`)."""

    def __init__(self, module, graph, methods=None):
        super().__init__()
        self.__dict__["_parameters"] = module._parameters
        self.__dict__["_buffers"] = module._buffers
        self.__dict__["_modules"] = module._modules
        self.__dict__["_traced_from"] = module
        methods = {"forward": graph} if methods is None else dict(methods)
        self.__dict__["_traced_methods"] = {name: _jit.Method(g, True) for name, g in methods.items()}
        if "forward" in methods:  # (trace_module without "forward": no graph, as torch's)
            self.__dict__["graph"] = methods["forward"]
        self.training = module.training

    @property
    def code(self) -> str:
        from torchlite.jit._code import graph_code

        return graph_code(self._forward_graph())

    @property
    def inlined_graph(self):
        return self._forward_graph()

    @property
    def original_name(self) -> str:
        return type(self._traced_from).__name__

    def _forward_graph(self):
        try:
            return self.graph  # (a scripted module's is a property)
        except AttributeError:  # torch's message (its module is a RecursiveScriptModule underneath)
            raise AttributeError("'RecursiveScriptModule' object has no attribute 'forward'") from None

    def __getattr__(self, name):
        methods = self.__dict__.get("_traced_methods")
        if methods and name != "forward" and name in methods:
            from torchlite.jit._script_method import ScriptMethod
            return ScriptMethod(self, name, methods[name])
        return super().__getattr__(name)

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
        if "graph" not in self.__dict__:  # trace_module without "forward"
            self._forward_graph()
        inputs = [self._object()]
        for a in args:
            if isinstance(a, _tl.Tensor):  # the common case, without a call
                inputs.append(a)
            else:
                inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be traced inputs")
        graph = _fuser.optimized_graph(self)
        _fuser.record_executed(graph)
        return _jit.run_graph(graph, inputs)[0]

    def _run(self, method, args, kwargs=None, name="forward"):
        """A traced method other than forward (ScriptMethod's call): its graph on the module and the
        flattened tensors of its arguments (keywords by the traced parameters' names)."""
        if _jit._is_tracing():  # inside another trace: the Python method, so its ops are recorded
            return getattr(self._traced_from, name)(*args, **(kwargs or {}))
        args = _bind_traced(name, self._traced_params[name], args, kwargs or {}, self._traced_schemas[name])
        inputs = [self._object()]
        for a in args:
            inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be traced inputs")
        return _jit.run_graph(method.graph, inputs)[0]

    def graph_for(self, *args, **kwargs):
        """The graph a call runs (torch.jit's graph_for): the fused copy when fusion is on."""
        return _fuser.optimized_graph(self)

    def _get_name(self):
        return type(self._traced_from).__name__

    def _cpp_module(self):
        methods = [(name, _jit.Method(m.graph, True)) for name, m in self._traced_methods.items()]
        m = cpp_module(self._traced_from, methods)
        m.training = self.training
        graphs = self.__dict__.get("_submodule_graphs", {})

        def attach(tree, prefix):  # the tree's submodules are shared C++ objects: setting methods sticks
            for name, sub in tree.submodules:
                path = f"{prefix}.{name}" if prefix else name
                if path in graphs:
                    sub.methods = [(n, _jit.Method(g, True))
                                   for n, g in zip(submodule_method_names(len(graphs[path])), graphs[path])]
                attach(sub, path)
        attach(m, "")
        return m


def _bind_traced(name, params, args, kwargs, schema):
    """Positional and keyword arguments of a traced method bound to its traced parameters, with torch's
    errors (which count `self` and end with the method's schema)."""
    if len(args) == len(params) and not kwargs:
        return args
    where = f" Declaration: {schema}"
    if len(args) > len(params):
        raise RuntimeError(f"{name}() expected at most {len(params) + 1} argument(s) but received "
                           f"{len(args) + 1} argument(s).{where}")
    values = list(args)
    kwargs = dict(kwargs)
    for p in params[len(args):]:
        if p not in kwargs:
            raise RuntimeError(f"{name}() is missing value for argument '{p}'.{where}")
        values.append(kwargs.pop(p))
    if kwargs:
        raise RuntimeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'.{where}")
    return tuple(values)


def _example_type(value) -> str:
    """The schema type of a traced method's argument, from its example (torch's: Tensor, (Tensor, Tensor),
    Tensor[])."""
    if isinstance(value, tuple):
        return f"({', '.join(_example_type(v) for v in value)})"
    if isinstance(value, list):
        return f"{_example_type(value[0]) if value else 'Tensor'}[]"
    return "Tensor"


def _traced_schema(name, module, params, args, graph) -> str:
    """A traced method's schema as torch writes it: `encode(__torch__.Net self, Tensor a, Tensor b) ->
    ((Tensor, Tensor))` (argument types from the examples, shapes dropped)."""
    from torchlite.jit._code import plain_type
    parts = [f"{_module_type_name(module)} self"] + [f"{_example_type(a)} {p}" for p, a in zip(params, args)]
    out = plain_type(str(graph.outputs()[0].type()))
    return f"{name}({', '.join(parts)}) -> {f'({out})' if out.startswith('(') else out}"


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

        return graph_code(self.graph, self.__name__)  # (named after the function, as torch's)

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
        (graph, _), captured = _traced_with_hooks(func, lambda: _record(func, args, module=func))
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
        _check(traced.graph, traced, python_fn, checks, check_tolerance,
               func if isinstance(func, _tl.nn.Module) else None)
    return traced


def _make_tuple(example_inputs):
    """A method's example inputs as its positional arguments (torch.jit's make_tuple: a tensor or a dict is one
    argument, a tuple is the arguments, anything else is iterated)."""
    if isinstance(example_inputs, (_tl.Tensor, dict)):
        return (example_inputs,)
    if not isinstance(example_inputs, tuple):
        return tuple(example_inputs)
    return example_inputs


def trace_module(mod, inputs, optimize=None, check_trace=True, check_inputs=None, check_tolerance=1e-5, strict=True,
                 _force_outplace=False, _module_class=None, _compilation_unit=None, example_inputs_is_kwarg=False,
                 _store_inputs=True):
    """Traces the methods of `mod` named in `inputs` ({method name: example inputs}), each into a graph of
    its own, and returns one TopLevelTracedModule holding them all, as torch.jit.trace_module: `forward`
    is its call, the others ScriptMethods (`traced.encode(a, b)`), all saved together. A method calling a
    submodule inlines its ops into its own graph; each call of a submodule is also traced alone into a
    method of that submodule (forward, forward1, ... in call order, as torch names them), which a saved
    and loaded module keeps. With check_trace, each method is checked as trace() checks forward, on the
    dicts of `check_inputs` (the method's entry of each) or on `inputs`."""
    if optimize is not None:
        warnings.warn("`optimize` is deprecated and has no effect. Use `with torch.jit.optimized_execution()` "
                      "instead", FutureWarning, stacklevel=2)
    if not isinstance(mod, _tl.nn.Module):
        raise AttributeError("expected torch.nn.Module as the first argument")
    if not isinstance(inputs, dict):
        raise AttributeError("expected a dictionary of (method_name, input) pairs")
    if example_inputs_is_kwarg:
        raise NotImplementedError("torchlite.jit.trace_module: example_inputs_is_kwarg is not supported yet")
    graphs, calls = {}, []  # calls: (name, Python callable, the function whose parameters name the inputs)
    captured, params, schemas = {}, {}, {}
    for name, example in inputs.items():
        if name == "forward":  # Module.__call__ (hooks included), the inputs named after forward's parameters
            fn, names_from = mod, getattr(mod, name)
        else:
            fn = names_from = getattr(mod, name)  # AttributeError / TypeError as torch for a bad name
        args = _make_tuple(example)
        (graphs[name], _), seen = _traced_with_hooks(
            mod, lambda: _record(fn, args, module=mod, names_from=names_from))
        for path, more in seen.items():  # every method's submodule calls, in the order traced
            captured.setdefault(path, []).extend(more)
        calls.append((name, fn, names_from))
        params[name] = _parameter_names(names_from, len(args))
        schemas[name] = _traced_schema(name, mod, params[name], args, graphs[name])
    traced = TopLevelTracedModule(mod, graphs.get("forward"), graphs)
    traced.__dict__["_traced_params"] = params
    traced.__dict__["_traced_schemas"] = schemas
    traced.__dict__["_submodule_graphs"] = _submodule_graphs(mod, captured)
    if check_trace:
        checks = [dict(((c,) if isinstance(c, _tl.Tensor) else c).items())  # (torch's: a tuple has no items)
                  for c in ((inputs,) if check_inputs is None else check_inputs)]
        for name, fn, names_from in calls:
            if any(name not in c for c in checks):  # (torch traces each check dict's methods, then looks it up)
                raise RuntimeError(f"Method '{name}' is not defined.")
            run = traced if name == "forward" else getattr(traced, name)
            _check(graphs[name], run, fn, [_make_tuple(c[name]) for c in checks], check_tolerance, mod, names_from)
    return traced
