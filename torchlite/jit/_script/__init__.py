"""torchlite.jit.script: compiles a Python function, an nn.Module (its forward and @export'ed
methods) or a ScriptModule class's instance from its source into the JIT's IR, run by the C++
interpreter (docs/jit.md, "Script"). compiler.py emits the graph (values.py: what an expression
compiles to), transform.py puts exits in structured form, schema_match.py resolves YAML overloads,
types.py holds the static types, builtins.py Python's builtins, library.py what script needs to know
of non-user objects (forwarding lambdas, scripted submodules, unannotated defaults)."""
from __future__ import annotations

import inspect
import threading
import weakref

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit._script import concrete_type
from torchlite.jit._script import types as T
from torchlite.jit._script import python_methods
from torchlite.jit._script.compiler import Compiler
from torchlite.jit._script.values import SV
from torchlite.jit._module_state import StateSync, run_with_state
from torchlite.jit._script.attributes import AttributeState, Recompile
from torchlite.jit._script_module import FunctionArchive
from torchlite.jit._dict_list import DictList, refuse_empty


def ignore(drop=False, **kwargs):
    """@torchlite.jit.ignore: the function (or module method) stays Python; script calls it through a
    prim::PythonOp node when the graph runs, and a graph holding one cannot be saved (as torch's).
    ignore(drop=True) is torch's deprecated form of @unused."""
    if callable(drop):
        drop._torchlite_jit_ignore = True
        return drop
    if drop:
        import warnings
        warnings.warn("ignore(True) has been deprecated. TorchScript will now drop the function call on "
                      "compilation. Use torch.jit.unused now. {}", category=FutureWarning, stacklevel=2)

    def deco(fn):
        fn._torchlite_jit_ignore = True
        if drop:
            fn._torchlite_jit_unused = True
        return fn
    return deco


def unused(fn):
    """@torchlite.jit.unused: script compiles a call of it to torch's run-time error ("This Python function is
    annotated to be ignored and cannot be run"); the graph saves."""
    fn._torchlite_jit_ignore = True
    fn._torchlite_jit_unused = True
    return fn


def export(fn):
    """@torchlite.jit.export: a module method compiled (and saved) beside forward."""
    fn._torchlite_jit_export = True
    return fn


def is_scripting() -> bool:
    """True inside scripted code (script folds the call), False when Python runs it."""
    return False


def script_method(fn):
    """@torchlite.jit.script_method (a ScriptModule subclass's compiled method): as @export."""
    return export(fn)


def annotate(the_type, the_value):
    """torch.jit.annotate: gives an empty list or dict its type in script; the value in Python."""
    return the_value


def _object_in(value, t):
    """A Python instance of a TorchScript class as the interpreter's Object (a copy of its attributes, as torch's
    conversion: what the graph assigns is not written back); instances it holds are converted too."""
    from torchlite.jit._script import classes
    info = classes.info(t.cls)
    obj = _jit.Object(T.class_name(t.cls))
    for f in info.fields:
        ft = info.types.get(f)
        v = getattr(value, f)
        obj.setattr(f, _to_input(v, ft) if ft is not None else v)
    return obj


def _holds_dicts(t):
    """Whether an assigned attribute of type t holds dicts (converted on each call: _module_state.py), and no
    TorchScript class instance (the module holds those as Objects already)."""
    def has(t, kind):
        return t is not None and (t.kind == kind or any(has(e, kind) for e in t.elems))
    return has(t, "Dict") and not has(t, "Object")


def _converted(t):
    """Whether a value of type t is converted on its way into a graph (a dict to its list form, an Enum member
    to its value, an instance of a TorchScript class to an Object), itself or inside a container."""
    return t is not None and (t.kind in ("Dict", "Enum", "Object", "Union") or any(_converted(e) for e in t.elems))


