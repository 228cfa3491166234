"""Loads native_functions.yaml into the typed model (codegen/model.py).

Every entry and key keeps its line number, every problem in the file is collected, and
one CodegenError lists them all, so a broken YAML is fixed in one round. The loader
checks the shape of each key's value and derives the in-place and out= variants that
`inplace: true` / `out: true` ask for; validate.py checks how the keys relate.
"""
from __future__ import annotations

import difflib
import os
import re
from dataclasses import replace
from typing import Any, Optional

import yaml

from codegen.model import (
    ALL_DTYPE_NAMES, COMPOSITE, DTYPE_GROUPS, DTYPE_NAMES, INPLACE_DUNDERS, INTERNAL_MODULE, PYTHON_MODULES, Annotation, Argument,
    BaseType, Derivative, FunctionSchema, Location, NativeFunction, NativeFunctionsFile, OperatorName,
    OnnxMapping, Return, SchemaKind, Tag,
)
from codegen.schema_parser import SchemaError, parse_schema
from codegen.validate import derive_problem, is_out_overload, located, validate


class CodegenError(Exception):
    """Every problem found in native_functions.yaml, one `file:line: op: message` each."""

    def __init__(self, errors: list[str]):
        self.errors = list(errors)
        super().__init__("\n".join(self.errors))

    def __str__(self) -> str:
        return "\n".join(self.errors)


ENTRY_KEYS = ("func", "doc", "variants", "inplace", "out", "dispatch", "impl", "derivatives",
              "output_differentiability", "tags", "python_operators", "view_of", "samples", "dtypes",
              "backward_node", "alias_of", "out_dtype", "device_check",
              "out_autograd", "python_module", "python_binding", "materialize_grads", "onnx")
ONNX_KEYS = ("op", "function", "inputs", "attributes", "require")
TOP_KEYS = ("tags", "functions")


# ---- YAML with line numbers ------------------------------------------------------------

class _Map(dict):
    """A YAML mapping that remembers its own line, each key's line and repeated keys."""
    line: int
    key_lines: dict[str, int]
    duplicates: list[tuple[str, int]]


class _Seq(list):
    line: int
    item_lines: list[int]


class _LineLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's parser when available: ~10x faster
    pass


def _construct_map(loader: yaml.BaseLoader, node: yaml.MappingNode) -> _Map:
    m = _Map()
    m.line, m.key_lines, m.duplicates = node.start_mark.line + 1, {}, []
    pending: list[tuple[str, int]] = []
    for i, (k, v) in enumerate(node.value):
        # Keys are kept as written: YAML 1.1 would turn a key `on` into True.
        key = k.value if isinstance(k, yaml.ScalarNode) else str(loader.construct_object(k, deep=True))
        line = k.start_mark.line + 1
        # Flow style `{CPU, Meta: kernel}` is, to YAML, the keys CPU (no value) and Meta;
        # torchlite reads it as the one key "CPU, Meta", like the block style `CPU, Meta: kernel`.
        if (node.flow_style and isinstance(v, yaml.ScalarNode) and v.tag.endswith(":null")
                and v.value == "" and i + 1 < len(node.value)):
            pending.append((key, line))
            continue
        if pending:
            key, line = ", ".join([p for p, _ in pending] + [key]), pending[0][1]
            pending = []
        if key in m:
            m.duplicates.append((key, line))
            continue
        m[key] = loader.construct_object(v, deep=True)
        m.key_lines[key] = line
    return m


def _construct_seq(loader: yaml.BaseLoader, node: yaml.SequenceNode) -> _Seq:
    s = _Seq(loader.construct_object(v, deep=True) for v in node.value)
    s.line = node.start_mark.line + 1
    s.item_lines = [v.start_mark.line + 1 for v in node.value]
    return s


_LineLoader.add_constructor("tag:yaml.org,2002:map", _construct_map)
_LineLoader.add_constructor("tag:yaml.org,2002:seq", _construct_seq)


# ---- the file --------------------------------------------------------------------------

