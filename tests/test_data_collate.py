"""default_collate / default_convert against torch.utils.data's."""
import collections

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import torchlite
import torchlite.utils.data as tld

Point = collections.namedtuple("Point", ["x", "y"])


def _same(got, ref):
    """Structure, types, dtypes and values equal (torch tensors on the reference side)."""
    if isinstance(ref, torch.Tensor):
        assert isinstance(got, torchlite.Tensor), type(got)
        assert str(got.dtype).split(".")[1] == str(ref.dtype).split(".")[1]
        assert tuple(got.shape) == tuple(ref.shape)
        assert got.tolist() == ref.tolist()
    elif isinstance(ref, dict):
        assert type(got) is type(ref) and list(got) == list(ref)
        for k in ref:
            _same(got[k], ref[k])
    elif isinstance(ref, (list, tuple)):
        assert type(got) is type(ref) and len(got) == len(ref)
        for a, b in zip(got, ref):
            _same(a, b)
    else:
        assert type(got) is type(ref) and got == ref


def _both(make):
    """make(lib) builds a batch from the given library (torch or torchlite)."""
    return make(torchlite), make(torch)


CASES = {
    "tensors": lambda L: [L.tensor([1.0, 2.0]), L.tensor([3.0, 4.0])],
    "int_tensors_0d": lambda L: [L.tensor(1), L.tensor(2), L.tensor(3)],
    "floats": lambda L: [1.5, 2.0],
    "ints": lambda L: [1, 2, 3],
    "bools": lambda L: [True, False],
    "strings": lambda L: ["a", "bc"],
    "bytes": lambda L: [b"a", b"b"],
    "numpy_arrays": lambda L: [np.arange(3, dtype=np.float32), np.ones(3, dtype=np.float32)],
    "numpy_int_arrays": lambda L: [np.arange(4).reshape(2, 2), np.arange(4).reshape(2, 2)],
    "numpy_scalars": lambda L: [np.float32(1.5), np.float32(2.5)],
    "numpy_int_scalars": lambda L: [np.int16(1), np.int16(7)],
    "numpy_bool_scalars": lambda L: [np.bool_(True), np.bool_(False)],
    "dicts": lambda L: [{"a": L.tensor([1]), "b": 1.0, "s": "x"}, {"a": L.tensor([2]), "b": 2.0, "s": "y"}],
    "ordered_dicts": lambda L: [collections.OrderedDict(z=1, a=2), collections.OrderedDict(z=3, a=4)],
    "tuples": lambda L: [(L.tensor([1.0]), 1), (L.tensor([2.0]), 2)],
    "lists": lambda L: [[1, 2.0], [3, 4.0]],
    "namedtuples": lambda L: [Point(1, L.tensor([1.0, 0.0])), Point(2, L.tensor([0.0, 1.0]))],
    "nested": lambda L: [{"p": [Point(L.zeros(2), (1, "a"))]}, {"p": [Point(L.ones(2), (2, "b"))]}],
    "half_tensors": lambda L: [L.ones(2, 2, dtype=L.float16), L.zeros(2, 2, dtype=L.float16)],
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_collate_equals_torch(case):
    got, ref = _both(CASES[case])
    _same(tld.default_collate(got), tud.default_collate(ref))


@pytest.mark.parametrize("case", sorted(CASES))
def test_default_convert_equals_torch(case):
    got, ref = _both(CASES[case])
    for g, r in zip(got, ref):
        _same(tld.default_convert(g), tud.default_convert(r))


def test_default_convert_leaves():
    assert tld.default_convert(3) == 3
    assert tld.default_convert("s") == "s"
    arr = np.array(["a", "b"])
    assert tld.default_convert(arr) is arr
    t = torchlite.ones(2)
    assert tld.default_convert(t) is t
    _same(tld.default_convert((np.int64(3), [np.zeros(2)])), tud.default_convert((np.int64(3), [np.zeros(2)])))


def test_default_collate_stacks_views_and_noncontiguous():
    base = torchlite.arange(12.0).reshape(3, 4)
    out = tld.default_collate([base.t(), base.t() * 2])
    assert out.shape == (2, 4, 3) and out[1].tolist() == (base.t() * 2).tolist()


def test_default_collate_unequal_sequence_sizes():
    msg = "each element in list of batch should be of equal size"
    with pytest.raises(RuntimeError, match=msg):
        tld.default_collate([[1, 2], [3]])
    with pytest.raises(RuntimeError, match=msg):
        tud.default_collate([[1, 2], [3]])


def test_default_collate_unequal_tensor_shapes():
    with pytest.raises(RuntimeError, match="stack"):
        tld.default_collate([torchlite.zeros(2), torchlite.zeros(3)])


def test_default_collate_unsupported_types():
    msg = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found "
    with pytest.raises(TypeError) as e:
        tld.default_collate([object(), object()])
    assert str(e.value) == msg + "<class 'object'>"
    with pytest.raises(TypeError) as e:
        tld.default_collate([np.array(["a"]), np.array(["b"])])
    assert str(e.value) == msg + "<U1"
    with pytest.raises(TypeError) as e:
        tld.default_collate([None, None])
    assert str(e.value) == msg + "<class 'NoneType'>"


def test_custom_collate_fn_map():
    from torchlite.utils.data._collate import collate, default_collate_fn_map

    class Box:
        def __init__(self, v):
            self.v = v

    fn_map = dict(default_collate_fn_map)
    fn_map[Box] = lambda batch, *, collate_fn_map=None: sum(b.v for b in batch)
    assert collate([(Box(1), 2.0), (Box(5), 3.0)], collate_fn_map=fn_map)[0] == 6
