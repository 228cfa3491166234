"""DataLoader against torch.utils.data.DataLoader: options, errors, lengths, batches and random streams, in the
main process and with worker processes. Worker tests pass timeout= so a bug fails instead of hanging."""
import dataclasses
import multiprocessing
import os
from multiprocessing.reduction import ForkingPickler
import warnings

import numpy as np
import pytest
import torch
import torch.utils.data as tud

import torchlite
import torchlite.utils.data as tld

WAIT = 30  # seconds a worker test may wait for one batch
# 3 workers shard unevenly; on a 2-core machine PyTorch and torchlite warn about the worker count.
pytestmark = pytest.mark.filterwarnings("ignore:This DataLoader will create:UserWarning")


def _lib(L):
    return tld if L is torchlite else tud


def _tolist(batch):
    if isinstance(batch, (torch.Tensor, torchlite.Tensor)):
        return batch.tolist()
    if isinstance(batch, (list, tuple)):
        return [_tolist(b) for b in batch]
    if isinstance(batch, dict):
        return {k: _tolist(v) for k, v in batch.items()}
    return batch


def _run(L, make_dataset, **kw):
    """All batches (as lists) of a DataLoader of library L over make_dataset(L)."""
    if "generator" in kw:
        kw["generator"] = L.Generator().manual_seed(kw["generator"])
    return [_tolist(b) for b in _lib(L).DataLoader(make_dataset(L), **kw)]


def _tensors(L):
    return _lib(L).TensorDataset(L.arange(23.0).reshape(23, 1), L.arange(23))


# Datasets at module level, so spawned workers can unpickle them.
class RandomDraws(tld.Dataset):
    """Each sample records which worker made it and draws from the random streams the worker seeded."""

    def __init__(self, lib, n=8):
        self.lib, self.n = lib, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        info = tld.get_worker_info() if self.lib is torchlite else tud.get_worker_info()
        return {"i": i, "rand": self.lib.rand(1), "np": float(np.random.rand()),
                "wid": -1 if info is None else info.id, "seed": -1 if info is None else info.seed}


class TorchRandomDraws(tud.Dataset):
    __init__, __len__, __getitem__ = RandomDraws.__init__, RandomDraws.__len__, RandomDraws.__getitem__


