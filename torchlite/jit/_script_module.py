"""ScriptModule, the base of compiled modules (traced ones included, as torch.jit's), and
RecursiveScriptModule, what torchlite.jit.load and freeze return: an nn.Module rebuilt from a
compiled module tree (torchlite._C._jit.Module: type names, training flags, parameters, buffers,
submodules, method graphs), whose forward runs its graph in the C++ interpreter. It needs no
Python class of the original model, so it works in a process that never imported it."""
from __future__ import annotations

import operator
import os

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
        m.methods = [("forward", _jit.Method(self.graph, False))]
        return m

    def save(self, f, _extra_files=None):
        _jit._save_module_file(self._cpp_module(), os.fspath(f), _extra_bytes(_extra_files))

    def save_to_buffer(self, _extra_files=None) -> bytes:
        return _jit._save_module(self._cpp_module(), _extra_bytes(_extra_files))


def cpp_module(module, methods=()):
    """The compiled-module tree of an nn.Module (its own class's type name, or the stored one of a
    RecursiveScriptModule), with `methods` [(name, _jit.Method)] on the root; a loaded submodule
    keeps its own methods."""
    from torchlite.jit._trace import _module_type_name

    m = _jit.Module(_module_type_name(module), module.training)
    m.parameters = [(n, p) for n, p in module._parameters.items() if p is not None]
    m.buffers = [(n, b) for n, b in module._buffers.items() if b is not None]
    m.none_parameters = [n for n, p in module._parameters.items() if p is None]
    m.none_buffers = [n for n, b in module._buffers.items() if b is None]
    m.submodules = [(n, cpp_module(s)) for n, s in module._modules.items() if s is not None]
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


class RecursiveScriptModule(ScriptModule):
    """A compiled module rebuilt from its tree: parameters (as Parameters), buffers and submodules
    are ordinary nn.Module attributes (state_dict, parameters(), optimizers work), and forward runs
    the saved graph in the interpreter, reading them."""

    def __init__(self, cpp):
        super().__init__()
        self.__dict__["_jit_type_name"] = cpp.type_name
        self.__dict__["_methods"] = dict(cpp.methods)
        forward = self._methods.get("forward")  # read once: pybind attribute reads cost per call
        self.__dict__["_forward"] = None if forward is None else (
            forward.graph, forward.takes_self, len(forward.graph.inputs()) - forward.takes_self)
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

        return graph_code(self.graph)

    def _object(self):
        """The module Object the graph's prim::GetAttr nodes read, rebuilt only when a parameter or
        buffer was replaced (in-place updates need nothing: it holds the same tensors)."""
        cached = self.__dict__.get("_cached_object")
        if cached is not None:
            dicts, names, tensors = cached[1]  # still current: the same tensor under each name
            if all(map(_is, map(_dict_get, dicts, names), tensors)):
                return cached[0]
        from torchlite.jit._trace import _module_object

        slots = []
        obj = _module_object(self, slots)
        self.__dict__["_cached_object"] = (obj, _slot_columns(slots))
        return obj

    def forward(self, *args):
        forward = self.__dict__["_forward"]
        if forward is None:
            self._method("forward")  # raises
        graph, takes_self, n_args = forward
        if len(args) == n_args and all(map(_is_tensor, args)):  # the common call: one tensor per graph input
            return _jit.run_graph(graph, [self._object(), *args] if takes_self else list(args))[0]
        return self._run(graph, takes_self, args)

    def __getattr__(self, name):
        methods = self.__dict__.get("_methods")
        if methods and name != "forward" and name in methods:  # a scripted module's @export'ed methods
            method = methods[name]
            return lambda *args: self._run(method.graph, method.takes_self, args)
        return super().__getattr__(name)

    def _run(self, graph, takes_self, args):
        inputs = [self._object()] if takes_self else []
        params = graph.inputs()[len(inputs):]
        if len(args) < len(params) and all(str(v.type()).endswith("?") for v in params[len(args):]):
            args = args + (None,) * (len(params) - len(args))  # the archive keeps no defaults: Optional ones are None
        if len(inputs) + len(args) == len(graph.inputs()) and not any(
                isinstance(a, (tuple, list)) and v.type().isTensor() for a, v in zip(args, graph.inputs()[len(inputs):])):
            # one graph input per argument (a scripted graph's ints, lists, ...): passed as they are
            return _jit.run_graph(graph, inputs + list(args))[0]
        for a in args:
            if isinstance(a, _tl.Tensor):
                inputs.append(a)
            else:
                from torchlite.jit._trace import _flatten

                inputs += _flatten(a, "Only tensors and (possibly nested) tuples/lists of tensors can be inputs")
        return _jit.run_graph(graph, inputs)[0]

    def _cpp_module(self):
        return cpp_module(self)

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={self.original_name}"
