"""What a FusionGroupBackward keeps (aten/jit/FusionExecutor.cpp): the forward records each block's graph,
so the backward runs no forward op again, and the group's inputs are saved as eager saves tensors: one
changed in place after the forward makes the backward raise eager's error (same type and wording as
torchlite's ordinary nodes), exactly where an eager op would have needed it; gradients stay eager's bit
for bit."""
import re

import pytest

import torchlite as tl
from torchlite._C import _jit


@pytest.fixture(autouse=True)
def small_blocks():
    block, minimum = _jit._jit_get_fusion_block_size(), _jit._jit_get_fusion_min_numel()
    _jit._jit_set_fusion_block_size(64)
    _jit._jit_set_fusion_min_numel(1)
    yield
    _jit._jit_set_fusion_block_size(block)
    _jit._jit_set_fusion_min_numel(minimum)


def _fused(fn, *inputs):
    traced = tl.jit.trace(fn, tuple(inputs), check_trace=False)

    def run(*args):
        with tl.jit.fuser("fuser1"):
            return traced(*args)
    return run


def _error(fn, make_inputs, modify):
    """The backward's error (type, message) after `modify(inputs)` between forward and backward."""
    inputs = make_inputs()
    out = fn(*inputs)
    modify(inputs)
    with pytest.raises(RuntimeError) as info:
        out.sum().backward()
    return info.value


def _shape_free(msg):
    # the node names differ (eager: MulBackward0, fused: FusionGroupBackward); the wording does not
    return re.sub(r"\w+Backward\d*", "<node>", msg)


def _inputs(requires=(True, True, True)):
    tl.manual_seed(0)
    a = tl.randn(300)
    made = [(a * 0.5).requires_grad_(requires[0]), tl.randn(300).requires_grad_(requires[1]),
            tl.randn(300).requires_grad_(requires[2])]
    return made


def chain(x, y, z):
    return ((x * y + 1).sigmoid() * z).tanh()


def test_modified_input_without_grad_raises_eagers_error():
    fused = _fused(chain, *_inputs((True, False, True)))

    def modify(ins):
        ins[1].add_(1)  # y: mul saved it for x's gradient
    eager_err = _error(chain, lambda: _inputs((True, False, True)), modify)
    fused_err = _error(fused, lambda: _inputs((True, False, True)), modify)
    assert type(fused_err) is type(eager_err)
    assert "[torchlite.FloatTensor [300]] is at version 1; expected version 0 instead." in str(fused_err)
    assert _shape_free(str(fused_err)) == _shape_free(str(eager_err))
    assert str(fused_err).startswith("one of the variables needed for gradient computation has been modified by an "
                                     "inplace operation: [torchlite.FloatTensor [300]]")


def test_modified_non_leaf_input_names_its_node_and_versions():
    def make():
        a, y, z = _inputs()
        return a.exp(), y, z  # x is output 0 of ExpBackward0, at version 0

    def fn(x, y, z):
        return chain(x, y, z)
    fused = _fused(fn, *make())

    def modify(ins):
        with tl.no_grad():
            ins[0].mul_(2)
    eager_err = _error(fn, make, modify)
    fused_err = _error(fused, make, modify)
    assert ", which is output 0 of ExpBackward0, is at version 1; expected version 0 instead." in str(fused_err)
    assert _shape_free(str(fused_err)) == _shape_free(str(eager_err))


def test_input_that_no_formula_reads_may_change():
    # (x + y).relu(): add saves nothing, relu its result; eager allows changing x and y after the forward
    def fn(x, y):
        return (x + y).relu()
    x, y, _ = _inputs()
    fused = _fused(fn, x, y)
    for run in (fn, fused):
        x, y, _ = _inputs()
        out = run(x, y)
        with tl.no_grad():
            x.add_(1)
            y.add_(1)
        out.sum().backward()
        expected = (x.detach() - 1 + y.detach() - 1 > 0).float()
        assert tl.equal(x.grad, expected) and tl.equal(y.grad, expected)


def test_modified_after_backward_is_fine_and_second_backward_raises_when_released():
    x, y, z = _inputs()
    fused = _fused(chain, x, y, z)
    out = fused(x, y, z)
    out.sum().backward(retain_graph=True)
    first = x.grad.clone()
    out.sum().backward()  # retained: runs the kept block graphs again
    assert tl.equal(x.grad, first * 2)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        out.sum().backward()


def test_gradients_bit_equal_eager_with_gathered_and_strided_inputs():
    tl.manual_seed(1)
    base = [tl.randn(40, 30) for _ in range(3)]
    def make():
        return [base[0].t().clone().t().requires_grad_(), base[1].clone().requires_grad_(),
                base[2][:, ::1].clone().requires_grad_()]
    fused = _fused(chain, *make())
    grads = []
    for run in (chain, fused):
        ins = make()
        run(*ins).sum().backward()
        grads.append([t.grad.contiguous().numpy().tobytes() for t in ins])
    assert grads[0] == grads[1]


def test_backward_runs_no_forward_op():
    """A forward op run with history saves tensors (mul saves its inputs): none may be saved during backward."""
    x, y, z = _inputs()
    fused = _fused(chain, x, y, z)
    out = fused(x, y, z)
    made = []
    with tl.autograd.graph.saved_tensors_hooks(lambda t: made.append(t.shape) or t, lambda t: t):
        out.sum().backward()
    assert made == []  # no op saved a tensor during backward: nothing ran forward with history


def test_recompute_mode_checks_every_saved_input():
    """In recompute mode (the forward run again per block in the backward) every input is checked, as the
    blocks would read its new values: even one no formula reads raises."""
    def fn(x, y):
        return (x + y).relu()
    mode = _jit._jit_get_fusion_backward_recomputes()
    _jit._jit_set_fusion_backward_recomputes(True)
    try:
        x, y, _ = _inputs()
        fused = _fused(fn, x, y)
        x, y, _ = _inputs()
        out = fused(x, y)
        with tl.no_grad():
            y.add_(1)
        with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torchlite.FloatTensor \[300\]\] "
                                               r"is at version 1; expected version 0 instead"):
            out.sum().backward()
    finally:
        _jit._jit_set_fusion_backward_recomputes(mode)
