"""Assignment to module attributes in scripted methods (torchlite/jit/_script/attributes.py, prim::SetAttr):
`self.count += 1`, tensor attributes and buffers, bools, Optional attributes, submodules' attributes;
values against torch.jit.script on the same module, the change visible from Python, saved and loaded
(in this process and from C++: tests/test_cpp_frontend.py), and torch's compile errors."""
import textwrap
from typing import Optional

import pytest
import torch

import torchlite as tl
import torchlite.nn as nn


def _pair(src, name="M"):
    """The class defined by `src` for torch and for torchlite (same source), from a real file so that
    both scripts can read it."""
    import importlib.util
    import os
    import tempfile
    out = []
    for lib in ("torch", "torchlite"):
        d = tempfile.mkdtemp()
        path = os.path.join(d, f"attr_mod_{lib}_{abs(hash(src))}.py")
        with open(path, "w") as f:
            f.write(f"import {lib} as torch\nfrom typing import Optional, Final, List, Tuple\n" + textwrap.dedent(src))
        spec = importlib.util.spec_from_file_location(os.path.basename(path)[:-3], path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        out.append(getattr(mod, name))
    return out


COUNTER = """
class Sub(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.x = 1.5
        self.seen = 0

    def forward(self, t):
        self.seen += 1
        return t * self.x

class M(torch.nn.Module):
    opt: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.count = 0
        self.flag = False
        self.name = "a"
        self.state = torch.zeros(3)
        self.opt = None
        self.register_buffer("b", torch.ones(3))
        self.sub = Sub()

    def forward(self, x):
        before = self.count
        self.count += 1
        self.flag = self.count > 2
        self.name = self.name + "b"
        self.state = x * 2 + self.state
        self.sub.x = self.sub.x + 1.0
        self.b = self.b + x
        self.b += 1
        opt = self.opt
        if opt is None:
            self.opt = x
        else:
            self.opt = opt + x
        return self.sub(x) + self.count + before + self.state.sum()
"""


def _state(m, lib):
    return (m.count, m.flag, m.name, m.state.tolist(), m.sub.x, m.sub.seen, m.b.tolist(),
            None if m.opt is None else m.opt.tolist())


def test_values_and_state_against_torch_jit_script():
    TorchM, TlM = _pair(COUNTER)
    tm, lm = torch.jit.script(TorchM()), tl.jit.script(TlM())
    for i in range(4):
        x = [0.5 * i, -1.0, 2.0]
        expected = tm(torch.tensor(x))
        got = lm(tl.tensor(x))
        assert got.tolist() == pytest.approx(expected.tolist())
        assert _state(lm, tl) == _state(tm, torch)


def test_python_assignment_between_calls_is_seen():
    _, TlM = _pair(COUNTER)
    m = tl.jit.script(TlM())
    m(tl.ones(3))
    m.count = 10
    m.sub.x = 0.0
    out = m(tl.ones(3))
    assert m.count == 11 and m.sub.x == 1.0
    assert out.tolist()[0] == pytest.approx(1.0 + 11 + 10 + m.state.sum().item())


def test_reads_after_the_write_see_the_new_value_in_loops_and_branches():
    src = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.total = 0.0
        self.steps = 0

    def forward(self, x, n: int):
        for i in range(n):
            self.steps += 1
            if i % 2 == 0:
                self.total = self.total + float(i)
        return x * self.total + self.steps
"""
    TorchM, TlM = _pair(src)
    tm, lm = torch.jit.script(TorchM()), tl.jit.script(TlM())
    for n in (0, 3, 5):
        assert lm(tl.ones(2), n).tolist() == tm(torch.ones(2), n).tolist()
        assert (lm.total, lm.steps) == (tm.total, tm.steps)


def test_exported_method_assigns_and_forward_reads():
    src = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0

    @torch.jit.export
    def set_scale(self, s: float):
        self.scale = s

    def forward(self, x):
        return x * self.scale
"""
    TorchM, TlM = _pair(src)
    tm, lm = torch.jit.script(TorchM()), tl.jit.script(TlM())
    assert lm(tl.ones(2)).tolist() == [1.0, 1.0]
    tm.set_scale(3.0)
    lm.set_scale(3.0)
    assert lm.scale == tm.scale == 3.0
    assert lm(tl.ones(2)).tolist() == tm(torch.ones(2)).tolist() == [3.0, 3.0]


def test_loaded_exported_method_assigns_with_its_defaults(tmp_path):
    src = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = 1.0

    @torch.jit.export
    def set_scale(self, s: float = 4.0):
        self.scale = s

    def forward(self, x):
        return x * self.scale
"""
    TorchM, TlM = _pair(src)
    tl.jit.save(tl.jit.script(TlM()), tmp_path / "m.pt")
    torch.jit.save(torch.jit.script(TorchM()), tmp_path / "t.pt")
    ours, theirs = tl.jit.load(tmp_path / "m.pt"), torch.jit.load(tmp_path / "t.pt")
    ours.set_scale(2.0)
    theirs.set_scale(2.0)
    assert ours.scale == theirs.scale == 2.0
    ours.set_scale()
    theirs.set_scale()
    assert ours.scale == theirs.scale == 4.0
    assert ours(tl.ones(2)).tolist() == theirs(torch.ones(2)).tolist() == [4.0, 4.0]


def test_tensor_attribute_keeps_gradient_history():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.last = tl.zeros(3)

        def forward(self, x):
            self.last = self.lin(x)
            return self.last.sum()
    m = tl.jit.script(M())
    x = tl.randn(3)
    m(x).backward()
    assert m.last.grad_fn is not None
    assert tl.allclose(m.last.detach(), m.lin(x).detach())
    assert tl.equal(m.lin.bias.grad, tl.ones(3))


def test_save_load_keeps_state_and_goes_on(tmp_path):
    TorchM, TlM = _pair(COUNTER)
    tm, lm = torch.jit.script(TorchM()), tl.jit.script(TlM())
    for _ in range(2):
        tm(torch.ones(3))
        lm(tl.ones(3))
    tl.jit.save(lm, tmp_path / "m.pt")
    torch.jit.save(tm, tmp_path / "t.pt")
    lm(tl.ones(3))  # after the save: not in the archive
    loaded, tloaded = tl.jit.load(tmp_path / "m.pt"), torch.jit.load(tmp_path / "t.pt")
    assert _state(loaded, tl) == _state(tloaded, torch)
    for i in range(2):
        x = [1.0, 2.0 * i, -3.0]
        assert loaded(tl.tensor(x)).tolist() == pytest.approx(tloaded(torch.tensor(x)).tolist())
        assert _state(loaded, tl) == _state(tloaded, torch)
    loaded.count = 100
    loaded(tl.ones(3))
    assert loaded.count == 101
    # a loaded module saves again with its current state
    tl.jit.save(loaded, tmp_path / "again.pt")
    again = tl.jit.load(tmp_path / "again.pt")
    assert _state(again, tl) == _state(loaded, tl)


def test_fresh_process_loads_state(tmp_path):
    import subprocess
    import sys
    _, TlM = _pair(COUNTER)
    m = tl.jit.script(TlM())
    m(tl.ones(3))
    tl.jit.save(m, tmp_path / "m.pt")
    code = (f"import torchlite as tl\nm = tl.jit.load({str(tmp_path / 'm.pt')!r})\n"
            "m(tl.ones(3))\nprint(m.count, m.sub.x, m.sub.seen, m.flag)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["2", "3.5", "2", "False"]


@pytest.mark.parametrize("body, message", [
    ("self.nope = 1", "Tried to set nonexistent attribute: nope. Did you forget to initialize it in __init__()?"),
    ("self.k = 4", "Tried to set nonexistent attribute: k. Did you forget to initialize it in __init__()?"),
    ("self.count = 1.5", "Wrong type for attribute assignment. Expected int but got float"),
    ("self.count += 0.5", "Wrong type for attribute assignment. Expected int but got float"),
    ("self.count = x", "Wrong type for attribute assignment. Expected int but got Tensor"),
    ("self.state = 1", "Wrong type for attribute assignment. Expected Tensor but got int"),
    ("self.opt = 3", "Wrong type for attribute assignment. Expected Optional[Tensor] but got int"),
    ("self.none = x", "Wrong type for attribute assignment. Expected NoneType but got Tensor"),
    ("self.b = 2", "Wrong type for attribute assignment. Expected Tensor but got int"),
])
def test_compile_errors_as_torch(body, message):
    src = f"""
class N(torch.nn.Module):
    k: Final[int] = 3
    opt: Optional[torch.Tensor]

    def __init__(self):
        super().__init__()
        self.count = 0
        self.state = torch.zeros(3)
        self.opt = None
        self.none = None
        self.register_buffer("b", torch.ones(3))

    def forward(self, x):
        {body}
        return x
"""
    TorchN, TlN = _pair(src, "N")
    with pytest.raises(RuntimeError) as theirs:
        torch.jit.script(TorchN())
    assert message in str(theirs.value)
    with pytest.raises(RuntimeError) as ours:
        tl.jit.script(TlN())
    assert message in str(ours.value)
    assert body in str(ours.value) and "~" * len(body) in str(ours.value)  # the statement, underlined


def test_submodule_assignment_refused():
    class P(nn.Module):  # (assigning a parameter scripts, as torch 2.13: test_jit_script_parameter_assignment.py)
        def __init__(self):
            super().__init__()
            self.w = nn.Parameter(tl.ones(3))
            self.lin = nn.Linear(3, 3)

        def forward(self, x):
            self.w = x
            return x
    tl.jit.script(P())

    class S(P):
        def forward(self, x):
            self.lin = x
            return x
    with pytest.raises(RuntimeError, match="Wrong type for attribute assignment. Expected __torch__"):
        tl.jit.script(S())

    # (`self.training = ...` scripts, as torch's: test_jit_script_training_setattr.py)


def test_unassigned_attributes_stay_constants():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.k = 2
            self.n = 0

        def forward(self, x):
            self.n += self.k
            return x * self.k
    m = tl.jit.script(M())
    kinds = [(n.kind(), n.s("name")) for n in m.graph.nodes() if n.kind() in ("prim::GetAttr", "prim::SetAttr")]
    assert kinds == [("prim::GetAttr", "n"), ("prim::SetAttr", "n")]
    m(tl.ones(1))
    m(tl.ones(1))
    assert m.n == 4


DEFAULTS = """
class D(torch.nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x, scale: float = 2.0, mask: Optional[torch.Tensor] = None, k: int = 3,
                tag: str = "t", sizes: Tuple[int, int] = (1, 2)):
        y = x * scale + k + len(tag) + sizes[1]
        if mask is not None:
            y = y * mask
        return y
"""


def test_archive_keeps_argument_defaults(tmp_path):
    TorchD, TlD = _pair(DEFAULTS, "D")
    tl.jit.save(tl.jit.script(TlD()), tmp_path / "d.pt")
    torch.jit.save(torch.jit.script(TorchD()), tmp_path / "t.pt")
    ours, theirs = tl.jit.load(tmp_path / "d.pt"), torch.jit.load(tmp_path / "t.pt")
    x = [1.0, -2.0]
    calls = [((), {}), ((3.0,), {}), ((), {"mask": [0.0, 1.0]}), ((0.5,), {"k": 7, "tag": "abc"}),
             ((1.0, None, 1), {"sizes": (0, 5)}), ((2.0,), {})]
    for args, kwargs in calls:
        def conv(v, lib):
            return lib.tensor(v) if isinstance(v, list) and v and isinstance(v[0], float) else v
        got = ours(tl.tensor(x), *[conv(a, tl) for a in args], **{k: conv(v, tl) for k, v in kwargs.items()})
        expected = theirs(torch.tensor(x), *[conv(a, torch) for a in args],
                          **{k: conv(v, torch) for k, v in kwargs.items()})
        assert got.tolist() == expected.tolist()
    with pytest.raises(RuntimeError, match="expected at most 6 argument"):
        ours(tl.ones(2), 1.0, None, 1, "a", (1, 2), 7)
    with pytest.raises(RuntimeError, match="got an unexpected keyword argument 'nope'"):
        ours(tl.ones(2), nope=1)
    with pytest.raises(RuntimeError, match="missing value for argument 'x'"):
        ours()


def test_scripted_function_archive_keeps_defaults(tmp_path):
    @tl.jit.script
    def f(x, alpha: float = 0.5, n: int = 2):
        return x * alpha + n
    f.save(tmp_path / "f.pt")
    g = tl.jit.load(tmp_path / "f.pt")
    assert g(tl.ones(2)).tolist() == [2.5, 2.5]
    assert g(tl.ones(2), n=0).tolist() == [0.5, 0.5]


def test_version_1_archive_without_defaults_still_loads(tmp_path):
    """An archive written before defaults (format version 1: no attributes, no `args`) loads and runs."""
    import zipfile
    _, TlD = _pair(DEFAULTS, "D")
    tl.jit.save(tl.jit.script(TlD()), tmp_path / "d.pt")
    with zipfile.ZipFile(tmp_path / "d.pt") as z:
        records = {n: z.read(n) for n in z.namelist()}
    import re
    model = records["archive/model"].decode()
    model = re.sub(r"\s+attributes 0", "", model)
    model = re.sub(r"\s+constants 0", "", model)  # (version 6's constants: none here)
    model = re.sub(r" enums 0", "", model)  # (version 4's Enum classes: none here)
    model = re.sub(r' args \d+( "[^"]*" (0|1 (float|int|str) ("[^"]*"|\S+)|1 tuple \d+( int \S+)*|1 None))*', "", model)
    records["archive/model"] = model.encode()
    records["archive/version"] = b"1\n"
    with zipfile.ZipFile(tmp_path / "v1.pt", "w", zipfile.ZIP_STORED) as z:
        for n, data in records.items():
            z.writestr(n, data)
    m = tl.jit.load(tmp_path / "v1.pt")
    assert m(tl.ones(2), 2.0, None, 3, "t", (1, 2)).tolist() == [8.0, 8.0]
    with pytest.raises(TypeError, match="expected 7 arguments but got 2"):  # no defaults in version 1
        m(tl.ones(2))


def test_code_freeze_and_optimize_for_inference_keep_the_state():
    class M(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(3, 3)
            self.count = 0
            self.register_buffer("b", tl.zeros(3))

        def forward(self, x, k: int = 2):
            self.count += k
            self.b = self.b + 1
            return self.lin(x) + self.count
    m = tl.jit.script(M())
    assert "self.count = " in m.code and "self.b = " in m.code
    m.eval()
    x = tl.ones(3)
    eager = m.lin(x).detach()
    frozen = tl.jit.freeze(m)
    assert frozen(x).tolist() == pytest.approx((eager + 2).tolist())  # the default k=2 kept too
    assert frozen(x, 3).tolist() == pytest.approx((eager + 5).tolist())
    assert frozen.count == 5 and frozen.b.tolist() == [2.0, 2.0, 2.0]
    assert m.count == 0  # a frozen module is a copy
    optimized = tl.jit.optimize_for_inference(m)
    optimized(x)
    assert optimized(x).tolist() == pytest.approx((eager + 4).tolist()) and optimized.count == 4
