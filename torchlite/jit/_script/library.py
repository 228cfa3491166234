"""What script needs to know about Python objects that are not the user's code: the type of an
unannotated parameter from its default, which module a (scripted) submodule compiles from, and what
the library's forwarding lambdas call."""
from __future__ import annotations

import ast
import inspect
import textwrap

from torchlite.jit._script import types as T


def default_type(default):
    """An unannotated parameter's type: a Tensor (as PyTorch), or, where the default is a number,
    bool or str, that type, and Optional[Tensor] for a None default (PyTorch would refuse these;
    torchlite's own modules leave such parameters unannotated)."""
    if default is None:
        return T.Optional(T.TENSOR)
    if isinstance(default, (bool, int, float, str)):
        return T.of_value(default)
    return T.TENSOR


def source_module(sub, node, compiler):
    """The module whose Python source a submodule compiles from: a scripted submodule's original;
    a loaded or traced one has none."""
    from torchlite.jit._script import ScriptedModule
    from torchlite.jit._script_module import ScriptModule
    if isinstance(sub, ScriptedModule):
        return sub._traced_from
    if isinstance(sub, ScriptModule) and not _user_script_module(sub):
        raise compiler.error(node, f"submodule '{type(sub).__name__}' is compiled already (traced or loaded) and has "
                                   "no source to script; script the original module")
    return sub


def _user_script_module(m):
    """An instance of a user's subclass of torchlite.jit.ScriptModule (its methods are scripted)."""
    from torchlite.jit._script_module import RecursiveScriptModule, ScriptModule
    from torchlite.jit._trace import TracedModule
    return isinstance(m, ScriptModule) and not isinstance(m, (RecursiveScriptModule, TracedModule))


def forwarded(fn):
    """What a forwarding lambda `lambda *a, **k: <callee>(*a, **k)` calls (the library's conv and pool
    modules keep their functional so), the callee evaluated in the lambda's scope; else None."""
    try:
        text = textwrap.dedent(inspect.getsource(fn)).strip()
    except (OSError, TypeError):
        return None
    tree = None
    for cut in range(len(text), 0, -1):  # the line may hold more than the lambda
        try:
            tree = ast.parse(text[text.index("lambda"):cut], mode="eval")
            break
        except SyntaxError:
            continue
    lam = tree.body if tree is not None else None
    if not isinstance(lam, ast.Lambda) or not isinstance(lam.body, ast.Call) or lam.args.args:
        return None
    call = lam.body
    star = lam.args.vararg.arg if lam.args.vararg else None
    if not all(isinstance(a, ast.Starred) and isinstance(a.value, ast.Name) and a.value.id == star for a in call.args):
        return None
    scope = dict(fn.__globals__)
    scope.update({n: c.cell_contents for n, c in zip(fn.__code__.co_freevars, fn.__closure__ or ())})
    try:
        return eval(compile(ast.Expression(call.func), "<lambda>", "eval"), scope)  # noqa: S307 (library code)
    except Exception:
        return None


def is_library(fn):
    return getattr(fn, "__module__", "").startswith("torchlite.")