def load_native_functions(path: str | os.PathLike) -> NativeFunctionsFile:
    file = os.path.basename(os.fspath(path))
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    try:
        data = yaml.load(text, Loader=_LineLoader)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark is not None else 1
        raise CodegenError([f"{file}:{line}: YAML syntax error: {getattr(e, 'problem', None) or e}"])

    errors: list[str] = []

    def top_error(line: int, message: str) -> None:
        errors.append(f"{file}:{line}: {message}")

    if not isinstance(data, _Map):
        raise CodegenError([f"{file}:1: expected a mapping with `tags:` and `functions:`"])
    for key, line in data.duplicates:
        top_error(line, f"duplicate key `{key}`")
    for key in data:
        if key not in TOP_KEYS:
            top_error(data.key_lines[key], f"unknown top-level key `{key}` (expected tags, functions)")
    tags = _load_tags(data, top_error)

    functions: list[NativeFunction] = []
    entries = data.get("functions")
    if entries is None and "functions" in data:
        entries = _Seq()  # `functions:` with nothing under it: an empty file
    if not isinstance(entries, _Seq):
        top_error(data.key_lines.get("functions", data.line), "`functions:` must be a list of entries")
        entries = _Seq()
    for i, raw in enumerate(entries):
        if isinstance(raw, _Map):
            functions.extend(_EntryReader(raw, file, errors).read())
        else:
            top_error(entries.item_lines[i], "an entry of `functions:` must be a mapping with `func:`")

    functions = _pair_out_overloads(functions, errors)
    result = NativeFunctionsFile(functions=tuple(functions), tags=tags)
    errors += validate(result)
    if errors:
        raise CodegenError(sorted(dict.fromkeys(errors), key=_line_of))
    return result


def _line_of(error: str) -> int:
    m = re.match(r"[^:]*:(\d+):", error)
    return int(m.group(1)) if m else 0


def _load_tags(data: _Map, top_error) -> tuple[Tag, ...]:
    raw = data.get("tags")
    if raw is None:
        return ()
    if not isinstance(raw, _Map):
        top_error(data.key_lines["tags"], "`tags:` must map each tag name to its description")
        return ()
    for key, line in raw.duplicates:
        top_error(line, f"duplicate tag `{key}`")
    tags = []
    for name, doc in raw.items():
        if not re.match(r"[a-z_][a-z0-9_]*\Z", name):
            top_error(raw.key_lines[name], f"bad tag name `{name}`: expected a lowercase identifier")
        if not isinstance(doc, str) or not doc.strip():
            top_error(raw.key_lines[name], f"tag `{name}` needs a description")
        tags.append(Tag(name, doc if isinstance(doc, str) else ""))
    return tuple(tags)


# ---- one entry --------------------------------------------------------------------------