def _fits(value, t) -> bool:
    """Whether a Python value is of static type t (a Union's members are tested with this)."""
    k = t.kind
    simple = {"Tensor": _tl.Tensor, "str": str, "bool": bool, "None": type(None), "Device": _tl.device}
    if k in simple:
        return isinstance(value, simple[k])
    if k == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if k == "float":
        return isinstance(value, float)
    if k == "Union":
        return any(_fits(value, m) for m in t.elems)
    if k == "List":
        return isinstance(value, list) and all(_fits(v, t.elems[0]) for v in value)
    if k == "Tuple" and t.cls is None:
        return isinstance(value, tuple) and len(value) == len(t.elems) and all(map(_fits, value, t.elems))
    if k == "Dict":
        return isinstance(value, dict) and all(_fits(a, t.elems[0]) and _fits(b, t.elems[1]) for a, b in value.items())
    if k == "Any":
        return True
    return _matches(value, t)


def _matches(value, t) -> bool:
    """Whether a Python value fits a static type holding TorchScript class instances or Enum members (the
    checks torch makes when it converts an argument)."""
    k = t.kind
    if k == "Object" or k == "Enum":
        return isinstance(value, t.cls)
    if k == "Union":
        return _fits(value, t)
    if k == "Optional":
        return value is None or _matches(value, t.elems[0])
    if k == "List":
        return isinstance(value, (list, tuple)) and all(_matches(v, t.elems[0]) for v in value)
    if k == "Tuple":
        return isinstance(value, tuple) and len(value) == len(t.elems) and all(map(_matches, value, t.elems))
    if k == "Dict":  # (an empty list is taken for an empty dict, as torch takes it)
        return isinstance(value, dict) and all(_matches(a, t.elems[0]) and _matches(v, t.elems[1])
                                               for a, v in value.items()) or (type(value) is list and not value)
    check = _LEAF_CHECKS.get(k)
    return check is None or check(value)


# inside containers, as torch checks them: an int (a bool too) is taken for an int, a float or a bool
_LEAF_CHECKS = {"Tensor": lambda v: isinstance(v, _tl.Tensor), "int": lambda v: isinstance(v, int),
                "float": lambda v: isinstance(v, (int, float)), "bool": lambda v: isinstance(v, int),
                "str": lambda v: isinstance(v, str)}


def _py_type_str(t, top=True) -> str:
    """A static type as torch's argument errors write it (List[__torch__.Acc], Optional[...]; an Enum is
    `Enum<__torch__.Color>` alone, `__torch__.Color` inside a container)."""
    if t.kind == "Optional":
        return f"Optional[{_py_type_str(t.elems[0], False)}]"
    if t.kind in ("List", "Dict") or (t.kind == "Tuple" and t.cls is None):
        return f"{t.kind}[{', '.join(_py_type_str(e, False) for e in t.elems)}]"
    if t.kind == "Enum" and not top:
        return T.class_name(t.cls)
    return repr(t)


def _object_out(value, t):
    """An interpreter Object of a TorchScript class as a new Python instance with its attributes (as torch)."""
    from torchlite.jit._script import classes
    info = classes.info(t.cls)
    out = t.cls.__new__(t.cls)
    for f in info.fields:
        v, ft = value.getattr(f), info.types.get(f)
        if ft is None and isinstance(v, _jit.Object):  # a class not compiled here yet: found by its name
            conv = classes.converter(v.type_name)
            setattr(out, f, conv(v) if conv is not None else v)
        else:
            setattr(out, f, _from_output(v, ft))
    return out


def _to_input(value, t):
    if t is None:
        return value
    if t.kind == "float" and type(value) is int:  # (an int inside a container for a float: a float, as torch)
        return float(value)
    if t.kind == "Union":  # converted as its own named-tuple class, or the first member it is
        for m in t.elems:
            if m.kind == "Tuple" and m.cls is not None and type(value) is m.cls:
                return _to_input(value, m)
        for m in t.elems:
            if _fits(value, m):
                return _to_input(value, m)
        return value
    if t.kind == "Enum" and isinstance(value, t.cls):
        return value.value
    if t.kind == "Dict" and isinstance(value, dict):
        flat = DictList()  # (marked as a dict in the interpreter: _dict_list.py)
        to_float = t.elems[0].kind == "float"
        for k, v in value.items():  # an int key of a Dict[float, V] becomes a float, as torch converts it
            flat += [float(k) if to_float and type(k) is int else k, _to_input(v, t.elems[1])]
        return flat
    if t.kind in ("List", "Tuple") and isinstance(value, (list, tuple)) and any(_converted(e) for e in t.elems):
        elems = t.elems if t.kind == "Tuple" else [t.elems[0]] * len(value)
        out = [_to_input(v, e) for v, e in zip(value, elems)]
        if t.kind == "List":
            return out
        return t.cls(*out) if t.cls is not None else tuple(out)  # a named tuple stays its class (its tag)
    if t.kind == "Optional" and value is not None:
        return _to_input(value, t.elems[0])
    if t.kind == "Object" and isinstance(value, t.cls):
        return _object_in(value, t)
    return value


