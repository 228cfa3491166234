"""`self.training = ...` and `setattr(self, ...)` in script, against torch.jit.script 2.13: torch compiles an
assignment of the training flag (a bool attribute read and written at run time: Python sees the new mode after the
call, and so do the module's own reads; a submodule's flag too, which its forward then reads), refuses another type
("Wrong type for attribute assignment. Expected bool but got int") and refuses the builtin setattr ("Python builtin
<built-in function setattr> is currently not supported in Torchscript")."""
import torch

import torchlite as tl
from tests.script_pair import errors, load

SRC = """
class Flip(torch.nn.Module):
    def forward(self, x, mode: bool):
        before = self.training
        self.training = mode
        if self.training:
            return x + 1, before
        return x - 1, before


class SubOff(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.drop = torch.nn.Dropout(0.5)

    def forward(self, x):
        self.drop.training = False
        return self.drop(x)


class Reads(torch.nn.Module):
    def forward(self, x):
        if self.training:
            return x + 1
        return x
"""


def _pair(name):
    return tl.jit.script(getattr(load(SRC, "torchlite"), name)()), torch.jit.script(getattr(load(SRC, "torch"), name)())


def test_assigning_the_training_flag_is_seen_by_the_module_and_python():
    ours, theirs = _pair("Flip")
    steps = [(False, True), (False, False), (True, False), (True, True)]
    for mode, _ in steps:
        (a, before_a), (b, before_b) = ours(tl.zeros(1), mode), theirs(torch.zeros(1), mode)
        assert a.tolist() == b.tolist() and before_a == before_b
        assert ours.training == theirs.training == mode
    ours.eval()
    theirs.eval()
    assert ours(tl.zeros(1), True)[1] is False and theirs(torch.zeros(1), True)[1] is False
    assert ours.training and theirs.training


def test_a_submodules_flag_assigned_is_read_by_its_forward():
    ours, theirs = _pair("SubOff")
    x = [1.0, 2.0, 3.0, 4.0] * 8
    assert ours(tl.tensor(x)).tolist() == theirs(torch.tensor(x)).tolist() == x  # dropout off
    assert ours.training == theirs.training is True
    assert ours.drop.training == theirs.drop.training is False


def test_reading_the_flag_follows_train_and_eval():
    ours, theirs = _pair("Reads")
    assert ours(tl.zeros(1)).tolist() == theirs(torch.zeros(1)).tolist() == [1.0]
    ours.eval()
    theirs.eval()
    assert ours(tl.zeros(1)).tolist() == theirs(torch.zeros(1)).tolist() == [0.0]


def test_wrong_type_for_the_flag_refused_as_torch():
    src = """
class Bad(torch.nn.Module):
    def forward(self, x):
        self.training = 1
        return x
"""
    msg = "Wrong type for attribute assignment. Expected bool but got int"
    ours, theirs = _errors_of_module(src, "Bad")
    assert type(ours) is RuntimeError and isinstance(theirs, RuntimeError)
    assert msg in str(ours) and msg in str(theirs)


def test_setattr_refused_as_torch():
    src = """
class SetAttr(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.n = 1

    def forward(self, x):
        setattr(self, "n", 5)
        return x + self.n
"""
    msg = "Python builtin <built-in function setattr> is currently not supported in Torchscript"
    ours, theirs = _errors_of_module(src, "SetAttr")
    assert type(ours) is RuntimeError and isinstance(theirs, RuntimeError)
    assert msg in str(ours) and msg in str(theirs)
    ours, theirs = errors("def f(x: Tensor):\n    setattr(x, 'n', 5)\n    return x\n")
    assert msg in str(ours) and msg in str(theirs)


def test_module_assigning_its_flag_saves_and_loads(tmp_path):
    ours, _ = _pair("Flip")
    path = str(tmp_path / "flip.pt")
    tl.jit.save(ours, path)
    loaded = tl.jit.load(path)
    out, before = loaded(tl.zeros(1), False)
    assert out.tolist() == [-1.0] and before is True
    out, before = loaded(tl.zeros(1), True)
    assert out.tolist() == [1.0] and before is False


def _errors_of_module(src, name):
    out = []
    for lib, script in (("torchlite", tl.jit.script), ("torch", torch.jit.script)):
        try:
            script(getattr(load(src, lib), name)())
        except Exception as e:  # noqa: BLE001 (compared)
            out.append(e)
        else:
            out.append(None)
    return out
