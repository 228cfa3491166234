"""How tensors and storages cross process boundaries: ForkingPickler reducers that send shared memory.

A storage being pickled for another process (a Queue, a Pipe, Process arguments under spawn) is first moved
to shared memory in place (`share_memory_`, as PyTorch does), then sent as a duplicate of its memfd's file
descriptor (`multiprocessing.reduction.DupFd`: passed to a spawned child at start-up, otherwise fetched by the
receiver from the sender's resource sharer over a Unix socket). The receiver maps the same memory
(`UntypedStorage._new_shared_fd_cpu`), so a write on either side is seen by the other. A tensor is sent as its
storage plus its geometry (offset, size, stride), so views stay views; pickle's memo sends a storage once per
message however many tensors of the message view it.

Memory that cannot move in place (NumPy's under `from_numpy`, a slice of another storage) is copied into fresh
shared memory for the message: a tensor's own elements, or all of a storage sent on its own. The receiver then
does not see the sender's later writes. Meta tensors carry no data and keep their ordinary pickling.
"""
import multiprocessing
import os
import weakref as _weakref
from multiprocessing.reduction import ForkingPickler as _ForkingPickler

import torchlite as _torchlite
from torchlite.storage import _LEGACY_CLASSES, TypedStorage as _TypedStorage, UntypedStorage as _UntypedStorage

# The storages sent to each child being spawned, alive as long as its Popen object.
_sent_to_children = _weakref.WeakKeyDictionary()


def _dtype_name(dtype):
    return str(dtype).rpartition(".")[2]  # torchlite.float32 -> float32


def rebuild_tensor(cls, storage, dtype_name, metadata):
    offset, size, stride, requires_grad = metadata
    t = _torchlite.empty(0, dtype=getattr(_torchlite, dtype_name)).set_(storage, offset, size, stride)
    if cls is _torchlite.nn.Parameter:
        # A Parameter keeps its class and requires_grad, as PyTorch's rebuild does (its __dict__ does not cross).
        return _torchlite.nn.Parameter(t, requires_grad=requires_grad)
    if requires_grad:
        t.requires_grad_(True)
    return t


def reduce_tensor(tensor):
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since autograd does not support "
            "crossing process boundaries.  If you just want to transfer the data, call detach() on the tensor "
            "before serializing (e.g., putting it on the queue).")
    if tensor.is_meta:
        return tensor.__reduce_ex__(2)
    storage = tensor.untyped_storage()
    if not storage.is_shared() and not storage.resizable():
        # Memory that cannot move to shared memory (NumPy's, a storage slice): send a shared copy of this
        # tensor's elements only, not of the whole storage (a sample of a from_numpy dataset views all of it).
        copy = _torchlite.empty(0, dtype=tensor.dtype).set_(
            _UntypedStorage._new_using_fd_cpu(tensor.numel() * tensor.element_size()), 0, tuple(tensor.size()))
        copy.copy_(tensor.detach())
        storage, offset, stride = copy.untyped_storage(), 0, copy.stride()
    else:
        offset, stride = tensor.storage_offset(), tensor.stride()
    metadata = (offset, tuple(tensor.size()), tuple(stride), tensor.requires_grad)
    # The dtype by name: pickle finds a dtype object's module by searching every loaded module (slow).
    return rebuild_tensor, (type(tensor), storage, _dtype_name(tensor.dtype), metadata)


def rebuild_storage_fd(cls, df, size):
    fd = df.detach()
    try:
        return cls._new_shared_fd_cpu(fd, size)
    finally:
        os.close(fd)  # the storage maps its own duplicate


def rebuild_storage_empty(cls):
    return cls()


def _shared_fd(storage):
    """(fd, nbytes) of `storage`'s shared memory: moved there in place, or a shared copy where it cannot move
    (a storage sent on its own; the caller holds the returned storage until the fd is sent)."""
    try:
        return storage, storage._share_fd_cpu_()
    except RuntimeError:
        if storage.device.type != "cpu":
            raise
        copy = _UntypedStorage._new_using_fd_cpu(storage.nbytes())
        copy.copy_(storage)
        return copy, copy._share_fd_cpu_()


def reduce_storage(storage):
    if storage.device.type == "meta":
        raise RuntimeError("Cannot pickle meta storage; try pickling a meta tensor instead")
    if storage.nbytes() == 0:
        return rebuild_storage_empty, (type(storage),)
    holder, (fd, size) = _shared_fd(storage)
    popen = multiprocessing.context.get_spawning_popen()
    if popen is not None:
        # Arguments of a child being spawned: its fds are passed at launch, after pickling, so the storage (or a
        # copy made for the message) must outlive the pickler (a resource sharer duplicates the fd right away).
        _sent_to_children.setdefault(popen, []).append(holder)
    df = multiprocessing.reduction.DupFd(fd)
    return rebuild_storage_fd, (type(storage), df, size)


def rebuild_typed_storage(storage, dtype_name):
    return _TypedStorage(wrap_storage=storage, dtype=getattr(_torchlite, dtype_name), _internal=True)


def reduce_typed_storage(storage):
    return rebuild_typed_storage, (storage._untyped_storage, _dtype_name(storage.dtype))


def rebuild_typed_storage_child(storage, storage_type):
    return storage_type(wrap_storage=storage, _internal=True)


def reduce_typed_storage_child(storage):
    return rebuild_typed_storage_child, (storage._untyped_storage, type(storage))


def init_reductions():
    """Registers the reducers with multiprocessing's ForkingPickler (done on import of the package)."""
    _ForkingPickler.register(_UntypedStorage, reduce_storage)
    _ForkingPickler.register(_TypedStorage, reduce_typed_storage)
    for cls in _LEGACY_CLASSES.values():
        _ForkingPickler.register(cls, reduce_typed_storage_child)
    _ForkingPickler.register(_torchlite.Tensor, reduce_tensor)
    _ForkingPickler.register(_torchlite.nn.Parameter, reduce_tensor)
