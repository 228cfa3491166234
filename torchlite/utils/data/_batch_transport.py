"""How a batch crosses from a DataLoader worker to the main process: its pickle through the data queue, the
file descriptors of its shared memory through the worker's own Unix socket.

Workers collate into shared memory (_collate.py). torchlite.multiprocessing's generic reducers would send each
storage's descriptor through multiprocessing's resource sharer: the receiver connects back to the sender and
both sides authenticate, per storage, which costs more than the batch's own handling at CIFAR sizes. A worker
instead pickles the batch itself, with each storage replaced by a persistent id (its index in the batch's
descriptor list), and sends the descriptors over a socketpair made for it (SCM_RIGHTS), *before* putting the
pickle on the data queue, so they are waiting when the main process unpacks the batch. Each send is tagged with
the batch's sequence number: the descriptors of batches the main process never unpacked (an epoch cut short)
are closed when a later batch is read. The kernel holds the memory while the descriptors are in flight, so the
worker may free its batch right away; the main process closes them once mapped (the mappings stay).
"""
import io
import pickle
import socket
import struct
from multiprocessing.reduction import ForkingPickler

import torchlite
import torchlite.multiprocessing  # noqa: F401 - the Tensor reducers the pickler below inherits
from torchlite.multiprocessing.reductions import _shared_fd

_HEADER = struct.Struct("<QI")  # batch sequence number, number of descriptors in this message
_MAX_FDS = 253  # the kernel's limit on descriptors per message (SCM_MAX_FD)


def channel():
    """(main process's end, worker's end) of a new channel."""
    return socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)


class PackedBatch:
    """A batch's pickle, with the number of descriptors its worker sent for it on the channel."""

    __slots__ = ("worker_id", "seq", "payload", "nfds")

    def __init__(self, worker_id, seq, payload, nfds):
        self.worker_id, self.seq, self.payload, self.nfds = worker_id, seq, payload, nfds

    def __reduce__(self):
        return PackedBatch, (self.worker_id, self.seq, self.payload, self.nfds)


class _BatchPickler(ForkingPickler):
    def __init__(self, file):
        super().__init__(file, pickle.HIGHEST_PROTOCOL)
        self.fds = []
        self.holders = []  # the storages (or shared copies) behind self.fds, alive until they are sent
        self.index_of = {}  # id(storage) -> index in self.fds: a storage is sent once per batch

    def persistent_id(self, obj):
        if type(obj) is not torchlite.UntypedStorage or obj.device.type != "cpu" or obj.nbytes() == 0:
            return None
        index = self.index_of.get(id(obj))
        if index is None:
            holder, (fd, _) = _shared_fd(obj)
            index = self.index_of[id(obj)] = len(self.fds)
            self.fds.append(fd)
            self.holders.append((obj, holder))
        return index, obj.nbytes()


class BatchSender:
    """A worker's end: pack(batch) sends the batch's descriptors and returns what to put on the data queue."""

    def __init__(self, worker_id, sock):
        self.worker_id = worker_id
        self.sock = sock
        self.seq = 0

    def pack(self, batch):
        buffer = io.BytesIO()
        pickler = _BatchPickler(buffer)
        pickler.dump(batch)
        self.seq += 1
        fds = pickler.fds
        for start in range(0, len(fds), _MAX_FDS):
            chunk = fds[start:start + _MAX_FDS]
            socket.send_fds(self.sock, [_HEADER.pack(self.seq, len(chunk))], chunk)
        return PackedBatch(self.worker_id, self.seq, buffer.getvalue(), len(fds))


class _BatchUnpickler(pickle.Unpickler):
    def __init__(self, file, fds):
        super().__init__(file)
        self.fds = fds
        self.storages = {}  # index -> storage: pickle does not memoize persistent ids

    def persistent_load(self, pid):
        index, nbytes = pid
        storage = self.storages.get(index)
        if storage is None:
            # No descriptor kept per storage: a training loop may hold thousands of batches.
            storage = self.storages[index] = torchlite.UntypedStorage._new_shared_fd_cpu(
                self.fds[index], nbytes, keep_fd=False)
        return storage


class BatchReceiver:
    """The main process's ends of the workers' channels: unpack(packed) maps the batch's memory."""

    def __init__(self, socks):
        self.socks = socks

    def _receive_fds(self, worker_id, seq, nfds):
        fds = []
        while len(fds) < nfds:
            header, got, _, _ = socket.recv_fds(self.socks[worker_id], _HEADER.size, _MAX_FDS,
                                                socket.MSG_CMSG_CLOEXEC)
            sent_seq, count = _HEADER.unpack(header)
            if sent_seq < seq:  # a batch that was never unpacked
                for fd in got:
                    socket.close(fd)
                continue
            if sent_seq > seq or len(got) != count:
                for fd in got + fds:
                    socket.close(fd)
                raise RuntimeError(f"DataLoader: the shared memory of a batch from worker {worker_id} was lost")
            fds += got
        return fds

    def unpack(self, packed):
        fds = self._receive_fds(packed.worker_id, packed.seq, packed.nfds) if packed.nfds else []
        try:
            return _BatchUnpickler(io.BytesIO(packed.payload), fds).load()
        finally:
            for fd in fds:
                socket.close(fd)  # each storage maps its own duplicate

    def close(self):
        for sock in self.socks:
            sock.close()
