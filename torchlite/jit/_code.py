"""The `code` of a compiled module or function: its graph printed as the Python-like source that
torch.jit shows (`def forward(self, x: Tensor) -> Tensor:` then one statement per node:
`_0 = torch.linear(x, weight, bias)`). Module attributes read as `self.fc1.weight`, keyword-only
arguments as `name=value`, tensor constants as `CONSTANTS.c0`, `prim::If` as `if`/`else`, `prim::Loop`
as a `for` over `range`, a `prim::Enter` ... `prim::Exit` pair as a `with` block (grad modes as
`with torch.no_grad():`), a TorchScript object's construction as torch's `__torch__.C.__new__(...)`.
A function's code compiles back with `torchlite.jit.CompilationUnit` where torch's does (docs/jit.md,
"Compiling code back")."""
from __future__ import annotations

import builtins
import re

import torchlite as _tl


class _Printer:
    def __init__(self):
        self.names = {}
        self.used = set()
        self.lines = []
        self.tensors = 0

    def name(self, value):
        key = value.unique()
        if key not in self.names:
            base = re.sub(r"\W", "_", value.debugName())  # an unnamed value's name is its number
            if not base or base[0].isdigit():
                base = f"_{len(self.names)}"
            candidate, i = base, 0
            while candidate in self.used:
                i += 1
                candidate = f"{base}_{i}"
            self.used.add(candidate)
            self.names[key] = candidate
        return self.names[key]

    def literal(self, v):
        if isinstance(v, _tl.Tensor):
            self.tensors += 1
            return f"CONSTANTS.c{self.tensors - 1}"
        if isinstance(v, (list, tuple)):
            items = ", ".join(self.literal(x) for x in v)
            return f"[{items}]" if isinstance(v, list) else f"({items}{',' if len(v) == 1 else ''})"
        if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
            return {"nan": "nan", "inf": "inf", "-inf": "-inf"}[repr(v)]
        if isinstance(v, _tl.device):
            return f'torch.device("{v}")'
        text = repr(v)
        return text.replace("torchlite.", "torch.") if text.startswith("torchlite.") else text

    def expr(self, value):
        node = value.node()
        if node.kind() == "prim::Constant":
            v = value.toIValue()
            if isinstance(v, list) and str(value.type()).startswith("Dict("):  # a folded dict: keys and values
                return "{" + ", ".join(f"{self.literal(k)}: {self.literal(x)}" for k, x in zip(v[::2], v[1::2])) + "}"
            return self.literal(v)
        if _inline_test(node):
            if node.kind() == "prim::isinstance":
                return self.isinstance(node)
            a, b = (self.expr(v) for v in node.inputs())
            return f"torch.{_PRIM_NAMES[node.kind()]}({a}, {b})"
        return self.name(value)

    def typed(self, value, target) -> str:
        """value's expression, widened to target's type where the two differ (a branch's refined value, None for
        an Optional): `annotate(Optional[int], None)`, so that compiled back the variable keeps its type."""
        text = self.expr(value)
        want = annotation(target.type())
        return text if annotation(value.type()) == want else f"annotate({want}, {text})"

    def isinstance(self, node):
        types = [annotation(t) for t in node.ival("types")]
        classes = types[0] if len(types) == 1 else f"({', '.join(types)})"
        return f"isinstance({self.expr(node.inputs()[0])}, {classes})"

    def emit(self, indent, text):
        self.lines.append("  " * indent + text)

    def block(self, block, indent):
        self.nodes(list(block.nodes()), indent)

    def nodes(self, nodes, indent):
        """Prints nodes, a `prim::Enter` up to its `prim::Exit` in the same block as a `with` statement
        (an Enter whose Exit is in a sub-block, as a `return` inside a `with` leaves it, takes the rest of
        the block as its body); an Exit without its Enter here closes an enclosing one: nothing to print."""
        i = 0
        while i < len(nodes):
            node = nodes[i]
            kind = node.kind()
            if kind == "prim::Enter":
                end = _matching_exit(nodes, i)
                body = nodes[i + 1:] if end is None else nodes[i + 1:end]
                header, body = self.with_header(node, body)
                self.emit(indent, f"with {header}:")
                before = len(self.lines)
                self.nodes(body, indent + 1)
                if len(self.lines) == before:
                    self.emit(indent + 1, "pass")
                if end is None:
                    return
                i = end + 1
                continue
            if kind == "prim::Exit" or _is_grad_mode_node(node):
                i += 1  # (a with's exit, the grad mode read before it and restored after it)
                continue
            self.node(node, indent)
            i += 1

    def loop(self, node, ins, outs, indent):
        """A prim::Loop `(trip count, condition, carried...)`: `for i in range(n):` when the condition is
        always true, `while c:` when the trip count is unbounded (script's `while`), else a `for` that
        breaks when the condition turns false. Carried values are assigned together (`a, b = b, a`)."""
        body = node.blocks()[0]
        counter, carried = body.inputs()[0], [self.name(v) for v in body.inputs()[1:]]
        results = body.outputs()
        always = _is_true(node.inputs()[1]) and _is_true(results[0])
        unbounded = node.inputs()[0].node().kind() == "prim::Constant" and ins[0] == str(_INT64_MAX)
        for c, init, v in zip(carried, node.inputs()[2:], body.inputs()[1:]):
            self.emit(indent, f"{c} = {self.typed(init, v)}")
        cond = None if always else self.name(node.inputs()[1]) + "_cond"
        if cond is not None:
            self.emit(indent, f"{cond} = {ins[1]}")
        i = self.name(counter)
        if always:
            self.emit(indent, f"for {i} in range({ins[0]}):")
        elif unbounded:
            if counter.hasUses():
                self.emit(indent, f"{i} = 0")
            self.emit(indent, f"while {cond}:")
        else:
            self.emit(indent, f"for {i} in range({ins[0]}):")
            self.emit(indent + 1, f"if not {cond}:")
            self.emit(indent + 2, "break")
        before = len(self.lines)
        self.block(body, indent + 1)
        targets = ([cond] if cond is not None else []) + carried
        values = [self.typed(v, c) for v, c in zip(results, [node.inputs()[1]] + body.inputs()[1:])]
        values = values if cond is not None else values[1:]
        if len(targets) == 1:
            self.emit(indent + 1, f"{targets[0]} = {values[0]}")
        elif targets:
            self.emit(indent + 1, f"{', '.join(targets)} = {', '.join(values)}")
        if unbounded and not always and counter.hasUses():
            self.emit(indent + 1, f"{i} = {i} + 1")
        if len(self.lines) == before:
            self.emit(indent + 1, "pass")
        for out, c in zip(outs, carried):
            self.emit(indent, f"{out} = {c}")

    def with_header(self, enter, body):
        """The text after `with` and the body left to print. A grad-mode block (script's `with no_grad():`:
        the mode read into the Enter's value, set first thing in the block, restored after the Exit) is
        written as the call that made it; any other context (a TorchScript object) as the object, whose
        inlined `__enter__` and `__exit__` print as the statements they are, in the block and after it."""
        ctx = enter.inputs()[0]
        if _is_grad_read(ctx) and body and body[0].kind() == "prim::set_grad_enabled":
            mode = body[0].inputs()[0]
            const = mode.toIValue() if mode.node().kind() == "prim::Constant" else None
            if const is False:
                return "torch.no_grad()", body[1:]
            if const is True:
                return "torch.enable_grad()", body[1:]
            return f"torch.set_grad_enabled({self.expr(mode)})", body[1:]
        return self.expr(ctx), body

    def node(self, node, indent):
        kind = node.kind()
        outs = [self.name(o) for o in node.outputs()]
        ins = [self.expr(v) for v in node.inputs()]
        target = ", ".join(outs) + ("," if len(outs) > 1 else "")
        if kind == "prim::Constant" or _inline_test(node):
            return  # constants are written where they are used, and so are `is None` tests of an `if`
        if kind == "prim::CreateObject":  # as torch's code: the object made without __init__, which follows inlined
            cls = node.s("name") if node.hasAttribute("name") else "object"
            self.emit(indent, f"{outs[0]} = {cls}.__new__({cls})")
        elif kind == "prim::GetAttr":
            self.emit(indent, f"{outs[0]} = {ins[0]}.{node.s('name')}")
        elif kind == "prim::SetAttr":  # script's attribute assignment, as torch's code prints it
            self.emit(indent, f"{ins[0]}.{node.s('name')} = {ins[1]}")
        elif kind == "prim::ListConstruct":  # an empty list with its type, as torch's code: annotate(List[int], [])
            text = f"[{', '.join(ins)}]" if ins else f"annotate({annotation(node.output().type())}, [])"
            self.emit(indent, f"{outs[0]} = {text}")
        elif kind == "prim::DictConstruct":
            pairs = ", ".join(f"{k}: {v}" for k, v in zip(ins[::2], ins[1::2]))
            text = f"{{{pairs}}}" if ins else f"annotate({annotation(node.output().type())}, {{}})"
            self.emit(indent, f"{outs[0]} = {text}")
        elif kind == "prim::TupleConstruct":
            self.emit(indent, f"{outs[0]} = ({', '.join(ins)}{',' if len(ins) == 1 else ''})")
        elif kind in ("prim::ListUnpack", "prim::TupleUnpack"):
            self.emit(indent, f"{', '.join(outs)}, = {ins[0]}")
        elif kind == "prim::If":
            self.emit(indent, f"if {ins[0]}:")
            used = [o.hasUses() for o in node.outputs()]  # (an unused output is not written: a value refined
            for i, block in enumerate(node.blocks()):     # in one branch only would not type-check compiled back)
                if i == 1:
                    self.emit(indent, "else:")
                before = len(self.lines)
                self.block(block, indent + 1)
                results = [self.typed(v, o) for v, o in zip(block.outputs(), node.outputs())]
                for out, res, u in zip(outs, results, used):
                    if u:
                        self.emit(indent + 1, f"{out} = {res}")
                if len(self.lines) == before:
                    self.emit(indent + 1, "pass")
        elif kind == "prim::Loop":
            self.loop(node, ins, outs, indent)
        elif kind in ("prim::getitem", "prim::dict_getitem"):  # as torch's code: an index
            self.emit(indent, f"{outs[0]} = {ins[0]}[{ins[1]}]")
        elif kind in ("prim::setitem", "prim::dict_setitem"):
            self.emit(indent, f"{ins[0]}[{ins[1]}] = {ins[2]}")
        elif kind == "prim::list_slice" or kind == "prim::str_method" and node.s("fn") == "slice":  # xs[a:b:c]
            bounds = ["" if v.node().kind() == "prim::Constant" and v.toIValue() is None else e
                      for v, e in zip(node.inputs()[1:], ins[1:])]
            text = ":".join(bounds if bounds[2] not in ("", "1") else bounds[:2])
            self.emit(indent, f"{target} = {ins[0]}[{text}]")
        elif kind == "prim::not":
            self.emit(indent, f"{target} = not {ins[0]}")
        elif kind == "prim::str_method" and _is_builtin(node.s("fn")):  # ord, chr, int(s): builtins in the source
            self.emit(indent, f"{target} = {node.s('fn')}({', '.join(ins)})")
        elif kind == "prim::unchecked_cast":  # as torch's code
            self.emit(indent, f"{target} = unchecked_cast({annotation(node.output().type())}, {ins[0]})")
        elif kind in _METHODS or kind == "prim::str_method" and node.s("fn") != "contains":  # methods, as methods
            method = _METHODS.get(kind) or node.s("fn")
            call = f"{ins[0]}.{method}({', '.join(ins[1:])})"
            self.emit(indent, f"{target} = {call}" if outs else call)
        elif kind == "prim::print":
            self.emit(indent, f"print({', '.join(ins)})")
        elif kind == "prim::isinstance":
            self.emit(indent, f"{target} = {self.isinstance(node)}")
        elif kind in ("prim::contains", "prim::dict_contains") or \
                kind == "prim::str_method" and node.s("fn") == "contains":  # `v in xs`
            self.emit(indent, f"{target} = {ins[1]} in {ins[0]}")
        elif kind in ("prim::dtype", "prim::device"):  # tensor properties
            self.emit(indent, f"{target} = {ins[0]}.{kind[6:]}")
        elif kind in ("prim::min", "prim::max", "prim::list_min", "prim::list_max"):  # of numbers (Python's)
            self.emit(indent, f"{target} = {kind[-3:]}({', '.join(ins)})")
        elif kind == "prim::math" and node.s("fn") == "round":  # round() of a number (a float, as script's)
            self.emit(indent, f"{target} = round({ins[0]})")
        elif kind in ("prim::math", "prim::math2"):
            self.emit(indent, f"{target} = math.{node.s('fn')}({', '.join(ins)})")
        elif kind == "prim::implicit_num":  # a tensor where a number is expected
            to = node.s("to")
            self.emit(indent, f"{target} = {to}({ins[0]})" if to != "number" else f"{target} = {ins[0]}.item()")
        elif kind == "prim::int_base":  # hex(a) / oct(a) / bin(a)
            fn = {16: "hex", 8: "oct", 2: "bin"}[node.i("base")]
            self.emit(indent, f"{target} = {fn}({ins[0]})")
        elif kind == "prim::divmod":
            self.emit(indent, f"{target} = divmod({', '.join(ins)})")
        elif kind == "prim::RaiseException":  # (torch's code: ops.prim.RaiseException(...), which it cannot read)
            exc = node.s("exception") if node.hasAttribute("exception") else "builtins.RuntimeError"
            self.emit(indent, f"raise {exc.rsplit('.', 1)[-1]}({', '.join(ins)})")
        elif kind == "prim::format" and _fstring_safe(node):  # an f-string, as written
            parts = "".join(v.toIValue() if v.node().kind() == "prim::Constant" and isinstance(v.toIValue(), str)
                            else f"{{ {e} }}" if e.startswith("{") else f"{{{e}}}" for v, e in zip(node.inputs(), ins))
            self.emit(indent, f'{target} = f"{parts}"')
        else:
            schema = node.fn_schema()
            args = []
            n_pos = len(ins)  # as torch's code, trailing arguments equal to their defaults are left out
            if schema is not None:
                while n_pos and n_pos <= len(schema.arguments) and \
                        _is_default(schema.arguments[n_pos - 1], node.inputs()[n_pos - 1], ins[n_pos - 1]):
                    n_pos -= 1
            for i, v in enumerate(ins):
                arg = schema.arguments[i] if schema is not None and i < len(schema.arguments) else None
                if arg is not None and arg.kwarg_only:
                    if not _is_default(arg, node.inputs()[i], v):
                        args.append(f"{arg.name}={v}")
                elif i < n_pos:
                    args.append(v)
            call = f"torch.{_PRIM_NAMES.get(kind, kind.split('::', 1)[1])}({', '.join(args)})"
            self.emit(indent, f"{target} = {call}" if outs else call)


