"""The `code` of a compiled module or function: its graph printed as the Python-like source that
torch.jit shows (`def forward(self, x: Tensor) -> Tensor:` then one statement per node:
`_0 = torch.linear(x, weight, bias)`), for reading only; nothing parses it back. Module attributes
read as `self.fc1.weight`, keyword-only arguments as `name=value`, tensor constants as
`CONSTANTS.c0`, `prim::If` as `if`/`else`, `prim::Loop` as a `for` over `range`."""
from __future__ import annotations

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
            return self.literal(value.toIValue())
        return self.name(value)

    def emit(self, indent, text):
        self.lines.append("  " * indent + text)

    def block(self, block, indent):
        for node in block.nodes():
            self.node(node, indent)

    def node(self, node, indent):
        kind = node.kind()
        outs = [self.name(o) for o in node.outputs()]
        ins = [self.expr(v) for v in node.inputs()]
        target = ", ".join(outs) + ("," if len(outs) > 1 else "")
        if kind == "prim::Constant":
            return  # constants are written where they are used
        if kind == "prim::GetAttr":
            self.emit(indent, f"{outs[0]} = {ins[0]}.{node.s('name')}")
        elif kind == "prim::SetAttr":  # script's attribute assignment, as torch's code prints it
            self.emit(indent, f"{ins[0]}.{node.s('name')} = {ins[1]}")
        elif kind == "prim::ListConstruct":
            self.emit(indent, f"{outs[0]} = [{', '.join(ins)}]")
        elif kind == "prim::TupleConstruct":
            self.emit(indent, f"{outs[0]} = ({', '.join(ins)}{',' if len(ins) == 1 else ''})")
        elif kind in ("prim::ListUnpack", "prim::TupleUnpack"):
            self.emit(indent, f"{', '.join(outs)}, = {ins[0]}")
        elif kind == "prim::If":
            self.emit(indent, f"if {ins[0]}:")
            for i, block in enumerate(node.blocks()):
                if i == 1:
                    self.emit(indent, "else:")
                self.block(block, indent + 1)
                results = [self.expr(v) for v in block.outputs()]
                for out, res in zip(outs, results):
                    self.emit(indent + 1, f"{out} = {res}")
                if not block.nodes() and not results:
                    self.emit(indent + 1, "pass")
        elif kind == "prim::Loop":
            body = node.blocks()[0]
            carried = [self.name(v) for v in body.inputs()[1:]]
            for c, init in zip(carried, ins[2:]):
                self.emit(indent, f"{c} = {init}")
            self.emit(indent, f"for {self.name(body.inputs()[0])} in range({ins[0]}):")
            self.block(body, indent + 1)
            results = [self.expr(v) for v in body.outputs()]
            for c, res in zip(carried, results[1:]):
                self.emit(indent + 1, f"{c} = {res}")
            for out, c in zip(outs, carried):
                self.emit(indent, f"{out} = {c}")
        else:
            schema = node.fn_schema()
            args = []
            for i, v in enumerate(ins):
                arg = schema.arguments[i] if schema is not None and i < len(schema.arguments) else None
                args.append(f"{arg.name}={v}" if arg is not None and arg.kwarg_only else v)
            call = f"torch.{kind.split('::', 1)[1]}({', '.join(args)})"
            self.emit(indent, f"{target} = {call}" if outs else call)


def plain_type(text: str) -> str:
    """An IR type's text with complete tensor types (`Float(2, 3, strides=[3, 1], ...)`) as `Tensor`."""
    return re.sub(r"\b[A-Z][A-Za-z0-9]*\([^()]*\)", "Tensor", text)


def _type(value) -> str:
    """TorchScript's annotation of a value's type: complete tensor types as Tensor, tuples as Tuple[...]."""
    return plain_type(str(value.type())).replace("(", "Tuple[").replace(")", "]")


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
    header = f"def {name}({(',' + chr(10) + '    ').join(params)})"
    p.block(graph.block(), 1)
    results = [p.expr(v) for v in outputs]
    p.emit(1, f"return {results[0]}" if len(results) == 1 else f"return ({', '.join(results)})")
    ret = returns if len(outputs) == 1 else f"Tuple[{returns}]"
    return f"{header} -> {ret}:\n" + "\n".join(p.lines) + "\n"
