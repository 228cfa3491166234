"""What script derives from a function's source alone, kept per code object: the parsed source
(frontend.SourceContext) and the structured form of its body (transform.structure). Both depend only
on the source text, not on the call site or the arguments, and they were most of a module's compile
time: every inlined call of a method or helper parsed its source and ran the exit transform again
(a 2-layer TransformerDecoder parsed MultiheadAttention's forward 4 times and spent 3.4 of its 4.1
CPU-s copying statement trees in the transform). Entries are keyed by the code object's identity
(code objects compare by value, and two functions of different files can be equal) and dropped
with it. The cached trees are read, never edited, by the compiler."""
from __future__ import annotations

import ast
import weakref

from torchlite.jit import frontend
from torchlite.jit._script.transform import always_exits, flatten_withs, lift_loop_returns, structure

_contexts: dict = {}  # id(code) -> (weakref to the code, SourceContext)
_bodies: dict = {}    # id(fdef) -> (weakref to the FunctionDef, structured statements)


def _cached(table, key_obj, make):
    k = id(key_obj)
    hit = table.get(k)
    if hit is not None and hit[0]() is key_obj:
        return hit[1]
    value = make()
    table[k] = (weakref.ref(key_obj, lambda _r, k=k: table.pop(k, None)), value)
    return value


def source_context(fn) -> frontend.SourceContext:
    """fn's parsed source, parsed once per code object (raises OSError as SourceContext does)."""
    code = getattr(fn, "__code__", None)
    if code is None:
        return frontend.SourceContext(fn)
    return _cached(_contexts, code, lambda: frontend.SourceContext(fn))


def structured_body(fdef: ast.FunctionDef) -> list:
    """fdef's statements in structured form (docstring dropped, `with` blocks flattened, a final `return None`
    added when the body can fall off its end), computed once per parsed FunctionDef."""
    def make():
        stmts = list(fdef.body)
        if stmts and isinstance(stmts[0], ast.Expr) and isinstance(stmts[0].value, ast.Constant) \
                and isinstance(stmts[0].value.value, str):
            stmts = stmts[1:]  # the docstring
        stmts = flatten_withs(stmts)
        if not always_exits(stmts):
            stmts.append(ast.copy_location(ast.Return(value=None), fdef))
        return structure(lift_loop_returns(stmts))
    return _cached(_bodies, fdef, make)


def clear() -> None:
    """Forgets every cached parse (tests measuring a cold compile)."""
    _contexts.clear()
    _bodies.clear()