def _from_output(value, t):
    if t is None or t.kind == "Tensor":
        return value
    if t.kind == "Union":  # an object is its class's member; a dict (a list marked as a dict) a Dict member
        for m in t.elems:
            if m.kind == "Object" and isinstance(value, _jit.Object) and value.type_name == T.class_name(m.cls):
                return _from_output(value, m)
        dicts = [m for m in t.elems if m.kind == "Dict"]
        has_list = any(m.kind == "List" for m in t.elems)
        if isinstance(value, list) and dicts and (isinstance(value, DictList) or not has_list):
            for m in dicts:  # the member whose keys and values the items are
                if all(_fits(value[i], m.elems[i % 2]) for i in range(len(value))):
                    return _from_output(value, m)
            return _from_output(value, dicts[0])
        lists = [m for m in t.elems if m.kind == "List"]
        if isinstance(value, list) and lists:
            for m in lists:
                if all(_fits(v, m.elems[0]) for v in value):
                    return _from_output(value, m)
        return value
    if t.kind == "Enum":
        return t.cls(value)
    if t.kind == "Object":
        return _object_out(value, t)
    if t.kind == "Dict" and isinstance(value, list):
        return {value[i]: _from_output(value[i + 1], t.elems[1]) for i in range(0, len(value), 2)}
    if t.kind == "Tuple" and isinstance(value, tuple):
        values = [_from_output(v, e) for v, e in zip(value, t.elems)]
        return t.cls(*values) if t.cls is not None else tuple(values)
    if t.kind == "List" and isinstance(value, list):
        return [_from_output(v, t.elems[0]) for v in value]
    if t.kind == "Optional" and value is not None:
        return _from_output(value, t.elems[0])
    return value


def _has_dict(t):
    """Whether a value of type t is converted on its way out (a dict from its list form, a named tuple from a tuple)."""
    return t is not None and (t.kind in ("Dict", "Enum", "Object") or t.cls is not None or
                              any(_has_dict(e) for e in t.elems))


