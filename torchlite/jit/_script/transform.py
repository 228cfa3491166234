"""The structured form script compiles: every `return`, `raise`, `break` and `continue` ends its
block. After an `if` that exits in some branch, the statements that follow are moved into the
branches that do not exit (shared by both when neither always exits: the compiler only reads the
trees), so early returns become prim::If outputs and break/continue become a loop condition, as
PyTorch's exit transform does. Before that, `with` blocks are flattened (flatten_withs): the enter and
exit become statements of the enclosing block, an exit placed before every return, raise, break and
continue that leaves the block, so the structured form needs no rule of its own for them."""
from __future__ import annotations

import ast
import copy
import itertools

_EXITS = (ast.Return, ast.Raise, ast.Break, ast.Continue)


def always_exits(stmts) -> bool:
    if not stmts:
        return False
    last = stmts[-1]
    if isinstance(last, _EXITS):
        return True
    return isinstance(last, ast.If) and always_exits(last.body) and always_exits(last.orelse)


def _contains_exit(stmts) -> bool:
    """Whether a return/raise/break/continue of this level is in stmts (ifs looked into; loops
    are not, their break/continue are their own)."""
    for s in stmts:
        if isinstance(s, _EXITS):
            return True
        if isinstance(s, ast.If) and (_contains_exit(s.body) or _contains_exit(s.orelse)):
            return True
    return False


def structure(stmts):
    """stmts with every exit at the end of its block (loop bodies transformed too)."""
    out = []
    for i, s in enumerate(stmts):
        if isinstance(s, (ast.For, ast.While)):
            s = copy.copy(s)
            s.body = structure(s.body)
        if isinstance(s, ast.If) and _contains_exit([s]):
            rest = stmts[i + 1:]
            body_exits, orelse_exits = always_exits(s.body), always_exits(s.orelse)
            # The statements that follow move into the branch that goes on; when both go on, both
            # branches share them (the compiler only reads the trees). Copying them made the
            # chains of checks in MultiheadAttention copy a tree that doubles per such `if`:
            # 0.5 CPU-s of its 0.55 s compile.
            body = s.body if body_exits else s.body + rest
            orelse = s.orelse if orelse_exits else s.orelse + rest
            new = ast.If(test=s.test, body=structure(body) or [ast.Pass()], orelse=structure(orelse))
            ast.copy_location(new, s)
            new.end_lineno, new.end_col_offset = s.end_lineno, s.end_col_offset
            out.append(new)
            return out
        if isinstance(s, ast.If):
            s = copy.copy(s)
            s.body, s.orelse = structure(s.body), structure(s.orelse)
        out.append(s)
        if isinstance(s, _EXITS):
            return out  # what follows is dead
    return out


def assigned_names(stmts) -> set:
    """Names a block (and the blocks inside it) assigns: the candidates for loop-carried values."""
    names = set()
    for s in stmts:
        for n in ast.walk(s):
            if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store):
                names.add(n.id)
    return names


# A constant the compiler reads as an `Any`-typed None: the initial `$ret` of a loop that returns.
LOOP_RETURN_INIT = object()


def _has_return(stmts) -> bool:
    return any(isinstance(n, ast.Return) for s in stmts for n in ast.walk(s))


def _located(node, like):
    for n in ast.walk(node):
        ast.copy_location(n, like)
        n.end_lineno, n.end_col_offset = like.end_lineno, like.end_col_offset
    return node