class ShardedRange(tld.IterableDataset):
    """range(start, stop), split into contiguous shards among the workers, as PyTorch's docs show."""

    def __init__(self, start, stop, lib=torchlite):
        self.start, self.stop, self.torch_side = start, stop, lib is torch  # a bool pickles for spawn

    def __len__(self):
        return self.stop - self.start

    def __iter__(self):
        info = tud.get_worker_info() if self.torch_side else tld.get_worker_info()
        lo, hi = self.start, self.stop
        if info is not None:
            per = -(-(hi - lo) // info.num_workers)
            lo = lo + info.id * per
            hi = min(lo + per, self.stop)
        return iter(range(lo, hi))


class TorchShardedRange(tud.IterableDataset):
    __init__, __len__, __iter__ = ShardedRange.__init__, ShardedRange.__len__, ShardedRange.__iter__


class Failing(tld.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise ValueError(f"bad sample {i}")
        if i == 6:
            raise KeyError("missing")
        return i


class Dying(tld.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 3:
            os._exit(3)
        return i


class Slow(tld.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        import time
        time.sleep(1.5 if i == 2 else 0)
        return i


# ---- the main process (num_workers=0)

@pytest.mark.parametrize("kw", [
    dict(), dict(batch_size=5), dict(batch_size=5, drop_last=True), dict(batch_size=None),
    dict(batch_size=4, shuffle=True, generator=1), dict(batch_size=None, shuffle=True, generator=2),
    dict(batch_size=23), dict(batch_size=50, drop_last=True),
])
def test_map_dataset_batches_equal_torch(kw):
    ref = _run(torch, _tensors, **kw)
    assert _run(torchlite, _tensors, **kw) == ref
    loader = tld.DataLoader(_tensors(torchlite), **{k: v for k, v in kw.items() if k != "generator"})
    assert len(loader) == len(tud.DataLoader(_tensors(torch), **{k: v for k, v in kw.items() if k != "generator"}))


def test_samplers_and_collate_fn():
    for L in (torch, torchlite):
        D = _lib(L)
        data = list(range(10))
        s = D.DataLoader(data, sampler=D.SequentialSampler(range(3)), batch_size=2)
        bs = D.DataLoader(data, batch_sampler=[[3, 1], [0]])
        cf = D.DataLoader(data, batch_size=4, collate_fn=lambda b: sum(b))
        out = (_tolist(list(s)), _tolist(list(bs)), list(cf), len(bs), len(cf))
        if L is torch:
            ref = out
    assert out == ref == ([[0, 1], [2]], [[3, 1], [0]], [6, 22, 17], 2, 3)


def test_shuffle_without_generator_follows_manual_seed():
    torch.manual_seed(5)
    torchlite.manual_seed(5)
    for _ in range(2):
        ref = _run(torch, _tensors, batch_size=6, shuffle=True)
        assert _run(torchlite, _tensors, batch_size=6, shuffle=True) == ref
    # base seed and sampler seed: each epoch draws two int64s from the default generator, as PyTorch
    assert torchlite.rand(2).tolist() == pytest.approx(torch.rand(2).tolist())


def test_dataloader_draws_base_seed_from_its_generator():
    for L in (torch, torchlite):
        g = L.Generator().manual_seed(9)
        iter(_lib(L).DataLoader(range(3), generator=g))
        draw = L.randint(0, 1000, (4,), generator=g).tolist()
        if L is torch:
            ref = draw
    assert draw == ref


def test_iterable_dataset_batches_and_len():
    for kw in (dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None), dict()):
        ref = [_tolist(b) for b in tud.DataLoader(TorchShardedRange(0, 10, torch), **kw)]
        got = [_tolist(b) for b in tld.DataLoader(ShardedRange(0, 10), **kw)]
        assert got == ref
        ref_len = len(tud.DataLoader(TorchShardedRange(0, 10, torch), **kw))
        assert len(tld.DataLoader(ShardedRange(0, 10), **kw)) == ref_len


def test_iterable_dataset_longer_than_len_warns():
    class Liar(tld.IterableDataset):
        def __len__(self):
            return 2

        def __iter__(self):
            return iter(range(4))
    loader = tld.DataLoader(Liar(), batch_size=None)
    assert len(loader) == 2
    with pytest.warns(UserWarning, match=r"was reported to be 2\(when accessing len\(dataloader\)\), but \d samples"):
        list(loader)


def test_iterable_dataset_without_len():
    class NoLen(tld.IterableDataset):
        def __iter__(self):
            return iter(range(3))
    with pytest.raises(TypeError):
        len(tld.DataLoader(NoLen()))
    assert [b.tolist() for b in tld.DataLoader(NoLen(), batch_size=2)] == [[0, 1], [2]]


def _errors(L, dataset_kind):
    D = _lib(L)
    if dataset_kind == "iter":
        ds = TorchShardedRange(0, 3, torch) if L is torch else ShardedRange(0, 3)
    else:
        ds = list(range(4))
    cases = [dict(num_workers=-1), dict(timeout=-1), dict(prefetch_factor=2), dict(num_workers=1, prefetch_factor=-1),
             dict(persistent_workers=True), dict(multiprocessing_context="fork"),
             dict(num_workers=1, multiprocessing_context="nope"), dict(num_workers=1, multiprocessing_context=3),
             dict(batch_size=None, drop_last=True)]
    if dataset_kind == "iter":
        cases += [dict(shuffle=True), dict(sampler=[0]), dict(batch_sampler=[[0]])]
    else:
        cases += [dict(sampler=[0], shuffle=True), dict(batch_sampler=[[0]], batch_size=2),
                  dict(batch_sampler=[[0]], shuffle=True), dict(batch_sampler=[[0]], sampler=[0]),
                  dict(batch_sampler=[[0]], drop_last=True)]
    out = []
    for kw in cases:
        try:
            D.DataLoader(ds, **kw)
            out.append(None)
        except Exception as e:  # noqa: BLE001 - comparing the error itself
            msg = str(e).replace("torch.", "").replace("torchlite.", "")
            out.append((type(e).__name__, msg.split(" but got")[0]))
    return out


@pytest.mark.parametrize("dataset_kind", ["map", "iter"])
def test_option_errors_equal_torch(dataset_kind):
    ref = _errors(torch, dataset_kind)
    assert all(r is not None for r in ref)
    assert _errors(torchlite, dataset_kind) == ref


def test_attributes_frozen_after_init():
    loader = tld.DataLoader(range(3))
    for attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset", "persistent_workers"):
        with pytest.raises(ValueError, match=f"{attr} attribute should not be set after DataLoader is initialized"):
            setattr(loader, attr, None)
    loader.collate_fn = None  # others may change
    assert loader.prefetch_factor is None and loader.num_workers == 0 and loader.timeout == 0


def test_defaults_and_pin_memory_warning():
    loader = tld.DataLoader(range(3))
    assert loader.batch_size == 1 and loader.drop_last is False and loader.pin_memory is False
    assert isinstance(loader.sampler, tld.SequentialSampler) and isinstance(loader.batch_sampler, tld.BatchSampler)
    assert loader.collate_fn is tld.default_collate
    assert tld.DataLoader(range(3), batch_size=None).collate_fn is tld.default_convert
    assert tld.DataLoader(range(3), num_workers=2).prefetch_factor == 2
    with pytest.warns(UserWarning, match="'pin_memory' argument is set as true but no accelerator is found"):
        assert [b.tolist() for b in tld.DataLoader(range(3), pin_memory=True)] == [[0], [1], [2]]


def test_single_process_rejects_pickling_iterator():
    with pytest.raises(NotImplementedError):
        import pickle
        pickle.dumps(iter(tld.DataLoader(range(3))))


def test_timeout_without_workers_rejected_at_iter():
    for D in (tud, tld):
        loader = D.DataLoader(range(3), timeout=1)
        with pytest.raises(AssertionError, match="_SingleProcessDataLoaderIter requires timeout == 0"):
            iter(loader)


def test_get_worker_info_in_main_process():
    assert tld.get_worker_info() is None


# ---- worker processes (fork unless said otherwise); each test is a few seconds at most

def _no_children_left():
    """True once every worker has exited. Iterators still referenced (an exception's traceback holds the
    frames) keep their workers, as in PyTorch: collect them first."""
    import gc
    gc.collect()
    for p in multiprocessing.active_children():
        p.join(timeout=5)
    return multiprocessing.active_children() == []


def test_workers_deliver_same_batches_in_order():
    expected = _run(torchlite, _tensors, batch_size=4, shuffle=True, generator=3)
    assert _run(torch, _tensors, batch_size=4, shuffle=True, generator=3) == expected
    got = _run(torchlite, _tensors, batch_size=4, shuffle=True, generator=3, num_workers=2, timeout=WAIT)
    assert got == expected
    got = _run(torchlite, _tensors, batch_size=None, num_workers=3, prefetch_factor=1, timeout=WAIT)
    assert got == _run(torchlite, _tensors, batch_size=None)
    assert _no_children_left()


def test_in_order_false_delivers_every_batch():
    got = _run(torchlite, _tensors, batch_size=4, num_workers=2, in_order=False, timeout=WAIT)
    assert sorted(got) == sorted(_run(torchlite, _tensors, batch_size=4))
    assert _no_children_left()


def test_worker_seeding_and_worker_info_equal_torch():
    """Per worker, torch's and torchlite's random and NumPy streams, seeds and ids agree for the same loader
    generator: base_seed comes from the generator and worker k is seeded base_seed + k."""
    def run(L, ds):
        g = L.Generator().manual_seed(123)
        batches = list(_lib(L).DataLoader(ds, batch_size=2, num_workers=2, generator=g, timeout=WAIT,
                                          worker_init_fn=_record_init))
        return [{k: _tolist(v) for k, v in b.items()} for b in batches]
    ref = run(torch, TorchRandomDraws(torch))
    got = run(torchlite, RandomDraws(torchlite))
    assert [b["wid"] for b in got] == [[0, 0], [1, 1], [0, 0], [1, 1]]
    assert got == ref
    assert _no_children_left()


def _record_init(worker_id):
    info = tld.get_worker_info() or tud.get_worker_info()
    assert info.id == worker_id and info.num_workers == 2
    with pytest.raises(dataclasses.FrozenInstanceError, match="cannot assign to field 'id'"):
        info.id = 5
    assert info.worker_method == "multiprocessing" and info.rng is None


def test_iterable_dataset_sharded_across_workers_equals_torch():
    for kw in (dict(batch_size=2), dict(batch_size=None), dict(batch_size=3, drop_last=True)):
        ref = [_tolist(b) for b in tud.DataLoader(TorchShardedRange(0, 11, torch), num_workers=3, timeout=WAIT, **kw)]
        got = [_tolist(b) for b in tld.DataLoader(ShardedRange(0, 11), num_workers=3, timeout=WAIT, **kw)]
        assert got == ref
    assert _no_children_left()


def test_worker_exception_reraised_with_traceback():
    loader = tld.DataLoader(Failing(), batch_size=2, num_workers=2, timeout=WAIT)
    with pytest.raises(ValueError) as e:
        list(loader)
    text = str(e.value)
    assert text.startswith("Caught ValueError in DataLoader worker process 0.\nOriginal Traceback (most recent")
    assert "bad sample 5" in text and "in __getitem__" in text
    with pytest.raises(KeyError) as e:
        list(tld.DataLoader(Failing(), sampler=[6], num_workers=1, timeout=WAIT))
    assert "Caught KeyError in DataLoader worker process 0." in str(e.value)
    del e
    assert _no_children_left()


def test_worker_init_fn_exception_reraised():
    with pytest.raises(ZeroDivisionError, match="Caught ZeroDivisionError in DataLoader worker process"):
        list(tld.DataLoader(range(4), num_workers=1, worker_init_fn=_divide_by_zero, timeout=WAIT))
    assert _no_children_left()


def _divide_by_zero(worker_id):
    return 1 / 0


def test_worker_crash_raises_instead_of_hanging():
    loader = tld.DataLoader(Dying(), batch_size=1, num_workers=2)
    with pytest.raises(RuntimeError, match=r"DataLoader worker \(pid\(s\) \d+\) exited unexpectedly"):
        list(loader)
    del loader
    assert _no_children_left()


def test_timeout_expires():
    with pytest.raises(RuntimeError, match="DataLoader timed out after 0.5 seconds"):
        list(tld.DataLoader(Slow(), num_workers=1, timeout=0.5))
    assert _no_children_left()


def test_persistent_workers_reused_across_epochs():
    loader = tld.DataLoader(_tensors(torchlite), batch_size=5, shuffle=True, num_workers=2, persistent_workers=True,
                            generator=torchlite.Generator().manual_seed(0), timeout=WAIT)
    it1 = iter(loader)
    first = [_tolist(b) for b in it1]
    pids = [w.pid for w in it1._workers]
    second = [_tolist(b) for b in loader]
    assert loader._iterator is it1 and [w.pid for w in it1._workers] == pids and all(w.is_alive() for w in it1._workers)
    # persistent workers draw one base seed for the loader's life, so the second shuffle differs from num_workers=0
    ref_loader = tud.DataLoader(_tensors(torch), batch_size=5, shuffle=True, num_workers=2, persistent_workers=True,
                                generator=torch.Generator().manual_seed(0), timeout=WAIT)
    ref = [[_tolist(b) for b in ref_loader] for _ in range(2)]
    assert [first, second] == ref
    del ref_loader
    # an iterable dataset restarts at each epoch too
    loader = tld.DataLoader(ShardedRange(0, 5), batch_size=2, num_workers=2, persistent_workers=True, timeout=WAIT)
    assert [_tolist(list(loader)) for _ in range(2)] == [[[0, 1], [3, 4], [2]]] * 2
    del loader, it1
    import gc
    gc.collect()
    assert _no_children_left()


def test_abandoned_iterator_shuts_workers_down():
    it = iter(tld.DataLoader(range(100), num_workers=2, timeout=WAIT))
    assert next(it).tolist() == [0]
    workers = list(it._workers)
    del it
    import gc
    gc.collect()
    for w in workers:
        w.join(timeout=10)
        assert not w.is_alive()


def test_spawn_context():
    # Library objects only: a spawned worker that had to unpickle a class of this file would import torch.
    ctx = multiprocessing.get_context("spawn")
    got = _run(torchlite, _tensors, batch_size=8, num_workers=2, multiprocessing_context=ctx, timeout=60)
    assert got == _run(torchlite, _tensors, batch_size=8)
    assert _no_children_left()


class AllDtypes(tld.Dataset):
    def __init__(self, grad=True):
        self.grad = grad

    def __len__(self):
        return 2

    def __getitem__(self, i):
        base = torchlite.arange(6).reshape(2, 3) + i
        out = {str(dt): base.to(dt) for dt in (torchlite.float32, torchlite.float64, torchlite.float16,
                                               torchlite.bfloat16, torchlite.int8, torchlite.uint8,
                                               torchlite.int16, torchlite.uint16, torchlite.int32,
                                               torchlite.int64, torchlite.bool)}
        out["transposed"] = base.t()
        out["empty"] = torchlite.zeros(0, 4)
        out["scalar"] = torchlite.tensor(1.5)
        if self.grad:
            out["grad"] = torchlite.ones(2, requires_grad=True)
        return out


def test_every_dtype_crosses_the_process_boundary():
    def describe(batches):
        return [{k: (str(v.dtype), tuple(v.shape), v.detach().tolist(), v.requires_grad) for k, v in b.items()}
                for b in batches]
    expected = describe(tld.DataLoader(AllDtypes(), batch_size=None))
    got = describe(tld.DataLoader(AllDtypes(), batch_size=None, num_workers=1, timeout=WAIT))
    assert got == expected
    expected = describe(tld.DataLoader(AllDtypes(grad=False), batch_size=2))
    got = [b for b in tld.DataLoader(AllDtypes(grad=False), batch_size=2, num_workers=1, timeout=WAIT)]
    assert describe(got) == expected
    # collated into shared memory in the worker (an empty batch has no memory to share, as in PyTorch)
    assert all(v.is_shared() == (v.numel() > 0) for b in got for v in b.values())
    assert _no_children_left()


def test_a_worker_cannot_collate_tensors_that_require_grad():
    """A worker stacks into shared memory with out=, which autograd refuses: PyTorch's error, from the worker."""
    class RequiresGrad(tld.Dataset):
        def __len__(self):
            return 2

        def __getitem__(self, i):
            return torchlite.ones(2, requires_grad=True)
    loader = tld.DataLoader(RequiresGrad(), batch_size=2, num_workers=1, timeout=WAIT)
    with pytest.raises(RuntimeError, match=r"Caught RuntimeError in DataLoader worker process 0(.|\n)*stack\(\): "
                       "functions with out=... arguments don't support automatic differentiation"):
        list(loader)
    assert [t.requires_grad for t in tld.DataLoader(RequiresGrad(), batch_size=None, num_workers=1, timeout=WAIT)] \
        == [True, True]
    assert _no_children_left()


def test_spawn_with_unpicklable_collate_fn_fails_cleanly():
    loader = tld.DataLoader(range(4), num_workers=2, collate_fn=lambda b: b, multiprocessing_context="spawn")
    with pytest.raises(AttributeError, match="Can't pickle local object") as e:  # pickle's own error, as PyTorch
        iter(loader)
    del e
    assert _no_children_left()


class HeavyOps(tld.Dataset):
    """Kernels big enough to use the intra-op thread pool."""

    def __len__(self):
        return 4

    def __getitem__(self, i):
        x = torchlite.ones(600, 600) * (i + 1)
        return float((x @ x).sum()) + float(x.exp().sum())


def test_forked_workers_after_parallel_kernels_in_parent():
    # The parent's thread pool was running kernels when fork copied it without its threads: the workers must
    # not hang on it.
    x = torchlite.ones(600, 600)
    float((x @ x).exp().sum())
    got = [b.tolist() for b in tld.DataLoader(HeavyOps(), batch_size=2, num_workers=2, timeout=WAIT,
                                             multiprocessing_context="fork")]
    assert got == [b.tolist() for b in tld.DataLoader(HeavyOps(), batch_size=2)]
    assert _no_children_left()


# ---- batches through shared memory (issue 12): torchlite/utils/data/_batch_transport.py


def _open_fds():
    return len(os.listdir("/proc/self/fd"))


def _fds_back_to(count):
    """Whether this process's open descriptors come back to `count` within a few seconds: the feeder threads
    of closed queues close their pipes asynchronously."""
    import time
    deadline = time.monotonic() + 10
    while _open_fds() > count and time.monotonic() < deadline:
        time.sleep(0.05)
    return _open_fds() == count


def test_worker_batches_are_shared_memory_and_leak_no_descriptors():
    images = torchlite.arange(2 * 16 * 3, dtype=torchlite.float32).reshape(16 * 2, 3)
    dataset = tld.TensorDataset(images, torchlite.arange(32))
    loader = tld.DataLoader(dataset, batch_size=5, num_workers=2, timeout=WAIT)
    list(loader)  # warm-up: multiprocessing's own helpers open descriptors once
    assert _no_children_left()
    before = _open_fds()
    batches = list(loader)
    assert _no_children_left()
    assert _fds_back_to(before)  # the batches hold mappings, not descriptors
    assert [b[1].tolist() for b in batches] == [list(range(i, min(i + 5, 32))) for i in range(0, 32, 5)]
    assert all(x.is_shared() and y.is_shared() for x, y in batches)
    assert torchlite.equal(torchlite.cat([x for x, _ in batches]), images)
    # Passed on (multiprocessing's resource sharer then keeps a listening socket), a batch moves to new memory.
    resent = ForkingPickler.loads(ForkingPickler.dumps(batches[0][0]))
    assert torchlite.equal(resent, batches[0][0]) and resent.is_shared()
    del batches, resent
    assert _no_children_left()


def _packed_roundtrip(batches, unpack=None):
    from torchlite.utils.data import _batch_transport as bt
    ours, theirs = bt.channel()
    sender, receiver = bt.BatchSender(0, theirs), bt.BatchReceiver([ours])
    try:
        packed = [sender.pack(b) for b in batches]
        return [receiver.unpack(packed[i]) for i in (unpack if unpack is not None else range(len(packed)))]
    finally:
        receiver.close()
        theirs.close()


def test_the_batch_transport_maps_the_same_memory_and_keeps_views():
    base = torchlite.arange(12.0).reshape(3, 4).share_memory_()
    (got,) = _packed_roundtrip([{"a": base[1:], "b": base.t(), "n": 3, "s": "x"}])
    assert got["n"] == 3 and got["s"] == "x"
    assert got["a"].tolist() == base[1:].tolist() and got["b"].stride() == (1, 4)
    assert got["a"].untyped_storage() is got["b"].untyped_storage()  # one descriptor per storage and batch
    got["a"][0, 0] = -1.0
    assert base[1, 0].item() == -1.0


def test_the_batch_transport_skips_batches_never_unpacked_and_sends_many_descriptors():
    before = _open_fds()
    batches = [[torchlite.full((2,), float(i))] for i in range(3)]
    got = _packed_roundtrip(batches, unpack=[2])  # 0 and 1 were never unpacked: their descriptors are closed
    assert got[0][0].tolist() == [2.0, 2.0]
    many = [torchlite.full((1,), float(i)) for i in range(300)]  # over the 253 descriptors of one message
    (back,) = _packed_roundtrip([many])
    assert [t.item() for t in back] == list(range(300))
    del got, back, batches, many
    assert _fds_back_to(before)


def test_spawned_workers_send_shared_batches():
    ctx = multiprocessing.get_context("spawn")
    dataset = tld.TensorDataset(torchlite.arange(8.0).reshape(4, 2))
    batches = list(tld.DataLoader(dataset, batch_size=2, num_workers=1, multiprocessing_context=ctx, timeout=WAIT))
    assert [b[0].tolist() for b in batches] == [[[0.0, 1.0], [2.0, 3.0]], [[4.0, 5.0], [6.0, 7.0]]]
    assert all(b[0].is_shared() for b in batches)
    del batches
    assert _no_children_left()