# number ops torch's code writes under another name than the prim op's (int `a % b` is `torch.remainder(a, b)`)
_PRIM_NAMES = {"prim::mod": "remainder", "prim::truediv": "div", "prim::is": "__is__", "prim::isnot": "__isnot__",
               "prim::size_dim": "size", "prim::dict_len": "len"}


_INT64_MAX = 2**63 - 1  # the trip count of script's `while` loops


def _is_true(value) -> bool:
    return value.node().kind() == "prim::Constant" and value.toIValue() is True


def _is_default(arg, value, text) -> bool:
    """Whether an op's input is a constant equal to its schema argument's default (its text as printed)."""
    default = arg.default_value
    if default is None or value.node().kind() != "prim::Constant":
        return False
    if text == default:
        return True
    try:
        return float(text) == float(default)
    except ValueError:
        return False


# list, dict and str prim ops written as the methods script compiles them from
_METHODS = {"prim::dict_keys": "keys", "prim::dict_values": "values", "prim::dict_items": "items",
            "prim::dict_get": "get", "prim::dict_copy": "copy", "prim::dict_update": "update",
            "prim::dict_clear": "clear", "prim::dict_pop": "pop", "prim::dict_pop_default": "pop",
            "prim::list_copy": "copy", "prim::extend": "extend"}