class _EntryReader:
    """Reads one YAML entry; returns it and its derived variants, or nothing if it is broken."""

    def __init__(self, raw: _Map, file: str, errors: list[str]):
        self.raw, self.file, self.errors = raw, file, errors
        self.op = f"<entry at line {raw.line}>"
        self.ok = True

    def error(self, key: Optional[str], message: str, line: Optional[int] = None) -> None:
        if line is None:
            line = self.raw.key_lines.get(key, self.raw.line) if key else self.raw.line
        self.errors.append(located(Location(self.file, line), self.op, message))
        self.ok = False

    def read(self) -> list[NativeFunction]:
        raw = self.raw
        schema = self._schema()
        for key, line in raw.duplicates:
            self.error(key, f"duplicate key `{key}`", line)
        for key in raw:
            if key not in ENTRY_KEYS:
                close = difflib.get_close_matches(key, ENTRY_KEYS, n=1)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                self.error(key, f"unknown key `{key}`{hint}")
        doc = self._get("doc", str, required=True)
        variants = self._variants()
        inplace = self.raw.get("inplace", False)
        if not isinstance(inplace, bool) and inplace != "method":
            self.error("inplace", "`inplace:` must be `true` (an in-place method, and a function where the entry is "
                       f"one), `method` (a method only) or `false`, not {_kind(inplace)}")
            inplace = False
        derive = tuple(kind for kind, wanted in ((SchemaKind.inplace, bool(inplace)),
                                                 (SchemaKind.out, self._get("out", bool, default=False))) if wanted)
        alias_of = self._get("alias_of", str)
        dispatch, body = self._dispatch(schema, alias_of)
        derivatives, non_differentiable = self._derivatives()
        out_diff = self._list("output_differentiability", bool)
        tags = self._list("tags", str)
        python_operators = self._list("python_operators", str)
        view_of = self._get("view_of", str)
        samples = self._list("samples", str)
        dtypes = self._dtypes()
        backward_node = self._get("backward_node", str)
        out_dtype = self._get("out_dtype", str)
        if out_dtype not in (None, "exact", "any"):
            self.error("out_dtype", f"`out_dtype:` must be `exact` or `any` (absent: the result casts safely), not `{out_dtype}`")
        device_check = self._get("device_check", str)
        if device_check not in (None, "NoCheck"):
            self.error("device_check", f"`device_check:` must be `NoCheck` (absent: all tensors on one device), not `{device_check}`")
        out_autograd = self._get("out_autograd", str)
        if out_autograd not in (None, "records", "not_implemented"):
            self.error("out_autograd", "`out_autograd:` must be `records` or `not_implemented` (absent: out= refuses "
                       f"inputs that require grad), not `{out_autograd}`")
        python_module = self._get("python_module", str)
        if python_module is not None and python_module not in PYTHON_MODULES:
            self.error("python_module", f"`python_module:` must be one of {', '.join(PYTHON_MODULES)}, "
                       f"not `{python_module}`")
        python_binding = self._get("python_binding", str)
        if python_binding not in (None, INTERNAL_MODULE):
            self.error("python_binding", f"`python_binding:` must be `{INTERNAL_MODULE}` (absent: bound as "
                       f"`variants:` and `python_module:` say), not `{python_binding}`")
        materialize_grads = self._get("materialize_grads", bool, default=True)
        onnx = self._onnx()
        if not self.ok or schema is None:
            return []
        source = NativeFunction(
            schema=schema, loc=Location(self.file, raw.line), doc=doc, variants=variants,
            dispatch=dispatch, composite_body=body, derivatives=derivatives,
            non_differentiable=non_differentiable,
            output_differentiability=None if out_diff is None else tuple(out_diff),
            tags=tuple(tags or ()), python_operators=tuple(python_operators or ()),
            view_of=view_of, samples=tuple(samples or ()), dtypes=dtypes, derive=derive, key_lines=self._key_lines(),
            backward_node=backward_node, alias_of=alias_of, out_dtype=out_dtype, device_check=device_check,
            out_autograd=out_autograd,
            python_module=python_module, python_binding=python_binding, inplace_method_only=inplace == "method",
            materialize_grads=materialize_grads, onnx=onnx,
        )
        return _with_derived(source)

    # -- keys

    def _schema(self) -> Optional[FunctionSchema]:
        func = self.raw.get("func")
        if func is None:
            self.error(None, "missing `func:`")
            return None
        if not isinstance(func, str):
            self.error("func", f"`func:` must be a schema string, not {_kind(func)}")
            return None
        self.op = func.split("(", 1)[0].strip() or self.op
        try:
            schema = parse_schema(func)
        except SchemaError as e:
            self.error("func", f"bad schema: {e}")
            return None
        self.op = str(schema.name)
        if str(schema) != func:
            self.error("func", f"schema is not written canonically; write it as `{schema}`")
        return schema

    def _get(self, key: str, ty: type, required: bool = False, default: Any = None) -> Any:
        if key not in self.raw:
            if required:
                self.error(None, f"missing `{key}:`")
            return default
        value = self.raw[key]
        if not isinstance(value, ty):
            self.error(key, f"`{key}:` must be {ty.__name__}, not {_kind(value)}")
            return default
        return value

    def _list(self, key: str, elem: type) -> Optional[list]:
        value = self.raw.get(key)
        if value is None:
            if key in self.raw:
                self.error(key, f"`{key}:` is empty")
            return None
        if not isinstance(value, list) or not all(isinstance(x, elem) for x in value):
            self.error(key, f"`{key}:` must be a list of {elem.__name__}, not {_kind(value)}")
            return None
        return value

    def _onnx(self) -> Optional[OnnxMapping]:
        """`onnx: Relu` (a 1:1 operator) or a mapping with `op:` or `function:` and the optional
        `inputs:`, `attributes:`, `require:` (docs/onnx.md). Only the shapes of the values are
        checked here; validate.py relates the names to the schema."""
        if "onnx" not in self.raw:
            return None
        raw = self.raw["onnx"]
        if isinstance(raw, str):
            raw = {"op": raw}
        if not isinstance(raw, dict) or not raw:
            self.error("onnx", "`onnx:` must be an ONNX operator name or a mapping with `op:` or `function:`, "
                       f"not {_kind(raw)}")
            return None
        lines = getattr(raw, "key_lines", {})
        for key, line in getattr(raw, "duplicates", []):
            self.error("onnx", f"duplicate key `{key}` in `onnx:`", line)
        for key in raw:
            if key not in ONNX_KEYS:
                self.error("onnx", f"unknown key `{key}` in `onnx:` (expected {', '.join(ONNX_KEYS)})", lines.get(key))
        op, function = raw.get("op"), raw.get("function")
        if (op is None) == (function is None):
            self.error("onnx", "`onnx:` needs exactly one of `op:` (a 1:1 ONNX operator) and `function:` "
                       "(a handwritten translation)")
            return None
        if op is not None and not (isinstance(op, str) and re.match(r"[A-Z][A-Za-z0-9]*\Z", op)):
            self.error("onnx", f"`onnx: op:` must be an ONNX operator name (`Relu`, `MatMul`), not {_kind(op)}",
                       lines.get("op"))
            return None
        if function is not None:
            if not (isinstance(function, str) and re.match(r"[a-z_][a-z0-9_]*\Z", function)):
                self.error("onnx", "`onnx: function:` must name a translation function of torchlite/onnx/ "
                           f"(a lowercase identifier), not {_kind(function)}", lines.get("function"))
                return None
            extra = [k for k in ("inputs", "attributes", "require") if k in raw]
            if extra:
                self.error("onnx", f"`onnx: function:` takes no `{extra[0]}:` (the function reads the arguments "
                           "itself)", lines.get(extra[0]))
                return None
            return OnnxMapping(function=function)
        inputs = raw.get("inputs")
        if inputs is not None and not (isinstance(inputs, list) and inputs
                                       and all(isinstance(x, str) for x in inputs)):
            self.error("onnx", f"`onnx: inputs:` must be a list of argument names, not {_kind(inputs)}",
                       lines.get("inputs"))
            return None
        attributes = raw.get("attributes", {})
        if not (isinstance(attributes, dict) and all(isinstance(v, str) for v in attributes.values())):
            self.error("onnx", "`onnx: attributes:` must map ONNX attribute names to argument names, not "
                       f"{_kind(attributes)}", lines.get("attributes"))
            return None
        require = raw.get("require", {})
        if not (isinstance(require, dict) and all(v is None or isinstance(v, (bool, int, float, str))
                                                  for v in require.values())):
            self.error("onnx", "`onnx: require:` must map argument names to the value (a number, bool, string "
                       f"or null) they must have, not {_kind(require)}", lines.get("require"))
            return None
        return OnnxMapping(op=op, inputs=None if inputs is None else tuple(inputs),
                           attributes=tuple(attributes.items()), require=tuple(require.items()))

    def _dtypes(self) -> Optional[tuple[str, ...]]:
        names = self._list("dtypes", str)
        if names is None:
            return None
        chosen: set[str] = set()
        for name in names:
            members = DTYPE_GROUPS.get(name, (name,) if name in ALL_DTYPE_NAMES else None)
            if members is None:
                close = difflib.get_close_matches(name, [*DTYPE_GROUPS, *ALL_DTYPE_NAMES], n=1)
                hint = f"; did you mean `{close[0]}`?" if close else ""
                self.error("dtypes", f"unknown dtype or dtype group `{name}` in `dtypes:`{hint}")
                continue
            chosen.update(members)
        return tuple(d for d in ALL_DTYPE_NAMES if d in chosen)

    def _variants(self) -> frozenset[str]:
        value = self.raw.get("variants", "function")
        if isinstance(value, str):
            value = value.split(",")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            self.error("variants", f"`variants:` must be `function`, `method` or both, not {_kind(value)}")
            return frozenset()
        return frozenset(v.strip() for v in value if v.strip())

    def _dispatch(self, schema: Optional[FunctionSchema],
                  alias_of: Optional[str]) -> tuple[tuple[tuple[str, str], ...], Optional[str]]:
        raw = self.raw
        if alias_of is not None:
            for key in ("impl", "dispatch"):
                if key in raw:
                    self.error(key, f"`{key}:` and `alias_of:` are mutually exclusive")
            if schema is None:
                return (), None
            args = ", ".join(a.name for a in schema.arguments)
            return ((COMPOSITE, f"{schema.name.cpp_id}_composite"),), f"return {alias_of}({args});\n"
        if "impl" in raw:
            if "dispatch" in raw:
                self.error("impl", "`impl:` and `dispatch:` are mutually exclusive")
            body = self._get("impl", str)
            if body is not None and not body.strip():
                self.error("impl", "`impl:` is empty")
            if body is None or schema is None:
                return (), None
            return ((COMPOSITE, f"{schema.name.cpp_id}_composite"),), body
        value = raw.get("dispatch")
        if value is None:
            if "dispatch" in raw:
                self.error("dispatch", "`dispatch:` is empty")
            return (), None
        if not isinstance(value, _Map) or not value:
            self.error("dispatch", f"`dispatch:` must map backends to kernel names, not {_kind(value)}")
            return (), None
        for key, line in value.duplicates:
            self.error("dispatch", f"backend `{key}` is given twice in `dispatch:`", line)
        pairs = []
        for key, kernel in value.items():
            if not isinstance(kernel, str) or not kernel:
                self.error("dispatch", f"backend `{key}` has no kernel name", value.key_lines[key])
                continue
            for backend in key.split(","):
                pairs.append((backend.strip(), kernel))
        return tuple(sorted(pairs, key=lambda p: p[0])), None

    def _derivatives(self) -> tuple[tuple[Derivative, ...], tuple[str, ...]]:
        value = self.raw.get("derivatives")
        if "derivatives" not in self.raw:
            return (), ()
        if not isinstance(value, _Map) or not value:
            self.error("derivatives", "`derivatives:` must map input names to formulas "
                                      f"or `non_differentiable`, not {_kind(value)}")
            return (), ()
        for key, line in value.duplicates:
            self.error("derivatives", f"`{key}` is given twice in `derivatives:`", line)
        derivatives, non_differentiable = [], []
        for key, formula in value.items():
            line = value.key_lines[key]
            names = tuple(n.strip() for n in key.split(","))
            if not all(names):
                self.error("derivatives", f"bad input list `{key}` in `derivatives:`", line)
            if not isinstance(formula, str) or not formula.strip():
                self.error("derivatives", f"derivative of `{key}` must be a formula or "
                                          f"`non_differentiable`, not {_kind(formula)}", line)
            elif _is_non_differentiable(formula):
                non_differentiable += names
            else:
                derivatives.append(Derivative(names, formula.strip(), Location(self.file, line)))
        return tuple(derivatives), tuple(non_differentiable)

    def _key_lines(self) -> tuple[tuple[str, int], ...]:
        """Top-level keys, plus `non_differentiable:NAME` for inputs declared so (an input
        with a formula has the formula's Derivative.loc)."""
        lines = list(self.raw.key_lines.items())
        onnx = self.raw.get("onnx")
        if isinstance(onnx, _Map):
            lines += [(f"onnx.{k}", line) for k, line in onnx.key_lines.items()]
        derivatives = self.raw.get("derivatives")
        if isinstance(derivatives, _Map):
            lines += [(f"non_differentiable:{n.strip()}", derivatives.key_lines[key])
                      for key, formula in derivatives.items() if _is_non_differentiable(formula)
                      for n in key.split(",")]
        return tuple(lines)


