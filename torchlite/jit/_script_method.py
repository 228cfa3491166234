"""ScriptMethod: a compiled module's method other than `forward` (an @export'ed one), as torch's: what
`loaded.twice` gives, callable (its arguments bound and converted as the module's call does), with its `name`,
`graph`, `code` (the graph printed as TorchScript-like source, for reading) and `schema` (torch's form:
`twice(__torch__.M self, Tensor x, int k=2) -> Tensor`)."""
from __future__ import annotations


def default_str(v) -> str:
    """A default as a schema writes it (as torch's: `2`, `True`, `None`, `"mean"`, `[1, 2]`)."""
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(default_str(x) for x in v) + "]"
    return repr(v)


class ScriptMethod:
    __slots__ = ("_module", "name", "_method")

    def __init__(self, module, name, method):
        self._module, self.name, self._method = module, name, method

    def __call__(self, *args, **kwargs):
        return self._module._run(self._method, args, kwargs, self.name)

    @property
    def graph(self):
        return self._method.graph

    @property
    def inlined_graph(self):
        return self._method.graph  # (script inlines every call: the graph is inlined already)

    @property
    def code(self) -> str:
        from torchlite.jit._code import graph_code
        return graph_code(self._method.graph, self.name, self._method.defaults)

    @property
    def schema(self) -> str:
        traced = self._module.__dict__.get("_traced_schemas")  # a traced method's, from its examples
        if traced and self.name in traced:
            return traced[self.name]
        from torchlite.jit._code import plain_type  # (a loaded trace's types are complete: shapes dropped)
        m = self._method
        inputs = m.graph.inputs()
        parts = []
        if m.takes_self:
            parts.append(f"{inputs[0].type()} self")
            inputs = inputs[1:]
        names = m.arg_names or [v.debugName() for v in inputs]
        defaults = m.defaults or [None] * len(names)
        for v, name, d in zip(inputs, names, defaults):
            parts.append(f"{plain_type(str(v.type()))} {name}" + ("" if d is None else f"={default_str(d[0])}"))
        outs = [plain_type(str(v.type())) for v in m.graph.outputs()]
        # (one return is written bare, a tuple type in parentheses of its own, as torch: `-> ((Tensor, str))`)
        ret = outs[0] if len(outs) == 1 and not outs[0].startswith("(") else f"({', '.join(outs)})"
        return f"{self.name}({', '.join(parts)}) -> {ret}"

    def __repr__(self):
        return f"<torchlite.jit.ScriptMethod {self.name} of {self._module.original_name}>"