def _is_builtin(name) -> bool:
    """Whether a prim::str_method stands for a Python builtin (`ord(c)`, `int(s)`) rather than a str method."""
    return callable(getattr(builtins, name, None)) and not hasattr(str, name)


def _fstring_safe(node) -> bool:
    """Whether prim::format's constant strings can be written inside an f"..." (no quote, brace or backslash;
    script compiles the f-string to the same prim::format, whatever its values' types)."""
    for v in node.inputs():
        if v.node().kind() == "prim::Constant":
            c = v.toIValue()
            if isinstance(c, str) and any(ch in c for ch in '"{}\\\n'):
                return False
    return True


def _inline_test(node) -> bool:
    """An `is` / `is not` / `isinstance` test used only as an `if`'s condition: written in the `if`
    (`if torch.__is__(o, None):`, as torch's code writes it), so that compiling the code back refines `o` in
    the branches."""
    if node.kind() not in ("prim::is", "prim::isnot", "prim::isinstance"):
        return False
    uses = node.output().uses()
    return len(uses) == 1 and uses[0].user.kind() == "prim::If" and uses[0].offset == 0


def _matching_exit(nodes, start):
    """The index of the prim::Exit that closes the prim::Enter at nodes[start] in this block, or None."""
    depth = 0
    for j in range(start, len(nodes)):
        kind = nodes[j].kind()
        if kind == "prim::Enter":
            depth += 1
        elif kind == "prim::Exit":
            depth -= 1
            if depth == 0:
                return j
    return None


