"""Autograd node names as PyTorch prints them: numbered per op name in PyTorch's derivatives.yaml
order (`backward_node:` in native_functions.yaml where it differs from the file's order), and named
with PyTorch's capitalization (Log1PBackward0)."""
import pytest
import torch

import torchlite as tl


def node(lib, fn):
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=lib.float64, requires_grad=True)
    out = fn(lib, x * 1)
    out = out[0] if isinstance(out, tuple) else out
    return type(out.grad_fn).__name__


CASES = {
    f"{op}_{kind}": (lambda op, kind: lambda lib, y: getattr(y, f"{op}_")(
        1.0 if kind == "scalar" else lib.ones(3, dtype=lib.float64)))(op, kind)
    for op in ("eq", "ne", "lt", "le", "gt", "ge") for kind in ("scalar", "tensor")
}
CASES.update({
    "max_all": lambda lib, y: y.max(),
    "max_dim": lambda lib, y: y.max(1),
    "min_all": lambda lib, y: y.min(),
    "min_dim": lambda lib, y: y.min(0),
    "log1p": lambda lib, y: y.abs().log1p(),
    "split": lambda lib, y: y.split(1),
    "split_with_sizes": lambda lib, y: y.split([1, 1]),
    "unbind": lambda lib, y: y.unbind(),
    "scatter_src": lambda lib, y: y.scatter(1, lib.tensor([[0], [2]]), y[:, :1]),
})


@pytest.mark.parametrize("case", sorted(CASES))
def test_node_name_like_torch(case):
    assert node(tl, CASES[case]) == node(torch, CASES[case])