class _Signature:
    """What a compiled method's Python call needs: parameter names, static types, defaults."""

    def __init__(self, names, types, defaults, ret):
        self.names, self.types, self.defaults, self.ret = names, types, defaults, ret
        # a call with every argument given positionally and nothing to convert passes them as they are
        self.plain = not any(_converted(t) for t in types)
        self.plain_ret = not _has_dict(ret)  # returned as run_graph gives it (only dicts are converted)
        # the Python types each argument must have (checked per call, as PyTorch matches arguments)
        self.checks = [(i, n, t, (t.cls,) if t.kind in ("Enum", "Object") else _PY_TYPES.get(t.kind))
                       for i, (n, t) in enumerate(zip(names, types))
                       if t.kind in _PY_TYPES or t.kind in ("Enum", "Object") or _converted(t)]
        self._tails = {}  # n positional arguments -> (the checked defaults of the rest, the checks of the n)

    def _tail(self, qualname, n):
        """For a call with n positional arguments and no keywords: the other parameters' defaults, bound
        and checked once, and the checks the n given arguments need; None when some have no default."""
        if n in self._tails:
            return self._tails[n]
        tail = None
        if self.plain and n <= len(self.names):
            rest = list(zip(self.names[n:], self.defaults[n:]))
            if all(d is not inspect.Parameter.empty and d is not _NO_DEFAULT for _, d in rest):
                values = [None] * n + [d for _, d in rest]
                try:
                    self._check(qualname, values, [c for c in self.checks if c[0] >= n])
                    tail = (values[n:], [c for c in self.checks if c[0] < n])
                except RuntimeError:
                    tail = None  # a default of the wrong type raises per call, as before
        self._tails[n] = tail
        return tail

    def inputs(self, qualname, args, kwargs):
        if not kwargs and self.plain:
            tail = self._tail(qualname, len(args))
            if tail is not None:
                values = list(args) + tail[0] if tail[0] else list(args)
                return self._check(qualname, values, tail[1])
        values = self._bind(qualname, args, kwargs)
        return self._check(qualname, values, self.checks)

    def _check(self, qualname, values, checks):
        for i, name, t, ok in checks:
            v = values[i]
            if ok is None or t.kind in ("List", "Dict", "Tuple") and _converted(t):  # instances inside: converted
                if t.kind == "Union":
                    refuse_empty(v)
                if not _matches(v, t):
                    found = "Tensor" if isinstance(v, _tl.Tensor) else type(v).__name__
                    raise RuntimeError(f"{qualname}() Expected a value of type '{_py_type_str(t)}' for argument "
                                       f"'{name}' but instead found type '{found}'.")
                values[i] = _to_input(v, t)
                continue
            if not isinstance(v, ok) or (t.kind in ("int", "float") and isinstance(v, bool)):
                found = "Tensor" if isinstance(v, _tl.Tensor) else type(v).__name__
                raise RuntimeError(f"{qualname}() Expected a value of type '{t}' for argument '{name}' but instead "
                                   f"found type '{found}'.")
            if t.kind == "float" and type(v) is int:
                values[i] = float(v)
            elif t.kind == "Enum":
                values[i] = v.value  # a member runs as its value
            elif t.kind == "Object":
                values[i] = _object_in(v, t)
        return values

    def _bind(self, qualname, args, kwargs):
        if len(args) > len(self.names):
            raise RuntimeError(f"{qualname}() expected at most {len(self.names)} argument(s) but received "
                               f"{len(args)} argument(s)")
        values = list(args)
        for name, default in zip(self.names[len(args):], self.defaults[len(args):]):
            if name in kwargs:
                values.append(kwargs.pop(name))
            elif default is not inspect.Parameter.empty and default is not _NO_DEFAULT:
                values.append(default)
            else:
                raise RuntimeError(f"{qualname}() is missing value for argument '{name}'.")
        if kwargs:
            raise RuntimeError(f"{qualname}() got an unexpected keyword argument '{next(iter(kwargs))}'.")
        return [v if t.kind in ("Enum", "Object", "Union") or t.kind in ("List", "Dict", "Tuple", "Optional") and _converted(t)
                else _to_input(v, t) for v, t in zip(values, self.types)]  # (_check converts these)


_PY_TYPES = {"Tensor": (_tl.Tensor,), "int": (int,), "float": (float, int), "bool": (bool,), "str": (str,),
             "List": (list, tuple), "Tuple": (tuple,), "Dict": (list, dict)}


from torchlite.jit._script.values import _NO as _NO_DEFAULT  # noqa: E402


def _compile(fn, self_sv=None, attrs=None):
    graph = _jit.Graph()
    c = Compiler(graph, attrs)
    if self_sv is not None:
        self_value = graph.addInput("self")
        self_value.setType(T.ir_type(self_sv.type))
        self_sv.value = self_value
    names, types, defaults, ret = c.compile_function(fn, self_sv, skip_self=self_sv is not None)
    if c.container_constants:  # a module's list or dict the graph may change: read at run time instead
        _containers_written(c.container_constants, graph, attrs)
    from torchlite.jit._passes.script_optimization import optimize_script_graph
    optimize_script_graph(graph)  # DCE of what inlining left unused, constant pooling, CSE, If simplification
    graph.lint()
    return graph, _Signature(names, types, defaults, ret)


