"""In-place changes of the outputs of ops returning several views (split, split_with_sizes, chunk,
unbind), against PyTorch: refused while autograd would record them (CreationMeta::MultiOutputNode,
inherited by views of them), with PyTorch's messages, also when the base or a sibling changed in
place; allowed under no_grad, on detached tensors, and for tensor_split (a composite of slices
in PyTorch too)."""
import pytest
import torch

import torchlite as tl


def outcome(fn, lib):
    """('ok', values) or (exception type name, message) of fn(lib)."""
    try:
        result = fn(lib)
    except Exception as e:  # noqa: BLE001 - compared with PyTorch's
        return type(e).__name__, str(e)
    if isinstance(result, (tuple, list)):
        return "ok", [None if r is None else (r.tolist() if hasattr(r, "tolist") else r) for r in result]
    return "ok", result.tolist() if hasattr(result, "tolist") else result


def leaf(lib, requires_grad=True):
    return lib.tensor([[0.0, 1.0, 2.0], [3.0, 4.0, 5.0], [6.0, 7.0, 8.0], [9.0, 10.0, 11.0]],
                      requires_grad=requires_grad)


def nonleaf(lib):
    return leaf(lib) * 1


SPLITTERS = {
    "split": lambda t: t.split(2),
    "split_sizes": lambda t: t.split([1, 3]),
    "split_with_sizes": lambda t: t.split_with_sizes([3, 1]),
    "chunk": lambda t: t.chunk(2),
    "unbind": lambda t: t.unbind(),
    "torch_split_fn": lambda t: (tl if isinstance(t, tl.Tensor) else torch).split(t, 1, 1),
}


def grad_fn_name(t):
    return type(t.grad_fn).__name__


CASES = {
    # refused while recording: leaf or non-leaf base, output 0 or 1, any in-place op
    "leaf_mul_": lambda lib, s: s(leaf(lib))[0].mul_(2),
    "nonleaf_mul_": lambda lib, s: s(nonleaf(lib))[1].mul_(2),
    "nonleaf_add_scalar": lambda lib, s: s(nonleaf(lib))[0].add_(1),
    "nonleaf_zero_": lambda lib, s: s(nonleaf(lib))[1].zero_(),
    "nonleaf_copy_": lambda lib, s: s(nonleaf(lib))[0].copy_(lib.ones(3)),
    "setitem": lambda lib, s: s(nonleaf(lib))[0].__setitem__(0, 5.0),
    # views of the outputs inherit the restriction (the message names their own node)
    "view_of_output": lambda lib, s: s(nonleaf(lib))[0].unsqueeze(0).mul_(2),
    "transpose_of_output": lambda lib, s: s(nonleaf(lib))[1].t().mul_(2),
    # base not requiring grad: refused only when the in-place op records (another input requires grad)
    "plain_base_plain_value": lambda lib, s: s(leaf(lib, False))[0].mul_(2),
    "plain_base_value_requiring_grad": lambda lib, s: s(leaf(lib, False))[0].mul_(leaf(lib)[0].sum()),
    # made in no_grad mode: the no_grad rule, not the multi-output one
    "made_in_no_grad": lambda lib, s: _made_in_no_grad(lib, s),
    # modified under no_grad: allowed, then its history is invalid
    "modified_in_no_grad": lambda lib, s: _modified_in_no_grad(lib, s),
    "modified_in_no_grad_leaf_base": lambda lib, s: _modified_in_no_grad(lib, s, base=leaf),
    # the base or a sibling view changed in place: the outputs' history is invalid
    "base_changed": lambda lib, s: _base_changed(lib, s),
    "sibling_changed_under_no_grad": lambda lib, s: _sibling_changed(lib, s),
    # detach() shares data but not history
    "detach_then_modify": lambda lib, s: s(nonleaf(lib))[0].detach().mul_(2),
    "grad_fn_names": lambda lib, s: [grad_fn_name(t) for t in s(nonleaf(lib))],
    "gradient": lambda lib, s: _gradient(lib, s),
}


def _made_in_no_grad(lib, s):
    y = nonleaf(lib)
    with lib.no_grad():
        parts = s(y)
    return parts[0].mul_(2)


def _modified_in_no_grad(lib, s, base=nonleaf):
    parts = s(base(lib))
    with lib.no_grad():
        parts[0].mul_(2)
    return [parts[0].detach(), grad_fn_name(parts[0])]


def _base_changed(lib, s):
    y = nonleaf(lib)
    parts = s(y)
    y.mul_(2)
    return grad_fn_name(parts[0])


def _sibling_changed(lib, s):
    y = nonleaf(lib)
    parts = s(y)
    with lib.no_grad():
        y[0].add_(1)
    return (parts[-1] * 2).sum()


def _gradient(lib, s):
    x = leaf(lib)
    parts = s(x * 1)
    total = sum(((k + 1) * p).sum() for k, p in enumerate(parts))
    total.backward()
    return x.grad


@pytest.mark.parametrize("splitter", sorted(SPLITTERS))
@pytest.mark.parametrize("case", sorted(CASES))
def test_like_torch(case, splitter):
    s = SPLITTERS[splitter]
    got, expected = outcome(lambda lib: CASES[case](lib, s), tl), outcome(lambda lib: CASES[case](lib, s), torch)
    assert got == expected


def test_tensor_split_outputs_may_be_modified():
    """PyTorch's tensor_split is a composite of slices: its outputs are ordinary views."""
    for lib in (tl, torch):
        x = leaf(lib)
        parts = (x * 1).tensor_split(2)
        parts[1].mul_(2)
        assert grad_fn_name(parts[1]) == "AsStridedBackward0"
        parts[1].sum().backward()
        assert x.grad.tolist() == [[0.0] * 3] * 2 + [[2.0] * 3] * 2


def test_repr_of_invalid_history():
    """A split output whose base changed in place prints grad_fn=<Invalid>, as PyTorch's."""
    for lib in (tl, torch):
        y = nonleaf(lib)
        part = y.split(2)[0]
        with lib.no_grad():
            y.add_(1)
        assert repr(part).endswith("grad_fn=<Invalid>)"), repr(part)
