"""The structured form script compiles: every `return`, `raise`, `break` and `continue` ends its
block. After an `if` that exits in some branch, the statements that follow are moved into the
branches that do not exit (copied into both when neither always exits), so early returns become
prim::If outputs and break/continue become a loop condition, as PyTorch's exit transform does."""
from __future__ import annotations

import ast
import copy

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
            body = s.body if always_exits(s.body) else s.body + [copy.deepcopy(r) for r in rest]
            orelse = s.orelse if always_exits(s.orelse) else s.orelse + [copy.deepcopy(r) for r in rest]
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
