"""typing.NamedTuple (and collections.namedtuple) in torchlite.jit.script, against torch.jit.script 2.13:
as argument and return types, constructed in script (positional, keyword, defaults), fields read by name,
by index and by unpacking, nested named tuples and Optional fields; the graph's type prints as torch's
(`NamedTuple(x : Tensor, y : int)`); the same compile errors; saved and loaded (the class itself back in
this process, a namedtuple with the same fields in a fresh one)."""
import collections
import io
import subprocess
import sys
import textwrap
from typing import List, NamedTuple, Optional

import numpy as np
import pytest
import torch

import torchlite as tl


class P(NamedTuple):
    x: tl.Tensor
    y: int
    z: float = 2.0


class TP(NamedTuple):  # the same class for torch
    x: torch.Tensor
    y: int
    z: float = 2.0


class In(NamedTuple):
    n: Optional[int]
    names: List[str]


class Out(NamedTuple):
    inner: In
    total: int


Pair = collections.namedtuple("Pair", ["a", "b"])


def _eq(a, b):
    np.testing.assert_allclose(np.asarray(a.detach().numpy()), b.detach().numpy(), rtol=1e-6)


def build(a: tl.Tensor, p: P) -> P:
    q = P(a + p.x, p.y + 1)
    r = P(x=q.x, y=q[1], z=p.z * 2)
    u, v, w = r
    return P(u * w, v + len(r), r.z)


def tbuild(a: torch.Tensor, p: TP) -> TP:
    q = TP(a + p.x, p.y + 1)
    r = TP(x=q.x, y=q[1], z=p.z * 2)
    u, v, w = r
    return TP(u * w, v + len(r), r.z)


def test_construct_access_and_return_as_torch():
    a = torch.randn(3)
    px = torch.randn(3)
    want = torch.jit.script(tbuild)(a, TP(px, 4))
    got = tl.jit.script(build)(tl.tensor(a.numpy()), P(tl.tensor(px.numpy()), 4))
    # torch returns a namedtuple class of its own with the class's name and fields; torchlite the class itself
    assert type(got) is P and type(want).__name__ == "TP" and want._fields == got._fields
    _eq(got.x, want.x)
    assert (got.y, got.z) == (want.y, want.z)
    assert got == build(tl.tensor(a.numpy()), P(tl.tensor(px.numpy()), 4))._replace(x=got.x)


def test_plain_tuple_argument_accepted():
    got = tl.jit.script(build)(tl.ones(2), (tl.ones(2), 1, 0.5))
    want = torch.jit.script(tbuild)(torch.ones(2), (torch.ones(2), 1, 0.5))
    _eq(got.x, want.x)
    assert (got.y, got.z) == (want.y, want.z)


def test_graph_prints_the_named_type():
    g = str(tl.jit.script(build).graph)
    assert "NamedTuple(x : Tensor, y : int, z : float)" in g
    assert "prim::TupleConstruct" in g


def nested(k: int) -> Out:
    i = In(None if k < 0 else k, ["a", "b"])
    return Out(i, len(i.names) + k)


def reads_nested(o: Out) -> int:
    n = o.inner.n
    if n is None:
        return -1
    return n + o.total + len(o.inner.names)


@pytest.mark.parametrize("k", [2, -1])
def test_nested_and_optional_fields(k):
    want = torch.jit.script(nested)(k)
    got = tl.jit.script(nested)(k)
    assert type(got) is Out and type(got.inner) is In
    assert type(want).__name__ == "Out" and type(want.inner).__name__ == "In"
    assert got == want == nested(k)
    assert tl.jit.script(reads_nested)(got) == torch.jit.script(reads_nested)(want) == reads_nested(got)


def pair(x: tl.Tensor) -> Pair:
    return Pair(x, x + 1)


def tpair(x: torch.Tensor) -> Pair:
    return Pair(x, x + 1)


def test_collections_namedtuple_fields_are_tensors():
    got = tl.jit.script(pair)(tl.ones(2))
    want = torch.jit.script(tpair)(torch.ones(2))
    assert type(got) is Pair and type(want).__name__ == "Pair" and want._fields == got._fields
    _eq(got.b, want.b)
    assert "NamedTuple(a : Tensor, b : Tensor)" in str(tl.jit.script(pair).graph)


