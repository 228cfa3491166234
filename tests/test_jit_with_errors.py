"""`with` blocks left by an error at run time (an op failing, a `raise` in a function the block calls, `__enter__`
or `__exit__` raising), against torch.jit.script 2.13 running the same program: as torch's interpreter, the
`__exit__(None, None, None)` of every object entered and not exited runs, innermost first, its own errors are
ignored, and the first error goes on; blocks nested, in loops, in a module, saved and loaded. A grad-mode block
restores the mode in the C++ interpreter itself (the entry a module loaded from C++ uses), not only in the Python
call. Effects are observed through tensors changed in place and through the module's context objects."""
import io
from typing import Any, List

import pytest
import torch

import torchlite as tl
from torchlite._C import _jit


def make_nested(lib):
    Tensor = lib.Tensor

    class Ctx:
        def __init__(self, log: Tensor, tag: int, fail_enter: bool, fail_exit: bool):
            self.log = log
            self.tag = tag
            self.fail_enter = fail_enter
            self.fail_exit = fail_exit

        def __enter__(self) -> int:
            self.log.mul_(10).add_(self.tag)  # the log's decimal digits: the order of enters and exits
            if self.fail_enter:
                raise ValueError("enter failed")
            return self.tag

        def __exit__(self, a: Any, b: Any, c: Any) -> None:
            self.log.mul_(10).add_(self.tag + 5)
            if self.fail_exit:
                raise RuntimeError("exit failed")

    lib.jit.script(Ctx)

    def nested(x: Tensor, log: Tensor, i: int, fail_enter: bool, fail_exit: bool) -> Tensor:
        with Ctx(log, 1, False, False):
            with Ctx(log, 2, fail_enter, fail_exit) as k:
                y = x[i] * k  # an out-of-range i fails here
            log.mul_(10).add_(3)
        return y
    return lib.jit.script(nested)


def outcome(lib, fn, *args):
    log = lib.zeros((), dtype=lib.float64)
    try:
        got = fn(lib.arange(3.0), log, *args).item()
    except Exception as e:  # the last line: torch's interpreter puts its traceback before the message
        got = str(e).strip().splitlines()[-1]
    return got, log.item()


@pytest.mark.parametrize("args", [(1, False, False), (5, False, False), (1, True, False), (5, False, True),
                                  (1, False, True), (-4, True, True)])
def test_exits_on_errors_as_torch(args):
    want = outcome(torch, make_nested(torch), *args)
    got = outcome(tl, make_nested(tl), *args)
    if isinstance(want[0], str):  # torch's last line names the exception class of a `raise`, not an op's error
        want = (want[0].removeprefix("RuntimeError: "), want[1])
    assert got == want
    assert want[1] in (12736.0, 1276.0)  # both exits ran (the statement between them only without an error)


def make_module(lib):
    class Own:
        def __init__(self, k: int):
            self.k = k
            self.log: List[int] = []

        def __enter__(self) -> int:
            self.log.append(self.k)
            return self.k

        def __exit__(self, a: Any, b: Any, c: Any) -> None:
            self.log.append(-self.k)

    lib.jit.script(Own)

    def check(x: int) -> int:
        if x > 5:
            raise ValueError("big")
        return x

    class M(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.outer = Own(4)
            self.inner = Own(7)

        def forward(self, x: int, t: lib.Tensor) -> int:
            acc = 0
            for i in range(3):
                with self.outer as v:
                    with self.inner:
                        acc += check(x + i) + v  # raises in the function it calls
                        with lib.no_grad():
                            t[acc].add_(1)  # an index out of range fails here
            return acc
    return M()


def module_story(lib):
    m = lib.jit.script(make_module(lib))
    story = [m(0, lib.zeros(100))]

    def call(mod, x, n):
        try:
            return mod(x, lib.zeros(n))
        except Exception as e:
            return str(e).strip().splitlines()[-1].removeprefix("RuntimeError: ")
    story += [call(m, 4, 100), call(m, 0, 3), list(m.outer.log), list(m.inner.log), lib.is_grad_enabled()]
    buf = io.BytesIO()
    lib.jit.save(m, buf)
    buf.seek(0)
    loaded = lib.jit.load(buf)
    story += [call(loaded, 5, 100), call(loaded, 1, 5), list(loaded.outer.log), list(loaded.inner.log),
              lib.is_grad_enabled()]
    return story


def test_module_loops_and_called_raise_save_load_as_torch():
    got, want = module_story(tl), module_story(torch)
    assert got == want
    assert want[3] == [4, -4] * 7 and want[4] == [7, -7] * 7  # 3 passes, 3 (the third raising), 1 (its index failing)


def grad_block(x: tl.Tensor, i: int) -> tl.Tensor:
    with tl.no_grad():
        y = (x * 2)[i]
    return y + x[0]


def test_grad_mode_restored_by_the_interpreter():
    s = tl.jit.script(grad_block)
    x = tl.ones(3, requires_grad=True)
    assert s(x, 1).requires_grad
    for run in (lambda: s(x, 7), lambda: _jit.run_graph(s.graph, [x, 7])):  # the Python call; the C++ entry
        with pytest.raises(IndexError, match="out of range"):
            run()
        assert tl.is_grad_enabled()
    with tl.no_grad():  # the mode the block found is what it restores
        with pytest.raises(IndexError):
            _jit.run_graph(s.graph, [x, 7])
        assert not tl.is_grad_enabled()


def test_grad_mode_restored_in_a_loaded_module_from_cpp_entry():
    class G(tl.nn.Module):
        def forward(self, x: tl.Tensor, i: int) -> tl.Tensor:
            with tl.enable_grad():
                with tl.no_grad():
                    y = x[i]
            return y
    buf = io.BytesIO()
    tl.jit.save(tl.jit.script(G()), buf)
    buf.seek(0)
    loaded = tl.jit.load(buf)
    x = tl.ones(2, requires_grad=True)
    with tl.no_grad():
        with pytest.raises(IndexError):
            loaded(x, 5)
        assert not tl.is_grad_enabled()
    with pytest.raises(IndexError):
        loaded(x, 5)
    assert tl.is_grad_enabled()
