"""Generator expressions over run-time lists (sum/any/all/list of them) against torch.jit.script 2.13, and the
Python constructs torch itself refuses (break/continue in unrolled loops, lambdas, try): torchlite raises the
same kind of error with torch's message."""
import pytest
import torch

import torchlite as tl
from tests.script_pair import both, errors, load


@pytest.mark.parametrize("body", ["return sum(x * 2 for x in xs)", "return sum([x * x for x in xs])",
                                  "return int(any(x > 2 for x in xs)) + 2 * int(all(x > 0 for x in xs))",
                                  "return len(list(x + 1 for x in xs))"])
def test_generator_over_a_run_time_list(body):
    ours, theirs = both(f"def f(xs: List[int]) -> int:\n    {body}\n")
    for xs in ([1, 2, 3], [], [0, 5]):
        assert ours(xs) == theirs(xs)


def test_sum_of_floats():
    ours, theirs = both("def f(xs: List[float]) -> float:\n    return sum(x / 2 for x in xs)\n")
    assert ours([1.0, 2.5]) == theirs([1.0, 2.5])


@pytest.mark.parametrize("stmt", ["break", "continue"])
def test_break_continue_in_unrolled_loops_refused_as_torch(stmt):
    src = f"def f(x: Tensor) -> Tensor:\n    for k in (1, 2, 3):\n        if k == 2:\n            {stmt}\n" \
          "        x = x + k\n    return x\n"
    e_ours, e_theirs = errors(src)
    msg = "Because we emit iteration over modulelists or tuples as unrolled loops, we do not support break or continue"
    assert msg in str(e_theirs) and msg in str(e_ours)
    assert isinstance(e_ours, RuntimeError)


def test_break_in_a_module_list_loop_refused_as_torch():
    src = """
class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ls = torch.nn.ModuleList([torch.nn.ReLU(), torch.nn.Tanh()])

    def forward(self, x):
        for m in self.ls:
            if x.sum() > 0:
                break
            x = m(x)
        return x
"""
    msg = "we do not support break or continue inside the body of these loops"
    with pytest.raises(RuntimeError, match=msg):
        torch.jit.script(load(src, "torch").M())
    with pytest.raises(RuntimeError, match=msg):
        tl.jit.script(load(src, "torchlite").M())


@pytest.mark.parametrize("src,msg", [
    ("def f(x: int) -> int:\n    g = lambda y: y + 1\n    return g(x)\n", "Lambda aren't supported"),
    ("def f(x: int) -> int:\n    try:\n        x = x + 1\n    except Exception:\n        x = 0\n    return x\n",
     "try blocks aren't supported"),
    ("def f(x: float) -> str:\n    return f'{x:.2f}'\n", "Don't support formatting in JoinedStr"),
    ("def f(x: int) -> int:\n    print(x, sep=',')\n    return x\n", "print doesn't accept any keyword arguments"),
])
def test_constructs_torch_refuses(src, msg):
    e_ours, e_theirs = errors(src)
    assert msg in str(e_theirs), e_theirs
    assert e_ours is not None and msg in str(e_ours), e_ours
    assert type(e_ours).__name__ == type(e_theirs).__name__
