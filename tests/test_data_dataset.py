"""torchlite.utils.data datasets and random_split against torch.utils.data."""
import warnings

import pytest
import torch
import torch.utils.data as tud

import torchlite
import torchlite.utils.data as tld


def _tl(t):
    return torchlite.tensor(t.tolist(), dtype=getattr(torchlite, str(t.dtype).split(".")[1]))


class _Squares(tld.Dataset):
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        return i * i

    def __len__(self):
        return self.n


class _Stream(tld.IterableDataset):
    def __init__(self, start, stop):
        self.start, self.stop = start, stop

    def __iter__(self):
        return iter(range(self.start, self.stop))

    def __len__(self):
        return self.stop - self.start


def test_dataset_base_and_no_len():
    with pytest.raises(NotImplementedError, match="Subclasses of Dataset should implement __getitem__."):
        tld.Dataset()[0]
    with pytest.raises(TypeError):
        len(tld.Dataset())
    with pytest.raises(TypeError):
        len(tud.Dataset())


def test_generic_subscription():
    class Typed(tld.Dataset[int]):
        def __getitem__(self, i):
            return i
    assert Typed()[3] == 3
    assert tld.Sampler[int] is not None


def test_add_builds_concat_and_chain():
    c = _Squares(3) + _Squares(2)
    assert isinstance(c, tld.ConcatDataset) and [c[i] for i in range(5)] == [0, 1, 4, 0, 1]
    ch = _Stream(0, 2) + _Stream(5, 7)
    assert isinstance(ch, tld.ChainDataset) and list(ch) == [0, 1, 5, 6] and len(ch) == 4


def test_tensor_dataset_matches_torch():
    x, y = torch.randn(5, 3), torch.arange(5)
    ref = tud.TensorDataset(x, y)
    got = tld.TensorDataset(_tl(x), _tl(y))
    assert len(got) == len(ref) == 5
    for i in (0, 4, -1, slice(1, 4)):
        for a, b in zip(got[i], ref[i]):
            assert a.tolist() == b.tolist()
    assert got.tensors[0].shape == (5, 3)


def test_tensor_dataset_size_mismatch():
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        tld.TensorDataset(torchlite.zeros(3), torchlite.zeros(4))
    with pytest.raises(AssertionError, match="Size mismatch between tensors"):
        tud.TensorDataset(torch.zeros(3), torch.zeros(4))


def test_concat_dataset_indices_and_sizes():
    parts = [list(range(3)), list(range(10, 12)), [], list(range(20, 24))]
    got, ref = tld.ConcatDataset(parts), tud.ConcatDataset(parts)
    assert got.cumulative_sizes == ref.cumulative_sizes == [3, 5, 5, 9]
    assert len(got) == 9
    assert [got[i] for i in range(-9, 9)] == [ref[i] for i in range(-9, 9)]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        got[-10]
    with pytest.raises(IndexError):
        got[9]
    with pytest.warns(FutureWarning, match="renamed to `cumulative_sizes`"):
        assert got.cummulative_sizes == [3, 5, 5, 9]
    assert tld.ConcatDataset.cumsum([[1], [2, 3]]) == [1, 3]


def test_concat_dataset_errors():
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        tld.ConcatDataset([])
    with pytest.raises(AssertionError, match="ConcatDataset does not support IterableDataset"):
        tld.ConcatDataset([_Stream(0, 1)])


def test_chain_dataset():
    ch = tld.ChainDataset([_Stream(0, 3), _Stream(3, 4)])
    assert list(ch) == [0, 1, 2, 3] and len(ch) == 4
    bad = tld.ChainDataset([_Stream(0, 1), _Squares(2)])
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        list(bad)
    with pytest.raises(AssertionError, match="ChainDataset only supports IterableDataset"):
        len(bad)


def test_subset():
    s = tld.Subset(_Squares(10), [7, 2, 5])
    assert len(s) == 3 and [s[i] for i in range(3)] == [49, 4, 25] and s[-1] == 25
    assert s.__getitems__([2, 0]) == [25, 49]
    inner = tld.TensorDataset(torchlite.arange(10))
    assert tld.Subset(inner, [4, 1])[[0, 1]][0].tolist() == [4, 1]

    class OnlyGetitem(tld.Subset):
        def __getitem__(self, idx):
            return 0
    with pytest.raises(NotImplementedError, match="overrides __getitem__ but not __getitems__"):
        OnlyGetitem(_Squares(3), [0])


def test_stack_dataset_tuple_and_dict():
    a, b = _Squares(4), tld.TensorDataset(torchlite.arange(4))
    t = tld.StackDataset(a, b)
    assert len(t) == 4 and t[2][0] == 4 and t[2][1][0].item() == 2
    d = tld.StackDataset(sq=a, x=b)
    assert d[3]["sq"] == 9 and d[3]["x"][0].item() == 3
    assert [r["sq"] for r in d.__getitems__([1, 3])] == [1, 9]
    assert [r[0] for r in t.__getitems__([3, 0])] == [9, 0]
    ref = tud.StackDataset(sq=[0, 1, 4, 9], y=[5, 6, 7, 8]).__getitems__([0, 2])
    assert tld.StackDataset(sq=[0, 1, 4, 9], y=[5, 6, 7, 8]).__getitems__([0, 2]) == ref


def test_stack_dataset_errors():
    with pytest.raises(ValueError, match="but both types are given"):
        tld.StackDataset(_Squares(2), x=_Squares(2))
    with pytest.raises(ValueError, match="At least one dataset should be passed"):
        tld.StackDataset()
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        tld.StackDataset(_Squares(2), _Squares(3))
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        tld.StackDataset(a=_Squares(2), b=_Squares(3))

    class Short(tld.Dataset):
        def __len__(self):
            return 3

        def __getitems__(self, idx):
            return [0]
    with pytest.raises(ValueError, match="Nested dataset's output size mismatch. Expected 2, got 1"):
        tld.StackDataset(Short(), _Squares(3)).__getitems__([0, 1])


@pytest.mark.parametrize("n,lengths", [(10, [3, 7]), (30, [0.3, 0.3, 0.4]), (11, [0.5, 0.5]),
                                       (7, [0.1, 0.2, 0.7]), (5, [5]), (0, [0, 0])])
@pytest.mark.parametrize("seed", [0, 42])
def test_random_split_equals_torch(n, lengths, seed):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = tud.random_split(range(n), lengths, generator=torch.Generator().manual_seed(seed))
        got = tld.random_split(range(n), lengths, generator=torchlite.Generator().manual_seed(seed))
    assert [list(s.indices) for s in got] == [list(s.indices) for s in ref]
    assert [list(s) for s in got] == [list(s) for s in ref]


def test_random_split_default_generator_follows_manual_seed():
    torch.manual_seed(3)
    torchlite.manual_seed(3)
    ref = tud.random_split(range(20), [0.25, 0.75])
    got = tld.random_split(range(20), [0.25, 0.75])
    assert [s.indices for s in got] == [s.indices for s in ref]


def test_random_split_errors_and_warnings():
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        tld.random_split(range(10), [3, 3])
    with pytest.raises(ValueError, match="Fraction at index 0 is not between 0 and 1"):
        tld.random_split(range(10), [1.5, -0.5])
    with pytest.warns(UserWarning, match="Length of split at index 1 is 0"):
        tld.random_split(range(1), [0.5, 0.5])
