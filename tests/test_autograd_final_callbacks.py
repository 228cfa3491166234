"""Variable._execution_engine.queue_callback: callbacks that run once, in order, when the backward pass that queued
them ends (before backward() returns), as PyTorch's; DistributedDataParallel waits for its all-reduces there."""
import pytest

import torchlite as tl
from torchlite.autograd import Variable


def test_queue_callback_outside_backward_raises():
    with pytest.raises(RuntimeError, match="Final callbacks can only be installed during backward pass."):
        Variable._execution_engine.queue_callback(lambda: None)


@pytest.mark.parametrize("use_grad", [False, True])
def test_callbacks_run_after_the_pass_in_order(use_grad):
    events = []
    w = tl.ones(3, requires_grad=True)
    x = tl.ones(3, requires_grad=True)

    def hook(g):
        events.append("hook")
        Variable._execution_engine.queue_callback(lambda: events.append("cb1"))
        Variable._execution_engine.queue_callback(
            lambda: (events.append("cb2"), Variable._execution_engine.queue_callback(lambda: events.append("cb3"))))
        return g

    w.register_hook(hook)
    y = (w * x * 2).sum()
    x.register_hook(lambda g: events.append("late hook"))
    if use_grad:
        tl.autograd.grad(y, [w, x])
    else:
        y.backward()
    assert events.index("late hook") < events.index("cb1")
    assert events[-3:] == ["cb1", "cb2", "cb3"]
    events.clear()
    (w * 3).sum().backward()  # a later pass runs none of them again
    assert events == ["hook", "cb1", "cb2", "cb3"]


def test_callbacks_of_a_failed_pass_are_dropped():
    events = []
    w = tl.ones(2, requires_grad=True)

    def hook(g):
        Variable._execution_engine.queue_callback(lambda: events.append("cb"))
        raise ValueError("boom")

    w.register_hook(hook)
    with pytest.raises(ValueError, match="boom"):
        (w * 2).sum().backward()
    assert events == []
    with pytest.raises(RuntimeError, match="Final callbacks"):
        Variable._execution_engine.queue_callback(lambda: None)
