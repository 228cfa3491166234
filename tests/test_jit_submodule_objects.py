"""`scripted.sub.acc`: a TorchScript class instance held by a *submodule's* attribute, read and assigned from
Python through a scripted module, against torch.jit.script 2.13 running the same modules: a read is a new
instance of the class (its attributes and methods usable, changing it changes nothing in the module), assigning
an instance replaces the object the graphs use, another value is refused, and the submodule stays its class
(the view subclass keeps its name)."""
import io

import torch

import torchlite as tl
from test_jit_class_attributes import ACC, _run_both, _vals, make


def test_submodule_object_read_and_assigned_as_torch():
    def run(lib):
        top = lib.jit.script(make(lib)[2])
        x = lib.tensor([1.0, 2.0])
        res = [_vals(top(x))]
        acc = top.sub.acc
        res += [type(acc) is ACC[lib.__name__], acc.n, _vals(acc.total), _vals(acc.add(x)), acc.n]
        res += [top.sub.acc.n, _vals(top.sub.acc.total)]  # the module's object: unchanged by the copy's add
        top.sub.acc = ACC[lib.__name__](10)
        res += [_vals(top(x)), top.sub.acc.n, _vals(top.sub.acc.total)]
        try:
            top.sub.acc = 5
            res.append("no error")
        except RuntimeError as e:
            res.append(str(e).split(" to type ")[0])
        res += [_vals(top(x)), top.sub.acc.n]
        return res
    got = _run_both(run)
    assert got[2] == 3 and got[5] == 4 and got[6] == 3 and got[11] == "Could not cast attribute 'acc'"


def test_submodule_keeps_its_class_and_save_load():
    orig = make(tl)[2]
    top = tl.jit.script(orig)
    sub = top.sub
    assert type(sub).__name__ == "Sub" and type(sub).__qualname__ == "make.<locals>.Sub"
    assert isinstance(sub, type(orig.sub)) and type(orig.sub).__name__ == "Sub"  # the original is not changed
    x = tl.ones(2)
    top(x)
    buf = io.BytesIO()
    tl.jit.save(top, buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    assert loaded.sub.acc.n == top.sub.acc.n == 3 and _vals(loaded.sub.acc.total) == _vals(top.sub.acc.total)
    assert _vals(loaded(x)) == _vals(top(x))
    again = tl.jit.script(type(orig)())  # another instance of the classes: the same view class
    assert type(again.sub) is type(sub) and _vals(again(x)) == [4.0, 4.0]
