"""Tests for codegen/loader.py: the real YAML, derived variants, key parsing, and errors
that carry line numbers and are all reported at once."""
import textwrap
from pathlib import Path

import pytest

from codegen.loader import CodegenError, load_native_functions
from codegen.model import (
    COMPOSITE, Annotation, Argument, BaseType, Derivative, Location, SchemaKind,
)

ROOT = Path(__file__).resolve().parents[2]
HEADER = """\
tags:
  pointwise: Pointwise.
  view: View.
functions:
"""
FIRST_LINE = 5  # line of the first entry written after HEADER


def load(tmp_path, entries: str, header: str = HEADER):
    path = tmp_path / "native_functions.yaml"
    path.write_text(header + textwrap.dedent(entries))
    return load_native_functions(path)


def errors_of(tmp_path, entries: str, header: str = HEADER) -> list[str]:
    with pytest.raises(CodegenError) as e:
        load(tmp_path, entries, header)
    return e.value.errors


def by_name(f, name):
    (fn,) = [x for x in f.functions if str(x.schema.name) == name]
    return fn


ADD = """\
- func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
  doc: Adds.
  variants: function, method
  inplace: true
  out: true
  python_operators: [__add__, __radd__, __iadd__]
  dispatch: {CPU, Meta: add_kernel}
  tags: [pointwise]
  derivatives:
    self: grad
    other: maybe_multiply(grad, alpha)
"""


# ---- the real file -----------------------------------------------------------------

def test_real_yaml_loads_without_errors():
    f = load_native_functions(ROOT / "native_functions.yaml")
    assert len(f.functions) > 100
    assert {t.name for t in f.tags} >= {"pointwise", "reduction", "view", "factory"}
    names = [str(fn.schema.name) for fn in f.functions]
    assert len(names) == len(set(names))
    assert all(fn.loc.file == "native_functions.yaml" for fn in f.functions)


# ---- derived variants ----------------------------------------------------------------

def test_derived_variants_follow_their_source(tmp_path):
    f = load(tmp_path, ADD)
    assert [str(fn.schema) for fn in f.functions] == [
        "add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
        "add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
        "add.Tensor_out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)",
    ]
    source, inplace, out = f.functions
    assert source.derived_kind is None and source.functional is None
    assert source.derive == (SchemaKind.inplace, SchemaKind.out)
    assert inplace.derived_kind is SchemaKind.inplace and inplace.functional is source
    assert out.derived_kind is SchemaKind.out and out.functional is source
    assert inplace.schema.kind() is SchemaKind.inplace
    assert out.schema.kind() is SchemaKind.out
    assert inplace.loc == out.loc == source.loc == Location("native_functions.yaml", FIRST_LINE)


def test_derived_variants_arguments_and_annotations(tmp_path):
    _, inplace, out = load(tmp_path, ADD).functions
    assert inplace.schema.arguments[0] == Argument("self", BaseType("Tensor"), annotation=Annotation("a", True))
    assert inplace.schema.arguments[1:] == out.schema.arguments[1:3]
    assert out.schema.arguments[-1] == Argument(
        "out", BaseType("Tensor"), annotation=Annotation("a", True), kwarg_only=True)
    assert out.schema.returns[0].annotation == Annotation("a", True)


def test_derived_variants_copy_dispatch_derivatives_tags(tmp_path):
    source, inplace, out = load(tmp_path, ADD).functions
    for fn in (inplace, out):
        assert fn.dispatch == source.dispatch == (("CPU", "add_kernel"), ("Meta", "add_kernel"))
        assert fn.derivatives == source.derivatives
        assert fn.tags == ("pointwise",)
        assert fn.doc == source.doc
        assert fn.derive == ()


def test_derived_variants_and_python_operators(tmp_path):
    source, inplace, out = load(tmp_path, ADD).functions
    assert source.variants == {"function", "method"}
    assert inplace.variants == {"function", "method"}
    assert out.variants == {"function"}
    assert source.python_operators == ("__add__", "__radd__")
    assert inplace.python_operators == ("__iadd__",)
    assert out.python_operators == ()


def test_inplace_of_a_function_only_entry_is_a_method(tmp_path):
    f = load(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          variants: method
          inplace: true
          dispatch: {CPU: neg_kernel}
          derivatives: {self: neg(grad)}
        - func: abs(Tensor self) -> Tensor
          doc: Absolute value.
          inplace: true
          dispatch: {CPU: abs_kernel}
          derivatives:
            self: mul(grad, sign(self))
        """)
    assert by_name(f, "neg_").variants == {"method"}
    assert by_name(f, "abs").variants == {"function"}
    assert by_name(f, "abs_").variants == {"function", "method"}


def test_out_of_an_entry_without_overload_is_named_out(tmp_path):
    f = load(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          out: true
          dispatch: {CPU: neg_kernel}
          derivatives: {self: neg(grad)}
        """)
    assert str(f.functions[1].schema) == "neg.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)"


