"""The script compiler: Python's ast of a function (or a module's methods) → torchlite IR, built
through the graph API (torchlite._C._jit) so that the C++ interpreter runs it with no Python in
the loop. Values are SVs ("sugared values": an IR value, or a compile-time constant, a static
tuple, a module, a function); control flow becomes prim::If / prim::Loop with outputs; calls of
other Python functions, methods and submodules are inlined; YAML ops are resolved by their
schemas (schema_match), everything else non-tensor is a prim:: op (aten/jit/PrimOps.h)."""
from __future__ import annotations

import ast
import builtins
import enum
import inspect
import operator
import types as pytypes
import typing

import torchlite as _tl
from torchlite._C import _jit
from torchlite.jit import frontend
from torchlite.jit._script import attributes as A
from torchlite.jit._script import call_cache
from torchlite.jit._script import classes
from torchlite.jit._script import python_methods
from torchlite.jit._script import schema_match
from torchlite.jit._script import str_methods
from torchlite.jit._script import types as T
from torchlite.jit._script.builtins import BUILTINS
from torchlite.jit._script.library import default_type, forwarded, is_library, source_module
from torchlite.jit._script.script_str import script_str
from torchlite.jit._script.source_cache import source_context, structured_body
from torchlite.jit._script.transform import LOOP_RETURN_INIT, WITH_ENTER, WITH_EXIT, always_exits, assigned_names
from torchlite.jit._script.values import _NO, SV, const_sv

_INT64_MAX = 2**63 - 1  # a while loop's trip count

_BINOPS = {ast.Add: ("add", "prim::add", operator.add), ast.Sub: ("sub", "prim::sub", operator.sub),
           ast.Mult: ("mul", "prim::mul", operator.mul), ast.Div: ("div", "prim::truediv", operator.truediv),
           ast.FloorDiv: ("floor_divide", "prim::floordiv", operator.floordiv),
           ast.Mod: ("remainder", "prim::mod", operator.mod), ast.Pow: ("pow", "prim::pow", None),
           ast.MatMult: ("matmul", None, None), ast.BitAnd: ("bitwise_and", None, None),
           ast.BitOr: ("bitwise_or", None, None), ast.BitXor: ("bitwise_xor", None, None),
           ast.LShift: ("bitwise_left_shift", None, None), ast.RShift: ("bitwise_right_shift", None, None)}
_CMPOPS = {ast.Lt: ("lt", "prim::lt", operator.lt), ast.LtE: ("le", "prim::le", operator.le),
           ast.Gt: ("gt", "prim::gt", operator.gt), ast.GtE: ("ge", "prim::ge", operator.ge),
           ast.Eq: ("eq", "prim::eq", operator.eq), ast.NotEq: ("ne", "prim::ne", operator.ne)}
_INPLACE = {"add": "add_", "sub": "sub_", "mul": "mul_", "div": "div_"}
_DTYPE_METHODS = {"float": "float32", "double": "float64", "half": "float16", "bfloat16": "bfloat16", "long": "int64",
                  "int": "int32", "short": "int16", "char": "int8", "byte": "uint8", "bool": "bool"}
_UNSUPPORTED_STMT = {ast.With: "with statements", ast.Try: "try blocks", ast.Global: "global variables",
                     ast.Nonlocal: "nonlocal variables", ast.Delete: "del statements",
                     ast.ClassDef: "class definitions", ast.FunctionDef: "function definitions",
                     ast.AsyncFunctionDef: "async function definitions", ast.AsyncFor: "async for loops",
                     ast.AsyncWith: "async with statements", ast.Import: "import statements",
                     ast.ImportFrom: "import statements"}
_UNSUPPORTED_EXPR = {ast.Lambda: "Lambda",
                     ast.Set: "Set literal", ast.Await: "Await", ast.Yield: "Yield", ast.YieldFrom: "Yield from",
                     ast.Starred: "Starred expression", ast.NamedExpr: "Assignment expression (:=)"}
_EXC_NAMES = {ValueError: "builtins.ValueError", TypeError: "builtins.TypeError", RuntimeError: "builtins.RuntimeError",
              IndexError: "builtins.IndexError", KeyError: "builtins.KeyError", AssertionError: "builtins.AssertionError",
              NotImplementedError: "builtins.NotImplementedError", Exception: "builtins.Exception"}


def _grad_modes():
    return (_tl.no_grad, _tl.enable_grad, _tl.set_grad_enabled)


def _intrinsic(e, name) -> bool:
    """Whether e is a call of one of the transform's statements' names (`$with_enter(...)`)."""
    return isinstance(e, ast.Call) and isinstance(e.func, ast.Name) and e.func.id == name


def ignored(fn):
    return python_methods.is_ignored(fn)


class _Range:
    """A source range that is no AST node's (torch's one-column ranges)."""

    def __init__(self, line, col, end_col):
        self.lineno = self.end_lineno = line
        self.col_offset, self.end_col_offset = col, end_col


def _is_typing_form(v):
    """typing.List, Dict, Tuple, Optional, Union (and list/dict/tuple), subscripted in an expression."""
    import typing
    return isinstance(v, (type, typing._SpecialForm, typing._BaseGenericAlias)) and v in (typing.List, typing.Dict, typing.Tuple, typing.Optional, typing.Union, list, dict, tuple)



def _refuse(msg):
    raise ValueError(msg)


class Frame:
    """One function being compiled (inlined calls get their own): its source, globals, closure."""

    def __init__(self, fn, ctx):
        self.fn, self.ctx = fn, ctx
        self.loop_return_type = None  # the type of the values returned inside loops
        self.last_return = None  # the last return statement compiled (where a return type error points)
        self.return_hint = None  # the return annotation: branches returning different members of a Union join to it
        self.globals = getattr(fn, "__globals__", {})
        self.closure = {}
        code = getattr(fn, "__code__", None)
        if code is not None and fn.__closure__:
            for name, cell in zip(code.co_freevars, fn.__closure__):
                try:
                    self.closure[name] = cell.cell_contents
                except ValueError:
                    pass


