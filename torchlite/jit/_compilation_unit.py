"""torchlite.jit.CompilationUnit, as torch.jit.CompilationUnit: compiles TorchScript source text, a series of
`def`s, with script's compiler; each function is a ScriptFunction, `cu.name(...)`. It is what compiles a
function's `code` back (docs/jit.md, "Compiling code back").

The text is read as torch reads it: `torch.` is the library (torchlite), `Tensor`, `List`, `Dict`, `Optional`,
`Tuple`, `Union`, `Any` and `annotate` are known, other names come from the caller's globals and locals (torch's
resolution callback), and the functions of one unit call each other. What torch's printed code writes as
calls that are not library functions is read back as torch's compiler reads them: `torch.add(a, b)`,
`torch.gt(a, b)`, ... of two operands as the operators (numbers have no library function), `torch.len(x)` as
`len(x)`, `torch.__is__(a, b)` as `a is b`, `unchecked_cast(T, v)` / `torch.unchecked_cast(v)` as `v` (script
refines the type itself), and `torch.f(x, ...)` where the library has no `f` as the method `x.f(...)`
(`torch.size(x, 0)`, `torch.append(xs, v)`)."""
from __future__ import annotations

import ast
import builtins
import itertools
import linecache
import math
import sys
import typing

import torchlite as _tl

_units = itertools.count()

# torch.<name>(a, b) of two operands as the operator torch's code stands for (numbers have no library function)
_BINARY = {"add": ast.Add, "sub": ast.Sub, "mul": ast.Mult, "div": ast.Div, "floordiv": ast.FloorDiv,
           "remainder": ast.Mod, "pow": ast.Pow}
_COMPARE = {"eq": ast.Eq, "ne": ast.NotEq, "lt": ast.Lt, "le": ast.LtE, "gt": ast.Gt, "ge": ast.GtE,
            "__is__": ast.Is, "__isnot__": ast.IsNot}
_BUILTIN_CALLS = {"len": "len", "Int": "int", "Float": "float", "Bool": "bool"}
# the Tensor methods script compiles to prim ops (the library's functions of these names are Python)
_AS_METHOD = {"numel", "dim", "size", "is_floating_point", "is_complex"}


class _ReadCode(ast.NodeTransformer):
    """Rewrites the calls of torch's printed code that name no library function (see the module docstring)."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Name) and f.id == "unchecked_cast" and len(node.args) == 2 and not node.keywords:
            return node.args[1]
        if not (isinstance(f, ast.Attribute) and isinstance(f.value, ast.Name) and f.value.id == "torch"):
            return node
        name, args = f.attr, node.args
        if node.keywords or any(isinstance(a, ast.Starred) for a in args):
            return node
        if name == "unchecked_cast" and len(args) == 1:
            return args[0]
        if name in _BINARY and len(args) == 2:
            return ast.copy_location(ast.BinOp(left=args[0], op=_BINARY[name](), right=args[1]), node)
        if name in _COMPARE and len(args) == 2:
            return ast.copy_location(ast.Compare(left=args[0], ops=[_COMPARE[name]()], comparators=[args[1]]), node)
        if name == "neg" and len(args) == 1:
            return ast.copy_location(ast.UnaryOp(op=ast.USub(), operand=args[0]), node)
        if name == "not" and len(args) == 1:
            return ast.copy_location(ast.UnaryOp(op=ast.Not(), operand=args[0]), node)
        if name in _BUILTIN_CALLS:
            return ast.copy_location(ast.Call(func=ast.Name(id=_BUILTIN_CALLS[name], ctx=ast.Load()), args=args,
                                              keywords=[]), node)
        if (name in _AS_METHOD or not hasattr(_tl, name)) and args:  # a method (torch.size(x, 0) is x.size(0))
            method = ast.Attribute(value=args[0], attr=name, ctx=ast.Load())
            return ast.copy_location(ast.Call(func=method, args=args[1:], keywords=[]), node)
        return node


def _names():
    """What torch's code refers to without defining it."""
    from torchlite.jit import annotate
    names = {n: getattr(typing, n) for n in ("List", "Dict", "Optional", "Tuple", "Union", "Any")}
    names.update(torch=_tl, Tensor=_tl.Tensor, annotate=annotate, math=math)
    return names


class CompilationUnit:
    """Functions compiled from TorchScript source: `CompilationUnit(src)` or `.define(src)`, then `cu.f(...)`,
    `find_function(name)` (None when there is none), `get_functions()`."""

    def __init__(self, lang=None, _frames_up=0):
        self.__dict__["_functions"] = {}
        if lang is not None:
            self.define(lang, _frames_up=_frames_up + 1)

    def define(self, src, rcb=None, _frames_up=0):
        """Compiles the `def`s of src (torch's RuntimeError for anything else at the top level, or a syntax
        error); names the text does not define resolve in the caller's frame (or through `rcb(name)`)."""
        filename = f"<torchlite.jit.CompilationUnit {next(_units)}>"
        try:
            tree = ast.parse(src, filename)
        except SyntaxError as e:
            line = (e.text or "").rstrip("\n")
            raise RuntimeError(f"{e.msg}:\n  File \"<string>\", line {e.lineno}\n{line}\n") from None
        for stmt in tree.body:
            if not isinstance(stmt, ast.FunctionDef):
                word = type(stmt).__name__.lower()
                raise RuntimeError(f"expected def but found '{word}' here:\n  File \"<string>\", line {stmt.lineno}\n"
                                   f"{src.splitlines()[stmt.lineno - 1]}\n")
        # script reads a function's source through inspect: the rewritten text is kept in linecache under the
        # unit's file name (compile errors quote it)
        text = ast.unparse(ast.fix_missing_locations(_ReadCode().visit(tree))) + "\n"
        linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
        frame = sys._getframe(_frames_up + 1)
        scope = dict(frame.f_globals)
        scope.update(frame.f_locals)
        scope.update(_names())
        if rcb is not None:  # torch's resolution callback: asked for the names nothing above defines
            for name in {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} - scope.keys():
                value = rcb(name)
                if value is not None:
                    scope[name] = value
        scope["__name__"] = "__torchlite_compilation_unit__"
        scope["__builtins__"] = builtins
        exec(compile(text, filename, "exec"), scope)  # noqa: S102 - defines the functions, runs nothing else
        from torchlite.jit._script import ScriptFunction
        defined = [s.name for s in tree.body]
        for name in defined:
            self._functions[name] = ScriptFunction(scope[name])

    def __getattr__(self, name):
        functions = self.__dict__["_functions"]
        if name in functions:
            return functions[name]
        raise AttributeError(f"'CompilationUnit' has no attribute '{name}'")

    def find_function(self, name):
        return self._functions.get(name)

    def get_functions(self):
        return list(self._functions.values())

    def __repr__(self):
        return f"<torchlite.jit.CompilationUnit with {', '.join(self._functions) or 'no functions'}>"