def test_out_with_named_returns(tmp_path):
    f = load(tmp_path, """\
        - func: max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)
          doc: Maximum along a dimension.
          variants: function, method
          out: true
          dispatch: {CPU: max_dim_kernel}
          output_differentiability: [True, False]
          derivatives:
            self: value_selecting_reduction_backward(grad, dim, indices, self.sizes(), keepdim)
        """)
    assert str(f.functions[1].schema) == (
        "max.dim_out(Tensor self, int dim, bool keepdim=False, *, Tensor(a!) values, Tensor(b!) indices)"
        " -> (Tensor(a!) values, Tensor(b!) indices)")
    assert f.functions[1].output_differentiability == (True, False)


def test_inplace_dunders_stay_when_no_variant_is_derived(tmp_path):
    # Kept on the source so that validation can name the mistake.
    errors = errors_of(tmp_path, """\
        - func: mul(Tensor self, Tensor other) -> Tensor
          doc: Multiplies.
          python_operators: [__mul__, __imul__]
          dispatch: {CPU: mul_kernel}
          derivatives: {"self, other": non_differentiable}
        """)
    assert errors == [f"native_functions.yaml:{FIRST_LINE + 2}: mul: in-place operator `__imul__` "
                      "needs an in-place variant (`inplace: true`, or a name ending in `_`)"]


# ---- keys ------------------------------------------------------------------------------

def test_dispatch_forms_are_sorted_by_backend(tmp_path):
    f = load(tmp_path, """\
        - func: a(Tensor self) -> Tensor
          doc: A.
          dispatch: {Meta: a_meta, CPU: a_cpu}
          derivatives: {self: grad}
        - func: b(Tensor self) -> Tensor
          doc: B.
          dispatch:
            Meta, CPU: b_kernel
          derivatives: {self: grad}
        - func: c(Tensor self) -> Tensor
          doc: C.
          dispatch: {"CPU, Meta": c_kernel}
          derivatives: {self: grad}
        """)
    assert by_name(f, "a").dispatch == (("CPU", "a_cpu"), ("Meta", "a_meta"))
    assert by_name(f, "b").dispatch == (("CPU", "b_kernel"), ("Meta", "b_kernel"))
    assert by_name(f, "c").dispatch == (("CPU", "c_kernel"), ("Meta", "c_kernel"))
    assert by_name(f, "a").kernel_for("Meta") == "a_meta"


def test_impl_makes_a_composite(tmp_path):
    f = load(tmp_path, """\
        - func: zero_.Scalar(Tensor(a!) self) -> Tensor(a!)
          doc: Zeroes.
          variants: function, method
          impl: |
            return fill_(self, 0);
        """)
    (fn,) = f.functions
    assert fn.is_composite
    assert fn.dispatch == ((COMPOSITE, "zero__Scalar_composite"),)
    assert fn.composite_body == "return fill_(self, 0);\n"


def test_derivatives_and_non_differentiable(tmp_path):
    f = load(tmp_path, """\
        - func: where.self(Tensor condition, Tensor self, Tensor other) -> Tensor
          doc: Picks.
          dispatch: {CPU: where_kernel}
          derivatives:
            condition: non_differentiable
            "self, other": where_backward(grad, condition)
        """)
    (fn,) = f.functions
    line = FIRST_LINE + 5
    assert fn.derivatives == (Derivative(("self", "other"), "where_backward(grad, condition)",
                                         Location("native_functions.yaml", line)),)
    assert fn.non_differentiable == ("condition",)
    assert fn.differentiable
    assert fn.loc_of("non_differentiable:condition").line == line - 1
    assert fn.loc_of("dispatch").line == FIRST_LINE + 2
    assert fn.loc_of("no such key") == fn.loc


def test_optional_keys_and_defaults(tmp_path):
    f = load(tmp_path, """\
        - func: t(Tensor(a) self) -> Tensor(a)
          doc: Transposes.
          variants: [function, method]
          view_of: self
          tags: [view]
          dispatch: {CPU: t_kernel}
          output_differentiability: [True]
          derivatives: {self: t(grad)}
        - func: e(int[] size) -> Tensor
          doc: Empty.
          dispatch: {CPU: e_kernel}
        """)
    t, e = f.functions
    assert t.variants == {"function", "method"} and t.view_of == "self" and t.tags == ("view",)
    assert t.output_differentiability == (True,)
    assert e.variants == {"function"} and e.view_of is None and e.tags == () and e.derive == ()
    assert e.output_differentiability is None and e.composite_body is None and not e.differentiable