def _is_non_differentiable(formula: Any) -> bool:
    return isinstance(formula, str) and formula.strip() == "non_differentiable"


def _kind(value: Any) -> str:
    """How a YAML value reads in an error message."""
    if value is None:
        return "nothing"
    if isinstance(value, (dict, list)):
        return "a mapping" if isinstance(value, dict) else "a list"
    return f"`{value}` ({type(value).__name__})"


# ---- out= overloads written in the YAML ------------------------------------------------------

def _pair_out_overloads(functions: list[NativeFunction], errors: list[str]) -> list[NativeFunction]:
    """Pairs each out= overload written in the YAML (`max.unary_out(Tensor self, *, Tensor(a!) out)`)
    with the functional overload of its name that takes the same arguments without the outputs
    (`max(Tensor self)`), as PyTorch's Python bindings do: Python reaches it as that overload's
    `out=` keyword, and the generated tests treat it as that overload's out= form."""
    result = []
    paired: dict[str, NativeFunction] = {}
    for f in functions:
        s = f.schema
        if (f.derived_kind is not None or s.kind() is not SchemaKind.out or s.name.inplace
                or not is_out_overload(s)):  # validate.py reports outputs on an overload not named so
            result.append(f)
            continue
        outs = s.out_arguments
        inputs = tuple(a for a in s.arguments if a not in outs)
        same_name = [g for g in functions if g.schema.name.base == s.name.base and g.derived_kind is None
                     and g.schema.kind() is SchemaKind.functional]
        match = next((g for g in same_name if g.schema.arguments == inputs), None)
        op, loc = str(s.name), f.loc_of("func")
        if match is None:
            known = "; ".join(f"`{g.schema}`" for g in same_name) or "none"
            errors.append(located(loc, op, (
                f"out= overload pairs with no functional overload of `{s.name.base}` taking its arguments "
                f"without the outputs ({', '.join(str(a) for a in inputs) or 'none'}); functional overloads: {known}")))
        elif len(match.schema.returns) != len(outs):
            errors.append(located(loc, op, (
                f"out= overload has {len(outs)} output(s) but its functional overload `{match.schema.name}` "
                f"returns {len(match.schema.returns)}")))
        elif SchemaKind.out in match.derive:
            errors.append(located(loc, op, (
                f"`{match.schema.name}` already derives its out= form (`out: true` at line "
                f"{match.loc_of('out').line}); remove one of the two")))
        elif str(match.schema.name) in paired:
            errors.append(located(loc, op, (
                f"`{match.schema.name}` already has the out= overload "
                f"`{paired[str(match.schema.name)].schema.name}` (line {paired[str(match.schema.name)].loc.line})")))
        else:
            paired[str(match.schema.name)] = f
            f = replace(f, out_of=match)
        result.append(f)
    return result