def _is_grad_read(value) -> bool:
    """Whether value is script's read of the grad mode that a `with` restores (the input of a prim::Enter, read by
    nothing but the Enter and the restores)."""
    if value.node().kind() != "prim::grad_enabled":
        return False
    users = [u.user.kind() for u in value.uses()]
    return "prim::Enter" in users and all(k in ("prim::Enter", "prim::set_grad_enabled") for k in users)


def _is_grad_mode_node(node) -> bool:
    """The grad mode read before a `with` and its restore after the Exit: part of the `with` statement."""
    kind = node.kind()
    if kind == "prim::grad_enabled":
        return _is_grad_read(node.output())
    return kind == "prim::set_grad_enabled" and _is_grad_read(node.inputs()[0])


def plain_type(text: str) -> str:
    """An IR type's text with complete tensor types (`Float(2, 3, strides=[3, 1], ...)`) as `Tensor`."""
    return re.sub(r"\b(?!Dict\(|Union\(|NamedTuple\()[A-Z][A-Za-z0-9]*\([^()]*\)", "Tensor", text)


def annotation(ir_type) -> str:
    """An IR type as a Python annotation, as torch's code writes it: complete tensor types as `Tensor`,
    `int?` as `Optional[int]`, `int[]` as `List[int]`, `(Tensor, int)` as `Tuple[Tensor, int]`,
    `Dict(str, Tensor)` as `Dict[str, Tensor]`, a named tuple by its class."""
    text = plain_type(str(ir_type))
    pos = 0

    def parse():  # one type at text[pos:], with its suffixes
        nonlocal pos
        if text.startswith("NamedTuple(", pos):  # (the class's name is not in the type's text)
            raise ValueError(text)
        if text[pos] == "(" or text.startswith("Dict(", pos) or text.startswith("Union(", pos):
            head = "Tuple" if text[pos] == "(" else text[pos:text.index("(", pos)]
            pos = text.index("(", pos) + 1
            elems = []
            while text[pos] != ")":
                elems.append(parse())
                if text.startswith(", ", pos):
                    pos += 2
            pos += 1
            out = f"{head}[{', '.join(elems)}]" if elems else "Tuple[()]"
        else:
            end = pos
            while end < len(text) and text[end] not in "()[],? ":
                end += 1
            out = text[pos:end]
            out = {"NoneType": "None"}.get(out, out)
            pos = end
        while pos < len(text) and (text[pos] == "?" or text.startswith("[]", pos)):
            if text[pos] == "?":
                out, pos = f"Optional[{out}]", pos + 1
            else:
                out, pos = f"List[{out}]", pos + 2
        return out
    try:
        return parse()
    except (IndexError, ValueError):
        return text  # (a type this does not know: its IR text)


