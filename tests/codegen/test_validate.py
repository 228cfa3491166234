"""Tests for codegen/validate.py: one case per check, each asserting the whole error list
(so a check that misfires elsewhere shows up), plus entries that must pass."""
import textwrap
from pathlib import Path

import pytest

from codegen.loader import CodegenError, load_native_functions
from codegen.model import NativeFunctionsFile, SchemaKind
from codegen.validate import derive_problem, located, validate
from codegen.schema_parser import parse_schema

ROOT = Path(__file__).resolve().parents[2]
HEADER = """\
tags:
  pointwise: Pointwise.
  view: View.
  factory: Factory.
functions:
"""
L = 6  # line of the first entry


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


# Each case: (YAML entries, expected errors). Entries start at line L.
CASES = {
    "argument_named_like_the_incoming_gradient": ("""
        - func: f(Tensor grad, Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad, grad: non_differentiable}
        """, [err(L, "f", "argument `grad` shadows the name derivative formulas use for the incoming "
                          "gradient; rename it (e.g. `grad_output`)")]),
    "grads_index_beyond_outputs": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            self: add(grads[0], grads[2])
        """, [err(L + 4, "f", "`grads[2]` in a formula, but the op has 2 output(s)")]),
    "result_with_several_outputs": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            self: mul(grads[0], result)
        """, [err(L + 4, "f", "`result` in a formula of an op with several outputs: use the output names")]),
    "list_input_sharing_a_formula": ("""
        - func: f(Tensor[] tensors, Tensor other) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            tensors, other: f_backward(grad)
        """, [err(L + 4, "f", "the gradient of the Tensor[] input `tensors` must have a formula of its own "
                              "(it gives one gradient per element)")]),
    "list_input_attribute": ("""
        - func: f(Tensor[] tensors) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            tensors: f_backward(grad, tensors.numel())
        """, [err(L + 4, "f", "`tensors.numel()`: a Tensor[] input keeps only sizes(), scalar_type(), dtype() "
                              "per element")]),
    "duplicate_overload": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        - func: f(Tensor self) -> Tensor
          doc: F again.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 4, "f", "duplicate overload `f`: declared at line 6 and at line 10")]),
    "duplicate_of_a_derived_variant": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          inplace: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        - func: f_(Tensor(a!) self) -> Tensor(a!)
          doc: F in place.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 5, "f_", "duplicate overload `f_`: declared at `inplace: true` of f at line 6 "
                               "and at line 11")]),
    "derivative_for_unknown_input": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            self: grad
            other: grad
        """, [err(L + 5, "f", "derivative for `other`, which is not an input")]),
    "derivative_for_non_tensor_input": ("""
        - func: f(Tensor self, Scalar alpha) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            self: grad
            alpha: grad
        """, [err(L + 5, "f", "derivative for `alpha`, which is a `Scalar`, not a tensor input")]),
    "non_differentiable_for_non_tensor_input": ("""
        - func: f(Tensor self, int dim) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            "self, dim": non_differentiable
        """, [err(L + 4, "f", "`non_differentiable` for `dim`, which is a `int`, not a tensor input")]),
    "input_with_two_derivatives": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            "self, other": grad
            self: non_differentiable
        """, [err(L + 5, "f", "`self` appears more than once under `derivatives:`")]),
    "tensor_input_without_derivative": ("""
        - func: f(Tensor self, Tensor other, Tensor? weight, Tensor[] rest) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives:
            self: grad
        """, [err(L + 3, "f", f"tensor input `{n}` has no derivative; write `{n}: non_differentiable` "
                              "if it has no gradient") for n in ("other", "weight", "rest")]),
    "tensor_inputs_and_no_derivatives_key": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
        """, [err(L, "f", "has tensor inputs (self, other) but no `derivatives:`; write "
                          "`self: non_differentiable` if it has no gradient")]),
    "composite_impl_with_derivatives": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          impl: return self;
          derivatives: {self: grad}
        """, [err(L + 3, "f", "a composite op must not have `derivatives:`: its gradient comes "
                              "from the ops it calls")]),
    "composite_dispatch_with_non_differentiable": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {Composite: f_composite}
          derivatives: {self: non_differentiable}
        """, [err(L + 3, "f", "a composite op must not have `derivatives:`: its gradient comes "
                              "from the ops it calls")]),
    "neither_dispatch_nor_impl": ("""
        - func: f(int n) -> Tensor
          doc: F.
        """, [err(L, "f", "has neither `dispatch:` nor `impl:`")]),
    "unknown_backend": ("""
        - func: f(int n) -> Tensor
          doc: F.
          dispatch: {CUDA, CPU: f_kernel}
        """, [err(L + 2, "f", "unknown backend `CUDA` (expected CPU, Meta or Composite)")]),
    "composite_mixed_with_backends": ("""
        - func: f(int n) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel, Composite: f_composite}
        """, [err(L + 2, "f", "Composite cannot be combined with other backends: a composite op "
                              "runs the same code on every device")]),
    "backend_given_two_kernels": ("""
        - func: f(int n) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel, "CPU, Meta": f_other}
        """, [err(L + 2, "f", "backend CPU is given more than one kernel")]),
    "kernel_name_not_an_identifier": ("""
        - func: f(int n) -> Tensor
          doc: F.
          dispatch: {CPU: f-kernel, Meta: 2f, Composite: "tl::f"}
        """, [err(L + 2, "f", "kernel name `f-kernel` for CPU is not a C++ identifier"),
              err(L + 2, "f", "kernel name `tl::f` for Composite is not a C++ identifier"),
              err(L + 2, "f", "kernel name `2f` for Meta is not a C++ identifier"),
              err(L + 2, "f", "Composite cannot be combined with other backends: a composite op "
                              "runs the same code on every device")]),
    "inplace_name_without_written_self": ("""
        - func: f_(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f_", "`f_` ends in `_` (in-place) but has no `Tensor(a!) self` argument")]),
    "written_self_without_underscore": ("""
        - func: f(Tensor(a!) self) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f", "writes `self` (`Tensor(a!) self`) but its name does not end in `_`")]),
    "inplace_true_on_underscore_name": ("""
        - func: f_(Tensor(a!) self) -> Tensor(a!)
          doc: F.
          inplace: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f_", "`inplace: true` on `f_`, whose name already ends in `_`")]),
    "inplace_true_not_returning_a_tensor": ("""
        - func: f(Tensor self) -> int
          doc: F.
          inplace: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: non_differentiable}
        """, [err(L + 2, "f", "`inplace: true` needs an entry returning a single Tensor")]),
    "inplace_true_returning_two_tensors": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          inplace: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`inplace: true` needs an entry returning a single Tensor")]),
    "inplace_true_without_self": ("""
        - func: f(Tensor input) -> Tensor
          doc: F.
          inplace: true
          dispatch: {CPU: f_kernel}
          derivatives: {input: grad}
        """, [err(L + 2, "f", "`inplace: true` needs a `Tensor self` argument to write into")]),
    "inplace_true_on_a_view": ("""
        - func: f(Tensor(a) self) -> Tensor(a)
          doc: F.
          inplace: true
          view_of: self
          tags: [view]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`inplace: true` on an entry with alias annotations (a view or an "
                              "in-place op)")]),
    "out_true_not_returning_tensors": ("""
        - func: f(Tensor self) -> (Tensor a, int n)
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: non_differentiable}
        """, [err(L + 2, "f", "`out: true` needs an entry returning Tensors only")]),
    "out_true_returning_nothing": ("""
        - func: f(Tensor self) -> ()
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: non_differentiable}
        """, [err(L + 2, "f", "`out: true` needs an entry returning Tensors only")]),
    "out_true_with_unnamed_returns": ("""
        - func: f(Tensor self) -> (Tensor, Tensor)
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`out: true` on several returns needs them named, to name the out "
                              "arguments")]),
    "out_true_on_an_out_overload": ("""
        - func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f.out", "`out: true` on `f.out`, which is already an out= overload"),
              err(L, "f.out", "out= overload pairs with no functional overload of `f` taking its arguments "
                              "without the outputs (Tensor self); functional overloads: none"),
              err(L + 4, "f.out", "an out= overload has no `derivatives:`: out= never records autograd (it "
                                  "refuses inputs that require grad, as PyTorch does)")]),
    "explicit_out_without_functional": ("""
        - func: f(Tensor self, int dim) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        - func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_out_kernel}
        """, [err(L + 4, "f.out", "out= overload pairs with no functional overload of `f` taking its arguments "
                                  "without the outputs (Tensor self); functional overloads: "
                                  "`f(Tensor self, int dim) -> Tensor`")]),
    "explicit_out_output_count": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: "grads[0]"}
        - func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_out_kernel}
        """, [err(L + 4, "f.out", "out= overload has 1 output(s) but its functional overload `f` returns 2")]),
    "explicit_out_and_out_true": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        - func: f.other_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_out_kernel}
        """, [err(L + 5, "f.other_out", "`f` already derives its out= form (`out: true` at line 8); remove one "
                                        "of the two")]),
    "two_explicit_outs": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        - func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_out_kernel}
        - func: f.other_out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_out_kernel}
        """, [err(L + 7, "f.other_out", "`f` already has the out= overload `f.out` (line 10)")]),
    "explicit_out_method_and_samples": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
          samples: ["T(2)"]
        - func: f.out(Tensor self, *, Tensor(a!) out) -> Tensor(a!)
          doc: F.
          variants: function, method
          dispatch: {CPU: f_out_kernel}
          samples: ["T(2)"]
        """, [err(L + 7, "f.out", "an out= overload is a function only: Python reaches it as the `out=` "
                                  "keyword of its functional overload"),
              err(L + 9, "f.out", "an out= overload has no `samples:`: the generated tests run the out= form "
                                  "on the samples of its functional overload")]),
    "written_kwarg_on_a_non_out_entry": ("""
        - func: f(Tensor self, *, Tensor(a!) buffer) -> Tensor(a!)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f", "keyword-only output `Tensor(a!) buffer` on an overload not named `out`, `*_out`, "
                          "`output` or `grad_input` (use `out: true` to derive the out= variant)")]),
    "out_overload_without_outputs": ("""
        - func: f.dim_out(Tensor self, int dim) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f.dim_out", "overload `dim_out` has no keyword-only `Tensor(a!)` output")]),
    "view_of_unknown_input": ("""
        - func: f(Tensor(a) self) -> Tensor(a)
          doc: F.
          view_of: input
          tags: [view]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`view_of: input` names no input")]),
    "view_of_without_annotations": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          view_of: self
          tags: [view]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`view_of: self` needs `Tensor(a) self` as the only `(a)` argument and "
                              "a single `Tensor(a)` or `Tensor(a)[]` return")]),
    "view_of_other_input_than_annotated": ("""
        - func: f(Tensor(a) self, Tensor other) -> Tensor(a)
          doc: F.
          view_of: other
          tags: [view]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad, other: grad}
        """, [err(L + 2, "f", "`view_of: other` needs `Tensor(a) other` as the only `(a)` argument and "
                              "a single `Tensor(a)` or `Tensor(a)[]` return")]),
    "view_annotations_without_view_of": ("""
        - func: f(Tensor(a) self) -> Tensor(a)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f", "`self` is annotated `(a)` like the return, but there is no `view_of: self`")]),
    "view_of_on_a_composite": ("""
        - func: f(Tensor(a) self) -> Tensor(a)
          doc: F.
          view_of: self
          impl: return self;
        """, [err(L + 2, "f", "`view_of:` on a composite op: its views come from the ops it calls")]),
    "view_tag_without_view_of": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          tags: [view]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "the `view` tag and `view_of:` go together")]),
    "view_of_without_view_tag": ("""
        - func: f(Tensor(a) self) -> Tensor(a)
          doc: F.
          view_of: self
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L, "f", "the `view` tag and `view_of:` go together")]),
    "unknown_tag": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          tags: [pointwise, elementwise]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "unknown tag `elementwise` (declared: factory, pointwise, view)")]),
    "factory_not_returning_a_tensor": ("""
        - func: f(int n) -> Tensor[]
          doc: F.
          tags: [factory]
          dispatch: {CPU: f_kernel}
        """, [err(L + 2, "f", "a `factory` op must return a single Tensor")]),
    "python_operator_not_a_dunder": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          python_operators: [add, __add, __Add__, ____]
          dispatch: {CPU: f_kernel}
          derivatives: {"self, other": grad}
        """, [err(L + 2, "f", f"`{n}` is not a `__dunder__` name") for n in ("add", "__add", "__Add__", "____")]),
    "inplace_dunder_without_inplace_variant": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          python_operators: [__add__, __iadd__]
          dispatch: {CPU: f_kernel}
          derivatives: {"self, other": grad}
        """, [err(L + 2, "f", "in-place operator `__iadd__` needs an in-place variant (`inplace: true`, "
                              "or a name ending in `_`)")]),
    "python_operator_listed_twice": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          python_operators: [__add__, __add__]
          dispatch: {CPU: f_kernel}
          derivatives: {"self, other": grad}
        """, [err(L + 2, "f", "an operator is listed twice")]),
    "output_differentiability_length": ("""
        - func: f(Tensor self) -> (Tensor values, Tensor indices)
          doc: F.
          output_differentiability: [True]
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`output_differentiability:` has 1 entries for 2 returns")]),
    "unknown_variant": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          variants: function, metod
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "unknown variant `metod` (expected function and/or method)")]),
    "no_variants": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          variants: ""
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`variants:` lists nothing (expected function and/or method)")]),
    "method_without_self": ("""
        - func: f(int n, *, Tensor self) -> Tensor
          doc: F.
          variants: method
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "a method needs a positional `Tensor self` argument")]),
    "empty_doc": ("""
        - func: f(Tensor self) -> Tensor
          doc: "  "
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 1, "f", "`doc:` is empty")]),
    "backward_node_not_a_node_name": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          backward_node: f_backward
          derivatives: {self: grad}
        """, [err(L + 3, "f", "`f_backward` is not a node name like `PowBackward0`")]),
    "backward_node_on_a_composite": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          impl: return self;
          backward_node: FBackward1
        """, [err(L + 3, "f", "only an entry with `derivatives:` records a node")]),
    "out_dtype_on_a_kernel": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          out_dtype: exact
          derivatives: {self: grad}
        """, [err(L + 4, "f", "`out_dtype:` is for a composite entry with `out: true` (kernels check out's "
                              "dtype themselves; an alias follows its target)")]),
    "python_module_unknown": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          python_module: torch
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`python_module:` must be one of nn, special, linalg, fft, not `torch`")]),
    "python_module_on_a_method": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          variants: method
          python_module: nn
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 3, "f", "`python_module:` places the function binding, but the entry is not a "
                              "function (`variants:` has no `function`)")]),
    "python_binding_unknown": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          python_binding: private
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`python_binding:` must be `internal` (absent: bound as `variants:` and "
                              "`python_module:` say), not `private`")]),
    "python_binding_on_a_method": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          variants: method
          python_binding: internal
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 3, "f", "`python_binding: internal` binds the function in torchlite._C._internal only, but "
                              "the entry is not a function (`variants:` has no `function`)")]),
    "python_binding_with_operators": ("""
        - func: f(Tensor self, Tensor other) -> Tensor
          doc: F.
          python_binding: internal
          python_operators: [__add__]
          dispatch: {CPU: f_kernel}
          derivatives: {"self, other": not_implemented("f")}
        """, [err(L + 2, "f", "`python_binding: internal` binds no method, so no `python_operators:` either")]),
    "inplace_unknown": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          inplace: function
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 2, "f", "`inplace:` must be `true` (an in-place method, and a function where the entry is "
                              "one), `method` (a method only) or `false`, not `function` (str)")]),
    "inplace_method_with_python_module": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          python_module: nn
          inplace: method
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 3, "f", "`inplace: method` on an entry with `python_module:`, whose in-place variant is a "
                              "function there (torch._C._nn.elu_, no Tensor.elu_)")]),
    "inplace_method_on_a_method": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          variants: method
          inplace: method
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
        """, [err(L + 3, "f", "`inplace: method` on an entry that is no function: `inplace: true` says it")]),
    "out_autograd_not_implemented_on_a_composite": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          impl: return self;
          out_autograd: not_implemented
        """, [err(L + 4, "f", "`out_autograd: not_implemented` is for an entry with one output: a kernel "
                              "(`dispatch:`), or a composite whose out= is derived (`out: true`), computed with "
                              "grad mode off (PyTorch's linalg_eigvals.out)")]),
    "out_autograd_not_implemented_on_a_composite_without_out": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {Composite: f_composite}
          out_autograd: not_implemented
        """, [err(L + 3, "f", "`out_autograd: not_implemented` is for an entry with one output: a kernel "
                              "(`dispatch:`), or a composite whose out= is derived (`out: true`), computed with "
                              "grad mode off (PyTorch's linalg_eigvals.out)")]),
    "out_autograd_unknown": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          dispatch: {CPU: f_kernel}
          derivatives: {self: grad}
          out_autograd: sometimes
        """, [err(L + 5, "f", "`out_autograd:` must be `records` or `not_implemented` (absent: out= refuses "
                              "inputs that require grad), not `sometimes`")]),
    "materialize_grads_on_one_output": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: "grads[0]"}
          materialize_grads: false
        """, [err(L + 4, "f", "`materialize_grads: false` is for an entry with `derivatives:` and several "
                              "differentiable outputs (one output's gradient is always defined)")]),
    "materialize_grads_formula_ignores_grads": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: "grad"}
          materialize_grads: false
        """, [err(L + 4, "f", "`materialize_grads: false`, but the formula for self does not read `grads[i]` "
                              "(it must check which are defined)")]),
    "materialize_grads_not_a_bool": ("""
        - func: f(Tensor self) -> (Tensor a, Tensor b)
          doc: F.
          dispatch: {CPU: f_kernel}
          derivatives: {self: "grads[0]"}
          materialize_grads: no_thanks
        """, [err(L + 4, "f", "`materialize_grads:` must be bool, not `no_thanks` (str)")]),
    "out_dtype_unknown": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          impl: return self;
          out_dtype: same
        """, [err(L + 4, "f", "`out_dtype:` must be `exact` or `any` (absent: the result casts safely), not `same`")]),
    "alias_with_its_own_body": ("""
        - func: g(Tensor self) -> Tensor
          doc: G.
          dispatch: {CPU: g_kernel}
          derivatives: {self: non_differentiable}
        - func: f(Tensor self) -> Tensor
          doc: F.
          alias_of: g
          impl: return g(self);
        """, [err(L + 7, "f", "`impl:` and `alias_of:` are mutually exclusive")]),
    "alias_of_an_unknown_op": ("""
        - func: f(Tensor self) -> Tensor
          doc: F.
          alias_of: nope
        """, [err(L + 2, "f", "`alias_of: nope`: no op `nope` takes (Tensor)")]),
    "alias_of_an_op_with_other_arguments": ("""
        - func: g(Tensor self, int dim) -> Tensor
          doc: G.
          dispatch: {CPU: g_kernel}
          derivatives: {self: non_differentiable}
        - func: f(Tensor self) -> Tensor
          doc: F.
          alias_of: g
        """, [err(L + 6, "f", "`alias_of: g`: no op `g` takes (Tensor)")]),
    "alias_with_an_out_variant_its_target_lacks": ("""
        - func: g(Tensor self) -> Tensor
          doc: G.
          dispatch: {CPU: g_kernel}
          derivatives: {self: non_differentiable}
        - func: f(Tensor self) -> Tensor
          doc: F.
          out: true
          alias_of: g
        """, [err(L + 4, "f", "`alias_of: g`: no out= variant `g_out` takes (Tensor, Tensor); "
                              "g has no such form")]),
}