def _replace_returns(stmts):
    """`return v` at this loop's level (ifs looked into) -> `$ret = v; $returned = True; break`."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Return):
            value = s.value if s.value is not None else ast.Constant(value=None)
            out += [_located(ast.Assign(targets=[ast.Name(id="$ret", ctx=ast.Store())], value=value), s),
                    _located(ast.Assign(targets=[ast.Name(id="$returned", ctx=ast.Store())],
                                        value=ast.Constant(value=True)), s),
                    _located(ast.Break(), s)]
            continue
        if isinstance(s, ast.If):
            s = copy.copy(s)
            s.body, s.orelse = _replace_returns(s.body), _replace_returns(s.orelse)
        out.append(s)
    return out


def lift_loop_returns(stmts, in_loop=False):
    """Returns inside loops become flags: the loop sets `$ret` and `$returned` and breaks; after it,
    `if $returned: return $ret` (or `break` out of an enclosing loop, which checks in turn)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.If):
            s = copy.copy(s)
            s.body, s.orelse = lift_loop_returns(s.body, in_loop), lift_loop_returns(s.orelse, in_loop)
        elif isinstance(s, (ast.For, ast.While)) and _has_return(s.body):
            s = copy.copy(s)
            s.body = _replace_returns(lift_loop_returns(s.body, in_loop=True))
            if not in_loop:
                out += [_located(ast.Assign(targets=[ast.Name(id="$returned", ctx=ast.Store())],
                                            value=ast.Constant(value=False)), s),
                        _located(ast.Assign(targets=[ast.Name(id="$ret", ctx=ast.Store())],
                                            value=ast.Constant(value=LOOP_RETURN_INIT)), s)]
            out.append(s)
            exit_ = ast.Break() if in_loop else ast.Return(value=ast.Name(id="$ret", ctx=ast.Load()))
            out.append(_located(ast.If(test=ast.Name(id="$returned", ctx=ast.Load()), body=[exit_], orelse=[]), s))
            continue
        out.append(s)
    return out


# ---- with blocks -----------------------------------------------------------------------------------------------
_with_ids = itertools.count()
WITH_ENTER, WITH_EXIT = "$with_enter", "$with_exit"  # what the compiler reads (Compiler.with_enter / with_exit)


def _at(node, like):
    """node located at `like` (the new node alone: the user's expressions inside it keep their places)."""
    ast.copy_location(node, like)
    node.end_lineno, node.end_col_offset = like.end_lineno, like.end_col_offset
    return node


def _name(name, like, store=False):
    return _at(ast.Name(id=name, ctx=ast.Store() if store else ast.Load()), like)


def _call(name, arg, like):
    return _at(ast.Call(func=_name(name, like), args=[arg], keywords=[]), like)


def _exit_stmt(name, like):
    return _at(ast.Expr(value=_call(WITH_EXIT, _name(name, like), like)), like)


def _with_exits(stmts, name, loops=False):
    """stmts with the exit of context `name` before every statement leaving its block: a return (its value
    computed first, as Python), a raise, and a break or continue not inside a loop of the block (`loops`)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.Return):
            if s.value is None:
                out += [_exit_stmt(name, s), s]
            else:
                keep = f"{name}.ret"
                out += [_at(ast.Assign(targets=[_name(keep, s, store=True)], value=s.value), s),
                        _exit_stmt(name, s),
                        _at(ast.Return(value=_name(keep, s)), s)]
            continue
        if isinstance(s, ast.Raise) or (isinstance(s, (ast.Break, ast.Continue)) and not loops):
            out += [_exit_stmt(name, s), s]
            continue
        if isinstance(s, ast.If):
            s = copy.copy(s)
            s.body, s.orelse = _with_exits(s.body, name, loops), _with_exits(s.orelse, name, loops)
        elif isinstance(s, (ast.For, ast.While)):  # its returns and raises leave the block, its breaks do not
            s = copy.copy(s)
            s.body, s.orelse = _with_exits(s.body, name, True), _with_exits(s.orelse, name, loops)
        out.append(s)
    return out


def flatten_withs(stmts):
    """`with A as a, B: body` -> `$w0 = $with_enter(A); a = $w0[1]; $w1 = $with_enter(B); body; $with_exit($w1);
    $with_exit($w0)`, exits before each way out of body (inner blocks first, so their exits come first)."""
    out = []
    for s in stmts:
        if isinstance(s, ast.With):
            body = flatten_withs(s.body)
            for item in reversed(s.items):
                name = f"$with{next(_with_ids)}"
                body = _with_exits(body, name)
                ctx = item.context_expr
                pre = [_at(ast.Assign(targets=[_name(name, ctx, store=True)], value=_call(WITH_ENTER, ctx, ctx)), ctx)]
                if item.optional_vars is not None:  # bound to what __enter__ returned
                    target = item.optional_vars
                    value = _at(ast.Subscript(value=_name(name, target), slice=_at(ast.Constant(value=1), target),
                                              ctx=ast.Load()), target)
                    pre.append(_at(ast.Assign(targets=[target], value=value), target))
                body = pre + body + [_exit_stmt(name, s)]
            out += body
            continue
        if isinstance(s, (ast.If, ast.For, ast.While)):
            s = copy.copy(s)
            s.body, s.orelse = flatten_withs(s.body), flatten_withs(s.orelse)
        out.append(s)
    return out