# ---- derived variants ----------------------------------------------------------------------

_TENSOR = BaseType("Tensor")


def _with_derived(source: NativeFunction) -> list[NativeFunction]:
    """The entry followed by the in-place and out= variants it asks for (when derivable;
    validate() reports the ones that are not)."""
    kinds = [k for k in source.derive if derive_problem(source.schema, k) is None]
    inplace_ops = tuple(o for o in source.python_operators if o in INPLACE_DUNDERS)
    if SchemaKind.inplace in kinds:
        # In-place dunders bind the in-place variant; the source keeps the others.
        source = replace(source, python_operators=tuple(
            o for o in source.python_operators if o not in INPLACE_DUNDERS))
    result = [source]
    for kind in kinds:
        if kind is SchemaKind.inplace:
            schema = _inplace_schema(source.schema)
            # PyTorch's in-place ops are methods, except those of a python_module (F.elu_ is
            # torch._C._nn.elu_, not Tensor.elu_): those keep the entry's variants. `inplace: method`
            # leaves out the function (Tensor.add_ but no torch.add_).
            functions = frozenset() if source.inplace_method_only else {"function"} & source.variants
            variants = source.variants if source.python_module else frozenset({"method"} | functions)
            operators = inplace_ops
        else:
            schema = _out_schema(source.schema)
            variants, operators = frozenset({"function"}), ()
        result.append(replace(
            source, schema=schema, variants=variants, python_operators=operators, view_of=None,
            functional=source, derived_kind=kind, derive=(),
            onnx=source.onnx if kind is SchemaKind.inplace else None))
    return result