def _type(value) -> str:
    return annotation(value.type())


def graph_code(graph, name="forward", defaults=None) -> str:
    """The graph as TorchScript-like Python source (see the module docstring). `defaults`: a saved method's
    ((value,) or None per argument after self), written `k: int=2` as torch's code writes them."""
    from torchlite.jit._script_method import default_str
    p = _Printer()
    inputs = graph.inputs()
    params = []
    args = 0
    for v in inputs:
        if str(v.type()).startswith("__torch__"):
            p.names[v.unique()] = "self"
            p.used.add("self")
            params.append("self")
        else:
            d = defaults[args] if defaults and args < len(defaults) else None
            params.append(f"{p.name(v)}: {_type(v)}" + ("" if d is None else f"={default_str(d[0])}"))
            args += 1
    outputs = graph.outputs()
    returns = ", ".join(_type(v) for v in outputs)  # a graph returns one value (a tuple is built in it)
    name = re.sub(r"\W", "_", name.replace("<lambda>", "_lambda"))  # (torch's name of a lambda: _lambda)
    header = f"def {name}({(',' + chr(10) + '    ').join(params)})"
    p.block(graph.block(), 1)
    results = [p.expr(v) for v in outputs]
    p.emit(1, f"return {results[0]}" if len(results) == 1 else f"return ({', '.join(results)})")
    ret = returns if len(outputs) == 1 else f"Tuple[{returns}]"
    return f"{header} -> {ret}:\n" + "\n".join(p.lines) + "\n"
