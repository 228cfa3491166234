"""torchlite.multiprocessing (issue 12): the stdlib API re-exported, tensors and storages that cross processes
through shared memory, spawn()/start_processes(), and Hogwild training on a shared model.

Most sharing properties are checked in one process: ForkingPickler.dumps then loads maps the same memory a
receiver would (the descriptor goes through this process's own resource sharer). The tests that start
processes use the helpers of tests/mp_children.py, join with timeouts and kill what is left."""
import multiprocessing as stdlib_mp
import os
import pickle
import re
import signal
import sys
import warnings
from multiprocessing.reduction import ForkingPickler

import numpy as np
import pytest
import torch
import torch.multiprocessing as torch_mp

import mp_children
import torchlite as tl
import torchlite.multiprocessing as mp

TIMEOUT = 60  # seconds: generous for a loaded 2-core machine; nothing waits this long when all goes well


def roundtrip(obj):
    return ForkingPickler.loads(ForkingPickler.dumps(obj))


@pytest.fixture
def reaper():
    """Processes registered here are terminated (then killed) and joined however the test ends."""
    started = []
    yield started
    for p in started:
        p.join(TIMEOUT if p.exitcode is None and not p.is_alive() else 0.1)
        if p.is_alive():
            p.terminate()
            p.join(5)
        if p.is_alive():
            p.kill()
            p.join(5)


# ------------------------------------------------------------------------------------------ the module


def test_reexports_the_stdlib_api_as_torch_does():
    assert sorted(mp.__all__) == sorted(torch_mp.__all__)
    for name in stdlib_mp.__all__:
        assert hasattr(mp, name), name
    assert mp.get_context("spawn").get_start_method() == "spawn"
    assert mp.cpu_count() == stdlib_mp.cpu_count()


def test_sharing_strategies_match_torch():
    assert mp.get_all_sharing_strategies() == torch_mp.get_all_sharing_strategies()
    assert mp.get_sharing_strategy() == torch_mp.get_sharing_strategy() == "file_descriptor"
    try:
        mp.set_sharing_strategy("file_system")
        assert mp.get_sharing_strategy() == "file_system"
        t = roundtrip(tl.arange(3.0))  # still sent through shared memory
        assert t.is_shared() and t.tolist() == [0.0, 1.0, 2.0]
    finally:
        mp.set_sharing_strategy("file_descriptor")
    with pytest.raises(AssertionError) as ours:
        mp.set_sharing_strategy("nope")
    with pytest.raises(AssertionError) as theirs:
        torch_mp.set_sharing_strategy("nope")
    assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------------------ pickling for processes


def test_a_sent_tensor_moves_to_shared_memory_and_the_receiver_maps_it():
    x = tl.arange(12.0).reshape(3, 4)
    assert not x.is_shared()
    y = roundtrip(x)
    assert x.is_shared() and y.is_shared()  # moved in place on send, as PyTorch does
    assert y.tolist() == x.tolist() and y.dtype == x.dtype
    assert y.untyped_storage().data_ptr() != x.untyped_storage().data_ptr()  # its own mapping...
    y[0, 0] = 100.0
    x[2, 3] = -5.0
    assert x[0, 0].item() == 100.0 and y[2, 3].item() == -5.0  # ...of the same memory


@pytest.mark.parametrize("dtype", [tl.float32, tl.float64, tl.int64, tl.int8, tl.bool, tl.bfloat16, tl.float16])
def test_every_dtype_crosses(dtype):
    x = (tl.arange(6) % 3).to(dtype)
    y = roundtrip(x)
    assert y.dtype == dtype and tl.equal(x, y)


def test_views_keep_their_offset_and_strides_and_share_one_storage_per_message():
    base = tl.arange(24.0).reshape(4, 6)
    views = [base[1:, ::2], base.t(), base[2], base]
    got = roundtrip(views)
    for v, g in zip(views, got):
        assert g.shape == v.shape and g.stride() == v.stride() and g.storage_offset() == v.storage_offset()
        assert g.tolist() == v.tolist()
    assert len({g.untyped_storage().data_ptr() for g in got}) == 1  # pickle's memo: one storage per message
    got[0][0, 0] = 99.0
    assert base[1, 0].item() == 99.0 and got[3][1, 0].item() == 99.0