def test_tags_are_loaded(tmp_path):
    f = load(tmp_path, "")
    assert [(t.name, t.doc) for t in f.tags] == [("pointwise", "Pointwise."), ("view", "View.")]
    assert f.functions == ()


# ---- errors ----------------------------------------------------------------------------

def test_errors_carry_line_and_op(tmp_path):
    errors = errors_of(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          dispatch: {CPU: neg_kernel}
          derivative: {self: neg(grad)}
        """)
    assert f"native_functions.yaml:{FIRST_LINE + 3}: neg: unknown key `derivative`; did you mean `derivatives`?" in errors


def test_dtypes_expand_groups_and_reject_unknown_names(tmp_path):
    f = load(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          dispatch: {CPU: neg_kernel}
          derivatives: {self: neg(grad)}
          dtypes: [floating, int8, integral]
        """)
    assert f.functions[0].dtypes == ("uint8", "int8", "int16", "int32", "int64",
                                     "float16", "bfloat16", "float32", "float64")
    errors = errors_of(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          dispatch: {CPU: neg_kernel}
          dtypes: [integer, bool]
        """)
    assert errors == [f"native_functions.yaml:{FIRST_LINE + 3}: neg: unknown dtype or dtype group `integer` in "
                      "`dtypes:`; did you mean `integral`?"]


def test_describe_dtypes_uses_the_group_names():
    from codegen.model import DTYPE_NAMES, describe_dtypes
    assert describe_dtypes(DTYPE_NAMES) == "all"
    assert describe_dtypes(("bool", "uint8", "int8", "int16", "int32", "int64")) == "bool, integral"
    assert describe_dtypes(("float32", "float64")) == "float32, float64"
    assert describe_dtypes(DTYPE_NAMES + ("complex64", "complex128")) == "all, complex"
    assert describe_dtypes(("float32", "float64", "complex64")) == "float32, float64, complex64"


def test_dtypes_complex_group_follows_the_real_dtypes(tmp_path):
    f = load(tmp_path, """\
        - func: neg(Tensor self) -> Tensor
          doc: Negates.
          dispatch: {CPU: neg_kernel}
          derivatives: {self: neg(grad)}
          dtypes: [complex, float64, complex128]
        """)
    assert f.functions[0].dtypes == ("float64", "complex64", "complex128")


def test_several_errors_are_reported_at_once(tmp_path):
    with pytest.raises(CodegenError) as e:
        load(tmp_path, """\
            - func: a(Tensor self) -> Tensr
              doc: A.
              dispatch: {CPU: a_kernel}
            - func: b(Tensor self) -> Tensor
              doc: ""
              dispatch: {CPU: b_kernel, GPU: b_kernel}
              derivatives: {self: grad}
            - func: c(Tensor self) -> Tensor
              colour: blue
              dispatch: {CPU: c_kernel}
              derivatives: {self: grad}
            """)
    errors = e.value.errors
    assert errors == [
        "native_functions.yaml:5: a: bad schema: return: unknown type `Tensr` "
        "(expected one of Tensor, Scalar, int, float, bool)",
        "native_functions.yaml:9: b: `doc:` is empty",
        "native_functions.yaml:10: b: unknown backend `GPU` (expected CPU, Meta or Composite)",
        "native_functions.yaml:12: c: missing `doc:`",
        "native_functions.yaml:13: c: unknown key `colour`",
    ]
    assert str(e.value) == "\n".join(errors)


def test_an_entry_with_loader_errors_is_not_validated_further(tmp_path):
    # Its keys may have been read only in part: checking how they relate would mislead.
    errors = errors_of(tmp_path, """\
        - func: a(Tensor self) -> Tensor
          doc: A.
          dispatch: CPU
        """)
    assert errors == ["native_functions.yaml:7: a: `dispatch:` must map backends to kernel names, "
                      "not `CPU` (str)"]


def test_error_is_sorted_by_line_across_loader_and_validation(tmp_path):
    errors = errors_of(tmp_path, """\
        - func: a(Tensor self) -> Tensor
          doc: A.
          dispatch: {CPU: a_kernel}
        - func: b(Tensor self) -> Tensor
          doc: B.
          inplace: maybe
          dispatch: {CPU: b_kernel}
          derivatives: {self: grad}
        """)
    assert errors == [
        "native_functions.yaml:5: a: has tensor inputs (self) but no `derivatives:`; "
        "write `self: non_differentiable` if it has no gradient",
        "native_functions.yaml:10: b: `inplace:` must be `true` (an in-place method, and a function where the entry "
        "is one), `method` (a method only) or `false`, not `maybe` (str)",
    ]


@pytest.mark.parametrize("entry, line, message", [
    ("- doc: No func.\n  dispatch: {CPU: k}\n", 0, "<entry at line 5>: missing `func:`"),
    ("- func: 3\n  doc: D.\n", 0, "<entry at line 5>: `func:` must be a schema string, not `3` (int)"),
    ("- func: f(Tensor self, Tensor self) -> Tensor\n  doc: D.\n", 0,
     "f: bad schema: argument 2 (`Tensor self`): duplicate argument name `self`"),
    ("- func: f(Tensor self,Tensor other) -> Tensor\n  doc: D.\n", 0,
     "f: schema is not written canonically; write it as `f(Tensor self, Tensor other) -> Tensor`"),
    ("- func: f() -> Tensor\n  doc: [a]\n  dispatch: {CPU: k}\n", 1, "f: `doc:` must be str, not a list"),
    ("- func: f() -> Tensor\n", 0, "f: missing `doc:`"),
    ("- func: f() -> Tensor\n  doc: D.\n  variants: {function: 1}\n  dispatch: {CPU: k}\n", 2,
     "f: `variants:` must be `function`, `method` or both, not a mapping"),
    ("- func: f() -> Tensor\n  doc: D.\n  out: yes please\n  dispatch: {CPU: k}\n", 2,
     "f: `out:` must be bool, not `yes please` (str)"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  impl: return x;\n", 3,
     "f: `impl:` and `dispatch:` are mutually exclusive"),
    ("- func: f() -> Tensor\n  doc: D.\n  impl: ' '\n", 2, "f: `impl:` is empty"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: k\n", 2,
     "f: `dispatch:` must map backends to kernel names, not `k` (str)"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch:\n", 2, "f: `dispatch:` is empty"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU, Meta}\n", 2, "f: backend `CPU, Meta` has no kernel name"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch:\n    CPU: a\n    CPU: b\n", 4,
     "f: backend `CPU` is given twice in `dispatch:`"),
    ("- func: f(Tensor self) -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  derivatives: grad\n", 3,
     "f: `derivatives:` must map input names to formulas or `non_differentiable`, not `grad` (str)"),
    ("- func: f(Tensor self) -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  derivatives:\n    self:\n", 4,
     "f: derivative of `self` must be a formula or `non_differentiable`, not nothing"),
    ("- func: f(Tensor self) -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  derivatives:\n    'self,': grad\n", 4,
     "f: bad input list `self,` in `derivatives:`"),
    ("- func: f(Tensor self) -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  derivatives:\n"
     "    self: grad\n    self: grad\n", 5, "f: `self` is given twice in `derivatives:`"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  tags: pointwise\n", 3,
     "f: `tags:` must be a list of str, not `pointwise` (str)"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  python_operators: [1]\n", 3,
     "f: `python_operators:` must be a list of str, not a list"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  output_differentiability: [1]\n", 3,
     "f: `output_differentiability:` must be a list of bool, not a list"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  tags:\n", 3, "f: `tags:` is empty"),
    ("- func: f() -> Tensor\n  doc: D.\n  dispatch: {CPU: k}\n  view_of: [self]\n", 3,
     "f: `view_of:` must be str, not a list"),
    ("- func: f() -> Tensor\n  doc: D.\n  doc: E.\n  dispatch: {CPU: k}\n", 2, "f: duplicate key `doc`"),
    ("- just a string\n", 0, "an entry of `functions:` must be a mapping with `func:`"),
])
def test_loader_errors(tmp_path, entry, line, message):
    errors = errors_of(tmp_path, entry)
    assert f"native_functions.yaml:{FIRST_LINE + line}: {message}" in errors


@pytest.mark.parametrize("text, message", [
    ("functions: [\n", "native_functions.yaml:2: YAML syntax error"),
    ("- a\n", "native_functions.yaml:1: expected a mapping with `tags:` and `functions:`"),
    ("tags: {}\nfunctions: []\nops: []\n", "native_functions.yaml:3: unknown top-level key `ops`"),
    ("tags: [a]\nfunctions: []\n", "native_functions.yaml:1: `tags:` must map each tag name to its description"),
    ("tags:\n  a:\nfunctions: []\n", "native_functions.yaml:2: tag `a` needs a description"),
    ("tags:\n  A b: x\nfunctions: []\n", "native_functions.yaml:2: bad tag name `A b`"),
    ("tags:\n  a: x\n  a: y\nfunctions: []\n", "native_functions.yaml:3: duplicate tag `a`"),
    ("tags: {}\nfunctions: {}\n", "native_functions.yaml:2: `functions:` must be a list of entries"),
    ("tags: {}\n", "native_functions.yaml:1: `functions:` must be a list of entries"),
    ("tags: {}\nfunctions: []\nfunctions: []\n", "native_functions.yaml:3: duplicate key `functions`"),
])
def test_file_level_errors(tmp_path, text, message):
    path = tmp_path / "native_functions.yaml"
    path.write_text(text)
    with pytest.raises(CodegenError) as e:
        load_native_functions(path)
    assert any(err.startswith(message) for err in e.value.errors), e.value.errors


def test_location_uses_the_file_name(tmp_path):
    path = tmp_path / "ops.yaml"
    path.write_text(HEADER + "- func: f() -> Tensor\n")
    with pytest.raises(CodegenError, match=r"^ops\.yaml:5: f: missing `doc:`$"):
        load_native_functions(str(path))


def test_python_module_places_functions_not_methods(tmp_path):
    """`python_module: nn` binds the function (and its in-place and out= forms) in torchlite._C._nn;
    the in-place form is no method (PyTorch has torch._C._nn.elu_, no Tensor.elu_)."""
    from codegen.context import build_context
    from codegen.gen_python import bindings
    path = tmp_path / "native_functions.yaml"
    path.write_text("functions:\n"
                    "- func: f(Tensor self, Scalar alpha=1) -> Tensor\n  doc: F.\n  python_module: nn\n"
                    "  inplace: true\n  out: true\n  dispatch: {CPU: f_kernel}\n  derivatives: {self: grad}\n"
                    "- func: g(Tensor self) -> Tensor\n  doc: G.\n  inplace: true\n  dispatch: {CPU: g_kernel}\n"
                    "  derivatives: {self: grad}\n")
    nf = load_native_functions(path)
    assert [(str(f.schema.name), f.python_module, sorted(f.variants)) for f in nf.functions] == [
        ("f", "nn", ["function"]), ("f_", "nn", ["function"]), ("f.out", "nn", ["function"]),
        ("g", None, ["function"]), ("g_", None, ["function", "method"])]
    functions, methods = bindings(build_context(nf))
    assert [(b.module, b.py_name, b.c_name) for b in functions] == [
        ("_nn", "f", "fn_nn_f"), ("_nn", "f_", "fn_nn_f_"), ("_ops", "g", "fn_g"), ("_ops", "g_", "fn_g_")]
    assert [b.py_name for b in methods] == ["g_"]


def test_inplace_method_and_python_binding_internal(tmp_path):
    """`inplace: method` derives an in-place method only (Tensor.add_, no torchlite.add_); `python_binding:
    internal` binds the function (and its out= form) in torchlite._C._internal only, and no method."""
    from codegen.context import build_context
    from codegen.gen_python import bindings
    path = tmp_path / "native_functions.yaml"
    path.write_text("functions:\n"
                    "- func: f(Tensor self) -> Tensor\n  doc: F.\n  variants: function, method\n  inplace: method\n"
                    "  dispatch: {CPU: f_kernel}\n  derivatives: {self: grad}\n"
                    "- func: g_backward(Tensor grad_output, Tensor self) -> Tensor\n  doc: G.\n  variants: function, method\n"
                    "  python_binding: internal\n  python_module: nn\n  out: true\n  dispatch: {CPU: g_kernel}\n"
                    "  derivatives: {grad_output: grad, self: grad}\n")
    nf = load_native_functions(path)
    assert [(str(f.schema.name), sorted(f.variants), f.python_namespace) for f in nf.functions] == [
        ("f", ["function", "method"], None), ("f_", ["method"], None),
        ("g_backward", ["function", "method"], "_internal"), ("g_backward.out", ["function"], "_internal")]
    functions, methods = bindings(build_context(nf))
    assert [(b.module, b.py_name, b.c_name) for b in functions] == [
        ("_ops", "f", "fn_f"), ("_internal", "g_backward", "fn_internal_g_backward")]
    assert [b.py_name for b in methods] == ["f", "f_"]