def _inplace_schema(s: FunctionSchema) -> FunctionSchema:
    """name.ov(Tensor self, ...) -> Tensor  ==>  name_.ov(Tensor(a!) self, ...) -> Tensor(a!)"""
    written = Annotation("a", is_write=True)
    args = tuple(replace(a, annotation=written) if a.name == "self" else a for a in s.arguments)
    name = OperatorName(s.name.base, inplace=True, overload=s.name.overload)
    return FunctionSchema(name, args, (Return(_TENSOR, None, written),))


def _out_schema(s: FunctionSchema) -> FunctionSchema:
    """Appends one keyword-only `Tensor(x!)` output per return: name.out / name.<ov>_out."""
    single = len(s.returns) == 1 and s.returns[0].name is None
    names = ["out"] if single else [r.name for r in s.returns]
    sets = [Annotation(chr(ord("a") + i), is_write=True) for i in range(len(names))]
    outs = tuple(Argument(n, _TENSOR, None, a, kwarg_only=True) for n, a in zip(names, sets))
    returns = tuple(Return(_TENSOR, None if single else n, a) for n, a in zip(names, sets))
    overload = f"{s.name.overload}_out" if s.name.overload else "out"
    name = OperatorName(s.name.base, inplace=False, overload=overload)
    return FunctionSchema(name, s.arguments + outs, returns)