def _containers_written(constants, graph, attrs):
    """Registers as run-time attributes the lists and dicts of module attributes that `graph` holds as constants
    and may change (attribute_containers.py), and compiles the module again (Recompile) if there are any."""
    from torchlite.jit._script import attribute_containers
    from torchlite.jit._script.attributes import declared_type
    added = False
    for module, name in attribute_containers.written(graph, constants):
        if attrs.type_of(module, name) is not None:
            continue
        try:
            t = declared_type(module, name, _refuse)
        except ValueError:
            continue
        if t is not None and t.kind in ("List", "Dict", "Tuple"):
            attrs.add(module, name, t)
            added = True
    if added:
        raise Recompile()


def _refuse(msg):
    raise ValueError(msg)


class ScriptFunction(FunctionArchive):
    """A scripted function: `graph`, `code`, `schema`; calling it runs the graph in the interpreter;
    `save` writes it as torch.jit saves a function (a module's forward)."""

    def __init__(self, fn):
        self._fn = fn
        found = concrete_type.lookup_function(fn)  # scripted before: its graph (a copy) and signature
        if found is None:
            found = _compile(fn)
            concrete_type.store_function(fn, *found)
        self.graph, self._sig = found
        self.__name__ = fn.__name__
        self.__qualname__ = fn.__qualname__
        self.__doc__ = fn.__doc__

    @property
    def code(self):
        from torchlite.jit._code import graph_code  # (named after the function, defaults written, as torch's)
        defaults = [None if d is inspect.Parameter.empty or d is _NO_DEFAULT else (d,) for d in self._sig.defaults]
        return graph_code(self.graph, self.__name__, defaults)

    @property
    def inlined_graph(self):
        return self.graph

    @property
    def schema(self):
        params = ", ".join(f"{n} : {t}" for n, t in zip(self._sig.names, self._sig.types))
        return f"{self.__name__}({params}) -> {self._sig.ret}"

    def __call__(self, *args, **kwargs):
        if _jit._is_tracing():  # inside a trace (ONNX export): the Python function, so its ops are recorded
            return self._fn(*args, **kwargs)
        inputs = self._sig.inputs(self.__name__, args, kwargs)
        return _from_output(_run(self.graph, inputs), self._sig.ret)

    def __repr__(self):
        return f"<torchlite.jit.ScriptFunction object {self.__qualname__}>"


def _method(graph, sig, takes_self=True):
    """The archive's Method of a compiled graph: its arguments' names and defaults ((value,), or None)."""
    defaults = []
    for d, t in zip(sig.defaults, sig.types):
        if d is inspect.Parameter.empty or d is _NO_DEFAULT:
            defaults.append(None)
        else:
            defaults.append((float(d) if t.kind == "float" and type(d) is int else _to_input(d, t),))
    method = _jit.Method(graph, takes_self, list(sig.names), defaults)
    method.enums = enum_table(sig)  # the Enum classes of the arguments and return, named in the archive
    return method


def _run(graph, inputs):
    """The graph's output; the grad mode restored if it raises (inside a `with no_grad()` block, which sets and
    restores the mode with nodes of its own)."""
    grad = _tl._C._autograd.is_grad_enabled()
    try:
        return _jit.run_graph(graph, inputs)[0]
    except BaseException:
        _tl._C._autograd._set_grad_enabled(grad)
        raise


def _training_key(module):
    return tuple(m.training for m in module.modules())


def _methods_of(module):
    cls = type(module)
    names = _exported.get(cls)
    if names is None:
        names = ["forward"]
        for name in dir(cls):
            attr = inspect.getattr_static(cls, name, None)
            if name != "forward" and getattr(attr, "_torchlite_jit_export", False):
                names.append(name)
        try:
            _exported[cls] = names
        except TypeError:
            pass
    return list(names)


_exported = weakref.WeakKeyDictionary()  # class -> names of the methods script compiles (recompiles read them again)


def _script_module(module):
    class_forward = inspect.getattr_static(type(module), "forward", None)
    if class_forward is None or class_forward is _tl.nn.Module.forward:
        raise RuntimeError(f"Module '{type(module).__name__}' has no forward method to compile")
    scripted = ScriptedModule(module)
    scripted._compiled()  # compile errors are raised now, not at the first call
    return scripted


