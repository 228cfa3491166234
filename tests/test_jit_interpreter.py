"""The interpreter's compiled instruction list (aten/jit/Code.h): compiled once per graph version, so
an edited graph runs its new form; values moved out at their last use and dropped after it; constants
loaded once; control flow; errors; several threads running one graph."""
import threading

import numpy as np
import pytest

import torchlite as tl
from torchlite._C import _jit


def _close(a, b):
    np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-6)


def _chain_graph():
    g = _jit.Graph()
    x = g.addInput("x")
    r = g.insertNode(g.create("aten::relu", [x])).output()
    s = g.insertNode(g.create("aten::add", [r, r, g.insertConstant(1)])).output()  # one value read twice
    m = g.insertNode(g.create("aten::mul", [s, r])).output()  # r again, after s
    g.registerOutput(m)
    return g, x, r, s, m


def test_values_read_twice_and_after_other_uses():
    g, *_ = _chain_graph()
    x = tl.randn(3, 4)
    expected = (x.relu() + x.relu()) * x.relu()
    for _ in range(3):  # the compiled code is reused: same results every call
        _close(_jit.run_graph(g, [x])[0], expected)
    assert tl.equal(x, x)  # the input itself is untouched (moved out of its register, not consumed)


def test_edited_graph_runs_its_new_form():
    g, x_value, r, s, m = _chain_graph()
    x = tl.randn(5)
    _close(_jit.run_graph(g, [x])[0], (x.relu() * 2) * x.relu())
    # replace an input: mul(s, r) -> mul(s, x)
    m.node().replaceInput(1, x_value)
    _close(_jit.run_graph(g, [x])[0], (x.relu() * 2) * x)
    # insert a node before the output and return it
    n = g.insertNode(g.create("aten::neg", [m]))
    g.eraseOutput(0)
    g.registerOutput(n.output())
    _close(_jit.run_graph(g, [x])[0], -((x.relu() * 2) * x))
    # change a constant's value (add's alpha)
    alpha = s.node().inputs()[2].node()
    alpha.i_("value", 3)
    _close(_jit.run_graph(g, [x])[0], -((x.relu() * 4) * x))
    # remove the negation again
    g.eraseOutput(0)
    g.registerOutput(m)
    n.destroy()
    _close(_jit.run_graph(g, [x])[0], (x.relu() * 4) * x)


def test_outputs_that_are_inputs_constants_or_repeated():
    g = _jit.Graph()
    x = g.addInput("x")
    y = g.addInput("y")
    c = g.insertConstant(7)
    g.registerOutput(x)
    g.registerOutput(x)
    g.registerOutput(c)
    g.registerOutput(y)
    a, b = tl.randn(2), tl.randn(3)
    out = _jit.run_graph(g, [a, b])
    assert out[0] is not None and tl.equal(out[0], a) and tl.equal(out[1], a)
    assert out[2] == 7 and tl.equal(out[3], b)


def test_unused_outputs_and_multi_output_nodes():
    g = _jit.Graph()
    x = g.addInput("x")
    node = g.insertNode(g.create("aten::max", [x, g.insertConstant(1), g.insertConstant(False)], 2))
    g.registerOutput(node.outputs()[1])  # only the indices
    t = tl.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    assert _jit.run_graph(g, [t])[0].tolist() == [1, 0]


def test_script_control_flow_matches_python():
    @tl.jit.script
    def f(x, n: int):
        y = x
        total = 0
        for i in range(n):
            if i % 3 == 0:
                y = y * 2
            elif i % 3 == 1:
                y = y.tanh()
            total += i
        k = 0
        while k < 4:
            k += 1
            if k == 3:
                continue
            y = y + k
        return y, total

    def py(x, n):
        y = x
        total = 0
        for i in range(n):
            if i % 3 == 0:
                y = y * 2
            elif i % 3 == 1:
                y = y.tanh()
            total += i
        k = 0
        while k < 4:
            k += 1
            if k == 3:
                continue
            y = y + k
        return y, total

    x = tl.randn(4, 3)
    for n in (0, 1, 5, 8):
        got, want = f(x, n), py(x, n)
        _close(got[0], want[0])
        assert got[1] == want[1]


def test_loop_carried_value_passed_through_unchanged():
    @tl.jit.script
    def f(x, y, n: int):
        for _ in range(n):
            x = x + 1  # y is carried unchanged through every iteration
        return x, y

    x, y = tl.zeros(2), tl.ones(2)
    a, b = f(x, y, 3)
    assert a.tolist() == [3.0, 3.0] and b.tolist() == [1.0, 1.0]


def test_use_before_definition_raises_when_reached():
    g = _jit.Graph()
    x = g.addInput("x")
    first = g.insertNode(g.create("aten::relu", [x]))
    second = g.insertNode(g.create("aten::neg", [first.output()]))
    g.registerOutput(second.output())
    second.moveBefore(first)  # neg now reads relu's output before relu runs
    with pytest.raises(RuntimeError, match="has no value \\(used before its definition\\)"):
        _jit.run_graph(g, [tl.randn(2)])
    second.moveAfter(first)
    _close(_jit.run_graph(g, [tl.tensor([1.0, -2.0])])[0], tl.tensor([-1.0, 0.0]))


def test_errors_of_the_call():
    g, *_ = _chain_graph()
    with pytest.raises(TypeError, match="forward\\(\\) expected 1 arguments but got 2"):
        _jit.run_graph(g, [tl.randn(2), tl.randn(2)])
    with pytest.raises(TypeError, match="must be a torchlite._C._jit.Graph"):
        _jit.run_graph(object(), [])
    with pytest.raises(TypeError, match="must be a sequence"):
        _jit.run_graph(g, 3)
    with pytest.raises(TypeError, match="relu: expected a value of type Tensor but got int"):
        _jit.run_graph(g, [3])
    # the op's own error, as eager raises it
    g2 = _jit.Graph()
    a, b = g2.addInput("a"), g2.addInput("b")
    g2.registerOutput(g2.insertNode(g2.create("aten::mm", [a, b])).output())
    with pytest.raises(RuntimeError) as e:
        _jit.run_graph(g2, [tl.randn(2, 3), tl.randn(4, 5)])
    with pytest.raises(RuntimeError) as eager:
        tl.mm(tl.randn(2, 3), tl.randn(4, 5))
    assert str(e.value) == str(eager.value)


def test_threads_run_one_graph():
    g, *_ = _chain_graph()
    xs = [tl.randn(64, 64) for _ in range(4)]
    expected = [(x.relu() * 2) * x.relu() for x in xs]
    errors = []

    def work(i):
        try:
            for _ in range(200):
                out = _jit.run_graph(g, [xs[i]])[0]
                if not tl.equal(out, expected[i]):
                    errors.append(i)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_gradients_through_compiled_graph():
    m = tl.nn.Sequential(tl.nn.Linear(3, 4), tl.nn.Tanh(), tl.nn.Linear(4, 2))
    x = tl.randn(5, 3)
    traced = tl.jit.trace(m, x)
    traced(x).pow(2).sum().backward()
    grads = [p.grad.clone() for p in m.parameters()]
    for p in m.parameters():
        p.grad = None
    m(x).pow(2).sum().backward()
    for g, p in zip(grads, m.parameters()):
        _close(g, p.grad)
