"""The generator's output for a small catalog, compared byte for byte with checked-in files.

A deliberate change to the generator updates them with:
    TORCHLITE_UPDATE_GOLDEN=1 python -m pytest tests/codegen/test_golden.py
"""
import os
from pathlib import Path

import pytest

from codegen.__main__ import render_all

HERE = Path(__file__).parent
GOLDEN = HERE / "golden"
# The whole output for the mini catalog, which has one op of each kind and every schema type
# (Tensor[], Tensor?, Tensor?[], bool[N], Generator?, Layout?, MemoryFormat, named returns, list
# returns, grad_input_mask).


@pytest.fixture(scope="module")
def rendered():
    return render_all(HERE / "mini_native_functions.yaml")


def _golden_name(path: str) -> str:
    return path.replace("/", "__")


def test_golden_files(rendered):
    chosen = dict(rendered)
    if os.environ.get("TORCHLITE_UPDATE_GOLDEN") == "1":
        for old in GOLDEN.glob("*"):
            old.unlink()
        for p, t in chosen.items():
            (GOLDEN / _golden_name(p)).write_text(t)
    expected = {f.name: f.read_text() for f in GOLDEN.glob("*")}
    assert set(expected) == {_golden_name(p) for p in chosen}
    for p, t in chosen.items():
        assert t == expected[_golden_name(p)], f"generated {p} differs from tests/codegen/golden"


def test_output_is_deterministic(rendered):
    assert render_all(HERE / "mini_native_functions.yaml") == rendered


def test_every_file_is_marked_generated(rendered):
    for path, text in rendered.items():
        assert "@generated" in text.splitlines()[0], path


def test_backward_node_saves_sizes_not_tensor(rendered):
    autograd = "".join(t for p, t in rendered.items() if p.startswith("autograd/"))
    node = autograd[autograd.index("struct SumBackward0"):]
    node = node[:node.index("};")]
    assert "DimVector self_sizes;" in node
    assert "SavedVariable" not in node


def test_binding_lists_overload_with_out_keyword(rendered):
    bindings = "".join(t for p, t in rendered.items() if p.startswith("python/bindings"))
    assert '"mul(Tensor input, Tensor other, *, Tensor? out=None)"' in bindings
    assert "TL_PY_CATCH_OPERATOR" in bindings  # __mul__ turns TypeError into NotImplemented


def test_factory_binding_takes_requires_grad(rendered):
    bindings = "".join(t for p, t in rendered.items() if p.startswith("python/bindings"))
    assert ('"ones(int[] size, *, ScalarType? dtype=None, Device? device=None, Layout? layout=None, '
            'bool? pin_memory=False, bool requires_grad=False)"') in bindings


def test_factory_binding_takes_missing_tensor_options(rendered):
    """Python accepts PyTorch's layout=/pin_memory= (and memory_format= for *_like) even where the schema
    leaves them out: pin_memory=True raises as in a CPU-only PyTorch, memory_format lays the result out."""
    bindings = "".join(t for p, t in rendered.items() if p.startswith("python/bindings"))
    assert "native::check_pin_memory(r.toBool_optional(" in bindings
    assert ('"ones_like(Tensor input, *, ScalarType? dtype=None, Device? device=None, Layout? layout=None, '
            'bool? pin_memory=False, MemoryFormat? memory_format=None, bool requires_grad=False)"') in bindings
    assert "result = tl::contiguous(result, *format);" in bindings
    # rand's schema has layout and memory_format: only pin_memory is added
    assert ('"rand(int[] size, *, Generator? generator=None, ScalarType? dtype=None, Layout? layout=None, '
            'Device? device=None, MemoryFormat? memory_format=None, bool? pin_memory=False, '
            'bool requires_grad=False)"') in bindings


def test_list_overloads_name_their_cpp_type(rendered):
    """int[] and Tensor[] overloads of one op: ArrayRef converts from any container, so the binding's
    call names each list's C++ type (else the C++ call would be ambiguous)."""
    bindings = "".join(t for p, t in rendered.items() if p.startswith("python/bindings"))
    assert "tl::bucket(self, IntArrayRef(bins))" in bindings
    assert "tl::bucket(self, TensorList(bins))" in bindings
    # a list argument with no competing overload stays a bare local
    assert "tl::ones(size, dtype, device)" in bindings


def test_kernel_declared_with_out_convention(rendered):
    header = rendered["ops/mul.h"]
    assert "void mul_kernel(const Tensor& self, const Tensor& other, Tensor& out);" in header
    assert "const Tensor& mul_out(const Tensor& out, const Tensor& self, const Tensor& other);" in header


def test_schema_types_render(rendered):
    text = "".join(rendered.values())
    assert "grad_fn->set_next_edges(next_edges_of(tensors));" in text          # an edge per list element
    assert "std::vector<Tensor> computed = cat_tensors_backward(" in text      # a formula for a list input
    assert "const std::array<bool, 3> grad_input_mask = {" in text
    assert "set_history(Tensor(), grad_fn);  // indices: not differentiable" in text
    assert "for (const Tensor& output : result) {\n    check_differentiable_dtype(output);\n    set_history(output, grad_fn);" in text
    assert 'max_type = return_type("max", {"values", "indices"});' in text
    assert 'max_out_type = return_type("max_out", {"values", "indices"});' in text
    assert "auto indices = r.list_of_optional_tensors(" in text
    assert "r.generator_optional(" in text and "r.layout_optional(" in text
    assert "MemoryFormat memory_format = MemoryFormat::Contiguous" in text


def test_adding_an_op_touches_one_shard_of_each_kind(tmp_path):
    yaml = (HERE / "mini_native_functions.yaml").read_text()
    extra = tmp_path / "extra.yaml"
    extra.write_text(yaml + """
- func: newop(Tensor self) -> Tensor
  doc: New.
  variants: function, method
  dispatch: {CPU: newop_kernel}
  derivatives:
    self: mul(grad, self)
""")
    before, after = render_all(HERE / "mini_native_functions.yaml"), render_all(extra)
    changed = {p for p in set(before) | set(after) if before.get(p) != after.get(p)}
    shards = {p for p in changed if p.endswith(".cpp")}
    assert len(shards) == 4, shards                                  # dispatch, autograd, python, jit
    assert len({p.rsplit("_", 1)[1] for p in shards}) == 1            # the same shard number
    assert changed - shards == {"ops/newop.h", "Functions.h", "ops.md", "python/_ops.pyi", "python/_C.pyi"}
