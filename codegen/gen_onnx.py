"""Emits the ONNX export table from the entries' `onnx:` keys: generated/python/onnx_ops.py (copied
into the package as torchlite/onnx/_ops_table.py by setup.py, read by torchlite.onnx) and
generated/onnx_ops.md (the list of exportable ops). torchlite.onnx names no op itself: an overload
is exported as its table row says, an overload without a row raises UnsupportedOperatorError."""
from __future__ import annotations

from codegen.context import Context
from codegen.model import NativeFunction, is_tensor_like


def _row(f: NativeFunction) -> dict:
    m = f.onnx
    if m.function is not None:
        return {"function": m.function}
    inputs = m.inputs if m.inputs is not None else tuple(a.name for a in f.schema.arguments if is_tensor_like(a.type))
    return {"op": m.op, "inputs": inputs, "attributes": dict(m.attributes), "require": dict(m.require)}


def _describe(row: dict) -> str:
    if "function" in row:
        return f"handwritten: `{row['function']}`"
    parts = [f"`{row['op']}`({', '.join(row['inputs'])})"]
    if row["attributes"]:
        parts.append("attributes " + ", ".join(f"{k}={v}" for k, v in row["attributes"].items()))
    if row["require"]:
        parts.append("when " + ", ".join(f"{k}={v!r}" for k, v in row["require"].items()))
    return "; ".join(parts)


def generate(ctx: Context) -> dict[str, str]:
    rows = {str(f.schema.name): _row(f) for g in ctx.groups for f in g.functions if f.onnx is not None}
    py = ['"""Overload name -> how torchlite.onnx translates it (the `onnx:` keys of native_functions.yaml;',
          'docs/onnx.md). `op`: a 1:1 ONNX operator over the named inputs; `function`: a handwritten',
          'translation registered in torchlite/onnx/."""', "", "OPS = {"]
    py += [f"    {name!r}: {row!r}," for name, row in rows.items()]
    py += ["}"]
    md = ["# Operators torchlite.onnx exports", "",
          "From the `onnx:` keys of native_functions.yaml (docs/onnx.md). In-place variants are exported as",
          "their functional op.", "", "| overload | ONNX |", "|---|---|"]
    md += [f"| `{name}` | {_describe(row)} |" for name, row in rows.items()]
    return {"python/onnx_ops.py": "\n".join(py) + "\n", "onnx_ops.md": "\n".join(md) + "\n"}