@pytest.mark.parametrize("entries, expected", CASES.values(), ids=CASES.keys())
def test_check(tmp_path, entries, expected):
    assert errors_of(tmp_path, entries[1:]) == sorted(expected, key=lambda e: int(e.split(":")[1]))


# ---- entries that must pass ---------------------------------------------------------

def test_valid_entries_pass(tmp_path):
    f = load(tmp_path, """\
        - func: add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor
          doc: Adds.
          variants: function, method
          inplace: true
          out: true
          python_operators: [__add__, __iadd__]
          dispatch: {CPU, Meta: add_kernel}
          tags: [pointwise]
          derivatives:
            self: grad
            other: maybe_multiply(grad, alpha)
        - func: reshape(Tensor(a) self, int[] shape) -> Tensor(a)
          doc: A composite that may return `self` itself, so it says `(a)` without being a view.
          variants: function, method
          impl: return self;
        - func: t(Tensor(a) self) -> Tensor(a)
          doc: A view.
          view_of: self
          tags: [view]
          dispatch: {CPU, Meta: t_kernel}
          derivatives: {self: t(grad)}
        - func: copy_(Tensor(a!) self, Tensor src) -> Tensor(a!)
          doc: An in-place op written by hand.
          variants: function, method
          python_operators: [__ilshift__]
          dispatch: {CPU: copy_kernel}
          derivatives:
            self: zeros_like(grad)
            src: grad
        - func: max.dim(Tensor self, int dim) -> (Tensor values, Tensor indices)
          doc: Its out= overload is written by hand below.
          dispatch: {CPU: max_kernel}
          derivatives: {self: non_differentiable}
        - func: max.dim_out(Tensor self, int dim, *, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)
          doc: An out= overload written by hand; it records no history, so has no derivatives.
          dispatch: {CPU: max_out_kernel}
        - func: empty(int[] size, *, ScalarType? dtype=None) -> Tensor
          doc: A factory has no tensor input, so needs no derivatives.
          tags: [factory]
          dispatch: {CPU, Meta: empty_kernel}
        - func: matmul(Tensor self, Tensor other) -> Tensor
          doc: A composite named by dispatch.
          python_operators: [__matmul__, __rmatmul__]
          dispatch: {Composite: matmul_composite}
        """)
    assert len(f.functions) == 10
    assert validate(f) == []
    by_name = {str(fn.schema.name): fn for fn in f.functions}
    assert by_name["max.dim_out"].out_of is by_name["max.dim"]  # paired for Python's out=


