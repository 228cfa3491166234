"""torchlite.utils.data samplers against torch.utils.data: the same index sequences for the same seeds."""
import pytest
import torch
import torch.utils.data as tud

import torchlite
import torchlite.utils.data as tld


def _gens(seed):
    return torch.Generator().manual_seed(seed), torchlite.Generator().manual_seed(seed)


def test_sampler_base():
    with pytest.raises(NotImplementedError):
        iter(tld.Sampler())
    with pytest.raises(TypeError):
        len(tld.Sampler())
    with pytest.raises(TypeError, match=r"Sampler\(\) takes no arguments"):
        tld.Sampler(range(3))


def test_sequential_sampler():
    s = tld.SequentialSampler(range(5))
    assert list(s) == [0, 1, 2, 3, 4] and len(s) == 5
    assert list(tld.SequentialSampler([])) == []


@pytest.mark.parametrize("n,num_samples", [(10, None), (7, 3), (5, 12), (1, None), (100, 70)])
@pytest.mark.parametrize("replacement", [False, True])
def test_random_sampler_equals_torch(n, num_samples, replacement):
    tg, lg = _gens(n * 31 + 7)
    ref = tud.RandomSampler(range(n), replacement=replacement, num_samples=num_samples, generator=tg)
    got = tld.RandomSampler(range(n), replacement=replacement, num_samples=num_samples, generator=lg)
    assert len(got) == len(ref)
    for _ in range(2):  # the generator carries over from epoch to epoch
        assert list(got) == list(ref)


def test_random_sampler_replacement_over_32_chunks():
    tg, lg = _gens(5)
    ref = tud.RandomSampler(range(9), replacement=True, num_samples=75, generator=tg)
    got = tld.RandomSampler(range(9), replacement=True, num_samples=75, generator=lg)
    assert list(got) == list(ref)


def test_random_sampler_without_generator_follows_manual_seed():
    torch.manual_seed(11)
    torchlite.manual_seed(11)
    ref = tud.RandomSampler(range(20))
    got = tld.RandomSampler(range(20))
    assert list(got) == list(ref)
    assert list(got) == list(ref)
    # it drew one int64 from the default generator per epoch, as PyTorch
    assert torchlite.rand(3).tolist() == pytest.approx(torch.rand(3).tolist())


def test_random_sampler_length_follows_dataset():
    data = list(range(4))
    s = tld.RandomSampler(data)
    data.append(4)
    assert len(s) == 5 and sorted(s) == [0, 1, 2, 3, 4]


def test_random_sampler_errors():
    with pytest.raises(TypeError, match="replacement should be a boolean value, but got replacement=1"):
        tld.RandomSampler(range(3), replacement=1)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        tld.RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=0"):
        tld.RandomSampler([])
    with pytest.raises(ValueError, match="num_samples=2.0"):
        tld.RandomSampler(range(3), num_samples=2.0)


def test_subset_random_sampler_equals_torch():
    idx = [10, 3, 7, 42, 8]
    tg, lg = _gens(2)
    ref, got = tud.SubsetRandomSampler(idx, generator=tg), tld.SubsetRandomSampler(idx, generator=lg)
    assert len(got) == 5
    assert list(got) == list(ref)
    assert list(got) == list(ref)


@pytest.mark.parametrize("replacement", [True, False])
def test_weighted_random_sampler_equals_torch(replacement):
    w = [0.1, 0.9, 0.4, 0.7, 3.0, 0.6]
    tg, lg = _gens(0)
    ref = tud.WeightedRandomSampler(w, 5, replacement=replacement, generator=tg)
    got = tld.WeightedRandomSampler(w, 5, replacement=replacement, generator=lg)
    assert len(got) == 5 and got.weights.dtype == torchlite.float64
    assert list(got) == list(ref)
    got_t = tld.WeightedRandomSampler(torchlite.tensor(w), 5, replacement=replacement, generator=lg)
    assert list(got_t) == list(tud.WeightedRandomSampler(torch.tensor(w), 5, replacement=replacement, generator=tg))


def test_weighted_random_sampler_statistics():
    g = torchlite.Generator().manual_seed(1)
    drawn = list(tld.WeightedRandomSampler([1.0, 3.0], 20000, generator=g))
    assert abs(drawn.count(1) / 20000 - 0.75) < 0.02


def test_weighted_random_sampler_errors():
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=True"):
        tld.WeightedRandomSampler([1.0], True)
    with pytest.raises(ValueError, match="num_samples should be a positive integer value, but got num_samples=-1"):
        tld.WeightedRandomSampler([1.0], -1)
    with pytest.raises(ValueError, match="replacement should be a boolean value, but got replacement=0"):
        tld.WeightedRandomSampler([1.0], 1, replacement=0)
    with pytest.raises(ValueError, match=r"weights should be a 1d sequence but given weights have shape \(2, 1\)"):
        tld.WeightedRandomSampler([[1.0], [2.0]], 1)
    with pytest.raises(RuntimeError, match="multinomial"):  # more draws than categories without replacement
        list(tld.WeightedRandomSampler([1.0, 1.0], 3, replacement=False))


@pytest.mark.parametrize("n,bs", [(10, 3), (9, 3), (2, 5), (0, 2)])
@pytest.mark.parametrize("drop_last", [False, True])
def test_batch_sampler_equals_torch(n, bs, drop_last):
    ref = tud.BatchSampler(tud.SequentialSampler(range(n)), bs, drop_last)
    got = tld.BatchSampler(tld.SequentialSampler(range(n)), bs, drop_last)
    assert list(got) == list(ref)
    assert len(got) == len(ref)


def test_batch_sampler_any_iterable_and_random():
    assert list(tld.BatchSampler([5, 6, 7], 2, False)) == [[5, 6], [7]]
    tg, lg = _gens(4)
    ref = tud.BatchSampler(tud.RandomSampler(range(11), generator=tg), 4, False)
    got = tld.BatchSampler(tld.RandomSampler(range(11), generator=lg), 4, False)
    assert list(got) == list(ref)


def test_batch_sampler_errors():
    for bad in (0, -1, True, 2.0):
        msg = f"batch_size should be a positive integer value, but got batch_size={bad}"
        with pytest.raises(ValueError, match=msg):
            tld.BatchSampler(range(3), bad, False)
    with pytest.raises(ValueError, match="drop_last should be a boolean value, but got drop_last=1"):
        tld.BatchSampler(range(3), 2, 1)
