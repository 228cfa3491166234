"""Emits generated/ops.md: every op with its signatures, doc, variants, gradient and Meta support,
read straight from the YAML (so `python -m codegen --check` keeps it current)."""
from __future__ import annotations

from codegen.context import Context
from codegen.gen_python import PYTHON_HIDDEN_TAG
from codegen.model import NativeFunction, SchemaKind, describe_dtypes


def _variants(f: NativeFunction, derived: list[NativeFunction]) -> str:
    if f.out_of is not None:  # an out= overload written in the YAML
        if PYTHON_HIDDEN_TAG in f.tags:
            return "C++ only, as in PyTorch"
        return f"`out=` of `{f.out_of.schema.name}`"
    module = f"torchlite._C.{f.python_namespace}" if f.python_namespace else "torchlite"
    names = []
    for g in (f, *(d for d in derived if d.derived_kind is SchemaKind.inplace)):
        if "function" in g.variants:
            names.append(f"`{module}.{g.schema.name.name}`")
        if "method" in g.variants and f.python_binding is None:
            names.append(f"`Tensor.{g.schema.name.name}`")
    for d in derived:
        if d.derived_kind is SchemaKind.out or (d.out_of is not None and PYTHON_HIDDEN_TAG not in d.tags):
            names.append("`out=`")
    names += [f"`{op}`" for f2 in [f, *derived] for op in f2.python_operators]
    return ", ".join(names)


def _gradient(f: NativeFunction) -> str:
    if f.schema.kind() is SchemaKind.out:
        return "no (out= records no history)"
    if f.is_composite:
        return "from the ops it calls"
    if f.derivatives and all(d.formula.startswith("not_implemented(") for d in f.derivatives):
        return "no (recorded; backward raises, as in PyTorch)"
    if f.derivatives:
        return "yes"
    return "no" if f.non_differentiable else "no tensor inputs"


def _dtypes(f: NativeFunction) -> str:
    return describe_dtypes(f.dtypes) if f.dtypes is not None else "see description"


def _meta(f: NativeFunction) -> str:
    if f.is_composite:
        return "via the ops it calls"
    return "yes" if f.kernel_for("Meta") else "no"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def generate(ctx: Context) -> dict[str, str]:
    lines = [
        "# Operators",
        "",
        "Every operator of torchlite, generated from `native_functions.yaml` by `python -m codegen`",
        "(do not edit: change the YAML). *Variants* are the Python spellings; *out=* means the",
        "function takes an `out=` keyword. *Gradient*: whether autograd differentiates it (a",
        "composite op is differentiated through the ops it calls). *Meta*: whether it runs on the",
        "`meta` device (shapes and dtypes without data). *dtypes*: the dtypes of the tensor inputs",
        "the op computes for (`all` is bool, the integral types uint8 to int64 and the floating",
        "types float16, bfloat16, float32, float64); others raise as in PyTorch. The generated",
        "forward tests check each declaration against PyTorch.",
        "",
        "| op | signature | variants | dtypes | gradient | Meta | description |",
        "|---|---|---|---|---|---|---|",
    ]
    for g in ctx.groups:
        for f in g.functions:
            if f.functional is not None:
                continue
            derived = [d for d in g.functions if d.functional is f or d.out_of is f]
            tags = " ".join(f"`{t}`" for t in f.tags)
            doc = _cell(f.doc) + (f" Tags: {tags}." if tags else "")
            lines.append(f"| `{f.schema.name}` | `{_cell(str(f.schema))}` | {_variants(f, derived)} | "
                         f"{_dtypes(f)} | {_gradient(f)} | {_meta(f)} | {doc} |")
    return {"ops.md": "\n".join(lines) + "\n"}