def test_validate_returns_formatted_strings():
    f = load_native_functions(ROOT / "native_functions.yaml")
    assert validate(f) == []
    broken = NativeFunctionsFile(functions=f.functions + f.functions[:1], tags=f.tags)
    (error,) = validate(broken)
    fn = f.functions[0]
    assert error == located(fn.loc, str(fn.schema.name),
                            f"duplicate overload `{fn.schema.name}`: declared at line {fn.loc.line} "
                            f"and at line {fn.loc.line}")


def test_derive_problem():
    s = parse_schema("f(Tensor self) -> Tensor")
    assert derive_problem(s, SchemaKind.inplace) is None
    assert derive_problem(s, SchemaKind.out) is None
    assert "returning Tensors only" in derive_problem(parse_schema("f(Tensor self) -> int"), SchemaKind.out)


def test_backward_node_numbering(tmp_path):
    """`backward_node:` names an entry's node; the other overloads take the numbers left free, in
    file order (PyTorch's PowBackward0 is pow.Tensor_Scalar although pow.Tensor_Tensor comes first)."""
    from codegen.context import build_context
    from codegen.gen_cpp import backward_infos, zero_grad_nodes
    f = load(tmp_path, """\
        - func: pow.Tensor_Tensor(Tensor self, Tensor exponent) -> Tensor
          doc: P.
          dispatch: {CPU: p_kernel}
          derivatives: {self: grad, exponent: grad}
        - func: pow.Tensor_Scalar(Tensor self, Scalar exponent) -> Tensor
          doc: P.
          dispatch: {CPU: ps_kernel}
          backward_node: PowBackward0
          derivatives: {self: grad}
        - func: pow.Scalar(Scalar self, Tensor exponent) -> Tensor
          doc: P.
          dispatch: {CPU: sp_kernel}
          derivatives: {exponent: grad}
        - func: gt.Tensor(Tensor self, Tensor other) -> Tensor
          doc: G.
          inplace: true
          dispatch: {CPU: gt_kernel}
          derivatives: {"self, other": non_differentiable}
        - func: greater.Tensor(Tensor self, Tensor other) -> Tensor
          doc: Alias of gt.
          inplace: true
          dispatch: {CPU: gt_kernel}
          backward_node: GtBackward0
          derivatives: {"self, other": non_differentiable}
        """)
    assert validate(f) == []
    ctx = build_context(f)
    nodes = {name: info.node for name, info in backward_infos(ctx).items()}
    assert nodes == {"pow.Tensor_Tensor": "PowBackward1", "pow.Tensor_Scalar": "PowBackward0",
                     "pow.Scalar": "PowBackward2"}
    assert zero_grad_nodes(ctx) == {"gt_.Tensor": "GtBackward0", "greater_.Tensor": "GtBackward0"}