from torchlite.jit._enum_archive import enum_table  # noqa: E402
from torchlite.jit import _object_attributes, _read_attributes  # noqa: E402
from torchlite.jit._attribute_cast import cast_attribute, check_submodules  # noqa: E402
from torchlite.jit._script_copy import script_copy  # noqa: E402
from torchlite.jit._trace import TracedModule as _TracedModule  # noqa: E402


class _PythonMethods:
    """A scripted module's `$sync` when its graphs call @ignore'd methods: the state to keep in step (a StateSync or
    None) and the mark that each call registers the module's Object tree first (python_methods.register_tree)."""
    __slots__ = ("state",)

    def __init__(self, state):
        self.state = state


class ScriptedModule(_TracedModule):
    """What script(module) returns: runs on a copy of the module tree (torchlite/jit/_script_copy.py: the
    same tensors in slots of its own, as torch's); forward and the @export'ed methods run their compiled
    graphs. Module attributes that are not tensors, and the training flags, are constants of a compilation:
    a graph is compiled per training mode, on first use in that mode."""

    def __init__(self, module):
        super().__init__(script_copy(module), None)
        _object_attributes.convert_tree(self._traced_from)  # instances of script classes held by attributes
        self.__dict__["_compiled_by_mode"] = {}
        self.__dict__["_attrs"] = AttributeState()  # the attributes compiled code assigns, over all modes
        self.__dict__["_state_lock"] = threading.RLock()  # held by calls that copy state (_module_state.py)
        self.__dict__["graph"] = None
        del self.__dict__["graph"]  # `graph` is the property below

    def train(self, mode=True):
        super().train(mode)
        self._traced_from.training = mode  # the copy's root too: compiled code may read it at run time
        self.__dict__.pop("_current", None)  # the training flags changed: look the graphs up again
        return self

    def _read_at_run_time(self, module, name, t):
        """`module.name`, read as a constant so far, was set from Python: compile again reading it with
        prim::GetAttr (an attribute compiled code assigns, as far as compiling is concerned), or, if that does not
        compile, with the new value as a constant (_read_attributes.py)."""
        attrs = self.__dict__["_attrs"]
        attrs.add(module, name, t)
        self._drop_compiled()
        try:
            self._compiled()
        except Exception:  # noqa: BLE001 (a run-time read this compiler cannot type: keep the constant)
            del attrs.types[(id(module), name)]
            self._drop_compiled()

    def _drop_compiled(self):
        """An attribute compiled code read as a constant was set from Python (_read_attributes.py): the next
        call compiles again (a concrete-type cache hit for values seen before)."""
        self.__dict__["_compiled_by_mode"].clear()
        self.__dict__.pop("_current", None)

    def _compile_methods(self, module):
        attrs = self.__dict__["_attrs"]
        if not attrs.types and not self.__dict__.get("_prescanned"):
            # the user's modules' plain `self.x = ...`: known before the first compilation
            self.__dict__["_prescanned"] = True
            for m in module.modules():
                if not type(m).__module__.startswith("torchlite."):
                    attrs.prescan(m, [getattr(type(m), name) for name in _methods_of(m)
                                      if name != "forward" or inspect.getattr_static(type(m), "forward", None)
                                      is not _tl.nn.Module.forward])
        _object_attributes.register(module, attrs)
        from torchlite.jit._script.attribute_containers import containers
        attrs.containers = containers(module, attrs)  # lists and dicts a helper may change (a Recompile keeps them)
        known = len(attrs.types)
        key = concrete_type.key_of(module, attrs)
        found = concrete_type.lookup(key, module, attrs)  # another instance of this concrete type compiled them
        if found is not None:
            return found, known != len(attrs.types) or None
        while True:
            try:
                found = {}
                for name in _methods_of(module):
                    fn = getattr(type(module), name)
                    self_sv = SV(T.T("Module", module=module), module=module)
                    found[name] = _compile(fn, self_sv, attrs)
                concrete_type.store(key, module, found, attrs)
                return found, known != len(attrs.types) or None
            except Recompile:  # an assigned attribute was read as a constant before: compile again knowing it
                continue

    def _state_sync(self, found):
        """The StateSync of these graphs (attributes by their submodule paths)."""
        root = self._traced_from
        paths = {}
        for path, m in root.named_modules(remove_duplicate=False):
            paths.setdefault(id(m), tuple(path.split(".")) if path else ())
        attrs = self.__dict__["_attrs"]
        entries = [(paths[mid], name, t.kind == "float", t if _holds_dicts(t) else None)
                   for (mid, name), t in attrs.types.items() if mid in paths]
        immutable = {(paths[mid], name) for (mid, name), t in attrs.types.items()
                     if mid in paths and t.kind in ("int", "float", "bool", "str")}
        # one lock per scripted module, whatever its mode (_module_state.py: concurrent calls)
        return StateSync(root, entries, [g for g, _ in found.values()], immutable, self.__dict__["_state_lock"])

    def _compiled(self):
        current = self.__dict__.get("_current")
        if current is not None:
            return current
        module = self._traced_from
        key = (self.training,) + _training_key(module)[1:]
        cache = self.__dict__["_compiled_by_mode"]
        found = cache.get(key)
        if found is None:
            saved = module.training
            module.training = self.training
            try:
                found, grew = self._compile_methods(module)
            finally:
                module.training = saved
            if grew:  # graphs of other modes read attributes now known to be assigned as constants
                cache.clear()
            check_submodules(module, self.__dict__["_attrs"], self)  # `scripted.sub.count = v` cast as torch
            _read_attributes.record(module, _read_attributes.read_names(module, self.__dict__["_attrs"]))
            sync = self._state_sync(found)
            found["$sync"] = sync = sync if sync else None  # None: nothing to keep in step (the common case)
            if python_methods.calls_methods(v[0] for k, v in found.items() if k[0] != "$"):
                # ignored methods map their module's Object back to Python: calls take the slow path (_call)
                found["$sync"] = sync = _PythonMethods(sync)
            found["$forward"] = found["forward"] + (sync,)  # what a call reads, in one lookup
            cache[key] = found
        self.__dict__["_current"] = found
        return found

    @property
    def graph(self):
        return self._compiled()["forward"][0]


    def _call(self, graph, inputs, sync):
        if sync is None:
            return _run(graph, inputs)
        if type(sync) is _PythonMethods:  # the graphs call ignored methods: their Objects map to these modules
            sync = sync.state
            python_methods.register_tree(inputs[0], self, sync, self.__dict__["_cached_object"][1])
            if sync is None:
                return _run(graph, inputs)
        try:
            return run_with_state(sync, inputs[0], self.__dict__["_cached_object"][1], lambda: _run(graph, inputs))
        finally:
            if self._traced_from.training != self.__dict__["training"]:
                # compiled code assigned `self.training` (as torch's, Python sees it): the next call takes the graphs
                # of that mode
                self.__dict__["training"] = self._traced_from.training
                self.__dict__.pop("_current", None)

    @property
    def original_name(self):
        return type(self._traced_from).__name__

    def forward(self, *args, **kwargs):
        if _jit._is_tracing():  # inside a trace (ONNX export): the Python module, so its ops are recorded
            return self._traced_from(*args, **kwargs)
        graph, sig, sync = self._compiled()["$forward"]
        inputs = [self._object()] + sig.inputs("forward", args, kwargs)
        out = _run(graph, inputs) if sync is None else self._call(graph, inputs, sync)
        return out if sig.plain_ret else _from_output(out, sig.ret)

    def __getattr__(self, name):
        compiled = self.__dict__.get("_compiled_by_mode")
        if compiled is not None and name != "forward" and name in _methods_of(self.__dict__["_traced_from"]):
            self._compiled()  # compile errors now

            def method(*args, **kwargs):
                compiled = self._compiled()  # at the call: a set attribute may have dropped the graphs
                graph, sig = compiled[name]
                inputs = [self._object()] + sig.inputs(name, args, kwargs)
                return _from_output(self._call(graph, inputs, compiled["$sync"]), sig.ret)
            return method
        original = self.__dict__.get("_traced_from")
        if original is not None and name in original.__dict__ and not name.startswith("_"):
            # a plain attribute of the module (`scripted.count`), shared; an object as a new instance of its class
            return _object_attributes.to_python(original, name, original.__dict__[name])
        if original is not None and python_methods.is_ignored(inspect.getattr_static(type(original), name, None)):
            return getattr(type(original), name).__get__(self)  # an @ignore'd method: Python, on the scripted module
        return super().__getattr__(name)

    def __setattr__(self, name, value):
        original = self.__dict__.get("_traced_from")
        if original is not None and name in original.__dict__ and name != "training" and not name.startswith("_") \
                and name not in self.__dict__:
            if _object_attributes.type_of(original, name) is not None:
                value = _object_attributes.from_python(original, name, value)
            else:
                t = self.__dict__["_attrs"].type_of(original, name)
                if t is None:  # compiled code reads it as a constant: cast, compile again at the next call
                    _read_attributes.set_read_attribute(original, name, value, self)
                    return
                value = cast_attribute(name, t, value)  # an attribute compiled code assigns: cast, as torch
            original.__dict__[name] = value  # the module's own attribute, which compiled code reads
            return
        super().__setattr__(name, value)

    def _cpp_module(self):
        from torchlite.jit._script_module import cpp_module
        from torchlite.jit import _archive_attributes  # graphs reading every attribute at run time, as torch's
        found, attrs, folded = _archive_attributes.save_graphs(self)
        methods = [(name, _method(*compiled)) for name, compiled in found.items()]
        m = cpp_module(self._traced_from, methods, attributes=lambda mod: attrs.of_module(mod),
                       constants=lambda mod: _archive_attributes.folded_constants(mod, folded))
        m.training = self.training
        from torchlite.jit._script_object import class_modules  # the classes' methods, for a fresh process
        m.classes = class_modules([sig for name, (_, sig) in ((n, c) for n, c in self._compiled().items()
                                                               if not n.startswith("$"))], self._traced_from)
        return m

    def _get_name(self):
        return "RecursiveScriptModule"

    def extra_repr(self):
        return f"original_name={self.original_name}"


