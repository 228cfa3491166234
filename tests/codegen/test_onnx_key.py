"""The `onnx:` key of native_functions.yaml: loading, validation (errors at the YAML line) and the
generated table torchlite.onnx reads (generated/python/onnx_ops.py)."""
import ast
import textwrap
from pathlib import Path

import pytest

from codegen import gen_onnx
from codegen.context import build_context
from codegen.loader import CodegenError, load_native_functions
from codegen.model import OnnxMapping

ROOT = Path(__file__).resolve().parents[2]
HEADER = "tags:\n  pointwise: Pointwise.\nfunctions:\n"
L = 4  # line of the first entry's `func:`


def load(tmp_path, entries: str):
    path = tmp_path / "native_functions.yaml"
    path.write_text(HEADER + textwrap.dedent(entries))
    return load_native_functions(path)


def errors_of(tmp_path, entries: str) -> list[str]:
    with pytest.raises(CodegenError) as e:
        load(tmp_path, entries)
    return e.value.errors


def err(line: int, op: str, message: str) -> str:
    return f"native_functions.yaml:{line}: {op}: {message}"


ADD = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  doc: Adds.
  inplace: true
  out: true
  dispatch: {CPU: add_kernel}
  derivatives: {"self, other": grad}
"""


def test_forms_load_into_the_model(tmp_path):
    f = load(tmp_path, """\
        - func: relu(Tensor self) -> Tensor
          doc: R.
          onnx: Relu
          dispatch: {CPU: relu_kernel}
          derivatives: {self: grad}
        - func: mul.Scalar(Tensor self, Scalar other) -> Tensor
          doc: M.
          onnx: {op: Mul, inputs: [self, other]}
          dispatch: {CPU: mul_kernel}
          derivatives: {self: grad}
        - func: leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor
          doc: L.
          onnx:
            op: LeakyRelu
            attributes: {alpha: negative_slope}
          dispatch: {CPU: leaky_kernel}
          derivatives: {self: grad}
        - func: dropout(Tensor input, float p, bool train) -> Tensor
          doc: D.
          onnx: {op: Identity, inputs: [input], require: {train: false}}
          impl: return input;
        - func: conv2d(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
          doc: C.
          onnx: {function: conv}
          impl: return input;
        """)
    by = {str(fn.schema.name): fn.onnx for fn in f.functions}
    assert by["relu"] == OnnxMapping(op="Relu")
    assert by["mul.Scalar"] == OnnxMapping(op="Mul", inputs=("self", "other"))
    assert by["leaky_relu"] == OnnxMapping(op="LeakyRelu", attributes=(("alpha", "negative_slope"),))
    assert by["dropout"] == OnnxMapping(op="Identity", inputs=("input",), require=(("train", False),))
    assert by["conv2d"] == OnnxMapping(function="conv")


def test_inplace_variant_keeps_the_mapping_and_out_drops_it(tmp_path):
    f = load(tmp_path, ADD + "  onnx: {function: add}\n")
    by = {str(fn.schema.name): fn.onnx for fn in f.functions}
    assert by["add.Tensor"] == by["add_.Tensor"] == OnnxMapping(function="add")
    assert by["add.Tensor_out"] is None


def test_generated_table_and_list(tmp_path):
    f = load(tmp_path, ADD + "  onnx: {op: Add, require: {alpha: 1}}\n" + """\
- func: conv2d(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor
  doc: C.
  onnx: {function: conv}
  impl: return input;
- func: neg(Tensor self) -> Tensor
  doc: Not exported.
  dispatch: {CPU: neg_kernel}
  derivatives: {self: grad}
""")
    files = gen_onnx.generate(build_context(f))
    table = ast.literal_eval(files["python/onnx_ops.py"].split("OPS = ", 1)[1])
    assert table == {
        "add.Tensor": {"op": "Add", "inputs": ("self", "other"), "attributes": {}, "require": {"alpha": 1}},
        "add_.Tensor": {"op": "Add", "inputs": ("self", "other"), "attributes": {}, "require": {"alpha": 1}},
        "conv2d": {"function": "conv"},
    }
    assert "| `conv2d` | handwritten: `conv` |" in files["onnx_ops.md"]
    assert "| `add.Tensor` | `Add`(self, other); when alpha=1 |" in files["onnx_ops.md"]
    assert "neg" not in files["onnx_ops.md"]


REL = """\
- func: f(Tensor self, Tensor? w, Scalar s, int dim, int[] sizes) -> Tensor
  doc: F.
  dispatch: {CPU: f_kernel}
  derivatives: {"self, w": grad}
"""


@pytest.mark.parametrize("onnx, line, message", [
    ("[Relu]", 4, "`onnx:` must be an ONNX operator name or a mapping with `op:` or `function:`, not a list"),
    ("relu", 4, "`onnx: op:` must be an ONNX operator name (`Relu`, `MatMul`), not `relu` (str)"),
    ("{op: Relu, function: relu}", 4, "`onnx:` needs exactly one of `op:` (a 1:1 ONNX operator) and `function:` "
                                      "(a handwritten translation)"),
    ("{inputs: [self]}", 4, "`onnx:` needs exactly one of `op:` (a 1:1 ONNX operator) and `function:` "
                            "(a handwritten translation)"),
    ("{function: Conv}", 4, "`onnx: function:` must name a translation function of torchlite/onnx/ "
                            "(a lowercase identifier), not `Conv` (str)"),
    ("{function: conv, inputs: [self]}", 4, "`onnx: function:` takes no `inputs:` (the function reads the "
                                            "arguments itself)"),
    ("{op: Relu, input: [self]}", 4, "unknown key `input` in `onnx:` (expected op, function, inputs, attributes, "
                                     "require)"),
    ("{op: Relu, inputs: self}", 4, "`onnx: inputs:` must be a list of argument names, not `self` (str)"),
    ("{op: Relu, attributes: [dim]}", 4, "`onnx: attributes:` must map ONNX attribute names to argument names, "
                                         "not a list"),
    ("{op: Relu, require: {dim: [1]}}", 4, "`onnx: require:` must map argument names to the value (a number, "
                                           "bool, string or null) they must have, not a mapping"),
])
def test_loader_errors(tmp_path, onnx, line, message):
    assert err(L + line, "f", message) in errors_of(tmp_path, REL + f"  onnx: {onnx}\n")


@pytest.mark.parametrize("onnx, message", [
    ("{op: Relu, inputs: [x]}", "`onnx: inputs:` names `x`, which is not an argument (self, w, s, dim, sizes)"),
    ("{op: Relu, inputs: [dim]}", "`onnx: inputs:` names `dim` of type int; ONNX inputs are tensors (Tensor, "
                                  "Tensor?) or Scalars; map other arguments with `attributes:`"),
    ("{op: Relu, inputs: [self, self]}", "`onnx: inputs:` names an argument twice"),
    ("{op: Softmax, attributes: {axis: x}}", "`onnx: attributes:` names `x`, which is not an argument "
                                             "(self, w, s, dim, sizes)"),
    ("{op: Softmax, attributes: {axis: w}}", "`onnx: attributes:` names the tensor argument `w`; only non-tensor "
                                             "arguments (read from the traced call's constants) can be attributes "
                                             "or requirements"),
    ("{op: Softmax, require: {self: 1}}", "`onnx: require:` names the tensor argument `self`; only non-tensor "
                                          "arguments (read from the traced call's constants) can be attributes or "
                                          "requirements"),
    ("{op: Softmax, attributes: {Axis: dim}}", "`onnx: attributes:` key `Axis` is not an ONNX attribute name"),
])
def test_validation_errors_point_at_the_key(tmp_path, onnx, message):
    assert errors_of(tmp_path, REL + f"  onnx: {onnx}\n") == [err(L + 4, "f", message)]


def test_validation_error_points_at_the_sub_key(tmp_path):
    errors = errors_of(tmp_path, REL + "  onnx:\n    op: Relu\n    inputs: [x]\n")
    assert errors == [err(L + 6, "f", "`onnx: inputs:` names `x`, which is not an argument (self, w, s, dim, sizes)")]


def test_no_tensor_argument_needs_inputs(tmp_path):
    errors = errors_of(tmp_path, "- func: g(int n) -> Tensor\n  doc: G.\n  dispatch: {CPU: g_kernel}\n"
                                 "  onnx: Relu\n")
    assert errors == [err(L + 3, "g", "the op has no tensor argument; name the ONNX inputs with `inputs:`")]


def test_out_overload_cannot_be_exported(tmp_path):
    errors = errors_of(tmp_path, """\
        - func: h(Tensor self) -> Tensor
          doc: H.
          dispatch: {CPU: h_kernel}
          derivatives: {self: grad}
        - func: h.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: H out.
          dispatch: {CPU: h_out_kernel}
          onnx: Relu
        """)
    assert errors == [err(L + 7, "h.out", "an out= overload is not exported; put `onnx:` on its functional overload")]


def test_real_yaml_table_is_current_and_names_registered_translations():
    """Every `function:` the YAML names is a registered translation, and each registered one is used."""
    ctx = build_context(load_native_functions(ROOT / "native_functions.yaml"))
    table = ast.literal_eval(gen_onnx.generate(ctx)["python/onnx_ops.py"].split("OPS = ", 1)[1])
    named = {row["function"] for row in table.values() if "function" in row}
    source = "\n".join(p.read_text() for p in (ROOT / "torchlite/onnx/_translations").glob("*.py"))
    registered = set(__import__("re").findall(r'@translation\("(\w+)"\)', source))
    assert named == registered