def test_requires_grad_and_parameters_as_torch():
    leaf = tl.ones(3, requires_grad=True)
    got = roundtrip(leaf)
    assert got.requires_grad and got.is_leaf and got.grad_fn is None
    param = tl.nn.Parameter(tl.zeros(2))
    got = roundtrip(param)
    assert type(got) is tl.nn.Parameter and got.requires_grad
    got = roundtrip(tl.nn.Parameter(tl.zeros(2), requires_grad=False))
    assert type(got) is tl.nn.Parameter and not got.requires_grad

    with pytest.raises(RuntimeError) as ours:
        ForkingPickler.dumps(leaf * 2)
    with pytest.raises(RuntimeError) as theirs:
        ForkingPickler.dumps(torch.ones(3, requires_grad=True) * 2)
    assert str(ours.value) == str(theirs.value)
    assert str(ours.value).startswith("Cowardly refusing to serialize non-leaf tensor which requires_grad")
    assert not roundtrip((leaf * 2).detach()).requires_grad


def test_storages_cross_shared():
    u = tl.UntypedStorage(8)
    u[0] = 7
    got = roundtrip(u)
    assert type(got) is tl.UntypedStorage and got.is_shared() and got.nbytes() == 8
    got[1] = 9
    assert u[1] == 9 and got[0] == 7

    x = tl.tensor([1.0, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # TypedStorage is deprecated
        typed = x.storage()
        got = roundtrip(typed)
        assert type(got) is tl.TypedStorage and got.dtype == tl.float32 and got.tolist() == [1.0, 2.0]
        legacy = tl.FloatStorage(3)
        got = roundtrip(legacy)
        assert type(got) is tl.FloatStorage and got.size() == 3 and got.is_shared()

    empty = roundtrip(tl.UntypedStorage(0))
    assert empty.nbytes() == 0
    assert roundtrip(tl.empty(0, 3)).shape == (0, 3)
    with pytest.raises(RuntimeError, match="Cannot pickle meta storage"):
        ForkingPickler.dumps(tl.UntypedStorage(4, device="meta"))
    m = roundtrip(tl.empty(2, 3, device="meta"))
    assert m.is_meta and m.shape == (2, 3)


def test_a_storage_that_cannot_move_is_sent_as_a_shared_copy():
    """NumPy's memory (from_numpy) stays where it is: the receiver gets a copy in shared memory."""
    array = np.arange(4, dtype=np.float32)
    x = tl.from_numpy(array)
    y = roundtrip(x)
    assert not x.is_shared() and y.is_shared() and y.tolist() == [0.0, 1.0, 2.0, 3.0]
    y[0] = 5.0
    assert array[0] == 0.0
    # A view sends only its own elements (a sample of a from_numpy dataset views the whole dataset).
    big = tl.from_numpy(np.arange(1000, dtype=np.float32).reshape(100, 10))
    row = roundtrip(big[7, ::2])
    assert row.tolist() == [70.0, 72.0, 74.0, 76.0, 78.0] and row.untyped_storage().nbytes() == 20
    assert row.storage_offset() == 0 and row.stride() == (1,)
    leaf = roundtrip(tl.from_numpy(np.ones(2, dtype=np.float32)).requires_grad_())
    assert leaf.requires_grad and leaf.is_leaf and leaf.is_shared()


def test_plain_pickle_is_unchanged():
    """Only multiprocessing's pickler shares: pickle.dumps still copies the values."""
    x = tl.arange(3.0)
    y = pickle.loads(pickle.dumps(x))
    assert not x.is_shared() and not y.is_shared() and y.tolist() == x.tolist()


# --------------------------------------------------------------------- the storage's file descriptors


def test_mapping_a_descriptor_is_checked():
    s = tl.UntypedStorage(16)
    fd, size = s._share_fd_cpu_()
    assert size == 16 and s.is_shared() and s._share_fd_cpu_() == (fd, 16)  # already shared: nothing moves
    with pytest.raises(RuntimeError, match="fewer than the 17 requested"):
        tl.UntypedStorage._new_shared_fd_cpu(fd, 17)
    with pytest.raises(RuntimeError, match="size must not be negative"):
        tl.UntypedStorage._new_shared_fd_cpu(fd, -1)
    with pytest.raises(RuntimeError, match="invalid file descriptor"):
        tl.UntypedStorage._new_shared_fd_cpu(1 << 20, 4)
    directory = os.open(os.path.dirname(__file__), os.O_RDONLY)
    try:
        with pytest.raises(RuntimeError, match="not a shared memory file"):
            tl.UntypedStorage._new_shared_fd_cpu(directory, 4)
    finally:
        os.close(directory)
    unsealed = os.memfd_create("unsealed", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        os.ftruncate(unsealed, 16)
        with pytest.raises(RuntimeError, match="not sealed against shrinking"):
            tl.UntypedStorage._new_shared_fd_cpu(unsealed, 16)
    finally:
        os.close(unsealed)
    with pytest.raises(RuntimeError, match="_share_fd_cpu_: only CPU storages"):
        tl.UntypedStorage(4, device="meta")._share_fd_cpu_()
    mapped = tl.UntypedStorage._new_shared_fd_cpu(fd, 16, keep_fd=False)  # holds no descriptor of its own
    mapped[0] = 3
    assert s[0] == 3 and mapped.is_shared()
    address = mapped.data_ptr()
    fd2, size2 = mapped._share_fd_cpu_()  # to pass it on, it moves to new shared memory, bytes kept
    assert size2 == 16 and fd2 != fd and mapped.data_ptr() != address and mapped[0] == 3
    mapped[0] = 4
    assert s[0] == 3
    fresh = tl.UntypedStorage._new_using_fd_cpu(5)
    assert fresh.is_shared() and fresh.nbytes() == 5 and fresh.tolist() == [0] * 5 and not fresh.resizable()


# ------------------------------------------------------------------------------ between processes


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_queue_between_processes_shares_memory(method, reaper):
    ctx = mp.get_context(method)
    inbox, outbox, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=mp_children.write_and_send_back, args=(inbox, outbox, done), daemon=True)
    p.start()
    reaper.append(p)
    x = tl.zeros(3, 4)
    inbox.put(x)
    row = outbox.get(timeout=TIMEOUT)
    done.set()
    p.join(TIMEOUT)
    assert p.exitcode == 0
    assert x.tolist() == [[1.0] * 4] * 3  # the child's write
    assert row.shape == (4,) and row.storage_offset() == 4 and row.tolist() == [1.0] * 4
    row.fill_(7.0)
    assert x[1].tolist() == [7.0] * 4  # the row the child sent back is x's memory


def test_spawn_arguments_cross_even_when_the_memory_cannot_move(reaper):
    """A spawned child's arguments are pickled before it starts and their descriptors passed at launch: the
    shared copies made for memory that cannot move must live until then."""
    ctx = mp.get_context("spawn")
    outbox = ctx.Queue()
    tensors = [tl.from_numpy(np.arange(3, dtype=np.float32)), tl.tensor([5, 6]), tl.from_numpy(np.ones((2, 2)))[1]]
    p = ctx.Process(target=mp_children.report_values, args=(tensors, outbox), daemon=True)
    p.start()
    reaper.append(p)
    assert outbox.get(timeout=TIMEOUT) == [[0.0, 1.0, 2.0], [5, 6], [1.0, 1.0]]
    p.join(TIMEOUT)
    assert p.exitcode == 0


def test_pipe_between_processes_shares_memory(reaper):
    ctx = mp.get_context("fork")
    here, there = ctx.Pipe()
    p = ctx.Process(target=mp_children.write_through_pipe, args=(there,), daemon=True)
    p.start()
    reaper.append(p)
    x = tl.arange(4.0)
    here.send(x)
    assert here.poll(TIMEOUT) and here.recv() == "written"
    here.send("exit")
    p.join(TIMEOUT)
    assert p.exitcode == 0 and x.tolist() == [0.0, -1.0, -2.0, -3.0]


# ------------------------------------------------------------------------------------------- spawn


def test_spawn_runs_fn_with_its_index():
    shared = tl.zeros(3).share_memory_()
    assert mp.spawn(mp_children.fill_slot, args=(shared,), nprocs=3) is None
    assert shared.tolist() == [10.0, 11.0, 12.0]


def test_start_processes_without_join_gives_a_process_context():
    shared = tl.zeros(2).share_memory_()
    context = mp.start_processes(mp_children.fill_slot, args=(shared,), nprocs=2, join=False, start_method="fork")
    assert isinstance(context, mp.ProcessContext) and len(context.pids()) == 2
    done = False
    for _ in range(3):  # join returns False while a process still runs (each call waits for at most one)
        done = context.join(TIMEOUT)
        if done:
            break
    assert done and context.join() is True and shared.tolist() == [10.0, 11.0]


def test_a_child_that_raises_is_reported_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.start_processes(mp_children.raise_in_one, nprocs=2, start_method="fork")
    e = info.value
    assert e.error_index == 1 and isinstance(e.error_pid, int)
    assert str(e).startswith("\n\n-- Process 1 terminated with the following error:\nTraceback")
    assert "ValueError: boom in 1" in str(e) and "raise_in_one" in str(e)
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is mp.ProcessRaisedException and again.error_index == 1


def test_a_child_that_exits_or_is_killed_is_reported():
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with exit code 3$") as info:
        mp.start_processes(mp_children.exit_with_code, args=(3,), nprocs=1, start_method="fork")
    assert info.value.exit_code == 3 and info.value.signal_name is None
    with pytest.raises(mp.ProcessExitedException, match="^process 0 terminated with signal SIGKILL$") as info:
        mp.start_processes(mp_children.kill_self, nprocs=1, start_method="fork")
    assert info.value.exit_code == -9 and info.value.signal_name == "SIGKILL"


def test_children_are_interrupted_when_the_parent_dies():
    ctx = mp.get_context("fork")
    outbox = ctx.SimpleQueue()
    mp.start_processes(mp_children.report_parent_death_signal, args=(outbox,), nprocs=1, start_method="fork")
    assert outbox.get() == signal.SIGINT


def test_spawn_only_spawns():
    shared = tl.zeros(1).share_memory_()
    with pytest.warns(FutureWarning, match="only supports start_method=spawn"):
        mp.spawn(mp_children.fill_slot, args=(shared,), nprocs=1, start_method="fork")
    assert shared.tolist() == [10.0]


def test_exception_classes_match_torch():
    ours_module, theirs_module = sys.modules["torchlite.multiprocessing.spawn"], sys.modules["torch.multiprocessing.spawn"]
    for name in ("ProcessException", "ProcessRaisedException", "ProcessExitedException"):
        ours, theirs = getattr(ours_module, name), getattr(theirs_module, name)
        assert [c.__name__ for c in ours.__mro__] == [c.__name__ for c in theirs.__mro__]


# ------------------------------------------------------------------------------------------- Hogwild


def test_module_share_memory_moves_parameters_and_buffers():
    model = tl.nn.Sequential(tl.nn.Linear(3, 2), tl.nn.BatchNorm1d(2))
    first = model[0].weight
    assert model.share_memory() is model
    assert model[0].weight is first  # the Parameter objects stay, their bytes moved
    assert all(p.is_shared() for p in model.parameters()) and all(b.is_shared() for b in model.buffers())


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_hogwild_processes_train_one_shared_model(method, reaper):
    tl.manual_seed(0)
    model = tl.nn.Linear(1, 1)
    model.share_memory()
    weight_ptr = model.weight.untyped_storage().data_ptr()
    ctx = mp.get_context(method)
    barrier = ctx.Barrier(2)
    workers = [ctx.Process(target=mp_children.hogwild_steps, args=(rank, model, 150, barrier), daemon=True)
               for rank in range(2)]
    for p in workers:
        p.start()
        reaper.append(p)
    for p in workers:
        p.join(TIMEOUT)
        assert p.exitcode == 0
    # Both processes stepped the parent's parameters: y = 2x - 1 was learnt in the parent's memory.
    assert model.weight.untyped_storage().data_ptr() == weight_ptr
    assert abs(model.weight.item() - 2.0) < 0.05 and abs(model.bias.item() + 1.0) < 0.05


def test_the_hogwild_example_runs():
    import subprocess
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, os.path.join(root, "examples", "hogwild.py"), "--epochs", "2"],
                         capture_output=True, text=True, timeout=TIMEOUT * 2, env=env, check=True).stdout
    accuracy = float(re.search(r"([0-9.]+) after", out).group(1))
    assert "torchlite: 2 Hogwild processes" in out and accuracy > 0.8, out