class Compiler:
    """Emits one graph. `compile_function` is the entry; calls of Python functions and methods
    compile their bodies into the same graph (inlining), with a frame each."""

    def __init__(self, graph, attrs=None):
        self.g = graph
        self.attrs = attrs  # A.AttributeState of the module being compiled (None for a function)
        self._stmt = None  # the statement being compiled (where attribute assignment errors point)
        self._anchor = None  # set by constant()
        self.frames = []
        self.active = []  # functions being compiled: recursion is refused
        self.constructing = []  # TorchScript classes whose __init__ is being compiled (it may add attributes)
        self.open_lists = {}  # id(SV) of a comprehension's list or an empty literal -> [SV, element type so far]
        self.module_keys = {}  # id(module) -> (module, its concrete-type key): call_cache's keys, per compilation
        # [(Value, (obj, module, name))]: prim::Constants made of lists/dicts module attributes hold
        # (attribute_containers.py: those the graph may change become run-time attributes)
        self.container_constants = []

    # ---- errors --------------------------------------------------------------------------
    @property
    def ctx(self):
        return self.frames[-1].ctx

    def error(self, node, msg):
        return frontend.compile_error(self.ctx, node, msg)

    def where_at(self, node):
        """A function raising a compile error at node (what types.py's checks call)."""
        def where(msg):
            raise self.error(node, msg)
        return where

    def unsupported(self, node, msg):
        return frontend.NotSupportedError(self.ctx, node, msg)

    # ---- values --------------------------------------------------------------------------
    def insert(self, kind, inputs, out_types, n_out=None):
        node = self.g.insertNode(self.g.create(kind, inputs, len(out_types) if n_out is None else n_out))
        for o, t in zip(node.outputs(), out_types):
            o.setType(T.ir_type(t))
        return node

    def value(self, sv, node=None):
        """The IR value of sv (constants and static tuples are materialized here)."""
        if sv.value is not None:
            return sv.value
        if sv.items is not None:  # built where it is used (not cached: a use in another block would not see it)
            vals = [self.value(i, node) for i in sv.items]
            return self.insert("prim::TupleConstruct", vals, [sv.type]).output()
        if sv.is_const:
            c = sv.const
            if isinstance(c, enum.Enum):  # an Enum member runs as its value
                c = c.value
            if isinstance(c, _tl.Tensor) and c.requires_grad:
                raise self.error(node, "Cannot insert a Tensor that requires grad as a constant. Consider making "
                                       "it a parameter or input, or detaching the gradient")
            if classes.is_script_class(type(c)):  # torch's words for a global instance of a script class
                raise self.error(node, f"python value of type '{type(c).__name__}' cannot be used as a value. Perhaps "
                                       "it is a closed over global variable? If so, please consider passing it in as "
                                       "an argument or use a local variable instead.")
            origin = self.attrs.containers.get(id(c)) if self.attrs is not None and type(c) in (list, dict) else None
            if origin is not None and type(c) is dict and sv.type is not None and sv.type.kind == "Dict":
                from torchlite.jit._script import _to_input
                c = _to_input(c, sv.type)  # (the interpreter's form of a dict)
            try:
                v = self.constant(c)
            except Exception:
                raise self.error(node, f"Python value of type '{type(c).__name__}' cannot be used as a value")
            if origin is not None and origin[0] is sv.const:
                self.container_constants.append((v, origin))
            if sv.type is not None and not isinstance(c, _tl.Tensor):
                v.setType(T.ir_type(sv.type))
            return v
        if sv.fn is not None:
            raise self.error(node, f"'{getattr(sv.fn, '__name__', sv.fn)}' is a function, not a value")
        raise self.error(node, "module objects cannot be used as values")

    def constant(self, c):
        """A prim::Constant at the top of the graph: it dominates every block, and runs once per call
        rather than once per loop iteration (constant_pooling later merges equal ones)."""
        here = self.g.insertPoint()
        if self._anchor is None:  # the first node of the graph: constants go before it
            self.g.setInsertPoint(self.g.return_node())
            self._anchor = self.g.insertConstant(None).node()
            if here is not None and here.kind() == "prim::Return" and here.owningBlock() is self.g.block():
                here = self.g.return_node()
        self.g.setInsertPoint(self._anchor)
        try:
            return self.g.insertConstant(c)
        finally:
            self.g.setInsertPoint(here)

    def new(self, t, value):
        return SV(t, value=value)

    def uninitialized(self, t):
        """A value for a branch that raises (never read): a None constant typed as t."""
        v = self.constant(None)
        v.setType(T.ir_type(t))
        return SV(t, value=v)

    # ---- entry ---------------------------------------------------------------------------
    def compile_function(self, fn, self_sv=None, skip_self=False):
        """Adds fn's parameters as graph inputs (after %self for a method), compiles the body and
        registers its return. Returns (param names, param types, defaults, return type)."""
        ctx = source_context(fn)
        fdef = ctx.tree.body[0]
        if not isinstance(fdef, ast.FunctionDef):
            raise frontend.NotSupportedError(ctx, fdef, "script takes functions and methods")
        self.frames.append(Frame(fn, ctx))
        self.active.append(fn)
        self.constant(None)  # the anchor, before any node
        try:
            hints = self._hints(fn, fdef)
            env = {}
            params = self._params(fdef)
            names, types, defaults = [], [], []
            if skip_self:
                env[params[0].arg] = self_sv
                params = params[1:]
            for p, default in self._defaults(fdef, params):
                t = hints.get(p.arg) or default_type(default)
                v = self.g.addInput(p.arg)
                v.setType(T.ir_type(t))
                env[p.arg] = SV(t, value=v)
                names.append(p.arg)
                types.append(t)
                defaults.append(default)
            ret_hint = hints.get("return")
            if python_methods.is_ignored(fn) and self_sv is not None:
                # the scripted module's own @ignore'd/@unused forward: torch leaves it Python, so it runs as Python
                # (a call of the method on the module)
                result = self.python_op(fn, [env[n] for n in names], {}, fdef, self_sv=self_sv, call_unused=True)
            else:
                result = self.body(fdef, env, ret_hint)
            self.g.registerOutput(self.value(result, fdef))
            return names, types, defaults, result.type
        finally:
            self.frames.pop()
            self.active.pop()

    def _params(self, fdef, varargs_ok=False):
        a = fdef.args
        if (a.vararg and not varargs_ok) or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise self.unsupported(fdef.args, "Compiled functions can't take variable number of arguments or use "
                                              "keyword-only arguments with defaults")
        return list(a.args)

    def _defaults(self, fdef, params):
        """(parameter, its default value or inspect.Parameter.empty), from the function object."""
        fn = self.frames[-1].fn
        ds = list(getattr(fn, "__defaults__", None) or ())
        pad = [inspect.Parameter.empty] * (len(fdef.args.args) - len(ds))
        values = (pad + ds)[len(fdef.args.args) - len(params):]
        return list(zip(params, values))

    def _hints(self, fn, fdef):
        out = {}
        raw = getattr(fn, "__annotations__", {}) or {}
        for name, ann in raw.items():
            if isinstance(ann, str):
                frame = self.frames[-1]
                try:
                    ann = eval(ann, dict(frame.globals, **frame.closure))  # noqa: S307 (the user's own annotation)
                except Exception:
                    raise self.error(fdef, f"Unknown type annotation: '{ann}'")
            node = next((a for a in fdef.args.args if a.arg == name), fdef)

            def where(msg, node=node):
                raise self.error(node.annotation if getattr(node, "annotation", None) else node, msg)
            out[name] = T.from_annotation(ann, where)
        return out

    def body(self, fdef, env, ret_hint):
        self.frames[-1].return_hint = ret_hint
        status = self.block(structured_body(fdef), env, allow_return=True)  # parsed and structured once per function
        if status[0] == "raise":
            return self.uninitialized(ret_hint or T.NONE)
        result = status[2]
        if ret_hint is not None:
            result = self.number_to(result, ret_hint, fdef)
            if not T.is_subtype(result.type, ret_hint):
                raise self.error(self.frames[-1].last_return or fdef, f"Return value was annotated as having type {ret_hint} but is actually "
                                       f"of type {result.type}")
            if result.type != ret_hint and not result.is_const:
                result = SV(ret_hint, value=self.value(result))
            elif result.is_const:
                result = SV(ret_hint, const=result.const)
        return result

    # ---- statements ----------------------------------------------------------------------
    def block(self, stmts, env, allow_return=False, in_loop=False):
        """Compiles a structured block; returns ("fall", env) / ("return", env, sv) / ("raise", env)."""
        for s in stmts:
            if isinstance(s, ast.Return):
                if not allow_return:
                    raise self.unsupported(s, "return statements inside loops are not supported")
                # the return annotation types the literals returned (`return []` under `-> List[int]`), as torch's
                sv = SV(T.NONE, const=None) if s.value is None else self.expr(s.value, env,
                                                                             hint=self.frames[-1].return_hint)
                self.frames[-1].last_return = s
                if isinstance(s.value, ast.Name) and s.value.id == "$ret":  # a loop's return value: its type
                    t = self.frames[-1].loop_return_type
                    sv = SV(t, value=self.insert("prim::unchecked_cast", [self.value(sv, s)], [t]).output())
                return ("return", env, sv)
            if isinstance(s, ast.Raise):
                self.raise_(s, env)
                return ("raise", env)
            if isinstance(s, ast.Break):
                if not in_loop:
                    raise self.unsupported(s, "break outside a loop")
                env["$cond"] = SV(T.BOOL, const=False)
                return ("fall", env)
            if isinstance(s, ast.Continue):
                if not in_loop:
                    raise self.unsupported(s, "continue outside a loop")
                return ("fall", env)
            if isinstance(s, ast.If):
                status = self.if_stmt(s, env, allow_return, in_loop)
                if status[0] != "fall":
                    return status
                env = status[1]
                continue
            env = self.stmt(s, env, in_loop)
        return ("fall", env)

    def stmt(self, s, env, in_loop):
        self._stmt = s
        if isinstance(s, ast.Assign) and _intrinsic(s.value, WITH_ENTER):  # (transform.flatten_withs)
            env[s.targets[0].id] = self.with_enter(s.value.args[0], env)
        elif isinstance(s, ast.Expr) and _intrinsic(s.value, WITH_EXIT):
            self.with_exit(env[s.value.args[0].id], s)
        elif isinstance(s, ast.Assign):
            rhs = self.expr(s.value, env)
            self._stmt = s  # (an inlined call in rhs compiled statements of its own)
            for target in s.targets:
                self.assign(target, rhs, env)
        elif isinstance(s, ast.AnnAssign):
            hint = self._annotation(s.annotation)
            if s.value is None:
                raise self.unsupported(s, "a variable annotation without a value")
            rhs = self.expr(s.value, env, hint=hint)
            self._stmt = s
            if not T.is_subtype(rhs.type, hint):
                raise self.error(s, f"Variable '{ast.unparse(s.target)}' is annotated with type {hint} but is "
                                    f"being assigned to a value of type {rhs.type}")
            self.assign(s.target, SV(hint, value=self.value(rhs, s)) if not rhs.is_const else SV(hint, const=rhs.const),
                        env)
        elif isinstance(s, ast.AugAssign):
            self.aug_assign(s, env)
        elif isinstance(s, ast.Expr):
            if isinstance(s.value, ast.Constant):
                return env  # a string used as a comment
            self.expr(s.value, env)
        elif isinstance(s, ast.Pass):
            pass
        elif isinstance(s, ast.Assert):
            self.assert_(s, env)
        elif isinstance(s, ast.For):
            env = self.for_stmt(s, env)
        elif isinstance(s, ast.While):
            env = self.while_stmt(s, env)
        elif isinstance(s, ast.Try):  # as torch: UnsupportedNodeError on the keyword
            raise frontend.UnsupportedNodeError(self.ctx, _Range(s.lineno, s.col_offset, s.col_offset + 3),
                                                msg="try blocks aren't supported")
        else:
            what = _UNSUPPORTED_STMT.get(type(s), f"{type(s).__name__} statements")
            raise self.unsupported(s, f"{what} aren't supported")
        return env

    def with_enter(self, ctx, env):
        """The enter of a `with` item (flattened by transform.flatten_withs): a static pair (context, what `as`
        binds). `torchlite.no_grad()` / `enable_grad()` / `set_grad_enabled(b)`: prim::grad_enabled reads the mode
        and prim::set_grad_enabled sets it (the pair holds the mode to restore; the Python call of a scripted
        module restores it too when the body raises). An instance of a TorchScript class with `__enter__` and
        `__exit__`: `__enter__()` is called (inlined), as torch, with torch's errors for other values."""
        func = self.expr(ctx.func, env) if isinstance(ctx, ast.Call) else None
        cls = func.const if func is not None and func.is_const else None
        grad_modes = _grad_modes()
        args = [self.expr(a, env) for a in ctx.args] if cls in grad_modes else []
        mode = None
        if cls is _tl.no_grad and not args:
            mode = SV(T.BOOL, const=False)
        elif cls is _tl.enable_grad and not args:
            mode = SV(T.BOOL, const=True)
        elif cls is _tl.set_grad_enabled and len(args) == 1 and args[0].type is not None and \
                args[0].type.kind == "bool":
            mode = args[0]
        elif cls in grad_modes or (isinstance(cls, type) and not classes.is_script_class(cls)) or \
                inspect.isbuiltin(cls):
            raise self.unsupported(ctx, "with statements aren't supported (except `with torchlite.no_grad():`, "
                                        "`enable_grad()`, `set_grad_enabled(b)` and TorchScript classes with "
                                        "__enter__ and __exit__)")
        if mode is not None:
            prev = self.insert("prim::grad_enabled", [], [T.BOOL]).output()
            self._enter(SV(T.BOOL, value=prev), lambda p: self.insert("prim::set_grad_enabled", [p.value], [], n_out=0))
            self.insert("prim::set_grad_enabled", [self.value(mode, ctx)], [], n_out=0)
            return SV(T.Tuple([T.BOOL, T.NONE]), items=[SV(T.BOOL, value=prev), SV(T.NONE, const=None)])
        obj = self.expr(ctx, env)
        if obj.type is None or obj.type.kind != "Object" or obj.type.cls is None:
            raise self.error(ctx, "With item expression must return an object")
        enter, exit_ = (obj.type.cls.__dict__.get(n) for n in ("__enter__", "__exit__"))
        if not (inspect.isfunction(enter) and inspect.isfunction(exit_)):
            raise self.error(ctx, "Object returned by with item expression does not define __enter__ and __exit__ "
                                  "methods")
        if len(inspect.signature(enter).parameters) != 1:
            raise self.error(ctx, "__enter__ must have only one argument and one return value")
        if len(inspect.signature(exit_).parameters) != 4:
            raise self.error(ctx, "__exit__ must have four arguments")
        obj = SV(obj.type, value=self.value(obj, ctx))
        self._enter(obj, lambda o: self._call_exit(o, ctx))  # before __enter__: torch exits one that raises too
        got = self.call(self.getattr_object(obj, "__enter__", ctx), [], {}, ctx)
        return SV(T.Tuple([obj.type, got.type or T.ANY]), items=[obj, got])

    def _call_exit(self, obj, node):
        none = SV(T.NONE, const=None)
        self.call(self.getattr_object(obj, "__exit__", node), [none, none, none], {}, node)

    def _enter(self, ctx, emit_exit):
        """prim::Enter(ctx): the interpreter notes the block entered; its one block, given ctx, is the exit the
        interpreter runs if an error leaves the block (torch's interpreter calls `__exit__(None, None, None)` of each
        object entered and not exited, innermost first, ignores their errors and raises the first). emit_exit(p)
        compiles that exit on the block's input p (so the block reads nothing else of the graph's)."""
        node = self.insert("prim::Enter", [self.value(ctx)], [], n_out=0)
        block = node.addBlock()
        p = block.addInputToBlock("ctx")
        p.setType(T.ir_type(ctx.type))
        self.g.setInsertPoint(block.returnNode())
        emit_exit(SV(ctx.type, value=p))
        self.g.setInsertPoint(node.next())

    def with_exit(self, pair, node):
        """The exit of a `with` item: prim::Exit (the interpreter forgets the innermost entered block: an error in the
        exit itself does not run it again), then the grad mode restored, or the object's `__exit__(None, None, None)`
        called."""
        ctx = pair.items[0]
        self.insert("prim::Exit", [], [], n_out=0)
        if ctx.type.kind == "Object":
            self._call_exit(ctx, node)
        else:
            self.insert("prim::set_grad_enabled", [self.value(ctx, node)], [], n_out=0)

    def _annotation(self, node):
        frame = self.frames[-1]
        try:
            ann = eval(compile(ast.Expression(node), "<annotation>", "eval"),  # noqa: S307 (user's annotation)
                       dict(frame.globals, **frame.closure))
        except Exception:
            raise self.error(node, f"Unknown type annotation: '{ast.unparse(node)}'")

        def where(msg):
            raise self.error(node, msg)
        return T.from_annotation(ann, where)

    def assign(self, target, rhs, env):
        if isinstance(target, ast.Name):
            if target.id == "$ret" and rhs.type is not None and rhs.type.kind != "Any":  # lift_loop_returns' value
                frame = self.frames[-1]
                t = rhs.type if frame.loop_return_type is None else T.unify(frame.loop_return_type, rhs.type)
                if t is None:
                    raise self.error(target, f"Previous return statement returned a value of type "
                                             f"{frame.loop_return_type} but this return statement returns a value of "
                                             f"type {rhs.type}")
                frame.loop_return_type = t
                rhs = SV(T.ANY, value=self.value(rhs, target))
            env[target.id] = rhs
        elif isinstance(target, (ast.Tuple, ast.List)):
            elems = self.unpack(rhs, len(target.elts), target)
            for t, e in zip(target.elts, elems):
                self.assign(t, e, env)
        elif isinstance(target, ast.Subscript):
            self.setitem(target, rhs, env)
        elif isinstance(target, ast.Attribute):
            self.set_attribute(target, rhs, env)
        else:
            raise self.unsupported(target, f"assignment to {type(target).__name__}")

    def set_attribute(self, target, rhs, env):
        """`obj.name = rhs` on a module (self or a submodule): prim::SetAttr, the attribute's type fixed at
        compile time (torch's errors for a wrong type, a missing or Final attribute)."""
        where = self._stmt if self._stmt is not None else target
        base, name = self.expr(target.value, env), target.attr
        if base.type is not None and base.type.kind == "Object" and base.type.cls is not None:
            return self.set_object_attribute(base, name, rhs, where)
        mod = base.module
        if mod is None or base.value is None:
            raise self.error(where, f"Tried to set an attribute: {name} on a non-class: {base.type}")
        if name in mod._modules:
            raise self.error(where, f"Wrong type for attribute assignment. Expected {T.T('Module', module=mod._modules[name])} "
                                    f"but got {A.type_name(rhs.type) if rhs.type is not None else 'a non-value'}")
        # A parameter or buffer is a Tensor attribute (NoneType when registered as None), read with prim::GetAttr:
        # as torch 2.13, assigning a parameter puts the value (a plain tensor) in the parameter's slot.
        slots = mod._buffers if name in mod._buffers else mod._parameters if name in mod._parameters else None
        buffer = slots is not None
        if buffer:
            t = T.NONE if slots[name] is None else T.TENSOR
        else:
            if name not in mod.__dict__ or A.is_final(mod, name):
                raise self.error(where, f"Tried to set nonexistent attribute: {name}. Did you forget to initialize it "
                                        "in __init__()?")
            t = self.attrs.type_of(mod, name) if self.attrs is not None else None
            if t is None:
                def bad_annotation(msg):
                    raise self.error(where, msg)
                t = A.declared_type(mod, name, bad_annotation)
            if t is None or t.kind in ("Module", "Any"):
                raise self.error(where, f"Cannot assign to attribute '{name}': its value of type "
                                        f"'{type(mod.__dict__[name]).__name__}' has no TorchScript type (annotate it "
                                        "in the class)")
        if rhs.type is None or not T.is_subtype(rhs.type, t):
            got = A.type_name(rhs.type) if rhs.type is not None else "a non-value"
            raise self.error(where, f"Wrong type for attribute assignment. Expected {A.type_name(t)} but got {got}")
        if self.attrs is None:
            raise self.unsupported(where, "assigning module attributes outside a scripted module's methods")
        if not buffer and self.attrs.type_of(mod, name) is None:
            self.attrs.add(mod, name, t)
            raise A.Recompile()  # reads compiled before this point took it for a constant
        value = self.value(rhs, where)
        self.insert("prim::SetAttr", [self.value(base, where), value], [], n_out=0).s_("name", name)

    def unpack(self, sv, n, node):
        if sv.items is not None:
            if len(sv.items) != n:
                raise self.error(node, f"too many values to unpack: need {n} but found {len(sv.items)}")
            return sv.items
        if sv.is_const and isinstance(sv.const, (tuple, list)):
            if len(sv.const) != n:
                raise self.error(node, f"too many values to unpack: need {n} but found {len(sv.const)}")
            return [const_sv(c) for c in sv.const]
        if sv.type is not None and sv.type.kind == "Tuple":
            if len(sv.type.elems) != n:
                raise self.error(node, f"too many values to unpack: need {n} but found {len(sv.type.elems)}")
            outs = self.insert("prim::TupleUnpack", [self.value(sv, node)], list(sv.type.elems)).outputs()
            return [SV(t, value=o) for t, o in zip(sv.type.elems, outs)]
        if sv.type is not None and sv.type.kind == "List":
            et = sv.type.elems[0]
            outs = self.insert("prim::ListUnpack", [self.value(sv, node)], [et] * n).outputs()
            return [SV(et, value=o) for o in outs]
        raise self.error(node, f"cannot unpack a value of type {sv.type}")

    def aug_assign(self, s, env):
        target = s.target
        if isinstance(target, ast.Attribute):  # self.count += 1: read, operate (in place on a tensor), assign
            cur, rhs = self.expr(target, env), self.expr(s.value, env)
            name = _BINOPS.get(type(s.op), (None,))[0]
            if cur.type is not None and cur.type.kind == "Tensor" and name in _INPLACE:
                new = self.call_op(_INPLACE[name], [cur, rhs], {}, s)
            else:
                new = self.binop(s.op, cur, rhs, s)
            self._stmt = s
            self.set_attribute(target, new, env)
            return
        if isinstance(target, ast.Subscript):
            cur = self.expr(target, env)
            self.setitem(target, self.binop(s.op, cur, self.expr(s.value, env), s), env)
            return
        if not isinstance(target, ast.Name):
            raise self.unsupported(target, "augmented assignment to this target")
        cur = self.lookup(target.id, env, target)
        rhs = self.expr(s.value, env)
        name = _BINOPS.get(type(s.op), (None,))[0]
        if cur.type is not None and cur.type.kind == "Tensor" and name in _INPLACE:
            # As TorchScript (and eager Python): `x += y` on a tensor is in place.
            env[target.id] = self.call_op(_INPLACE[name], [cur, rhs], {}, s)
        elif cur.type is not None and cur.type.kind == "List" and isinstance(s.op, ast.Add):
            et, other = cur.type.elems[0], rhs.type
            if not (rhs.is_const and rhs.const == []) and (
                    other is None or other.kind != "List" or not T.is_subtype(other.elems[0], et)):
                elem = other.elems[0] if other is not None and other.kind == "List" else other
                raise self.error(s, "Arguments for call are not valid.\nThe following variants are available:\n"
                                    "  aten::add_.t(t[](a!) self, t[] b) -> t[]:\n  Could not match type "
                                    f"{other} to List[t] in argument 'b': Type variable 't' previously matched to "
                                    f"type {et} is matched to type {elem}.\n")
            self.insert("prim::extend", [self.value(cur, s), self.value(rhs, s)], [], n_out=0)
        else:
            env[target.id] = self.binop(s.op, cur, rhs, s)

    def assert_(self, s, env):
        cond = self.truth(self.expr(s.test, env), s.test)
        msg = None if s.msg is None else self.expr(s.msg, env)
        refine = self.refinements(s.test, env)[0]
        if cond.is_const:
            if not cond.const:
                self._emit_raise("builtins.AssertionError", msg, s)
        else:
            node = self.insert("prim::If", [self.value(cond, s)], [], n_out=0)
            then, other = node.addBlock(), node.addBlock()
            self.g.setInsertPoint(then.returnNode())
            self.g.setInsertPoint(other.returnNode())
            self._emit_raise("builtins.AssertionError", msg, s)
            self.g.setInsertPoint(node.next())
        self.apply_refinements(refine, env)

    def raise_(self, s, env):
        exc = s.exc
        if exc is None:
            raise self.unsupported(s, "a bare raise")
        cls, msg = exc, None
        if isinstance(exc, ast.Call):
            cls = exc.func
            if len(exc.args) > 1 or exc.keywords:
                raise self.unsupported(exc, "exceptions take one message argument")
            msg = self.expr(exc.args[0], env, in_raise=True) if exc.args else None
        resolved = self.expr(cls, env)
        kind = resolved.const if resolved.is_const else resolved.fn
        if not (isinstance(kind, type) and issubclass(kind, BaseException)):
            raise self.error(cls, "exceptions must derive from BaseException")
        self._emit_raise(_EXC_NAMES.get(kind, f"{kind.__module__}.{kind.__qualname__}"), msg, s)

    def _emit_raise(self, cls, msg, node):
        inputs = [] if msg is None else [self.value(msg, node)]
        self.insert("prim::RaiseException", inputs, [], n_out=0).s_("exception", cls)

    # ---- if ------------------------------------------------------------------------------
    def refinements(self, test, env):
        """(then, else) maps name -> refined type for `x is None` / `x is not None` tests."""
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None \
                and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            sv = env.get(test.left.id)
            if sv is not None and sv.type is not None and sv.type.kind == "Optional":
                refined = {test.left.id: sv.type.elems[0]}
                return (refined, {}) if isinstance(test.ops[0], ast.IsNot) else ({}, refined)
        if isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.left, ast.Name) \
                and isinstance(test.comparators[0], ast.Constant) and test.comparators[0].value is None \
                and isinstance(test.ops[0], (ast.Is, ast.IsNot)):
            sv = env.get(test.left.id)
            if sv is not None and sv.type is not None and sv.type.kind == "Union" and T.NONE in sv.type.elems:
                rest = T.Union([m for m in sv.type.elems if m != T.NONE])  # `x is not None` on Union[int, str, None]
                return ({test.left.id: rest}, {test.left.id: T.NONE}) if isinstance(test.ops[0], ast.IsNot) else \
                    ({test.left.id: T.NONE}, {test.left.id: rest})
        if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
                and len(test.args) == 2 and isinstance(test.args[0], ast.Name):
            sv = env.get(test.args[0].id)
            if sv is not None and sv.type is not None and sv.type.kind in ("Optional", "Union", "Any") and \
                    not sv.is_const and self.expr(test.func, env).fn is isinstance:
                from torchlite.jit._script.builtins import _isinstance_classes, isinstance_split
                kinds = _isinstance_classes(self, self.expr(test.args[1], env), test)
                const, yes, no, _ = isinstance_split(self, sv.type, kinds, test)
                if const is None:  # x has the matching members where it holds, the others where it does not
                    name = test.args[0].id
                    return {name: yes}, ({name: no} if no != sv.type else {})
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
            then = {}
            for v in test.values:
                then.update(self.refinements(v, env)[0])
            return then, {}
        if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
            other = {}
            for v in test.values:
                other.update(self.refinements(v, env)[1])
            return {}, other
        if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
            a, b = self.refinements(test.operand, env)
            return b, a
        return {}, {}

    def apply_refinements(self, refined, env):
        for name, t in refined.items():
            sv = env[name]
            if sv.is_const:
                continue
            out = self.insert("prim::unchecked_cast", [self.value(sv)], [t]).output()
            env[name] = SV(t, value=out)

    def if_stmt(self, s, env, allow_return, in_loop):
        cond = self.truth(self.expr(s.test, env), s.test)
        then_ref, else_ref = self.refinements(s.test, env)
        if cond.is_const:  # only the taken branch is compiled (as PyTorch's metacompile of constants)
            env = dict(env)
            self.apply_refinements(then_ref if cond.const else else_ref, env)
            return self.block(s.body if cond.const else s.orelse, env, allow_return, in_loop)
        return self.emit_if(cond, s, lambda e: self.block(s.body, e, allow_return, in_loop),
                            lambda e: self.block(s.orelse, e, allow_return, in_loop), env, then_ref, else_ref)

    def emit_if(self, cond, node, then_fn, else_fn, env, then_ref=None, else_ref=None):
        n = self.insert("prim::If", [self.value(cond, node)], [], n_out=0)
        results, back = [], []
        for block, fn, ref in ((n.addBlock(), then_fn, then_ref), (n.addBlock(), else_fn, else_ref)):
            self.g.setInsertPoint(block.returnNode())
            benv = dict(env)
            self.apply_refinements(ref or {}, benv)
            refined = {name: benv[name] for name in ref or {} if name in benv}
            status = fn(benv)
            # x only refined in this branch (not assigned): if the branches' types do not join, x is as before
            back.append({n: env[n] for n, sv in refined.items() if n in env and status[1].get(n) is sv})
            results.append((block, status))
        self.g.setInsertPoint(n.next())
        (b_then, s_then), (b_else, s_else) = results
        live = [(b, s) for b, s in results if s[0] != "raise"]
        if not live:
            return ("raise", env)
        kinds = {s[0] for _, s in live}
        if len(kinds) > 1:
            raise self.error(node, "a branch returns and the other does not")  # structure() prevents this
        outputs = []  # (name or '$return', [sv per block])
        out_env = dict(env)
        names = set()
        for _, s in live:
            names |= {k for k, v in s[1].items() if env.get(k) is not v}
        for name in sorted(names):
            svs = [s[1].get(name) for _, s in results]
            if any(sv is None for (_, s), sv in zip(results, svs) if s[0] != "raise"):
                out_env.pop(name, None)  # defined in one branch only: not visible after the if
                continue
            outputs.append((name, svs))
        if "return" in kinds:
            outputs.append(("$return", [s[2] if s[0] == "return" else None for _, s in results]))
        for name, svs in outputs:
            present = [sv for sv in svs if sv is not None]
            if len(present) > 1 and self._join(present) is None:  # refined-only branches give back the old value
                svs = [b.get(name, sv) for b, sv in zip(back, svs)]
                present = [sv for sv in svs if sv is not None]
            t = present[0].type
            hint = self.frames[-1].return_hint if name == "$return" else None
            if hint is not None and hint.kind == "Union" and all(
                    sv.type is not None and T.is_subtype(sv.type, hint) for sv in present):
                t = hint  # `return 1` and `return torch.ones(1)` under `-> Union[int, Tensor]`
            for sv in present[1:]:
                u = T.unify(t, sv.type) if t is not None and sv.type is not None else None
                if u is None:
                    what = "the return value" if name == "$return" else name
                    raise self.error(node, f"Type mismatch: {what} is set to type {svs[0].type if svs[0] else '?'} "
                                           f"in the true branch and type {svs[1].type if svs[1] else '?'} in the "
                                           "false branch")
                t = u
            if all(sv.is_const for sv in present) and len({repr((type(sv.const), sv.const)) for sv in present}) == 1 \
                    and not isinstance(present[0].const, _tl.Tensor):
                sv = SV(t, const=present[0].const)
            else:
                for (block, status), sv in zip(results, svs):
                    self.g.setInsertPoint(block.returnNode())
                    block.registerOutput(self.value(sv, node) if sv is not None else self.uninitialized(t).value)
                self.g.setInsertPoint(n.next())
                out = n.addOutput()
                out.setType(T.ir_type(t))
                sv = SV(t, value=out)
            if name == "$return":
                return ("return", out_env, sv)
            out_env[name] = sv
        return ("fall", out_env)

    @staticmethod
    def _join(svs):
        t = svs[0].type
        for sv in svs[1:]:
            t = T.unify(t, sv.type) if t is not None and sv.type is not None else None
        return t

    def truth(self, sv, node):
        """A bool condition: bools as they are; tensors through prim::Bool (as aten::Bool); numbers != 0."""
        if sv.is_const:
            try:
                return SV(T.BOOL, const=bool(sv.const))
            except Exception:
                raise self.error(node, f"cannot use a value of type {type(sv.const).__name__} as a condition")
        t = sv.type.kind if sv.type is not None else None
        if t == "bool":
            return sv
        if t in ("Tensor", "int", "float"):
            return SV(T.BOOL, value=self.insert("prim::Bool", [self.value(sv, node)], [T.BOOL]).output())
        if t in ("List", "Dict", "str"):
            n = self.builtin_len([sv], node)
            return self.compare_op(ast.NotEq(), n, SV(T.INT, const=0), node)
        if t in ("Union", "Optional"):  # torch's words (a Union[int, float] too: it has no truth value in script)
            raise self.error(node, f"Could not cast value of type {sv.type} to bool")
        raise self.error(node, f"expected a bool expression for the condition, got {sv.type}")

    # ---- loops ---------------------------------------------------------------------------
    def for_stmt(self, s, env):
        if s.orelse:
            raise self.unsupported(s, "else branches of for loops aren't supported")
        it = s.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "range" \
                and self.expr(it.func, env).fn is range:
            return self.range_loop(s, [self.expr(a, env) for a in it.args], env)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "enumerate" \
                and self.expr(it.func, env).fn is enumerate:
            seq = self.expr(it.args[0], env)
            return self.seq_loop(s, seq, env, enumerate_=True)
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) and it.func.id == "zip" \
                and self.expr(it.func, env).fn is zip:
            return self.zip_loop(s, [self.expr(a, env) for a in it.args], env)
        seq = self.expr(it, env)
        return self.seq_loop(s, seq, env)

    def seq_loop(self, s, seq, env, enumerate_=False):
        t = seq.type.kind if seq.type is not None else None
        if self.is_static_seq(seq):
            return self.unrolled(s, self.static_items(seq, s), env, enumerate_)
        if t == "Dict":
            seq = self.call_method(seq, "keys", [], {}, s)
            t = "List"
        if t in ("List", "str"):  # a str's items are its one-byte strs
            et = seq.type.elems[0] if t == "List" else T.STR
            lst = self.value(seq, s)

            def target(i, benv, body_node):
                elem = SV(et, value=self.insert("prim::getitem", [lst, i.value], [et]).output())
                if enumerate_:
                    elem = SV(T.Tuple([T.INT, et]), items=[i, elem])
                self.assign(s.target, elem, benv)
            trip = self.builtin_len([seq], s)
            return self.emit_loop(s, trip, env, target)
        raise self.error(s.iter, f"'{seq.type}' object is not iterable")

    def is_static_seq(self, seq):
        return seq.module is not None or seq.items is not None or (seq.type is not None and seq.type.kind == "Tuple") \
            or (seq.is_const and isinstance(seq.const, (tuple, list))) or (seq.is_const and T.is_enum_class(seq.const))

    def zip_loop(self, s, seqs, env):
        """for a, b in zip(x, y): unrolled when every sequence is static, else a loop of min(len) trips
        reading each list (static ones become lists)."""
        if not seqs or s.iter.keywords:
            raise self.unsupported(s.iter, "zip() takes one or more sequences (no strict=) in script")
        if all(self.is_static_seq(q) for q in seqs):
            cols = [self.static_items(q, s) for q in seqs]
            rows = [SV(T.Tuple([i.type or T.ANY for i in row]), items=list(row)) for row in zip(*cols)]
            return self.unrolled(s, rows, env, False)
        lists = []
        for q in seqs:
            if self.is_static_seq(q):
                q = self.as_list(q, s)
            elif q.type is None or q.type.kind != "List":
                raise self.error(s.iter, f"zip() of a {q.type} in script (lists and tuples only)")
            lists.append(q)
        trip = self.builtin_len([lists[0]], s)
        for q in lists[1:]:
            n = self.builtin_len([q], s)
            trip = SV(T.INT, value=self.insert("prim::min", [self.value(trip, s), self.value(n, s)], [T.INT]).output())
        vals = [self.value(q, s) for q in lists]

        def target(i, benv, body_node):
            elems = [SV(q.type.elems[0], value=self.insert("prim::getitem", [v, i.value], [q.type.elems[0]]).output())
                     for q, v in zip(lists, vals)]
            self.assign(s.target, SV(T.Tuple([e.type for e in elems]), items=elems), benv)
        return self.emit_loop(s, trip, env, target)

    def static_items(self, seq, node):
        if seq.module is not None:
            mods = list(seq.module._modules.items())
            if not (isinstance(seq.module, (_tl.nn.ModuleList, _tl.nn.Sequential))):
                raise self.error(node, f"'{type(seq.module).__name__}' object is not iterable (only ModuleList and "
                                       "Sequential are)")
            return [self.getattr_module(seq, name, node) for name, _ in mods]
        if seq.items is not None:
            return list(seq.items)
        if seq.is_const and T.is_enum_class(seq.const):  # for c in Color: its members, unrolled
            return [self.python_value(m, node) for m in seq.const]
        if seq.is_const:
            return [const_sv(c) for c in seq.const]
        return self.unpack(seq, len(seq.type.elems), node)

    def unrolled(self, s, items, env, enumerate_):
        """A loop over a tuple or a ModuleList: the body compiled once per element."""
        def exits(stmts):  # break/continue of this loop (not of a loop nested in it)
            for st in stmts:
                if isinstance(st, (ast.Break, ast.Continue)):
                    return st
                if isinstance(st, (ast.If, ast.With, ast.Try)):
                    found = exits(st.body) or exits(getattr(st, "orelse", []))
                    if found:
                        return found
            return None
        if exits(s.body) is not None:  # as torch, whose error names the loop
            raise self.error(s, "Because we emit iteration over modulelists or tuples as unrolled loops, we do not "
                                "support break or continue inside the body of these loops")
        for i, item in enumerate(items):
            if enumerate_:
                item = SV(T.Tuple([T.INT, item.type or T.ANY]), items=[SV(T.INT, const=i), item])
            env = dict(env)
            self.assign(s.target, item, env)
            status = self.block(s.body, env, in_loop=True)
            if status[0] == "raise":
                return env
            env = status[1]
        return env

    def range_loop(self, s, args, env):
        for a in args:
            if a.type is None or a.type.kind != "int":
                raise self.error(s.iter, f"range() expects int arguments, got {a.type}")
        if len(args) == 1:
            start, stop, step = SV(T.INT, const=0), args[0], SV(T.INT, const=1)
        elif len(args) in (2, 3):
            start, stop = args[0], args[1]
            step = args[2] if len(args) == 3 else SV(T.INT, const=1)
        else:
            raise self.error(s.iter, f"range expected at most 3 arguments, got {len(args)}")
        if not step.is_const or step.const == 0:
            raise self.error(s.iter, "range() step must be a nonzero constant")
        k = step.const
        if start.is_const and start.const == 0 and k == 1:
            trip = stop
        else:  # ceil((stop - start) / step), negative meaning no trip
            diff = self.arith(ast.Sub(), stop, start, s) if k > 0 else self.arith(ast.Sub(), start, stop, s)
            num = self.arith(ast.Add(), diff, SV(T.INT, const=abs(k) - 1), s)
            trip = self.arith(ast.FloorDiv(), num, SV(T.INT, const=abs(k)), s)

        def target(i, benv, body_node):
            if start.is_const and start.const == 0 and k == 1:
                v = i
            else:
                v = self.arith(ast.Add(), start, self.arith(ast.Mult(), i, SV(T.INT, const=k), s), s)
            self.assign(s.target, v, benv)
        return self.emit_loop(s, trip, env, target)

    def while_stmt(self, s, env):
        if s.orelse:
            raise self.unsupported(s, "else branches of while loops aren't supported")
        cond = self.truth(self.expr(s.test, env), s.test)
        if cond.is_const and not cond.const:
            return env
        return self.emit_loop(s, SV(T.INT, const=_INT64_MAX), env, None, initial=cond)

    def emit_loop(self, s, trip, env, bind_target, initial=None):
        """prim::Loop(trip, cond, carried...): carried are the names the body assigns that exist
        before the loop; `$cond` (break) and, for while, the test give the next condition."""
        carried = sorted(n for n in assigned_names(s.body) if n in env and n != "$cond")
        for name in carried:
            sv = env[name]
            if sv.module is not None or sv.fn is not None:
                raise self.error(s, f"'{name}' holds a module or function and cannot change in a loop")
        init_cond = initial if initial is not None else SV(T.BOOL, const=True)
        inputs = [self.value(trip, s), self.value(init_cond, s)] + [self.value(env[n], s) for n in carried]
        loop = self.insert("prim::Loop", inputs, [], n_out=0)
        body = loop.addBlock()
        i = SV(T.INT, value=body.addInputToBlock("i"))
        i.value.setType(T.ir_type(T.INT))
        benv = dict(env)
        types = {}
        for name in carried:
            t = env[name].type
            types[name] = t
            v = body.addInputToBlock(name)
            v.setType(T.ir_type(t))
            benv[name] = SV(t, value=v)
        benv["$cond"] = SV(T.BOOL, const=True)
        self.g.setInsertPoint(body.returnNode())
        if bind_target is not None:
            bind_target(i, benv, s)
        status = self.block(s.body, benv, in_loop=True)
        if status[0] == "raise":
            outs = [SV(T.BOOL, const=False)] + [self.uninitialized(types[n]) for n in carried]
        else:
            benv = status[1]
            cont = benv["$cond"]
            if initial is not None:  # while: the test again, unless a break ended the loop
                if cont.is_const and cont.const:
                    cont = self.truth(self.expr(s.test, benv), s.test)
                elif not cont.is_const:
                    cont = self.emit_if(cont, s, lambda e: ("return", e, self.truth(self.expr(s.test, e), s.test)),
                                        lambda e: ("return", e, SV(T.BOOL, const=False)), benv)[2]
            outs = [cont]
            for name in carried:
                sv = self.number_to(benv[name], types[name], s)
                if sv.type is None or not T.is_subtype(sv.type, types[name]):
                    raise self.error(s, f"Variable '{name}' previously had type {types[name]} but is now being "
                                        f"assigned to a value of type {sv.type} in the loop")
                outs.append(sv)
        for sv in outs:
            body.registerOutput(self.value(sv, s))
        self.g.setInsertPoint(loop.next())
        env = dict(env)
        for name in carried:
            o = loop.addOutput()
            o.setType(T.ir_type(types[name]))
            env[name] = SV(types[name], value=o)
        return env

    # ---- expressions ---------------------------------------------------------------------
    def lookup(self, name, env, node):
        if name in env:
            return env[name]
        frame = self.frames[-1]
        for scope in (frame.closure, frame.globals):
            if name in scope:
                return self.python_value(scope[name], node)
        if hasattr(builtins, name):
            return self.python_value(getattr(builtins, name), node)
        raise self.error(node, f"undefined value {name}")

    def python_value(self, v, node):
        """A Python object met at compile time (a global, an attribute of a Python module)."""
        try:
            if v in BUILTINS:
                return SV(None, fn=v)
        except TypeError:  # unhashable
            pass
        if isinstance(v, pytypes.ModuleType) or isinstance(v, type) and not issubclass(v, BaseException):
            return SV(None, const=v)
        if isinstance(v, _tl.nn.Module):
            raise self.error(node, "modules are only reachable as attributes of self")
        if classes.is_script_class(type(v)):  # a global instance: torch refuses it (attribute() and value() say how)
            return SV(None, const=v)
        if callable(v) and not isinstance(v, _tl.Tensor):
            return SV(None, fn=v)
        t = T.of_value(v)
        if t is None and not isinstance(v, (_tl.dtype,)):
            if isinstance(v, type) and issubclass(v, BaseException):
                return SV(None, const=v)
            return SV(T.ANY, const=v)
        return SV(t, const=v)

    def expr(self, e, env, hint=None, in_raise=False):
        m = getattr(self, "expr_" + type(e).__name__, None)
        if type(e) is ast.SetComp:  # as torch: UnsupportedNodeError, one column at the brace
            raise frontend.UnsupportedNodeError(self.ctx, _Range(e.lineno, e.col_offset, e.col_offset + 1),
                                                msg="SetComp aren't supported")
        if type(e) is ast.Lambda:  # torch's class (its caret marks one column; this one the whole lambda)
            raise frontend.UnsupportedNodeError(self.ctx, e, msg="Lambda aren't supported")
        if m is None:
            what = _UNSUPPORTED_EXPR.get(type(e), type(e).__name__)
            raise self.unsupported(e, f"{what} aren't supported" if type(e) in _UNSUPPORTED_EXPR
                                   else f"{what} expressions aren't supported")
        if type(e) in (ast.List, ast.Dict, ast.ListComp, ast.DictComp, ast.Tuple):
            return m(e, env, hint)
        if type(e) is ast.JoinedStr:
            return m(e, env, in_raise)
        return m(e, env)

    def expr_Constant(self, e, env):
        if e.value is LOOP_RETURN_INIT:
            return SV(T.ANY, value=self.constant(None))
        if e.value is Ellipsis:
            return SV(None, const=Ellipsis)
        if isinstance(e.value, (bytes, complex)):
            raise self.unsupported(e, f"{type(e.value).__name__} literals aren't supported")
        return const_sv(e.value)

    def expr_Name(self, e, env):
        return self.lookup(e.id, env, e)

    def expr_JoinedStr(self, e, env, in_raise=False):
        """An f-string: folded when every part is a constant, else prim::format of the parts."""
        parts = []
        for v in e.values:
            if isinstance(v, ast.Constant):
                parts.append(SV(T.STR, const=v.value))
                continue
            if v.format_spec is not None:  # torch's message
                raise self.unsupported(e, "Don't support formatting in JoinedStr")
            if v.conversion != -1:
                raise self.unsupported(e, "Don't support conversion in JoinedStr")  # torch's message
            sv = self.expr(v.value, env)
            if sv.type is not None and sv.type.kind == "Enum":
                sv = self.enum_str(sv, e)
            if sv.is_const and script_str(sv.const) is not None:
                parts.append(SV(T.STR, const=script_str(sv.const)))
            elif sv.type is None:
                raise self.error(v, "f-string parts must be values")
            else:
                parts.append(sv)
        if all(p.is_const and isinstance(p.const, str) for p in parts):  # (a dtype constant is formatted when run)
            return SV(T.STR, const="".join(p.const for p in parts))
        return SV(T.STR, value=self.insert("prim::format", [self.value(p, e) for p in parts], [T.STR]).output())

    def comprehension_items(self, e, env, runtime_ok=False):
        """The elements of a list comprehension or generator over a static iterable (a tuple, a
        constant list, a module list, range() of constants, zip() of those), compiled once per element.
        None (where runtime_ok) when the iterable is known only at run time: the caller loops."""
        if len(e.generators) != 1 or e.generators[0].ifs or e.generators[0].is_async:
            if runtime_ok:
                return None
            raise self.unsupported(e, "comprehensions with several for clauses or conditions")
        gen = e.generators[0]
        it = gen.iter
        func = it.func.id if isinstance(it, ast.Call) and isinstance(it.func, ast.Name) else None
        if func == "range" and self.expr(it.func, env).fn is range:
            bounds = [self.expr(a, env) for a in it.args]
            if not all(b.is_const and isinstance(b.const, int) for b in bounds):
                if runtime_ok:
                    return None
                raise self.unsupported(e, "comprehensions over range() of non-constant bounds")
            items = [SV(T.INT, const=i) for i in range(*(b.const for b in bounds))]
        elif func == "zip" and self.expr(it.func, env).fn is zip:
            seqs = [self.expr(a, env) for a in it.args]
            if not all(self.is_static_seq(q) for q in seqs):
                if runtime_ok:
                    return None
                raise self.unsupported(e, "generator expressions over zip() of run-time lists")
            cols = [self.static_items(q, e) for q in seqs]
            items = [SV(T.Tuple([i.type or T.ANY for i in row]), items=list(row)) for row in zip(*cols)]
        elif func == "enumerate" and self.expr(it.func, env).fn is enumerate and runtime_ok:
            return None  # the loop a `for` over enumerate() compiles to
        else:
            seq = self.expr(it, env)
            if not self.is_static_seq(seq):
                if runtime_ok:
                    return None
                raise self.unsupported(e, "generator expressions over run-time lists (only tuples, constants, module "
                                          "lists and constant ranges, which are unrolled)")
            items = self.static_items(seq, e)
        out = []
        for item in items:
            benv = dict(env)
            self.assign(gen.target, item, benv)
            out.append(self.expr(e.elt, benv))
        return out

    def runtime_list_comp(self, e, env, hint):
        """[elt for x in xs if c ...] over run-time lists: loops (one per `for`) appending to a new list, whose
        element type is what is appended (List[Tensor] when nothing is, as an empty literal)."""
        name = f"$lc{id(e)}"
        acc = SV(T.List(T.ANY), value=self.insert("prim::ListConstruct", [], [T.List(T.ANY)]).output())
        self.open_lists[id(acc)] = [acc, None]
        body = ast.Expr(value=ast.Call(func=ast.Attribute(value=ast.Name(id=name, ctx=ast.Load()), attr="append",
                                                           ctx=ast.Load()), args=[e.elt], keywords=[]))
        made = [body, body.value, body.value.func, body.value.func.value]
        stmt = body
        for gen in reversed(e.generators):
            if gen.is_async:
                raise self.unsupported(e, "async comprehensions")
            for cond in reversed(gen.ifs):
                stmt = ast.If(test=cond, body=[stmt], orelse=[])
                made.append(stmt)
            stmt = ast.For(target=gen.target, iter=gen.iter, body=[stmt], orelse=[])
            made.append(stmt)
        # Only the nodes made here take the comprehension's place in the source: its own sub-expressions keep
        # theirs (errors point at them), and the AST is cached across compiles (source_cache), so it is not edited.
        for n in made:
            ast.copy_location(n, e)
            n.end_lineno, n.end_col_offset = e.end_lineno, e.end_col_offset
        benv = dict(env)
        benv[name] = acc
        self.stmt(stmt, benv, False)
        et = self.open_lists.pop(id(acc))[1]
        if et is None:
            et = hint.elems[0] if hint is not None and hint.kind == "List" else T.TENSOR
        t = T.List(et)
        acc.value.setType(T.ir_type(t))
        return SV(t, value=acc.value)

    def expr_GeneratorExp(self, e, env):
        items = self.comprehension_items(e, env, runtime_ok=True)
        if items is None:  # over a run-time list: the list it makes (as torch, which takes list/any/all/sum of it)
            return self.runtime_list_comp(e, env, None)
        if any(i.type is None for i in items):
            return SV(None, items=items)
        return SV(T.Tuple([i.type for i in items]), items=items)

    def expr_ListComp(self, e, env, hint=None):
        items = self.comprehension_items(e, env, runtime_ok=True)
        if items is None:
            return self.runtime_list_comp(e, env, hint)
        if not items:
            t = hint if hint is not None and hint.kind == "List" else T.List(T.TENSOR)
            sv = SV(t, value=self.insert("prim::ListConstruct", [], [t]).output())
            return sv
        et = items[0].type
        for i in items[1:]:
            et = T.unify(et, i.type) if et is not None and i.type is not None else None
        if et is None:
            raise self.error(e, "List comprehension elements must have a single type")
        t = T.List(et)
        return SV(t, value=self.insert("prim::ListConstruct", [self.value(i, e) for i in items], [t]).output())

    def expr_DictComp(self, e, env, hint=None):
        """{k: v for x in xs}: as torch, one `for` and no `if`. Compiled as the list comprehension
        [(k, v) for x in xs] (which types the pairs by what they are), then a loop inserting each pair into a
        new dict, so keys and values are evaluated in Python's order and a later key overwrites."""
        if len(e.generators) != 1:
            raise self.unsupported(e, "Only a single generator is currently supported")
        if e.generators[0].ifs:
            raise self.unsupported(e, "Comprehension ifs are not supported yet")
        pair = ast.Tuple(elts=[e.key, e.value], ctx=ast.Load())
        lc = ast.ListComp(elt=pair, generators=e.generators)
        for n in (pair, lc):
            ast.copy_location(n, e)
            n.end_lineno, n.end_col_offset = e.end_lineno, e.end_col_offset
        lhint = T.List(T.Tuple(list(hint.elems))) if hint is not None and hint.kind == "Dict" else None
        pairs = self.expr_ListComp(lc, env, lhint)
        et = pairs.type.elems[0]
        if et.kind == "Tuple" and len(et.elems) == 2:
            kt, vt = et.elems
        elif hint is not None and hint.kind == "Dict":
            kt, vt = hint.elems
        else:
            kt, vt = T.STR, T.TENSOR  # nothing was inserted: an empty literal's type, as `{}`
        if hint is not None and hint.kind == "Dict" and T.is_subtype(kt, hint.elems[0]) \
                and T.is_subtype(vt, hint.elems[1]):
            kt, vt = hint.elems
        T.check_key(kt, self.where_at(e.key))
        t = T.Dict(kt, vt)
        d = SV(t, value=self.insert("prim::DictConstruct", [], [t]).output())
        names = [f"${s}{id(e)}" for s in ("dc", "dl", "dk", "dv")]

        def name(i, ctx):
            return ast.Name(id=names[i], ctx=ctx)
        target = ast.Tuple(elts=[name(2, ast.Store()), name(3, ast.Store())], ctx=ast.Store())
        put = ast.Assign(targets=[ast.Subscript(value=name(0, ast.Load()), slice=name(2, ast.Load()), ctx=ast.Store())],
                         value=name(3, ast.Load()))
        loop = ast.For(target=target, iter=name(1, ast.Load()), body=[put], orelse=[])
        for n in ast.walk(loop):
            ast.copy_location(n, e)
            n.end_lineno, n.end_col_offset = e.end_lineno, e.end_col_offset
        benv = dict(env)
        benv[names[0]], benv[names[1]] = d, pairs
        self.stmt(loop, benv, False)
        return d

    def expr_Tuple(self, e, env, hint=None):
        hints = hint.elems if hint is not None and hint.kind == "Tuple" and len(hint.elems) == len(e.elts) else \
            [None] * len(e.elts)
        items = [self.expr(x, env, hint=h) for x, h in zip(e.elts, hints)]
        if all(i.is_const for i in items):
            return SV(T.of_value(tuple(i.const for i in items)), const=tuple(i.const for i in items)) \
                if T.of_value(tuple(i.const for i in items)) is not None else SV(None, items=items)
        if any(i.type is None for i in items):  # Python objects (classes, functions): static only
            return SV(None, items=items)
        return SV(T.Tuple([i.type for i in items]), items=items)

    def expr_List(self, e, env, hint=None):
        items = [self.expr(x, env) for x in e.elts]
        if not items:
            # An unannotated empty list literal is List[Tensor], as TorchScript's: appending anything else is
            # torch's type-variable error (`sizes = []; sizes.append(n)` needs `sizes: List[int] = []`).
            t = hint if hint is not None and hint.kind == "List" else T.List(T.TENSOR)
            sv = SV(t, value=self.insert("prim::ListConstruct", [], [t]).output())
            return sv
        et = items[0].type
        for i in items[1:]:
            u = T.unify(et, i.type) if et is not None and i.type is not None else None
            if u is None:
                raise self.error(e, f"Lists must contain only a single type, got {et} and {i.type}")
            et = u
        if hint is not None and hint.kind == "List" and all(T.is_subtype(i.type, hint.elems[0]) for i in items):
            et = hint.elems[0]
        t = T.List(et)
        return SV(t, value=self.insert("prim::ListConstruct", [self.value(i, e) for i in items], [t]).output())

    def expr_Dict(self, e, env, hint=None):
        keys = [self.expr(k, env) for k in e.keys if k is not None]
        if len(keys) != len(e.keys):
            raise self.unsupported(e, "dict unpacking (**)")
        vals = [self.expr(v, env) for v in e.values]
        if hint is not None and hint.kind == "Dict":
            kt, vt = hint.elems
        elif not keys:
            kt, vt = T.STR, T.TENSOR  # as TorchScript: an empty dict literal is Dict[str, Tensor]
        else:
            kt, vt = keys[0].type, vals[0].type
            for v in vals[1:]:
                vt = T.unify(vt, v.type) if vt is not None and v.type is not None else None
                if vt is None:
                    raise self.error(e, "Dict values must contain only a single type")
        T.check_key(kt, self.where_at(e))
        for k, v in zip(keys, vals):
            if not T.is_subtype(k.type, kt) or not T.is_subtype(v.type, vt):
                raise self.error(e, f"Dict entries must be of types {kt}: {vt}, got {k.type}: {v.type}")
        ins = []
        for k, v in zip(keys, vals):
            ins += [self.value(k, e), self.value(v, e)]
        t = T.Dict(kt, vt)
        return SV(t, value=self.insert("prim::DictConstruct", ins, [t]).output())

    def expr_IfExp(self, e, env):
        cond = self.truth(self.expr(e.test, env), e.test)
        then_ref, else_ref = self.refinements(e.test, env)
        if cond.is_const:
            benv = dict(env)
            self.apply_refinements(then_ref if cond.const else else_ref, benv)
            return self.expr(e.body if cond.const else e.orelse, benv)
        return self.emit_if(cond, e, lambda b: ("return", b, self.expr(e.body, b)),
                            lambda b: ("return", b, self.expr(e.orelse, b)), env, then_ref, else_ref)[2]

    def expr_BoolOp(self, e, env):
        is_and = isinstance(e.op, ast.And)
        result = self.truth(self.expr(e.values[0], env), e.values[0])
        refined = dict(env)
        for nxt in e.values[1:]:
            prev = e.values[e.values.index(nxt) - 1]  # `a and b` runs b where a holds, `a or b` where it does not
            self.apply_refinements(self.refinements(prev, refined)[0 if is_and else 1], refined)
            if result.is_const:
                if result.const != is_and:  # False and ... / True or ...
                    return result
                result = self.truth(self.expr(nxt, refined), nxt)
                continue
            short = SV(T.BOOL, const=not is_and)
            rest = (lambda b, nxt=nxt: ("return", b, self.truth(self.expr(nxt, b), nxt)))
            skip = (lambda b: ("return", b, short))
            result = self.emit_if(result, e, rest if is_and else skip, skip if is_and else rest, refined)[2]
        return result

    def expr_UnaryOp(self, e, env):
        sv = self.expr(e.operand, env)
        if isinstance(e.op, ast.Not):
            c = self.truth(sv, e.operand)
            if c.is_const:
                return SV(T.BOOL, const=not c.const)
            return SV(T.BOOL, value=self.insert("prim::not", [c.value], [T.BOOL]).output())
        if isinstance(e.op, ast.UAdd):
            return sv
        if sv.is_const and isinstance(sv.const, (int, float)) and not isinstance(sv.const, bool):
            if isinstance(e.op, ast.USub):
                return const_sv(-sv.const)
            if isinstance(e.op, ast.Invert) and isinstance(sv.const, int):
                return const_sv(~sv.const)
        if sv.type is not None and sv.type.kind == "Tensor":
            return self.call_op("neg" if isinstance(e.op, ast.USub) else "bitwise_not", [sv], {}, e)
        n = self.number(sv)
        if isinstance(e.op, ast.USub) and n.type is not None and n.type.kind in ("int", "float", "Number"):
            return SV(n.type, value=self.insert("prim::neg", [self.value(n, e)], [n.type]).output())
        raise self.error(e, f"unsupported operand type for {type(e.op).__name__}: {sv.type}")

    def number_to(self, sv, want, node):
        """torch's implicit conversion of a Number (a Scalar result) where an int or a float is expected: a return
        annotated int/float and a loop-carried int/float variable (aten::Int / aten::Float); other values as they
        are."""
        if sv.type is not None and sv.type.kind == "Number" and want.kind in ("int", "float") and not sv.is_const:
            kind = "prim::Int" if want.kind == "int" else "prim::Float"
            return SV(want, value=self.insert(kind, [self.value(sv, node)], [want]).output())
        return sv

    @staticmethod
    def number(sv):
        """A Union[int, float] value as a Number (torch's Scalar): what arithmetic, comparisons, int()/float() and
        Scalar arguments take; other values as they are."""
        return SV(T.NUMBER, value=sv.value) if T.is_number_union(sv.type) and sv.value is not None else sv

    def expr_BinOp(self, e, env):
        return self.binop(e.op, self.expr(e.left, env), self.expr(e.right, env), e)

    def binop(self, op, a, b, node):
        name, prim, _ = _BINOPS.get(type(op), (None, None, None))
        if name is None:
            raise self.unsupported(node, f"the operator {type(op).__name__}")
        ta = a.type.kind if a.type is not None else None
        tb = b.type.kind if b.type is not None else None
        if ta == "Tensor":
            return self.call_op(name, [a, b], {}, node)
        if tb == "Tensor" and T.is_number_union(a.type):
            # torch has no reflected op for a Union[int, float] on the left: its schema matching takes an overload
            # (Scalar self, Tensor other) where the op has one (pow, remainder), else aten::<op>(Scalar, Scalar) with
            # the tensor converted to a number (a 0-d tensor; otherwise an error when run)
            if name in ("pow", "remainder"):
                return self.call_op(name, [a, b], {}, node)
            if name in ("add", "sub", "mul", "div", "floor_divide"):
                return self.arith(op, a, self.implicit_number(b, node), node)
            raise self.error(node, schema_match.describe(name, [a, b], {}))
        if tb == "Tensor":  # a number on the left: PyTorch's reflected operators
            if name in ("add", "mul", "bitwise_and", "bitwise_or", "bitwise_xor"):
                return self.call_op(name, [b, a], {}, node)
            if name == "sub":
                return self.call_op("rsub", [b, a], {}, node)
            if name == "div":
                return self.call_op("mul", [self.call_op("reciprocal", [b], {}, node), a], {}, node)
            if name == "pow":
                return self.call_op("pow", [a, b], {}, node)
            raise self.error(node, f"unsupported operand types for {name}: {a.type} and {b.type}")
        return self.arith(op, a, b, node)

    def arith(self, op, a, b, node):
        """int/float/str/list arithmetic: folded when both are constants, else a prim:: op."""
        name, prim, pyop = _BINOPS[type(op)]
        oa, ob = a, b  # the types as written, for the messages
        a, b = self.number(a), self.number(b)
        ta, tb = (a.type.kind if a.type else None), (b.type.kind if b.type else None)
        if a.is_const and b.is_const and pyop is not None and ta in ("List", "Tuple", "str") or \
                a.is_const and b.is_const and pyop is not None and tb in ("List", "Tuple"):
            try:  # constant sequences ([1.0] * 2, (1,) + (2,)): folded
                return const_sv(pyop(a.const, b.const))
            except TypeError:
                raise self.error(node, f"unsupported operand types for {name}: {oa.type} and {ob.type}")
        if prim is None:
            raise self.error(node, f"unsupported operand types for {name}: {oa.type} and {ob.type}")
        if prim == "prim::add" and ta == "List" and self.is_tuple(b) or prim == "prim::add" and tb == "List" \
                and self.is_tuple(a):  # tuple(x.shape[:-1]) + (1,): a run-time "tuple" is a list
            a, b = (self.as_list(v, node, a.type.elems[0] if ta == "List" else b.type.elems[0]) if self.is_tuple(v)
                    else v for v in (a, b))
            ta = tb = "List"
        if prim == "prim::mul" and {ta, tb} == {"List", "int"}:
            return self.repeat_list(*((a, b) if ta == "List" else (b, a)), node)
        nums = ("int", "float", "bool", "Number")
        if ta in nums and tb in nums:
            if prim == "prim::truediv" or prim == "prim::pow" or "float" in (ta, tb):
                t = T.FLOAT
            elif "Number" in (ta, tb):
                t = T.NUMBER
            else:
                t = T.INT
        elif ta == tb == "str" and prim == "prim::add":
            t = T.STR
        elif ta == tb == "List" and prim == "prim::add" and a.type == b.type:
            t = a.type
        else:
            raise self.error(node, f"unsupported operand types for {name}: {oa.type} and {ob.type}")
        if a.is_const and b.is_const and (pyop is not None or prim == "prim::pow"):
            try:
                r = pyop(a.const, b.const) if pyop is not None else float(a.const) ** b.const
                return SV(t, const=float(r) if t.kind == "float" else r)
            except ZeroDivisionError:
                pass  # raised when the graph runs
        return SV(t, value=self.insert(prim, [self.value(a, node), self.value(b, node)], [t]).output())

    def implicit_number(self, t, node):
        """torch's implicit tensor-to-number conversion of an argument: a 0-d tensor's value (a Number), else the
        RuntimeError torch raises when run."""
        dim = SV(T.INT, value=self.insert("prim::dim", [self.value(t, node)], [T.INT]).output())
        bad = self.compare_op(ast.NotEq(), dim, SV(T.INT, const=0), node)
        msg = SV(T.STR, const="Cannot input a tensor of dimension other than 0 as a scalar argument")
        self.emit_if(bad, node, lambda e: self._emit_raise("builtins.RuntimeError", msg, node) or ("raise", e),
                     lambda e: ("fall", e), {})
        return SV(T.NUMBER, value=self.insert("prim::item", [self.value(t, node)], [T.NUMBER]).output())

    def repeat_list(self, lst, n, node):
        """lst * n: a new list extended n times by lst (a loop of prim::extend; n <= 0 gives [])."""
        t = lst.type
        out = self.insert("prim::ListConstruct", [], [t]).output()
        src = self.value(lst, node)
        loop = self.insert("prim::Loop", [self.value(n, node), self.value(SV(T.BOOL, const=True), node)], [], n_out=0)
        body = loop.addBlock()
        body.addInputToBlock("i").setType(T.ir_type(T.INT))
        self.g.setInsertPoint(body.returnNode())
        self.insert("prim::extend", [out, src], [], n_out=0)
        body.registerOutput(self.value(SV(T.BOOL, const=True), node))
        self.g.setInsertPoint(loop.next())
        return SV(t, value=out)

    def expr_Compare(self, e, env):
        left = self.expr(e.left, env)
        result = None
        for op, right_node in zip(e.ops, e.comparators):
            right = self.expr(right_node, env)
            r = self.compare_op(op, left, right, e)
            result = r if result is None else self.binbool(result, r, e)
            left = right
        return result

    def binbool(self, a, b, node):
        if a.is_const:
            return b if a.const else a
        return self.emit_if(a, node, lambda e: ("return", e, b), lambda e: ("return", e, SV(T.BOOL, const=False)), {})[2]

    def compare_op(self, op, a, b, node):
        if isinstance(op, (ast.Is, ast.IsNot)) and "Enum" in (a.type.kind if a.type else None, b.type.kind if b.type else None):
            return self.compare_op(ast.Eq() if isinstance(op, ast.Is) else ast.NotEq(), a, b, node)  # members are singletons
        if isinstance(op, (ast.Is, ast.IsNot)):
            positive = isinstance(op, ast.Is)
            if a.is_const and b.is_const:
                return SV(T.BOOL, const=(a.const is b.const) == positive)
            if a.value is not None and a.value is b.value:  # one value (q is k in an inlined self_attn(x, x, x))
                return SV(T.BOOL, const=positive)
            for x, y in ((a, b), (b, a)):  # a function or module is never None
                if (x.fn is not None or x.module is not None) and y.is_const and y.const is None:
                    return SV(T.BOOL, const=not positive)
            def never_none(t):
                return t is not None and t.kind not in ("Optional", "None", "Any") and T.NONE not in T.members(t)
            if (b.is_const and b.const is None and never_none(a.type)) or \
                    (a.is_const and a.const is None and never_none(b.type)):
                return SV(T.BOOL, const=not positive)  # a non-optional value is never None
            kind = "prim::is" if positive else "prim::isnot"
            return SV(T.BOOL, value=self.insert(kind, [self.value(a, node), self.value(b, node)], [T.BOOL]).output())
        if isinstance(op, (ast.In, ast.NotIn)):
            r = self.contains(b, a, node)
            if isinstance(op, ast.NotIn):
                r = SV(T.BOOL, const=not r.const) if r.is_const else \
                    SV(T.BOOL, value=self.insert("prim::not", [r.value], [T.BOOL]).output())
            return r
        name, prim, pyop = _CMPOPS[type(op)]
        oa, ob = a, b  # the types as written, for the messages
        a, b = self.number(a), self.number(b)
        ta, tb = (a.type.kind if a.type else None), (b.type.kind if b.type else None)
        if "Enum" in (ta, tb) and name in ("eq", "ne"):
            if ta != tb or a.type.cls is not b.type.cls:  # members of two classes (or a member and a value) differ
                return SV(T.BOOL, const=name == "ne")
            a, b = (SV(v.type.elems[0], value=self.value(v, node)) if not v.is_const else
                    SV(v.type.elems[0], const=v.const.value) for v in (a, b))
            ta = tb = a.type.kind
        if name in ("eq", "ne") and "List" in (ta, tb) and (self.is_tuple(a) or self.is_tuple(b)):
            # x.shape == (2, 3), tuple(x.size()) != expected: a tuple of a run-time size is a list in script
            a, b = (self.as_list(v, node) if self.is_tuple(v) else v for v in (a, b))
            ta = tb = "List"
        if ta == "Tensor":
            return self.call_op(name, [a, b], {}, node)
        if tb == "Tensor" and T.is_number_union(oa.type):  # as torch: aten::<op>(Scalar, Scalar), the tensor a number
            b, tb = self.implicit_number(b, node), "Number"
        if tb == "Tensor":
            flipped = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}.get(name, name)
            return self.call_op(flipped, [b, a], {}, node)
        if a.is_const and b.is_const:
            try:
                return SV(T.BOOL, const=bool(pyop(a.const, b.const)))
            except TypeError:
                raise self.error(node, f"cannot compare {oa.type} and {ob.type}")
        ok = (ta in ("int", "float", "bool", "Number") and tb in ("int", "float", "bool", "Number")) or ta == tb or \
            name in ("eq", "ne") and "None" in (ta, tb)
        if not ok and name in ("eq", "ne") and (ta == "Optional" or tb == "Optional"):
            ok = True
        if not ok:
            raise self.error(node, f"cannot compare {oa.type} and {ob.type}")
        return SV(T.BOOL, value=self.insert(prim, [self.value(a, node), self.value(b, node)], [T.BOOL]).output())

    @staticmethod
    def is_tuple(sv):
        return sv.items is not None or (sv.type is not None and sv.type.kind == "Tuple") or \
            (sv.is_const and isinstance(sv.const, tuple))

    def as_list(self, sv, node, elem=None):
        """A static tuple as a list (its elements' common type, or `elem`)."""
        items = self.static_items(sv, node)
        et = elem
        for i in items:
            if elem is None:
                et = i.type if et is None else T.unify(et, i.type)
            if i.type is None or et is None or not T.is_subtype(i.type, et) and not (
                    et.kind == "float" and i.type.kind == "int"):
                raise self.error(node, f"a tuple of {[i.type for i in items]} cannot be a List[{et}]")
        if et is None:
            et = T.INT
        if et.kind == "float":
            items = [SV(T.FLOAT, const=float(i.const)) if i.is_const and i.type.kind == "int" else i for i in items]
        t = T.List(et)
        return SV(t, value=self.insert("prim::ListConstruct", [self.value(i, node) for i in items], [t]).output())

    def contains(self, container, item, node):
        t = container.type.kind if container.type else None
        if container.is_const and item.is_const:
            return SV(T.BOOL, const=item.const in container.const)
        if t == "Dict":
            kind = "prim::dict_contains"
        elif t in ("List", "Tuple"):
            kind = "prim::contains"
        elif t == "str" and item.type is not None and item.type.kind == "str":  # a substring test
            return str_methods.emit(self, "contains", [container, item], T.BOOL, node)
        else:
            raise self.error(node, f"'in' is not supported for {container.type}")
        return SV(T.BOOL, value=self.insert(kind, [self.value(container, node), self.value(item, node)],
                                            [T.BOOL]).output())

    # ---- subscripts ----------------------------------------------------------------------
    def expr_Subscript(self, e, env):
        base = self.expr(e.value, env)
        t = base.type.kind if base.type else None
        form = base.const if base.is_const else base.fn
        if form is not None and _is_typing_form(form):  # List[int] in isinstance(x, List[int]): the alias itself
            def py(sv):
                return tuple(py(i) for i in sv.items) if sv.items is not None else sv.fn if sv.fn is not None \
                    else sv.const if sv.is_const else None
            args = py(self.expr(e.slice, env))
            try:
                return SV(None, const=form[args])
            except TypeError as exc:
                raise self.error(e, f"Unknown type annotation: '{ast.unparse(e)}' ({exc})")
        if base.module is not None:
            idx = self.expr(e.slice, env)
            if isinstance(base.module, _tl.nn.ModuleDict) and idx.is_const and isinstance(idx.const, str):
                if idx.const not in base.module._modules:
                    raise self.error(e.slice, f"ModuleDict has no key '{idx.const}'")
                return self.getattr_module(base, idx.const, e)
            if not (idx.is_const and isinstance(idx.const, int)):
                raise self.error(e.slice, "module lists can only be indexed by constant ints")
            items = self.static_items(base, e)
            return items[idx.const]
        if t == "Tensor":
            return self.tensor_index(base, e.slice, env, e)
        if isinstance(e.slice, ast.Slice):
            return self.list_slice(base, e.slice, env, e)
        idx = self.expr(e.slice, env)
        if base.is_const and isinstance(base.const, dict) and idx.is_const:  # a Python table of the library
            try:
                return self.python_value(base.const[idx.const], e)
            except (KeyError, TypeError):
                raise self.error(e, f"KeyError: {idx.const!r}")
        if t == "Dict":
            kt, vt = base.type.elems
            if not T.is_subtype(idx.type, kt):
                raise self.error(e.slice, f"expected a key of type {kt}, got {idx.type}")
            return SV(vt, value=self.insert("prim::dict_getitem", [self.value(base, e), self.value(idx, e)], [vt]).output())
        if isinstance(e.slice, ast.Slice):
            raise self.unsupported(e.slice, "slicing lists, tuples and strings")
        if idx.type is None or idx.type.kind != "int":
            raise self.error(e.slice, f"indices must be integers, not {idx.type}")
        if base.items is not None or t == "Tuple" or (base.is_const and isinstance(base.const, tuple)):
            if not idx.is_const:
                items = self.static_items(base, e)
                if items and all(i.type is not None and i.type == items[0].type for i in items):
                    # stride[d] in a loop over d: a tuple of one type read as a list
                    lst = self.as_list(base, e)
                    return SV(items[0].type, value=self.insert("prim::getitem", [self.value(lst, e), self.value(idx, e)],
                                                               [items[0].type]).output())
                raise self.error(e.slice, "tuple indices must be constant integers")
            items = self.static_items(base, e)
            try:
                return items[idx.const]
            except IndexError:
                raise self.error(e, f"Tuple index out of range. Tuple is length {len(items)} and index is {idx.const}")
        if base.is_const and isinstance(base.const, (list, str)) and idx.is_const:
            return const_sv(base.const[idx.const])
        if t in ("List", "str"):
            et = base.type.elems[0] if t == "List" else T.STR
            return SV(et, value=self.insert("prim::getitem", [self.value(base, e), self.value(idx, e)], [et]).output())
        raise self.error(e.value, f"'{base.type}' object is not subscriptable")

    def list_slice(self, base, sl, env, node):
        parts = [SV(T.NONE, const=None) if x is None else self.expr(x, env) for x in (sl.lower, sl.upper, sl.step)]
        for p in parts:
            if p.type is None or p.type.kind not in ("int", "None"):
                raise self.error(sl, f"slice indices must be integers or None, not {p.type}")
        if base.is_const and isinstance(base.const, (list, tuple, str)) and all(p.is_const for p in parts):
            return const_sv(base.const[slice(*(p.const for p in parts))])
        t = base.type.kind if base.type else None
        if t == "Tuple" or base.items is not None:
            if not all(p.is_const for p in parts):
                raise self.error(sl, "tuple slices must have constant bounds")
            items = self.static_items(base, node)[slice(*(p.const for p in parts))]
            return SV(T.Tuple([i.type for i in items]), items=items)
        if t == "str":
            step = parts[2] if not (parts[2].is_const and parts[2].const is None) else SV(T.INT, const=1)
            return str_methods.emit(self, "slice", [base, parts[0], parts[1], step], T.STR, node)
        if t != "List":
            raise self.error(node, f"'{base.type}' object cannot be sliced")
        ins = [self.value(base, node)] + [self.value(p, node) for p in parts]
        return SV(base.type, value=self.insert("prim::list_slice", ins, [base.type]).output())

    def tensor_index(self, base, sl, env, node):
        """x[i], x[a:b:c], x[None], x[...], x[t], and tuples of them: select/slice/unsqueeze/index ops.
        Before an ellipsis dims count from the front (a select removes its dim, a slice or None keeps
        one); after it from the back (-k for the k-th real index from the end), which the ops on the
        left do not move."""
        parts = sl.elts if isinstance(sl, ast.Tuple) else [sl]
        evaluated = []
        for p in parts:
            if isinstance(p, ast.Slice):
                evaluated.append(("slice", [None if x is None else self.expr(x, env) for x in (p.lower, p.upper, p.step)]))
            else:
                evaluated.append(("value", self.expr(p, env)))

        def is_marker(kv, what):
            return kv[0] == "value" and kv[1].is_const and kv[1].const is what
        if sum(is_marker(kv, Ellipsis) for kv in evaluated) > 1:
            raise self.error(node, "an index can only have a single ellipsis ('...')")
        tensors = [v for k, v in evaluated if k == "value" and v.type is not None and v.type.kind == "Tensor"]
        if tensors and len(evaluated) != 1:
            raise self.unsupported(node, "tensor indices mixed with other indices")
        x, dim, after = base, 0, None  # after: real indices left once past the ellipsis
        for i, (k, v) in enumerate(evaluated):
            if is_marker((k, v), Ellipsis):
                after = sum(1 for kv in evaluated[i + 1:] if not is_marker(kv, None))
                if any(is_marker(kv, None) for kv in evaluated[i + 1:]):
                    raise self.unsupported(node, "None after an ellipsis in an index")
                continue
            here = SV(T.INT, const=dim if after is None else -after)
            if k == "slice":
                start, stop, step = v
                x = self.call_op("slice", [x, here, start or SV(T.NONE, const=None), stop or SV(T.NONE, const=None),
                                           step or SV(T.INT, const=1)], {}, node)
            elif v.is_const and v.const is None:
                x = self.call_op("unsqueeze", [x, here], {}, node)
            elif v.type is not None and v.type.kind == "int":
                x = self.call_op("select", [x, here, v], {}, node)
            elif v.type is not None and v.type.kind == "Tensor":
                continue
            else:
                raise self.error(node, f"unsupported index of type {v.type}")
            if after is not None:
                after -= 1
            elif not (k == "value" and v.type is not None and v.type.kind == "int"):
                dim += 1  # a select removes its dim; a slice and None keep one
        if tensors:
            lst = SV(T.List(T.Optional(T.TENSOR)), value=self.insert(
                "prim::ListConstruct", [self.value(t, node) for t in tensors], [T.List(T.Optional(T.TENSOR))]).output())
            return self.call_op("index", [x, lst], {}, node)
        return x

    def tensor_dim(self, x, node):
        return SV(T.INT, value=self.insert("prim::dim", [self.value(x, node)], [T.INT]).output())

    def setitem(self, target, rhs, env):
        base = self.expr(target.value, env)
        t = base.type.kind if base.type else None
        if t == "Tensor":
            view = self.tensor_index(base, target.slice, env, target)
            if rhs.type is not None and rhs.type.kind == "Tensor":
                self.call_op("copy_", [view, rhs], {}, target)
            else:
                self.call_op("fill_", [view, rhs], {}, target)
            return
        key = self.expr(target.slice, env)
        if t == "List":
            if not T.is_subtype(rhs.type, base.type.elems[0]):
                raise self.error(target, f"cannot assign a {rhs.type} to an element of a {base.type}")
            self.insert("prim::setitem", [self.value(base, target), self.value(key, target), self.value(rhs, target)],
                        [], n_out=0)
        elif t == "Dict":
            kt, vt = base.type.elems
            if not T.is_subtype(key.type, kt) or not T.is_subtype(rhs.type, vt):
                raise self.error(target, f"cannot assign {key.type}: {rhs.type} into a {base.type}")
            self.insert("prim::dict_setitem", [self.value(base, target), self.value(key, target),
                                               self.value(rhs, target)], [], n_out=0)
        else:
            raise self.error(target, f"'{base.type}' object does not support item assignment")

    # ---- attributes ----------------------------------------------------------------------
    def expr_Attribute(self, e, env):
        base = self.expr(e.value, env)
        return self.attribute(base, e.attr, e)

    def attribute(self, base, name, node):
        if base.module is not None:
            return self.getattr_module(base, name, node)
        if base.is_const and classes.is_script_class(type(base.const)):  # a global instance, refused as torch does
            raise self.error(node, f"attribute lookup is not defined on python value of type '{type(base.const).__name__}'")
        if base.is_const and base.type is None or (base.is_const and isinstance(base.const, (pytypes.ModuleType, type))):
            if classes.is_script_class(base.const):
                return self.class_attribute(base.const, name, node)
            try:
                v = getattr(base.const, name)
            except AttributeError:
                raise self.error(node, f"Module '{getattr(base.const, '__name__', base.const)}' has no attribute '{name}'")
            return self.python_value(v, node)
        t = base.type.kind if base.type else None
        if t == "Object" and base.type.cls is not None:
            return self.getattr_object(base, name, node)
        if t == "Enum":
            return self.enum_attribute(base, name, node)
        if t == "Tuple" and base.type.cls is not None:  # a named tuple's field
            fields = base.type.cls._fields
            if name not in fields:
                raise self.error(node, f"'{base.type!r}' object has no attribute or method '{name}'")
            return self.static_items(base, node)[fields.index(name)]
        if t == "Tensor":
            if name == "shape":
                return SV(T.List(T.INT), value=self.insert("prim::size", [self.value(base, node)], [T.List(T.INT)]).output())
            if name == "ndim":
                return self.tensor_dim(base, node)
            if name == "dtype":
                return SV(T.DTYPE, value=self.insert("prim::dtype", [self.value(base, node)], [T.DTYPE]).output())
            if name == "device":
                return SV(T.DEVICE, value=self.insert("prim::device", [self.value(base, node)], [T.DEVICE]).output())
            if name in ("T", "mT", "H", "mH", "real", "imag"):
                op = {"T": "numpy_T", "mT": "mT", "H": "adjoint", "mH": "mH"}.get(name, name)
                if schema_match.schemas(op):
                    return self.call_op(op, [base], {}, node)
            return SV(None, fn=name, self_sv=base)
        if t in ("List", "Dict", "str"):
            return SV(None, fn=name, self_sv=base)
        raise self.error(node, f"'{base.type}' object has no attribute or method '{name}'")

    def namedtuple_type(self, cls, node):
        def where(msg):
            raise self.error(node, msg)
        return T.NamedTuple(cls, where)

    def construct_namedtuple(self, cls, args, kwargs, node):
        """P(a, b, z=c) for a typing.NamedTuple P: its fields bound as a call's arguments (defaults from the
        class), each checked against its field's type, as torch's errors word it; a tuple of the class's type."""
        t = self.namedtuple_type(cls, node)
        fields, defaults = cls._fields, getattr(cls, "_field_defaults", {})

        def schema():
            parts = []
            for f, ft in zip(fields, t.elems):
                d = f"={defaults[f]!r}" if f in defaults else ""
                parts.append(f"{ft!r} {f}{d}")
            return f"{cls.__name__}({', '.join(parts)}) -> ()"
        if len(args) > len(fields):
            raise self.error(node, f"\n{schema()}:\nExpected at most {len(fields)} arguments but found {len(args)} "
                                   "positional arguments.\n")
        bound = list(args)
        for f in fields[len(args):]:
            if f in kwargs:
                bound.append(kwargs.pop(f))
            elif f in defaults:
                bound.append(self.python_value(defaults[f], node))
            else:
                raise self.error(node, f"\n{schema()}:\nArgument {f} not provided.\n")
        if kwargs:
            name = next(iter(kwargs))
            raise self.error(node, f"\n{schema()}:\nKeyword argument {name} unknown.\n")
        items = []
        for f, ft, a in zip(fields, t.elems, bound):
            if a.type is not None and ft.kind == "float" and a.type.kind == "int" and a.is_const:
                a = SV(T.FLOAT, const=float(a.const))
            if a.type is None or not T.is_subtype(a.type, ft):
                got = "a non-value" if a.type is None else A.type_name(a.type)
                raise self.error(node, f"\n{schema()}:\nExpected a value of type '{ft!r}' for argument '{f}' but "
                                       f"instead found type '{got}'.\n")
            items.append(a)
        return SV(t, value=self.insert("prim::TupleConstruct", [self.value(i, node) for i in items], [t]).output())

    def enum_attribute(self, base, name, node):
        """`.value` and `.name` of an Enum member: folded for a constant one; at run time the value is the member
        itself, and the name is looked up in the class's table of value -> name."""
        cls, vt = base.type.cls, base.type.elems[0]
        if name not in ("value", "name"):
            raise self.error(node, f"'{base.type!r}' object has no attribute or method '{name}'")
        if base.is_const:
            return SV(vt if name == "value" else T.STR, const=getattr(base.const, name))
        v = self.value(base, node)
        if name == "value":
            return SV(vt, value=v)
        if vt.kind not in ("int", "str"):
            raise self.unsupported(node, "the name of a float-valued Enum member known only at run time")
        ins = []
        for m in cls:
            ins += [self.constant(m.value), self.constant(m.name)]
        table = self.insert("prim::DictConstruct", ins, [T.Dict(vt, T.STR)]).output()
        return SV(T.STR, value=self.insert("prim::dict_getitem", [table, v], [T.STR]).output())

    def enum_str(self, sv, node):
        """str() of an Enum member, as torch prints it: `Enum<Color.RED>` (the class's unqualified name)."""
        prefix = SV(T.STR, const=f"Enum<{sv.type.cls.__name__}.")
        name = self.enum_attribute(sv, "name", node)
        if name.is_const:
            return SV(T.STR, const=prefix.const + name.const + ">")
        ins = [self.value(prefix, node), self.value(name, node), self.value(SV(T.STR, const=">"), node)]
        return SV(T.STR, value=self.insert("prim::format", ins, [T.STR]).output())

    def construct_object(self, cls, args, kwargs, node):
        """C(args) for a TorchScript class C: prim::CreateObject, then C.__init__ inlined on it (its assignments
        give the attributes their types)."""
        info = classes.info(cls)
        t = classes.object_type(cls)
        create = self.insert("prim::CreateObject", [], [t])
        create.s_("name", T.class_name(cls))
        create.ival_("fields", list(info.fields))
        obj = SV(t, value=create.output())
        self.constructing.append(cls)
        try:
            self.inline(cls.__init__, args, kwargs, node, self_sv=obj)
        finally:
            self.constructing.pop()
        missing = [f for f in info.fields if f not in info.types]
        if missing:
            raise self.error(node, f"Class {cls.__qualname__}: attribute '{missing[0]}' is declared but __init__ does "
                                   "not assign it")
        return obj

    def type_class(self, cls, node):
        """Types a TorchScript class's attributes before its first use that is not a construction (an instance
        passed in as an argument): its __init__ compiled into a scratch graph, as torch compiles the whole class."""
        info = classes.info(cls)
        if cls in self.constructing or all(f in info.types for f in info.fields):
            return
        fn = cls.__init__
        ctx = source_context(fn)
        fdef = ctx.tree.body[0]
        g = _jit.Graph()
        c = Compiler(g, None)
        c.frames, c.active, c.module_keys = list(self.frames) + [Frame(fn, ctx)], list(self.active), self.module_keys
        c.constant(None)
        hints = c._hints(fn, fdef)
        params = c._defaults(fdef, c._params(fdef)[1:])
        c.frames.pop()
        args = []
        for p, default in params:
            t = hints.get(p.arg) or default_type(default)
            v = g.addInput(p.arg)
            v.setType(T.ir_type(t))
            args.append(SV(t, value=v))
        t = classes.object_type(cls)
        obj = SV(t, value=c.insert("prim::CreateObject", [], [t]).output())
        c.constructing.append(cls)
        c.inline_here(fn, args, {}, node, self_sv=obj)

    def class_attribute(self, cls, name, node):
        """C.name on a TorchScript class itself: its static methods (and constructor); as torch, class-level values
        cannot be read and classmethods are not taken."""
        attr = inspect.getattr_static(cls, name, None)
        if isinstance(attr, staticmethod):
            return SV(None, fn=attr.__func__)
        if isinstance(attr, classmethod):
            raise self.error(node, f"'{name}' is a classmethod of TorchScript class {cls.__qualname__}: "
                                   "classmethods are not supported (torch.jit 2.13 fails on them too)")
        if isinstance(attr, pytypes.FunctionType):  # C.method(obj, ...): the function, obj passed as self
            return SV(None, fn=attr)
        if attr is None and not hasattr(cls, name):
            raise self.error(node, f"'{cls.__qualname__}' has no attribute '{name}'")
        raise self.error(node, f"python value of type '{type(getattr(cls, name)).__name__}' cannot be used as a value. "
                               "Perhaps it is a closed over global variable? If so, please consider passing it in as an "
                               "argument or use a local variable instead.")

    def getattr_object(self, base, name, node):
        """obj.name on a TorchScript class's instance: an attribute (prim::GetAttr), a method or a property."""
        cls = base.type.cls
        self.type_class(cls, node)
        t = classes.info(cls).types.get(name)
        if t is not None:
            out = self.insert("prim::GetAttr", [self.value(base, node)], [t]).s_("name", name).output()
            return SV(t, value=out)
        attr = inspect.getattr_static(cls, name, None)
        if isinstance(attr, property):
            return self.inline(attr.fget, [], {}, node, self_sv=base)
        if isinstance(attr, staticmethod):  # torch takes static methods on the class only
            raise self.error(node, f"'{base.type!r}' object has no attribute or method '{name}'. Did you forget to "
                                   "initialize an attribute in __init__()?")
        if isinstance(attr, pytypes.FunctionType):
            return SV(None, fn=attr, self_sv=base)
        if isinstance(attr, classmethod):
            raise self.error(node, f"'{name}' is a classmethod of TorchScript class {cls.__qualname__}: "
                                   "classmethods are not supported (torch.jit 2.13 fails on them too)")
        if name not in classes.info(cls).fields and hasattr(cls, name):  # torch's words for a class-level value
            raise self.error(node, f"'{base.type!r}' object has no attribute or method '{name}'. '{name}' is defined as "
                                   "a class attribute which currently is not supported. Consider converting this to an "
                                   "instance attribute.")
        if name in classes.info(cls).fields:
            raise self.error(node, f"Tried to access attribute '{name}' of {base.type!r} before __init__ assigned it")
        raise self.error(node, f"'{base.type!r}' object has no attribute or method '{name}'")

    def set_object_attribute(self, base, name, rhs, where):
        """obj.name = rhs on a TorchScript class's instance: prim::SetAttr; in __init__ the first assignment of an
        attribute without a class annotation fixes its type."""
        cls = base.type.cls
        self.type_class(cls, where)
        info = classes.info(cls)
        t = info.types.get(name)
        if t is None:
            if name not in info.fields or cls not in self.constructing:
                raise self.error(where, f"Tried to set nonexistent attribute: {name}. Did you forget to initialize it "
                                        "in __init__()?")
            if rhs.type is None or rhs.type.kind in ("Module", "Any"):
                raise self.error(where, f"Cannot assign to attribute '{name}': the value has no TorchScript type")
            t = info.types[name] = rhs.type
        if rhs.type is None or not T.is_subtype(rhs.type, t):
            got = A.type_name(rhs.type) if rhs.type is not None else "a non-value"
            raise self.error(where, f"Wrong type for attribute assignment. Expected {A.type_name(t)} but got {got}")
        self.insert("prim::SetAttr", [self.value(base, where), self.value(rhs, where)], [], n_out=0).s_("name", name)

    def getattr_module(self, base, name, node):
        mod = base.module
        if name in mod._parameters or name in mod._buffers:
            t = mod._parameters.get(name, mod._buffers.get(name))
            if t is None:
                return SV(T.NONE, const=None)
            out = self.insert("prim::GetAttr", [self.value(base, node)], [T.TENSOR]).s_("name", name).output()
            return SV(T.TENSOR, value=out)
        if name in mod._modules:
            sub = mod._modules[name]
            if sub is None:
                return SV(T.NONE, const=None)
            sub = source_module(sub, node, self)
            out = self.insert("prim::GetAttr", [self.value(base, node)], [T.T("Module", module=sub)]).s_("name", name).output()
            return SV(T.T("Module", module=sub), value=out, module=sub)
        state_type = self.attrs.type_of(mod, name) if self.attrs is not None else None
        if state_type is not None:  # an attribute compiled code assigns: read at run time
            out = self.insert("prim::GetAttr", [self.value(base, node)], [state_type]).s_("name", name).output()
            return SV(state_type, value=out)
        cls_attr = inspect.getattr_static(type(mod), name, None)
        if isinstance(cls_attr, property) and name in getattr(type(mod), "_jit_read_attributes", ()):
            cls_attr = None  # the casting property of a plain attribute (_attribute_cast.py), not the user's
        if isinstance(cls_attr, (pytypes.FunctionType, staticmethod, classmethod)) or isinstance(cls_attr, property):
            if isinstance(cls_attr, property):
                return self.inline(cls_attr.fget, [], {}, node, self_sv=base)
            if isinstance(cls_attr, staticmethod):
                return SV(None, fn=cls_attr.__func__)
            return SV(None, fn=getattr(type(mod), name), self_sv=base)
        if not hasattr(mod, name):
            raise self.error(node, f"Module '{type(mod).__name__}' has no attribute '{name}'")
        v = getattr(mod, name)
        if isinstance(v, (list, tuple)) and v and all(isinstance(t, _tl.Tensor) for t in v):
            # a list of the module's own parameters/buffers (an RNN's _flat_weights): read each by name
            owned = {id(t): n for n, t in list(mod._parameters.items()) + list(mod._buffers.items()) if t is not None}
            if all(id(t) in owned for t in v):
                items = [self.getattr_module(base, owned[id(t)], node) for t in v]
                if isinstance(v, tuple):
                    return SV(T.Tuple([T.TENSOR] * len(items)), items=items)
                lt = T.List(T.TENSOR)
                return SV(lt, value=self.insert("prim::ListConstruct", [self.value(i, node) for i in items], [lt]).output())
        if isinstance(v, _tl.Tensor):
            if v.requires_grad:
                raise self.error(node, f"Module attribute '{name}' is a tensor that requires grad but is not a "
                                       "parameter or buffer")
            return SV(T.TENSOR, const=v)
        # Numbers, strings, tuples, functions, the training flag: constants of this compilation
        # (as Final attributes; script recompiles a module when its training flag changes).
        if type(v) in (list, dict) and self.attrs is not None and id(v) in self.attrs.containers:
            # a list or dict a helper may change (attribute_containers.py): typed as the attribute (its class
            # annotation types an empty one), to be passed on
            try:
                t = A.declared_type(mod, name, _refuse_type)
            except ValueError:
                t = None
            if t is not None and t.kind in ("List", "Dict"):
                return SV(t, const=v)
        return self.python_value(v, node)

    # ---- calls ---------------------------------------------------------------------------
    def expr_Call(self, e, env):
        func = self.expr(e.func, env)
        for a in e.args:
            if isinstance(a, ast.Starred):
                raise self.unsupported(a, "Starred expression aren't supported")
        pos_hints, kw_hints = self.parameter_hints(func, e)
        args = [self.expr(a, env, hint=h) for a, h in zip(e.args, pos_hints + [None] * len(e.args))]
        kwargs = {}
        for k in e.keywords:
            if k.arg is None:
                raise self.unsupported(k, "**kwargs in calls")
            kwargs[k.arg] = self.expr(k.value, env, hint=kw_hints.get(k.arg))
        return self.call(func, args, kwargs, e)

    def parameter_hints(self, func, e):
        """The annotated types of a called Python function's parameters ([positional], {name: type}), which type the
        list and dict literals passed to them (`f([])` for `xs: List[int]`), as torch's type hints; none for
        other calls or when nothing is passed as a literal."""
        literal = (ast.List, ast.Dict, ast.ListComp, ast.DictComp, ast.Tuple)
        if not any(isinstance(a, literal) for a in e.args) and not any(isinstance(k.value, literal)
                                                                       for k in e.keywords):
            return [], {}
        fn = func.fn if func.fn is not None else (func.const if func.is_const else None)
        if func.module is not None:
            fn = type(func.module).forward
        if not isinstance(fn, (pytypes.FunctionType, pytypes.MethodType)):
            return [], {}
        try:
            params = list(inspect.signature(fn).parameters.values())
            hints = typing.get_type_hints(fn)
        except Exception:  # noqa: BLE001 (no usable annotations: no hints)
            return [], {}
        if (func.self_sv is not None or func.module is not None) and params and not isinstance(fn, pytypes.MethodType):
            params = params[1:]
        out = {}
        for p in params:
            if p.name in hints:
                try:
                    out[p.name] = T.from_annotation(hints[p.name], _refuse)
                except ValueError:
                    pass
        positional = [out.get(p.name) for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        return positional, out

    def call(self, func, args, kwargs, node):
        if func.module is not None:  # a submodule: its forward, inlined
            fwd = type(func.module).forward
            if ignored(fwd):  # an @ignore'd / @unused forward: Python at run time, or torch's raise
                return self.python_op(fwd, args, kwargs, node, self_sv=func)
            return self.inline(fwd, args, kwargs, node, self_sv=func)
        if func.self_sv is not None and isinstance(func.fn, str):
            return self.call_method(func.self_sv, func.fn, args, kwargs, node)
        fn = func.fn if func.fn is not None else func.const
        if func.self_sv is not None:  # a method of a module
            if ignored(fn):  # Python at run time, on the module (python_methods.py)
                return self.python_op(fn, args, kwargs, node, self_sv=func.self_sv)
            return self.inline(fn, args, kwargs, node, self_sv=func.self_sv)
        from torchlite.jit._script import ScriptFunction
        if isinstance(fn, ScriptFunction):  # a scripted function: compiled again here, inlined
            fn = fn._fn
        if T.is_namedtuple_class(fn):
            return self.construct_namedtuple(fn, args, kwargs, node)
        if classes.is_script_class(fn):
            return self.construct_object(fn, args, kwargs, node)
        if T.is_enum_class(fn):
            raise self.error(node.func if isinstance(node, ast.Call) else node, "cannot call a EnumClass")  # as torch
        if fn is None:
            raise self.error(node, f"'{func.type}' object is not callable")
        if fn in BUILTINS:
            return BUILTINS[fn](self, args, kwargs, node)
        if fn is _tl.jit.is_scripting:  # metacompiled, as PyTorch: True in script, False in Python
            return SV(T.BOOL, const=True)
        if fn is _tl.jit.is_tracing:
            return SV(T.BOOL, const=False)
        if fn is _tl.jit.annotate if hasattr(_tl.jit, "annotate") else False:
            return self.annotate(args, node)
        if isinstance(fn, type) and issubclass(fn, BaseException):
            raise self.unsupported(node, "exceptions can only be raised")
        op = self.op_name(fn)
        if op is not None:
            return self.call_op(op, args, kwargs, node)
        if ignored(fn):
            return self.python_op(fn, args, kwargs, node)
        if getattr(fn, "__name__", None) == "<lambda>":
            target = forwarded(fn)
            if target is None:
                raise self.unsupported(node, "calling a lambda is not supported")
            return self.call(self.python_value(target, node), args, kwargs, node)
        if isinstance(fn, (pytypes.FunctionType, pytypes.MethodType)):
            if isinstance(fn, pytypes.MethodType) and isinstance(fn.__self__, _tl.nn.Module):
                raise self.error(node, "methods of other modules than self's are not supported")
            if all(a.is_const for a in args) and all(v.is_const for v in kwargs.values()) and \
                    getattr(fn, "__module__", "").startswith("torchlite.") and not getattr(fn, "__code__", None) is None \
                    and fn not in self.active:
                # A library helper on constants (_pair(3), _check_p(0.5)): evaluated now, as Python would.
                try:
                    r = fn(*[a.const for a in args], **{k: v.const for k, v in kwargs.items()})
                except Exception as exc:
                    raise self.error(node, f"{fn.__qualname__} raised {type(exc).__name__}: {exc}")
                return self.python_value(r, node) if r is not None else SV(T.NONE, const=None)
            return self.inline(fn, args, kwargs, node)
        # torch's words (setattr, open, ...: "Python builtin <built-in function setattr> is currently not supported")
        shown = repr(fn) if isinstance(fn, pytypes.BuiltinFunctionType) else repr(getattr(fn, "__name__", fn))
        raise self.error(node, f"Python builtin {shown} is currently not supported in Torchscript")

    def unused_call(self, rt, node):
        """A call of an @unused function, as torch compiles it: a raise, and a value of type rt that is never made."""
        self._emit_raise("builtins.RuntimeError", SV(T.STR, const=python_methods.UNUSED_MESSAGE), node)
        none = self.value(SV(T.NONE, const=None), node)
        return SV(rt, value=self.insert("prim::unchecked_cast", [none], [rt]).output())

    def python_op(self, fn, args, kwargs, node, self_sv=None, call_unused=False):
        """A call of an @ignore'd function or module method: a prim::PythonOp node that calls it (with the GIL) when
        the graph runs, as PyTorch keeps it (such a graph cannot be saved); a method takes its module's Object first.
        An @unused one is torch's run-time error instead (a graph with it saves)."""
        try:
            sig = inspect.signature(fn)
            params = list(sig.parameters.values())[1 if self_sv is not None else 0:]
            sig = sig.replace(parameters=params)
            bound = sig.bind(*args, **kwargs)
        except (TypeError, ValueError) as e:
            raise self.error(node, f"{fn.__qualname__}(): {e}")

        def where(msg):
            raise self.error(node, msg)
        rt = python_methods.return_type(fn, where)
        if python_methods.is_unused(fn) and not call_unused:
            return self.unused_call(rt, node)
        values = []
        for name, p in sig.parameters.items():
            if name in bound.arguments:
                values.append(bound.arguments[name])
            elif p.default is not inspect.Parameter.empty:
                values.append(self.python_value(p.default, node) if p.default is not None else SV(T.NONE, const=None))
        ins = [self.value(v, node) for v in values]
        if self_sv is None:
            n = self.insert("prim::PythonOp", ins, [rt])
            n.i_("fn_id", python_methods.register_function(fn, rt)).s_("name", fn.__qualname__)
        elif self_sv.type is not None and self_sv.type.kind == "Object":  # a TorchScript class's instance
            n = self.insert("prim::PythonOp", [self.value(self_sv, node)] + ins, [rt])
            n.i_("fn_id", python_methods.register_class_method(fn, rt, self_sv.type)).s_("name", fn.__name__)
        else:
            n = self.insert("prim::PythonOp", [self.value(self_sv, node)] + ins, [rt])
            n.i_("fn_id", python_methods.register_method(fn, rt)).s_("name", fn.__name__).i_("method", 1)
        return SV(rt, value=n.output())

    @staticmethod
    def op_name(fn):
        """The YAML op a torchlite builtin stands for (torchlite.relu, F.conv2d = torchlite.conv2d,
        torchlite._C._nn.linear), or None."""
        if isinstance(fn, (pytypes.FunctionType, pytypes.MethodType, type)):
            return None
        name = getattr(fn, "__name__", None)
        module = getattr(fn, "__module__", None) or ""
        if name and (module.startswith("torchlite") or isinstance(fn, pytypes.BuiltinFunctionType)) \
                and schema_match.schemas(name):
            return name
        return None

    def call_op(self, name, args, kwargs, node):
        """A YAML op: the first overload (YAML order) whose schema accepts the arguments' types."""
        for a in list(args) + list(kwargs.values()):
            if a.type is None and not a.is_const:
                raise self.error(node, f"a {'module' if a.module is not None else 'function'} cannot be an "
                                       f"argument of aten::{name}")
        cands = schema_match.schemas(name)
        if not cands:
            raise self.error(node, f"unknown builtin op: aten::{name}")
        typed = [a if a.type is not None else SV(T.ANY, const=a.const) for a in args]
        typed_kw = {k: (v if v.type is not None else SV(T.ANY, const=v.const)) for k, v in kwargs.items()}
        for schema in cands:
            bound = schema_match.bind(schema, typed, typed_kw)
            if bound is None:
                continue
            inputs = []
            for arg, sv in bound:
                if isinstance(sv, tuple):
                    inputs.append(self.constant(sv[1]))
                elif T.is_number_union(sv.type):  # typed Scalar, so the node's overload resolves as torch's
                    inputs.append(self.insert("prim::unchecked_cast", [self.value(sv, node)], [T.NUMBER]).output())
                else:
                    inputs.append(self.value(sv, node))
            qual = f"{name}.{schema.overload_name}" if schema.overload_name else name
            n = self.g.insertNode(self.g.create("aten::" + qual, inputs, len(schema.returns)))
            rt = schema_match.return_type(schema)
            outs = n.outputs()
            if len(outs) == 1:
                outs[0].setType(T.ir_type(rt))
                return SV(rt, value=outs[0])
            if not outs:
                return SV(T.NONE, const=None)
            items = []
            for o, t in zip(outs, rt.elems):
                o.setType(T.ir_type(t))
                items.append(SV(t, value=o))
            return SV(rt, items=items)
        raise self.error(node, schema_match.describe(name, typed, typed_kw))

    def call_method(self, obj, name, args, kwargs, node):
        t = obj.type.kind
        if t == "Tensor":
            if name in ("size", "dim", "numel", "item", "tolist") or name == "__len__":
                if name == "size":
                    if not args:
                        return SV(T.List(T.INT), value=self.insert("prim::size", [self.value(obj, node)], [T.List(T.INT)]).output())
                    return SV(T.INT, value=self.insert("prim::size_dim", [self.value(obj, node), self.value(args[0], node)],
                                                       [T.INT]).output())
                if name == "dim":
                    return self.tensor_dim(obj, node)
                if name == "numel":
                    return SV(T.INT, value=self.insert("prim::numel", [self.value(obj, node)], [T.INT]).output())
                if name == "item":
                    return SV(T.NUMBER, value=self.insert("prim::item", [self.value(obj, node)], [T.NUMBER]).output())
            if name in ("is_floating_point", "is_complex") and not args and not kwargs:
                return SV(T.BOOL, value=self.insert("prim::" + name, [self.value(obj, node)], [T.BOOL]).output())
            if name in _DTYPE_METHODS and not args and not kwargs:  # x.float(): Python-level conveniences of to()
                return self.call_op("to", [obj, SV(T.DTYPE, const=getattr(_tl, _DTYPE_METHODS[name]))], {}, node)
            if name == "type_as" and len(args) == 1:
                return self.call_op("to", [obj, args[0]], {}, node)
            if not schema_match.schemas(name):
                raise self.error(node, f"Tensor has no method '{name}' in script (not an op of native_functions.yaml)")
            return self.call_op(name, [obj] + list(args), kwargs, node)
        if t == "List":
            et = obj.type.elems[0]
            if name == "append" and len(args) == 1 and id(obj) in self.open_lists:
                # a comprehension's list, or an unannotated `[]`: typed by what is first appended
                have = self.open_lists[id(obj)][1]
                u = args[0].type if have is None else T.unify(have, args[0].type)
                if u is None or args[0].type is None:
                    raise self.error(node, f"List elements must have a single type, got {have} and {args[0].type}")
                self.open_lists[id(obj)][1] = u
                obj.type = T.List(u)
                obj.value.setType(T.ir_type(obj.type))
                self.insert("prim::append", [self.value(obj, node), self.value(args[0], node)], [], n_out=0)
                return SV(T.NONE, const=None)
            if name == "append" and len(args) == 1:
                if args[0].type is None or not T.is_subtype(args[0].type, et):
                    head = "aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!):\n"
                    if args[0].type is not None and args[0].type.kind == "Union":  # no type variable binds a Union
                        raise self.error(node, head + "Expected a value of type 't' for argument 'el' but instead "
                                                      f"found type '{args[0].type}'.\n")
                    raise self.error(node, head + f"Could not match type {args[0].type} to t in argument 'el': Type "
                                                  f"variable 't' previously matched to type {et} is matched to type "
                                                  f"{args[0].type}.\n")
                self.insert("prim::append", [self.value(obj, node), self.value(args[0], node)], [], n_out=0)
                return SV(T.NONE, const=None)
            if name == "extend" and len(args) == 1:
                other = args[0].type
                if not (args[0].is_const and args[0].const == []) and (
                        other is None or other.kind != "List" or not T.is_subtype(other.elems[0], et)):
                    elem = other.elems[0] if other is not None and other.kind == "List" else other
                    raise self.error(node, "aten::extend.t(t[](a!) self, t[] other) -> ():\nCould not match type "
                                           f"{other} to List[t] in argument 'other': Type variable 't' previously "
                                           f"matched to type {et} is matched to type {elem}.\n")
                self.insert("prim::extend", [self.value(obj, node), self.value(args[0], node)], [], n_out=0)
                return SV(T.NONE, const=None)
            if name == "pop":
                idx = args[0] if args else SV(T.INT, const=-1)
                return SV(et, value=self.insert("prim::pop", [self.value(obj, node), self.value(idx, node)], [et]).output())
            if name == "copy" and not args:
                return SV(obj.type, value=self.insert("prim::list_copy", [self.value(obj, node)], [obj.type]).output())
        if t == "str" and name == "format" and not kwargs:
            if obj.is_const:
                return self.str_format(obj.const, args, node)
            ins = [self.value(obj, node)] + [self.value(a, node) for a in args]
            return SV(T.STR, value=self.insert("prim::str_format", ins, [T.STR]).output())
        if t == "str":
            return str_methods.call(self, obj, name, args, dict(kwargs), node)
        if t == "Dict":
            kt, vt = obj.type.elems
            simple = {"keys": T.List(kt), "values": T.List(vt), "items": T.List(T.Tuple([kt, vt]))}
            if name in simple and not args:
                return SV(simple[name], value=self.insert("prim::dict_" + name, [self.value(obj, node)],
                                                          [simple[name]]).output())
            if name in ("get", "pop") and args and not T.is_subtype(args[0].type, kt):
                raise self.error(node, f"expected a key of type {kt}, got {args[0].type}")
            if name == "pop" and len(args) in (1, 2) and not kwargs:
                ins = [self.value(obj, node)] + [self.value(a, node) for a in args]
                if len(args) == 2 and not T.is_subtype(args[1].type, vt):
                    raise self.error(node, f"pop: the default must be a {vt}, got {args[1].type}")
                kind = "prim::dict_pop" if len(args) == 1 else "prim::dict_pop_default"
                return SV(vt, value=self.insert(kind, ins, [vt]).output())
            if name == "update" and len(args) == 1 and not kwargs:
                if args[0].type is None or args[0].type.kind != "Dict" or not T.is_subtype(args[0].type.elems[0], kt) \
                        or not T.is_subtype(args[0].type.elems[1], vt):
                    raise self.error(node, f"update: expected a {obj.type}, got {args[0].type}")
                self.insert("prim::dict_update", [self.value(obj, node), self.value(args[0], node)], [], n_out=0)
                return SV(T.NONE, const=None)
            if name == "clear" and not args and not kwargs:
                self.insert("prim::dict_clear", [self.value(obj, node)], [], n_out=0)
                return SV(T.NONE, const=None)
            if name == "copy" and not args and not kwargs:
                return SV(obj.type, value=self.insert("prim::dict_copy", [self.value(obj, node)], [obj.type]).output())
            if name == "get" and len(args) in (1, 2):
                default = args[1] if len(args) == 2 else SV(T.NONE, const=None)
                rt = vt if len(args) == 2 and T.is_subtype(default.type, vt) else T.Optional(vt)
                return SV(rt, value=self.insert("prim::dict_get", [self.value(obj, node), self.value(args[0], node),
                                                                   self.value(default, node)], [rt]).output())
        raise self.error(node, f"'{obj.type}' object has no method '{name}' in script")

    def str_format(self, fmt, args, node):
        """'...{}...'.format(a, b) on a constant format, by torch's rule (aten::format): each "{}" in turn takes the
        next argument's str(); other text ("{0}", "{{", specs) stays as written. Folded when the arguments are
        constants; too few arguments is left to raise when run, as torch's."""
        pieces = fmt.split("{}")
        if len(pieces) - 1 > len(args):
            ins = [self.value(SV(T.STR, const=fmt), node)] + [self.value(a, node) for a in args]
            return SV(T.STR, value=self.insert("prim::str_format", ins, [T.STR]).output())
        parts = [SV(T.STR, const=pieces[0])]
        for a, literal in zip(args, pieces[1:]):
            if a.type is not None and a.type.kind == "Enum":
                a = self.enum_str(a, node)
            folded = script_str(a.const) if a.is_const else None
            parts.append(a if folded is None else SV(T.STR, const=folded))
            parts.append(SV(T.STR, const=literal))
        parts = [p for p in parts if not (p.is_const and p.const == "")]
        if all(p.is_const and isinstance(p.const, str) for p in parts):  # (a dtype constant is formatted when run)
            return SV(T.STR, const="".join(p.const for p in parts))
        return SV(T.STR, value=self.insert("prim::format", [self.value(p, node) for p in parts], [T.STR]).output())

    def annotate(self, args, node):
        if len(args) != 2 or not args[0].is_const:
            raise self.error(node, "annotate takes a type and a value")

        def where(msg):
            raise self.error(node, msg)
        t = T.from_annotation(args[0].const, where)
        v = args[1]
        if v.type is not None and v.type.kind in ("List", "Dict") and v.value is not None and \
                v.value.node().kind() in ("prim::ListConstruct", "prim::DictConstruct") and \
                v.value.node().inputsSize() == 0:
            v.value.setType(T.ir_type(t))
            return SV(t, value=v.value)
        if not T.is_subtype(v.type, t):
            raise self.error(node, f"annotate: a value of type {v.type} is not a {t}")
        return SV(t, value=self.value(v, node)) if not v.is_const else SV(t, const=v.const)

    def inline(self, fn, args, kwargs, node, self_sv=None):
        """A call of a Python function or method compiled into this graph at the call site: the body compiled
        once per (function, argument types, self's concrete type) and copied here (call_cache.py)."""
        if isinstance(fn, pytypes.MethodType):
            fn = fn.__func__
        if fn in self.active:
            raise self.error(node, f"Recursive calls are not supported (in {fn.__qualname__})")
        if call_cache.enabled:
            got = self.inline_cached(fn, args, kwargs, node, self_sv)
            if got is not None:
                return got
        return self.inline_here(fn, args, kwargs, node, self_sv)

    def _call_inputs(self, args, kwargs, self_sv):
        """The call's arguments in the order their fragment takes them: self, positional, keywords by name."""
        return ([] if self_sv is None else [self_sv]) + list(args) + [kwargs[k] for k in sorted(kwargs)]

    def inline_cached(self, fn, args, kwargs, node, self_sv):
        """The callee's fragment copied at this call site (compiled first if this key is new); None when the call
        cannot be keyed or its fragment not reused."""
        try:
            k = call_cache.key(fn, args, kwargs, self_sv, self.attrs, self.module_keys, self.open_lists)
        except call_cache.Uncacheable:
            call_cache.stats["uncacheable"] += 1
            return None
        entry = call_cache.lookup(k)
        if entry is None:
            entry = self.compile_fragment(fn, args, kwargs, node, self_sv)
            call_cache.store(k, entry)
        if entry is False:
            return None
        graph, tpl = entry
        flat, made = [], {}
        for sv in self._call_inputs(args, kwargs, self_sv):
            call_cache.abstract(sv, None, flat, made)
        outs = self.g.insertGraph(graph, [self.value(sv, node) for sv in flat], self._anchor)
        return call_cache.rebuild(tpl, outs)

    def compile_fragment(self, fn, args, kwargs, node, self_sv):
        """(graph, result template) of fn compiled alone on stand-ins of the call's values, or False when its
        result or what it assigns cannot be shared."""
        g = _jit.Graph()
        c = Compiler(g, self.attrs)
        c.frames, c.active, c.constructing = list(self.frames), list(self.active), list(self.constructing)
        c.module_keys = self.module_keys
        c.constant(None)  # the anchor of the fragment's constants
        assigned = len(self.attrs.types) if self.attrs is not None else 0
        inputs, made = [], {}
        s_self = None if self_sv is None else call_cache.abstract(self_sv, g, inputs, made)
        s_args = [call_cache.abstract(a, g, inputs, made) for a in args]
        s_kwargs = {k: call_cache.abstract(kwargs[k], g, inputs, made) for k in sorted(kwargs)}
        result = c.inline_here(fn, s_args, s_kwargs, node, s_self)
        if self.attrs is not None and len(self.attrs.types) != assigned:
            return False  # it assigns module attributes: registered per module object, so compiled per site
        if c.container_constants:
            return False  # it holds a module's list or dict as a constant: tracked per site (attribute_containers.py)
        outputs = []
        try:
            tpl = call_cache.template(result, outputs, c.open_lists)
        except call_cache.Uncacheable:
            return False
        for sv in outputs:
            g.registerOutput(sv.value)
        return g, tpl

    def inline_here(self, fn, args, kwargs, node, self_sv=None):
        """fn's body compiled at this call site."""
        try:
            ctx = source_context(fn)
        except OSError as exc:
            raise self.error(node, str(exc))
        fdef = ctx.tree.body[0]
        self.frames.append(Frame(fn, ctx))
        self.active.append(fn)
        try:
            params = self._params(fdef, varargs_ok=True)
            if self_sv is not None:
                params = params[1:]
            hints = self._hints(fn, fdef)
            env = {} if self_sv is None else {fdef.args.args[0].arg: self_sv}
            defaults = dict(self._default_svs(fdef, params, fn))
            if fdef.args.vararg is not None:  # *args: the extra positional arguments as a static tuple
                extra = list(args[len(params):])
                args = args[:len(params)]
                env[fdef.args.vararg.arg] = SV(T.Tuple([x.type or T.ANY for x in extra]), items=extra)
            if len(args) > len(params):
                raise self.error(node, f"{fn.__qualname__}() expected at most {len(params)} arguments but got {len(args)}")
            for p, a in zip(params, args):
                env[p.arg] = a
            for k, v in kwargs.items():
                if k not in [p.arg for p in params] or k in env:
                    raise self.error(node, f"{fn.__qualname__}() got an unexpected keyword argument '{k}'")
                env[k] = v
            for p in params:
                if p.arg not in env:
                    if p.arg not in defaults:
                        raise self.error(node, f"{fn.__qualname__}() is missing value for argument '{p.arg}'")
                    env[p.arg] = defaults[p.arg]
                hint = hints.get(p.arg)
                sv = env[p.arg]
                if hint is not None and hint.kind == "List" and self.is_tuple(sv):  # pad=(1, 1) for List[int]
                    sv = env[p.arg] = self.as_list(sv, node, hint.elems[0])
                if hint is not None and sv.type is not None and not T.is_subtype(sv.type, hint) and \
                        not (hint.kind == "float" and sv.type.kind == "int"):
                    empty = "\nEmpty lists default to List[Tensor]. Add a variable annotation to the assignment to " \
                        "create an empty list of another type (torch.jit.annotate(List[T, []]) where T is the type of " \
                        "elements in the list for Python 2)" if sv.type == T.List(T.TENSOR) else ""  # torch's note
                    raise self.error(node, f"Expected a value of type '{hint}' for argument '{p.arg}' but instead "
                                           f"found type '{sv.type}'.{empty}")
                if hint is None and self_sv is None and not is_library(fn) and sv.type is not None and \
                        sv.type.kind != "Tensor" and not sv.is_const:
                    raise self.error(node, f"Expected a value of type 'Tensor' (inferred) for argument '{p.arg}' but "
                                           f"instead found type '{sv.type}'. Inferred 'Tensor' because it was not "
                                           "annotated with an explicit type.")
            return self.body(fdef, env, hints.get("return"))
        finally:
            self.frames.pop()
            self.active.pop()

    def _default_svs(self, fdef, params, fn):
        defaults = fn.__defaults__ or ()
        names = [a.arg for a in fdef.args.args][len(fdef.args.args) - len(defaults):]
        return [(n, self.python_value(d, fdef) if d is not None else SV(T.NONE, const=None))
                for n, d in zip(names, defaults)]

    def builtin_len(self, args, node):
        (x,) = args
        if x.items is not None:
            return SV(T.INT, const=len(x.items))
        if x.is_const and isinstance(x.const, (tuple, list, str)):
            return SV(T.INT, const=len(x.const))
        if x.module is not None:
            return SV(T.INT, const=len(x.module._modules))
        t = x.type.kind if x.type else None
        if t == "Tuple":
            return SV(T.INT, const=len(x.type.elems))
        kind = {"Dict": "prim::dict_len", "List": "prim::len", "str": "prim::len", "Tensor": "prim::len"}.get(t)
        if kind is None:
            raise self.error(node, f"object of type {x.type} has no len()")
        return SV(T.INT, value=self.insert(kind, [self.value(x, node)], [T.INT]).output())


def _refuse_type(msg):
    raise ValueError(msg)