def _check_initialized(module):
    """As PyTorch: a lazy module (or one holding one) cannot be scripted before a forward pass gives its
    parameters their shapes."""
    from torchlite.nn.parameter import is_lazy
    for m in module.modules():
        names = [n for n, t in list(m._parameters.items()) + list(m._buffers.items()) if t is not None and is_lazy(t)]
        if names:
            cls = type(m)
            raise RuntimeError(f"'{cls.__module__}.{cls.__qualname__}' has uninitialized parameters {names[0]}. Did you "
                               "forget to run a forward pass?")


def script(obj, optimize=None, _frames_up=0, _rcb=None, example_inputs=None):
    """Compiles `obj` (a function, an nn.Module, or something scripted already) into the JIT's IR."""
    from torchlite.jit._script.library import _user_script_module
    from torchlite.jit._script_module import ScriptModule
    if isinstance(obj, ScriptModule) and _user_script_module(obj):
        return _script_module(obj)  # a subclass of ScriptModule: its forward and script_methods
    if isinstance(obj, (ScriptModule, ScriptFunction)):
        return obj
    if isinstance(obj, _tl.nn.Module):
        _check_initialized(obj)
        return _script_module(obj)
    if isinstance(obj, type):
        if issubclass(obj, _tl.nn.Module):
            raise RuntimeError(f"script of a class ({obj.__name__}) is not supported: script an instance of an "
                               "nn.Module, or a function")
        from torchlite.jit._script.classes import script_class
        return script_class(obj)  # a TorchScript class: usable in scripted code
    if inspect.isfunction(obj) or inspect.ismethod(obj):
        return ScriptFunction(obj)
    raise RuntimeError(f"script expects a function or an nn.Module, got {type(obj).__name__}")
