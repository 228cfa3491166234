"""A loaded module's methods other than `forward` (@export'ed ones), against torch.jit.load 2.13: `loaded.twice` is
a ScriptMethod (name, schema as torch writes it, graph, code) that calls with positional, keyword and default
arguments; `freeze(loaded, preserved_attrs=["twice"])` keeps the method (frozen as forward is, the same results),
and without it the method is dropped, as torch's."""
import io
import math

import pytest
import torch

import torchlite as tl
from tests.script_pair import load

SRC = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(3, 2)

    def forward(self, x):
        return self.fc(x)

    @torch.jit.export
    def twice(self, x: Tensor, k: int = 2) -> Tensor:
        return self.fc(x) * k

    @torch.jit.export
    def pair(self, x: Tensor, name: str = "a", scale: Optional[float] = None) -> Tuple[Tensor, str]:
        if scale is not None:
            x = x * scale
        return self.fc(x), name
"""


def _modules():
    """(torchlite's loaded module, torch's), the same weights."""
    out = []
    tm = load(SRC, "torch").M().eval()
    lm = load(SRC, "torchlite").M().eval()
    with torch.no_grad():
        w, b = tm.fc.weight.detach().numpy().copy(), tm.fc.bias.detach().numpy().copy()
    lm.fc.weight.data = tl.tensor(w.tolist())
    lm.fc.bias.data = tl.tensor(b.tolist())
    for lib, m in ((tl, lm), (torch, tm)):
        buf = io.BytesIO()
        lib.jit.save(lib.jit.script(m), buf)
        buf.seek(0)
        out.append(lib.jit.load(buf).eval())
    return out


def _same(*results):
    """Whether the results are the same: tensors equal up to float32 rounding (rel 1e-5), other values equal."""
    def flat(v):
        if isinstance(v, tuple):
            return [x for e in v for x in flat(e)]
        return v.flatten().tolist() if hasattr(v, "tolist") else [v]
    first = flat(results[0])
    for r in results[1:]:
        other = flat(r)
        if len(other) != len(first):
            return False
        for a, b in zip(first, other):
            if isinstance(a, float) and isinstance(b, float):
                if not math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-6):
                    return False
            elif a != b:
                return False
    return True


def test_script_method_attributes_as_torch():
    ours, theirs = _modules()
    for name in ("twice", "pair"):
        a, b = getattr(ours, name), getattr(theirs, name)
        assert type(a).__name__ == type(b).__name__ == "ScriptMethod"
        assert a.name == b.name == name
        assert str(a.schema).split(" self, ")[1] == str(b.schema).split(" self, ")[1]  # (self's type: the file's name)
        assert str(a.schema).startswith(f"{name}(__torch__.") and str(b.schema).startswith(f"{name}(__torch__.")
        assert a.code.startswith(f"def {name}(self,")
        assert a.graph is ours._methods[name].graph
    assert ours.twice.schema.split("self, ")[1] == "Tensor x, int k=2) -> Tensor"
    header = "def twice(self,\n    x: Tensor,\n    k: int=2) -> Tensor:\n"  # the defaults in the code, as torch's
    assert ours.twice.code.startswith(header) and theirs.twice.code.startswith(header)
    assert ours.pair.schema.split("self, ")[1] == str(theirs.pair.schema).split("self, ")[1] == \
        'Tensor x, str name="a", float? scale=None) -> ((Tensor, str))'


def test_script_method_calls_as_torch():
    ours, theirs = _modules()
    x, tx = tl.tensor([[1.0, 2.0, 3.0]]), torch.tensor([[1.0, 2.0, 3.0]])
    assert _same(ours.twice(x), theirs.twice(tx))
    assert _same(ours.twice(x, 3), theirs.twice(tx, 3))
    assert _same(ours.twice(x, k=4), theirs.twice(tx, k=4))
    assert _same(ours.pair(x, scale=2.0), theirs.pair(tx, scale=2.0))
    assert _same(ours.pair(x, "b"), theirs.pair(tx, "b"))


@pytest.mark.parametrize("preserve", [True, False])
def test_freeze_keeps_preserved_methods_as_torch(preserve):
    ours, theirs = _modules()
    attrs = ["twice"] if preserve else None
    fo, ft = tl.jit.freeze(ours, preserved_attrs=attrs), torch.jit.freeze(theirs, preserved_attrs=attrs)
    assert hasattr(fo, "twice") == hasattr(ft, "twice") == preserve
    assert hasattr(fo, "pair") == hasattr(ft, "pair") is False
    x, tx = tl.tensor([[1.0, -2.0, 0.5]]), torch.tensor([[1.0, -2.0, 0.5]])
    assert _same(fo(x), ft(tx))
    if preserve:
        assert _same(fo.twice(x, 5), ft.twice(tx, 5), ours.twice(x, 5))
        assert not fo.twice.graph.findNode("prim::GetAttr")  # the weights are constants of the frozen method too
        buf = io.BytesIO()
        tl.jit.save(fo, buf)
        buf.seek(0)
        again = tl.jit.load(buf)
        assert _same(again.twice(x), ours.twice(x))
