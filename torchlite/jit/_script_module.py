"""ScriptModule, the base of compiled modules (traced ones included, as torch.jit's), and
RecursiveScriptModule, what torchlite.jit.load and freeze return: an nn.Module rebuilt from a
compiled module tree (torchlite._C._jit.Module: type names, training flags, parameters, buffers,
submodules, method graphs), whose forward runs its graph in the C++ interpreter. It needs no
Python class of the original model, so it works in a process that never imported it."""
from __future__ import annotations

import operator
import os
import threading

import torchlite as _tl
from torchlite._C import _jit


class ScriptModule(_tl.nn.Module):
    """Base of torchlite.jit's compiled modules (TracedModule, RecursiveScriptModule)."""

    def save(self, f, _extra_files=None):
        """Writes the module to `f` (a path) as a torchlite.jit archive (torchlite.jit.save)."""
        _jit._save_module_file(self._cpp_module(), os.fspath(f), _extra_bytes(_extra_files))

    def save_to_buffer(self, _extra_files=None) -> bytes:
        return _jit._save_module(self._cpp_module(), _extra_bytes(_extra_files))

    def _cpp_module(self):
        raise NotImplementedError


def _extra_bytes(extra):
    if extra is None:
        return {}
    return {str(k): v.encode() if isinstance(v, str) else bytes(v) for k, v in extra.items()}


class FunctionArchive:
    """save / save_to_buffer of a compiled function (traced or scripted; its `graph`): saved as torch.jit
    saves a function, the `forward` (without self) of an attribute-less module."""

    def _cpp_module(self):
        m = _jit.Module("__torch__.PlaceholderModule", True)
        sig = getattr(self, "_sig", None)  # a scripted function's: names and defaults are saved too
        if sig is not None:
            from torchlite.jit._script import _method
            from torchlite.jit._script_object import class_modules
            m.methods = [("forward", _method(self.graph, sig, takes_self=False))]
            m.classes = class_modules([sig])
        else:
            m.methods = [("forward", _jit.Method(self.graph, False))]
        return m

    def save(self, f, _extra_files=None):
        _jit._save_module_file(self._cpp_module(), os.fspath(f), _extra_bytes(_extra_files))

    def save_to_buffer(self, _extra_files=None) -> bytes:
        return _jit._save_module(self._cpp_module(), _extra_bytes(_extra_files))


def _attribute_value(value, t):
    return float(value) if str(t) == "float" and type(value) is int else value


def cpp_module(module, methods=(), attributes=None, constants=None):
    """The compiled-module tree of an nn.Module (its own class's type name, or the stored one of a
    RecursiveScriptModule), with `methods` [(name, _jit.Method)] on the root; a loaded submodule
    keeps its own methods. `attributes(module)`: [(name, static type)] of the attributes its graphs read at run
    time (a scripted module's), written with its constants (and `constants(module)`: [(name, IR type, value)] of
    attributes the graphs fold); a loaded module keeps its own."""
    from torchlite.jit._script import types as T
    from torchlite.jit._trace import _module_type_name

    m = _jit.Module(_module_type_name(module), module.training)
    own_attrs = module.__dict__.get("_jit_attributes")
    if own_attrs is not None:  # a loaded module: its attributes as they are now, its constants
        from torchlite.jit._module_state import attribute_store
        m.attributes = [(n, t, _attribute_value(attribute_store(module, n)[n], t)) for n, t in own_attrs.items()]
        m.constants = [(n, t, module.__dict__[n]) for n, t in module.__dict__.get("_jit_constants", {}).items()]
    elif attributes is not None:
        from torchlite.jit._script import _holds_dicts, _to_input  # (dicts in the interpreter's form)
        from torchlite.jit import _archive_attributes
        ir_type = _archive_attributes.ir_type  # (T.ir_type; objects keep their class)
        m.attributes = [(n, ir_type(t), _attribute_value(_to_input(module.__dict__[n], t) if _holds_dicts(t)
                                                         else module.__dict__[n], T.ir_type(t)))
                        for n, t in attributes(module) if n != "training"]  # (the flag is the header's)
        m.constants = _archive_attributes.constants_of(module) + (constants(module) if constants else [])
    m.parameters = [(n, p) for n, p in module._parameters.items() if p is not None]
    m.buffers = [(n, b) for n, b in module._buffers.items() if b is not None]
    m.none_parameters = [n for n, p in module._parameters.items() if p is None]
    m.none_buffers = [n for n, b in module._buffers.items() if b is None]
    m.submodules = [(n, cpp_module(s, attributes=attributes, constants=constants))
                    for n, s in module._modules.items() if s is not None]
    own = module.__dict__.get("_methods")
    m.methods = list(methods) if methods else list(own.items()) if own else []
    return m


_is, _dict_get = operator.is_, dict.get


