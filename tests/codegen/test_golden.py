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
# The files worth reading in review: one of each kind (shards are picked by a stable hash).
KEEP = ("ops/mul.h", "ops/sum.h", "Functions.h")


@pytest.fixture(scope="module")
def rendered():
    return render_all(HERE / "mini_native_functions.yaml")


def _golden_name(path: str) -> str:
    return path.replace("/", "__")


def test_golden_files(rendered):
    chosen = {p: t for p, t in rendered.items() if p in KEEP or "mul_Tensor" in t or "method_mul" in t}
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
    assert '"ones(int[] size, *, ScalarType? dtype=None, Device? device=None, bool requires_grad=False)"' in bindings


def test_kernel_declared_with_out_convention(rendered):
    header = rendered["ops/mul.h"]
    assert "void mul_kernel(const Tensor& self, const Tensor& other, Tensor& out);" in header
    assert "const Tensor& mul_out(const Tensor& out, const Tensor& self, const Tensor& other);" in header