class Net(tl.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = tl.nn.Linear(3, 2)

    def forward(self, x: tl.Tensor, p: P) -> P:
        return P(self.fc(x) * p.z, p.y * 2, p.z)


def test_module_save_load_same_process():
    m = Net()
    s = tl.jit.script(m)
    x = tl.randn(4, 3)
    out = s(x, P(x, 3, 0.5))
    assert type(out) is P
    _eq(out.x, m.fc(x) * 0.5)
    buf = io.BytesIO()
    tl.jit.save(s, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    again = loaded(x, P(x, 3, 0.5))
    assert type(again) is P and again.y == 6 and again.z == 0.5
    _eq(again.x, out.x)
    assert "NamedTuple(x : Tensor, y : int, z : float)" in str(loaded.graph)


def test_module_save_load_fresh_process(tmp_path):
    s = tl.jit.script(Net())
    path = tmp_path / "net.pt"
    tl.jit.save(s, str(path))
    x = tl.randn(2, 3)
    want = s(x, P(x, 5, 1.0))
    np.save(tmp_path / "x.npy", x.numpy())
    np.save(tmp_path / "want.npy", want.x.detach().numpy())
    code = textwrap.dedent(f"""
        import numpy as np, torchlite as tl
        m = tl.jit.load({str(path)!r})
        x = tl.from_numpy(np.load({str(tmp_path / 'x.npy')!r}))
        out = m(x, (x, 5, 1.0))
        assert type(out).__name__ == "P" and out._fields == ("x", "y", "z"), (type(out), out)
        assert isinstance(out, tuple) and out.y == 10 and out.z == 1.0
        np.testing.assert_allclose(out.x.detach().numpy(), np.load({str(tmp_path / 'want.npy')!r}), rtol=1e-6)
        print("ok")
    """)
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def wrong_type(p: P) -> P:
    return P(p.x, 1.5)


def too_many(p: P) -> P:
    return P(p.x, 1, 2.0, 3)


def missing(p: P) -> P:
    return P(p.x, q=2)


def no_field(p: P):
    return p.w


def out_of_range(p: P):
    return p[3]


def assigns_field(p: P):
    p.y = 3
    return p


def t_wrong_type(p: TP) -> TP:
    return TP(p.x, 1.5)


def t_too_many(p: TP) -> TP:
    return TP(p.x, 1, 2.0, 3)


def t_missing(p: TP) -> TP:
    return TP(p.x, q=2)


def t_no_field(p: TP):
    return p.w


def t_out_of_range(p: TP):
    return p[3]


def t_assigns_field(p: TP):
    p.y = 3
    return p


@pytest.mark.parametrize("ours,theirs,msg", [
    (wrong_type, t_wrong_type, "Expected a value of type 'int' for argument 'y' but instead found type 'float'."),
    (too_many, t_too_many, "Expected at most 3 arguments but found 4 positional arguments."),
    (missing, t_missing, "Argument y not provided."),
    (no_field, t_no_field, "object has no attribute or method 'w'"),
    (out_of_range, t_out_of_range, "Tuple index out of range. Tuple is length 3 and index is 3"),
    (assigns_field, t_assigns_field, "Tried to set an attribute: y on a non-class"),
])
def test_compile_errors_as_torch(ours, theirs, msg):
    with pytest.raises(RuntimeError) as t_err:
        torch.jit.script(theirs)
    assert msg in str(t_err.value)
    with pytest.raises(RuntimeError) as err:
        tl.jit.script(ours)
    assert msg in str(err.value)
    assert "<--- HERE" in str(err.value)


def test_returning_a_plain_tuple_for_a_named_one_is_refused():
    def plain(p: P) -> P:
        return (p.x, p.y, p.z)

    def t_plain(p: TP) -> TP:
        return (p.x, p.y, p.z)
    msg = "Return value was annotated as having type __torch__."
    with pytest.raises(RuntimeError, match=msg):
        torch.jit.script(t_plain)
    with pytest.raises(RuntimeError, match=msg):
        tl.jit.script(plain)


def test_archive_version_3_and_version_2_still_read():
    import zipfile

    class Plain(tl.nn.Module):
        def forward(self, x):
            return x * 2

    buf = io.BytesIO()
    tl.jit.save(tl.jit.script(Plain()), buf)
    z = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
    assert z.read("archive/version") == b"6\n"
    for version in (b"3\n", b"2\n"):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as w:  # the same records as a version 3 or 2 writer wrote them
            for info in z.infolist():
                data = version if info.filename == "archive/version" else z.read(info.filename)
                if info.filename == "archive/model":
                    data = data.replace(b" enums 0", b"").replace(b"\n  constants 0", b"")  # (none here)
                w.writestr(info.filename, data)
        loaded = tl.jit.load(io.BytesIO(out.getvalue()))
        _eq(loaded(tl.ones(2)), tl.full((2,), 2.0))