def _is_tensor(x):
    return isinstance(x, _tl.Tensor)


def _slot_columns(slots):
    """(dicts, names, tensors) of _module_object's slots: a cached module object is still current
    when all(map(is_, map(dict.get, dicts, names), tensors)), checked on every call with C-level
    loops (a third faster than a generator over the triples)."""
    dicts, names, tensors = (list(c) for c in zip(*slots)) if slots else ([], [], [])
    return dicts, names, tensors


def _bind(name, method, args, kwargs):
    """Positional and keyword arguments bound to a saved method's arguments, missing trailing ones from
    its defaults (the messages of a scripted module's call)."""
    names, defaults = method.arg_names, method.defaults
    if len(args) > len(names):
        raise RuntimeError(f"{name}() expected at most {len(names)} argument(s) but received {len(args)} argument(s)")
    values = list(args)
    kwargs = dict(kwargs)
    for i in range(len(args), len(names)):
        if names[i] in kwargs:
            values.append(kwargs.pop(names[i]))
        elif defaults[i] is not None:
            values.append(defaults[i][0])
        else:
            raise RuntimeError(f"{name}() is missing value for argument '{names[i]}'.")
    if kwargs:
        raise RuntimeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'.")
    return tuple(values)


def _getattr_reads(graph):
    """{(submodule path, name)} read by the graph's prim::GetAttr chains from %self."""
    inputs = graph.inputs()
    if not inputs:
        return set()
    paths = {inputs[0].unique(): ()}
    out = set()
    for node in graph.allNodes():
        if node.kind() == "prim::GetAttr" and node.input().unique() in paths:
            path = paths[node.input().unique()] + (node.s("name"),)
            paths[node.output().unique()] = path
            out.add((path[:-1], path[-1]))
    return out


def _mutable(ir_type) -> bool:
    """Whether a value of the type can change in place (a list, a dict, an object), inside containers too."""
    if ir_type.isTensor():
        return False
    s = str(ir_type)
    return "[]" in s or "Dict(" in s or bool(ir_type.class_name()) and not s.startswith(("(", "NamedTuple(")) or \
        any(_mutable(e) for e in ir_type.containedTypes())


