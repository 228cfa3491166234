"""torchlite.jit.frontend: the errors script raises at compile time, named as torch.jit.frontend's
(FrontendError, NotSupportedError, UnsupportedNodeError), and the source ranges they print: the file
and line, the offending line and `~` under the offending columns, then `<--- HERE`, as PyTorch."""
from __future__ import annotations

import ast
import inspect
import textwrap


class SourceContext:
    """A function's source as parsed: the dedented text, its file and first line, and how much was
    dedented (so an ast node's (line, column) maps back to the file)."""

    def __init__(self, fn):
        try:
            lines, first = inspect.getsourcelines(fn)
            self.filename = inspect.getsourcefile(fn) or "<unknown>"
        except (OSError, TypeError) as e:
            raise OSError(f"Can't get source for {fn}. TorchScript requires source access in order to carry out "
                          "compilation, make sure original .py files are available.") from e
        text = "".join(lines)
        dedented = textwrap.dedent(text)
        self.indent = len(lines[0]) - len(lines[0].lstrip()) if lines[0].strip() else 0
        self.first_line = first
        self.lines = text.splitlines()
        self.tree = ast.parse(dedented)

    def highlight(self, node) -> str:
        line = getattr(node, "lineno", 1)
        col = getattr(node, "col_offset", 0) + self.indent
        end_line = getattr(node, "end_lineno", line)
        end = getattr(node, "end_col_offset", None)
        text = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
        end = (end + self.indent) if end is not None and end_line == line else len(text)
        marks = " " * col + "~" * max(1, end - col) + " <--- HERE"
        return f'  File "{self.filename}", line {self.first_line + line - 1}\n{text}\n{marks}\n'


def _message(msg, ctx, node):
    if ctx is None or node is None:
        return msg
    return f"{msg}:\n{ctx.highlight(node)}"


class FrontendError(Exception):
    """A compile error with the source range it is about (torch.jit.frontend.FrontendError)."""

    def __init__(self, ctx, node, msg):
        self.msg = msg
        self.source_range = None if ctx is None or node is None else ctx.highlight(node)
        super().__init__(_message(msg, ctx, node))


class NotSupportedError(FrontendError):
    """Python syntax or a construct that script does not compile."""


class UnsupportedNodeError(NotSupportedError):
    def __init__(self, ctx, node, what=None, msg=None):
        name = what or type(node).__name__.lower()
        if msg is None:
            msg = f"{name} aren't supported" if what is None else f"{what} is not supported"
        super().__init__(ctx, node, msg)


def compile_error(ctx, node, msg) -> RuntimeError:
    """A type or name error at compile time: PyTorch raises these as RuntimeError with the range."""
    return RuntimeError(_message(msg, ctx, node))