class RecursiveScriptModule(ScriptModule):
    """A compiled module rebuilt from its tree: parameters (as Parameters), buffers and submodules
    are ordinary nn.Module attributes (state_dict, parameters(), optimizers work), and forward runs
    the saved graph in the interpreter, reading them."""

    def __init__(self, cpp):
        super().__init__()
        self.__dict__["_jit_type_name"] = cpp.type_name
        self.__dict__["_methods"] = dict(cpp.methods)
        forward = self._methods.get("forward")  # read once: pybind attribute reads cost per call
        # (the fast call is for graphs whose arguments and result need no conversion: n_args -1 otherwise)
        from torchlite.jit._archive_signature import Signature
        self.__dict__["_signatures"] = {name: Signature.of(meth, name) for name, meth in self._methods.items()}
        self.__dict__["_forward"] = None if forward is None else (
            forward.graph, forward.takes_self,
            -1 if self._signatures["forward"] is not None else len(forward.graph.inputs()) - forward.takes_self)
        self.training = cpp.training
        for name, t in cpp.parameters:
            self._parameters[name] = _tl.nn.Parameter(t, requires_grad=t.requires_grad)
        for name, t in cpp.buffers:
            self._buffers[name] = t
        for name in cpp.none_parameters:
            self._parameters[name] = None
        for name in cpp.none_buffers:
            self._buffers[name] = None
        for name, sub in cpp.submodules:
            self._modules[name] = RecursiveScriptModule(sub)
        # Attributes the graphs read at run time (every attribute since format version 6; before, those compiled
        # code assigns, `self.count += 1`): plain attributes, with their types; setting one casts it.
        attrs = cpp.attributes
        self.__dict__["_jit_attributes"] = {name: t for name, t, _ in attrs}
        # Final / __constants__ attributes (folded into the graphs): read-only
        self.__dict__["_jit_constants"] = {name: t for name, t, _ in cpp.constants}
        for name, _, value in cpp.constants:
            self.__dict__[name] = value
        # those holding TorchScript class instances are kept as the interpreter's Objects, out of __dict__, so
        # that reading one converts it (_loaded_objects.py)
        from torchlite.jit import _loaded_objects
        self.__dict__["_jit_objects"] = objects = {}
        for name, t, value in attrs:
            if _loaded_objects.holds_objects(t):
                objects[name] = value
            else:
                self.__dict__[name] = value
        self.__dict__["_sync"] = None  # made at the first call (the whole tree is built by then)
        self.__dict__["_state_lock"] = threading.RLock()  # held by calls that copy state (_module_state.py)
        # TorchScript classes' methods the archive carries: callable on the objects Python gets (_script_object.py)
        self.__dict__["_jit_classes"] = list(cpp.classes)
        if self._jit_classes:
            from torchlite.jit import _script_object
            _script_object.register(self._jit_classes)
        # One cell per loaded tree, bumped when an attribute or training flag of any of its modules is set: the
        # module objects built before (which hold those values) are then built again.
        tree = [0]
        for m in self.modules():
            m.__dict__["_jit_tree"] = tree

    def _state(self):
        sync = self.__dict__["_sync"]
        if sync is None:
            from torchlite.jit._module_state import StateSync
            from torchlite.jit._module_state import setattr_targets
            graphs = [meth.graph for meth in self._methods.values() if meth.takes_self]
            written, read = set(), set()
            for g in graphs:
                written |= setattr_targets(g)
                read |= _getattr_reads(g)
            # copied in and out per call: what a graph assigns, and containers it may change in place (the others
            # are put into the module object when it is built: _archive_attributes.fill_object)
            entries = []
            for path, m in self.named_modules(remove_duplicate=False):
                key = tuple(path.split(".")) if path else ()
                for name, t in (m.__dict__.get("_jit_attributes") or {}).items():
                    if (key, name) in written or (key, name) in read and _mutable(t):
                        entries.append((key, name, str(t) == "float"))
                if (key, "training") in written and "training" not in (m.__dict__.get("_jit_attributes") or {}):
                    entries.append((key, "training", False))  # (script's `self.training = mode`: Python sees it)
            sync = StateSync(self, entries, graphs, lock=self.__dict__["_state_lock"])
            sync = self.__dict__["_sync"] = sync if sync else False
        return sync

    def _graph_call(self, graph, inputs, takes_self):
        sync = self._state() if takes_self else None
        run = self._specialized(graph) if takes_self else graph
        if not sync:
            return self._converted(graph, _jit.run_graph(run, inputs)[0])
        from torchlite.jit._module_state import run_with_state
        return self._converted(graph, run_with_state(sync, inputs[0], self.__dict__["_cached_object"][1],
                                                     lambda: _jit.run_graph(run, inputs)[0]))

    def _specialized(self, graph):
        """The graph a call runs: a copy of `graph` with the tree's plain attributes and training flags folded, and
        the branches they decide (format version 6 graphs read them at run time, as torch's, which costs the
        reads and the branches on every call); made again after a set of one (the tree's counter)."""
        spec = self.__dict__.get("_jit_specialized")
        epoch = self.__dict__["_jit_tree"][0]
        if spec is None or spec[0] != epoch:
            spec = self.__dict__["_jit_specialized"] = (epoch, {})
        entry = spec[1].get(id(graph))
        if entry is None or entry[0] is not graph:
            from torchlite.jit._passes.freezing import _fold_plain_attributes
            g = graph.copy()
            entry = spec[1][id(graph)] = (graph, g if _fold_plain_attributes(g, self, ()) else graph)
        return entry[1]

    def _converted(self, graph, out):
        """The graph's output as Python gets it: named tuples as instances of their classes."""
        table = self.__dict__.get("_out_converters")
        if table is None:
            table = self.__dict__["_out_converters"] = {}
        entry = table.get(id(graph))
        if entry is None or entry[0] is not graph:
            from torchlite.jit._named_tuple import converter
            outs = graph.outputs()
            entry = table[id(graph)] = (graph, converter(outs[0].type()) if len(outs) == 1 else None)
        return out if entry[1] is None else entry[1](out)

    @property
    def original_name(self) -> str:
        return self._jit_type_name.rsplit(".", 1)[-1]

    def _method(self, name):
        method = self._methods.get(name)
        if method is None:
            raise RuntimeError(f"Method '{name}' is not defined on the compiled module {self.original_name}")
        return method

    @property
    def graph(self):
        return self._method("forward").graph

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def code(self) -> str:
        from torchlite.jit._code import graph_code

        forward = self._methods.get("forward")
        if forward is None:  # (no forward: no code, as torch's)
            raise AttributeError("'RecursiveScriptModule' object has no attribute 'code'")
        return graph_code(forward.graph, "forward", forward.defaults)

    def _object(self):
        """The module Object the graph's prim::GetAttr nodes read, rebuilt only when a parameter or
        buffer was replaced (in-place updates need nothing: it holds the same tensors)."""
        cached = self.__dict__.get("_cached_object")
        tree = self.__dict__["_jit_tree"]
        if cached is not None and cached[2] == tree[0]:  # no attribute or training flag set since
            dicts, names, tensors = cached[1]  # still current: the same tensor under each name
            if all(map(_is, map(_dict_get, dicts, names), tensors)):
                return cached[0]
        from torchlite.jit._trace import _module_object
        from torchlite.jit._archive_attributes import fill_object

        slots = []
        obj = _module_object(self, slots)
        fill_object(self, obj)
        self.__dict__["_cached_object"] = (obj, _slot_columns(slots), tree[0])
        return obj

    def forward(self, *args, **kwargs):
        forward = self.__dict__["_forward"]
        if forward is None:  # (trace_module without "forward"): torch's error
            raise AttributeError("'RecursiveScriptModule' object has no attribute 'forward'")
        graph, takes_self, n_args = forward
        if len(args) == n_args and all(map(_is_tensor, args)) and not kwargs and \
                (self.__dict__["_sync"] is False or not self._state()):
            # the common call: one tensor per graph input, no attributes to keep in step
            out = _jit.run_graph(self._specialized(graph), [self._object(), *args]) if takes_self else \
                _jit.run_graph(graph, list(args))
            out = out[0]
            return out if isinstance(out, _tl.Tensor) else self._converted(graph, out)
        return self._run(self._methods["forward"], args, kwargs)

    def __getattr__(self, name):
        methods = self.__dict__.get("_methods")
        if methods and name != "forward" and name in methods:  # a scripted module's @export'ed methods
            from torchlite.jit._script_method import ScriptMethod
            return ScriptMethod(self, name, methods[name])
        objects = self.__dict__.get("_jit_objects")
        if objects and name in objects:  # instances as Python gets them (a copy, as torch's)
            from torchlite.jit import _loaded_objects
            return _loaded_objects.to_python(self._jit_attributes[name], objects[name])
        return super().__getattr__(name)

    def __setattr__(self, name, value):
        attrs = self.__dict__.get("_jit_attributes")
        if attrs and name in attrs:  # an attribute the graphs read: cast to its type, as torch's loaded module
            objects = self.__dict__["_jit_objects"]
            from torchlite.jit._archive_attributes import cast, holds_objects
            if name in objects:
                from torchlite.jit import _loaded_objects
                if not holds_objects(attrs[name]):  # dicts: torch's casts (a dict's int values become floats...)
                    value = cast(name, attrs[name], value)
                objects[name] = _loaded_objects.from_python(name, attrs[name], value)
            else:
                self.__dict__[name] = cast(name, attrs[name], value)
            self.__dict__["_jit_tree"][0] += 1
            return
        constants = self.__dict__.get("_jit_constants")
        if constants and name in constants:
            from torchlite.jit._archive_attributes import constant_error
            raise constant_error(name, self.__dict__[name])
        if name == "training" and "_jit_tree" in self.__dict__:  # (train() / eval(): version 6 graphs read it)
            from torchlite.jit._attribute_cast import _bool, _CastError
            try:
                value = _bool(value)
            except _CastError as e:
                raise RuntimeError(f"Could not cast attribute 'training' to type bool: {e}") from None
            self.__dict__["training"] = value
            self.__dict__["_jit_tree"][0] += 1
            return
        super().__setattr__(name, value)

    def _run(self, method, args, kwargs=None, name="forward"):
        sig = self.__dict__["_signatures"].get(name)  # dicts and Enum members in the arguments or the return
        if sig is not None:
            args, kwargs = sig.inputs(args, kwargs)
            return sig.output(self._run_graph(method, args, kwargs, name))
        return self._run_graph(method, args, kwargs, name)

    def _run_graph(self, method, args, kwargs, name):
        graph, takes_self = method.graph, method.takes_self
        inputs = [self._object()] if takes_self else []
        params = graph.inputs()[len(inputs):]
        if method.arg_names and (kwargs or len(args) != len(params)):
            args = _bind(name, method, args, kwargs or {})
        elif kwargs:
            raise RuntimeError(f"{name}() got an unexpected keyword argument '{next(iter(kwargs))}'.")
        if len(args) < len(params) and all(str(v.type()).endswith("?") for v in params[len(args):]):
            args = args + (None,) * (len(params) - len(args))  # an archive without defaults: Optional ones are None
        if len(inputs) + len(args) == len(graph.inputs()) and not any(
                isinstance(a, (tuple, list)) and v.type().isTensor() for a, v in zip(args, graph.inputs()[len(inputs):])):
            # one graph input per argument (a scripted graph's ints, lists, ...): passed as they are
            args = [float(a) if type(a) is int and str(v.type()) == "float" else a for a, v in zip(args, params)]
            return self._graph_call(graph, inputs + args, takes_self)
        for a in args:
            if isinstance(a, _tl.Tensor):
                inputs.append(a)
            else:
                from torchlite.jit._trace import _flatten

                inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be inputs")
        return self._graph_call(graph, inputs, takes_self)

    def _cpp_module(self):
        m = cpp_module(self)
        m.classes = self.__dict__["_jit_classes"]
        return m

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={self.original_name}"
