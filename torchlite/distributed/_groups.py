"""Process groups on MPI communicators: init_process_group / destroy_process_group, the default group,
new_group (an MPI sub-communicator), rank queries, and the cross-rank agreement check the collectives
run before handing buffers to MPI."""
import datetime
import enum
import os
import pickle
import sys
import time
import warnings
import zlib
from array import array

import torchlite as _torchlite
from torchlite.distributed import _mpi
from torchlite.distributed._errors import DistBackendError
from torchlite.distributed._work import AGREE_YIELD_AFTER, wait_requests, wait_test

default_pg_timeout = datetime.timedelta(minutes=30)

_NOT_INITIALIZED = "Default process group has not been initialized, please make sure to call init_process_group."


class Backend(str):
    """A backend name. torchlite's one backend is MPI; "gloo" (PyTorch's CPU backend) is served by it
    too, so CPU scripts that ask for gloo run unchanged."""
    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"
    backend_list = [UNDEFINED, GLOO, NCCL, UCC, MPI]

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        value = getattr(Backend, name.upper(), Backend.UNDEFINED)
        if value == Backend.UNDEFINED:
            value = name.lower()
        return super().__new__(cls, value)


class ProcessGroup:
    """A set of ranks and the MPI communicator they talk on."""

    def __init__(self, comm, ranks, timeout, name):
        self._comm = comm
        self._mpi = _mpi.mpi()
        self._ranks = list(ranks)  # global rank of each group rank
        self._rank = comm.Get_rank()
        self._size = comm.Get_size()
        self._global_rank = self._ranks[self._rank]
        self.timeout = timeout
        self.group_name = name
        self._broken = None  # the op that timed out: the communicator's collective order is lost
        self._abandoned = []  # requests MPI may still write through: their buffers stay alive
        self._fingerprints = {}
        self._check_mine = array("q", [0] * 5)
        self._agree_out = array("q", [0] * 5)
        self._check_req = None  # the agreement allreduce, persistent (MPI_Allreduce_init), made on first use
        self._persistent = {}  # (address, count, dtype, ReduceOp) -> all_reduce's persistent request (_all_reduce.py)

    def rank(self):
        return self._rank

    def size(self):
        return self._size

    def name(self):
        return Backend.MPI

    def _abandon(self, requests, opname, why="timed out"):
        self._abandoned.append(requests)
        if opname not in ("send", "recv"):  # a late point-to-point message leaves the collectives' order intact
            self._broken = f"{opname} {why} earlier"

    def _check_usable(self, opname):
        if self._broken is not None:
            raise DistBackendError(f"{opname}: the process group is unusable on rank {self._global_rank}: "
                                   f"{self._broken}")
        if self._comm is None:
            raise ValueError(f"{opname}: the process group has been destroyed")

    def _fingerprint(self, key):
        """[h, -h, -bad] for the agreement allreduce, cached per (op, arguments) key: a training loop
        repeats the same few."""
        try:
            mine = self._fingerprints.get(key)
            cacheable = True
        except TypeError:  # a list in the arguments (the list collectives): not cached
            mine, cacheable = None, False
        if mine is None:
            h = zlib.crc32(_describe(key).encode()) - (1 << 31)
            mine = (h, -h, -1 if key[2] else 0)
            if cacheable:
                if len(self._fingerprints) > 4096:
                    self._fingerprints.clear()
                self._fingerprints[key] = mine
        return mine

    def _agree(self, opname, meta, local_error=None, reuse=0, fingerprint=None):
        """Checks, before MPI touches any buffer, that every rank called `opname` with matching
        arguments (`meta`: shapes, dtypes, roots, ReduceOp) and that none found its own arguments
        inconsistent (`local_error`); otherwise every rank raises the same RuntimeError naming the op
        and each rank's arguments. One 5-integer allreduce (MIN of [h, -h, -bad, reuse, -reuse]) on a
        persistent request, waited on against the timeout.

        `reuse` rides along: each rank's readiness to run the operation on a persistent request (2: it
        has one ready for these buffers, 1: it could make one, 0: neither); the ranks must agree, as
        creating one is a collective call. Returns (smallest, largest) of the ranks' values.
        `fingerprint`: what _fingerprint((opname, meta, local_error)) returns, when the caller kept it."""
        mine = self._check_mine
        mine[0], mine[1], mine[2] = fingerprint or self._fingerprint((opname, meta, local_error))
        mine[3], mine[4] = reuse, -reuse
        check = self._check_req
        if check is None:
            check = self._check_req = self._comm.Allreduce_init(mine, self._agree_out, self._mpi.MIN)
        check.Start()
        wait_test(check.Test, self, opname, None, [check], AGREE_YIELD_AFTER)
        out = self._agree_out
        if out[0] == -out[1] and out[2] == 0:
            return out[3], -out[4]
        views = self._allgather_bytes(pickle.dumps(local_error or _describe(meta)), opname)
        lines = [f"rank {self._ranks[r]}: {pickle.loads(blob)}" for r, blob in enumerate(views)]
        raise RuntimeError(f"{opname}: arguments differ across ranks (this is rank {self._global_rank}): "
                           + "; ".join(lines))

    def _allgather_bytes(self, data, opname):
        """Every rank's `data` (bytes), exchanged with nonblocking collectives against the timeout."""
        MPI = self._mpi
        sizes = array("q", [0] * self._size)
        wait_requests([self._comm.Iallgather(array("q", [len(data)]), sizes)], self, opname)
        out = bytearray(sum(sizes))
        displs = [sum(sizes[:i]) for i in range(self._size)]
        wait_requests([self._comm.Iallgatherv([data, MPI.BYTE], [out, (list(sizes), displs), MPI.BYTE])],
                      self, opname)
        return [bytes(out[d:d + n]) for d, n in zip(displs, sizes)]

    def __repr__(self):
        return f"<torchlite.distributed.ProcessGroup mpi ranks={self._ranks}>"


def _describe(value):
    """A collective's arguments as the mismatch error shows them: `[4, 2] float32 SUM`."""
    if isinstance(value, (list, tuple)) and not isinstance(value, _torchlite.Size):
        inner = " ".join(_describe(v) for v in value)
        return f"[{', '.join(_describe(v) for v in value)}]" if isinstance(value, list) else inner
    if isinstance(value, _torchlite.Size):
        return str(list(value))
    if isinstance(value, _torchlite.dtype):
        return str(value).replace("torchlite.", "")
    if isinstance(value, enum.Enum):
        return value.name
    return str(value)


class GroupMember:
    """The default group (WORLD, None before init_process_group) and the marker new_group returns to
    ranks outside the group."""
    WORLD = None
    NON_GROUP_MEMBER = -100


class group:
    """torch.distributed.group.WORLD: the default process group."""
    WORLD = None


_groups = []  # every live ProcessGroup, the default one first


def _set_world(pg):
    GroupMember.WORLD = pg
    group.WORLD = pg


def _default_group():
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def _member_group(grp, opname):
    """The ProcessGroup to run `opname` on, or None (with PyTorch's warning) on a rank outside it."""
    if grp is None or grp is GroupMember.WORLD:
        pg = _default_group()
    elif isinstance(grp, int) and grp == GroupMember.NON_GROUP_MEMBER:
        _default_group()
        warnings.warn(f"Running {opname} on global rank {get_rank()} which does not belong to the given group.",
                      stacklevel=3)
        return None
    elif isinstance(grp, ProcessGroup):
        _default_group()
        pg = grp
    else:
        raise TypeError(f"{opname}: group must be a ProcessGroup or None, got {type(grp).__name__}")
    pg._check_usable(opname)
    return pg


def _check_timeout(timeout):
    if not isinstance(timeout, datetime.timedelta):
        raise TypeError(f"Expected timeout argument to be of type datetime.timedelta, got {timeout}")


def _resolve_backend(backend):
    name = Backend.MPI if backend is None else str(backend).lower()
    # "cpu:gloo,cuda:nccl" names one backend per device: the CPU one is what runs here
    for part in name.split(","):
        device, _, value = part.rpartition(":")
        if device in ("", "cpu"):
            name = value
    if name in (Backend.MPI, Backend.GLOO):
        if not _mpi.available():
            raise RuntimeError("Distributed package doesn't have MPI built in. MPI is only included if you "
                               "install mpi4py and an MPI: pip install torchlite[distributed]")
        return name
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    raise ValueError(f"Invalid backend: '{backend}' (torchlite.distributed runs on MPI: backend='mpi')")


def _install_abort_on_uncaught(MPI):
    """An uncaught exception on one rank aborts the MPI job, so mpiexec tears down the other ranks
    instead of leaving them waiting in a collective."""
    previous = sys.excepthook

    def abort_job(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        sys.stderr.flush()
        sys.stdout.flush()
        time.sleep(0.5)  # mpiexec forwards the traceback before the abort tears the job down
        MPI.COMM_WORLD.Abort(1)

    if getattr(previous, "_torchlite_aborts", False):
        return
    abort_job._torchlite_aborts = True
    sys.excepthook = abort_job


def _set_env_from_mpi(comm):
    """RANK, WORLD_SIZE, LOCAL_RANK and LOCAL_WORLD_SIZE for code that reads them (the launcher sets
    them already; a script started by mpiexec directly gets them here)."""
    MPI = _mpi.mpi()
    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    values = {"RANK": comm.Get_rank(), "WORLD_SIZE": comm.Get_size(), "LOCAL_RANK": node.Get_rank(),
              "LOCAL_WORLD_SIZE": node.Get_size()}
    node.Free()
    for key, value in values.items():
        os.environ.setdefault(key, str(value))


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1, store=None,
                       group_name="", pg_options=None, device_id=None):
    """Joins the MPI job this process was started in (by `python -m torchlite.distributed.run`, mpiexec
    or srun; a process started alone is a world of one). Rank and size come from MPI: `world_size` and
    `rank` (and RANK / WORLD_SIZE in the environment) must agree with them. `init_method` and `store`
    are accepted for PyTorch scripts; MPI does the rendezvous."""
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    _resolve_backend(backend)
    if timeout is None:
        timeout = default_pg_timeout
    _check_timeout(timeout)
    MPI = _mpi.mpi()
    comm = MPI.COMM_WORLD.Dup()
    size, my_rank = comm.Get_size(), comm.Get_rank()
    env_size = os.environ.get("WORLD_SIZE")
    wanted = world_size if world_size not in (-1, None) else int(env_size) if env_size else size
    if wanted != size:
        comm.Free()
        raise RuntimeError(
            f"init_process_group: world_size is {wanted} but MPI started {size} process(es): start the script "
            f"with `python -m torchlite.distributed.run --nproc-per-node {wanted} script.py` or "
            f"`mpiexec -n {wanted} python script.py`")
    if rank not in (-1, None) and rank != my_rank:
        comm.Free()
        raise RuntimeError(f"init_process_group: rank is {rank} but MPI gave this process rank {my_rank}")
    _set_env_from_mpi(comm)
    pg = ProcessGroup(comm, range(size), timeout, group_name or "0")
    _groups.append(pg)
    _set_world(pg)
    if size > 1:
        _install_abort_on_uncaught(MPI)


def destroy_process_group(group=None):
    """Frees the communicators of `group`, or of every group (the default one included) when None."""
    if GroupMember.WORLD is None:
        raise AssertionError("Process group cannot be None")
    if isinstance(group, int) and group == GroupMember.NON_GROUP_MEMBER:
        return
    targets = list(_groups) if group is None or group is GroupMember.WORLD else [group]
    for pg in targets:
        if pg._comm is not None and pg._broken is None:  # a timed-out communicator is left to MPI
            for req in [pg._check_req, *(plan.req for plan in pg._persistent.values())]:
                if req is not None and req.Test():  # an active one (an async op never waited) is left to MPI
                    req.Free()
            pg._comm.Free()
        pg._comm = None
        pg._persistent.clear()
        if pg in _groups:
            _groups.remove(pg)
    if group is None or group is GroupMember.WORLD:
        _groups.clear()
        _set_world(None)


def is_initialized():
    return GroupMember.WORLD is not None


def get_rank(group=None):
    """This process's rank in `group` (the default group when None); -1 outside it."""
    if isinstance(group, int) and group == GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default_group()
    return (pg if group is None else group).rank()


def get_world_size(group=None):
    """The number of ranks in `group` (the default group when None); -1 outside it."""
    if isinstance(group, int) and group == GroupMember.NON_GROUP_MEMBER:
        return -1
    pg = _default_group()
    return (pg if group is None else group).size()


def get_backend(group=None):
    if isinstance(group, int) and group == GroupMember.NON_GROUP_MEMBER:
        raise ValueError("Invalid process group specified")
    _default_group()
    return Backend(Backend.MPI)


def get_process_group_ranks(group):
    """The global ranks of `group`'s members, in group rank order."""
    return list((_default_group() if group is None else group)._ranks)


def get_global_rank(group, group_rank):
    pg = _default_group() if group is None else group
    if not 0 <= group_rank < pg.size():
        raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
    return pg._ranks[group_rank]


def get_group_rank(group, global_rank):
    pg = _default_group() if group is None else group
    if global_rank not in pg._ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {pg}")
    return pg._ranks.index(global_rank)


def get_node_local_rank(fallback_rank=None):
    """LOCAL_RANK from the environment (set by the launcher, or by init_process_group under mpiexec)."""
    if "LOCAL_RANK" in os.environ:
        return int(os.environ["LOCAL_RANK"])
    if fallback_rank is not None:
        return int(fallback_rank)
    raise RuntimeError("LOCAL_RANK is not in the environment. Consider passing fallback_rank to allow "
                       "`get_node_local_rank` to work, assuming you are not running in a multi-device context "
                       "and want the code to run locally instead.")


def _group_rank_of(pg, global_rank, group_rank, default=None):
    """A collective's root as a group rank, from a global rank (`src`/`dst`) or a group rank
    (`group_src`/`group_dst`), as PyTorch's _canonicalize_group_rank."""
    if global_rank is None and group_rank is None and default is not None:
        global_rank = pg._ranks[default]
    if group_rank is not None:
        if global_rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        if not 0 <= group_rank < pg.size():
            raise ValueError(f"Group rank {group_rank} is not part of group {pg}")
        return group_rank
    if global_rank is None:
        raise ValueError("Must specify global_rank or group_rank")
    return get_group_rank(pg, global_rank)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None, use_local_synchronization=False,
              group_desc=None, device_id=None, sort_ranks=True):
    """A process group of `ranks` (global ranks; all of them when None) on an MPI sub-communicator.
    Every rank of the default group calls it; those outside get GroupMember.NON_GROUP_MEMBER."""
    world = _default_group()
    world._check_usable("new_group")
    if backend is not None:
        _resolve_backend(backend)
    if timeout is None:
        timeout = world.timeout
    _check_timeout(timeout)
    if use_local_synchronization:
        raise ValueError("MPI backend doesn't support use_local_synchronization=True")
    size = world.size()
    if ranks is None:
        ranks = list(range(size))
    else:
        ranks = sorted(ranks) if sort_ranks else list(ranks)
        if len(set(ranks)) != len(ranks):
            raise ValueError(f"ranks list must not contain duplicate entries, got {ranks}")
        if len(ranks) > size:
            raise ValueError("the new group's world size should be less or equal to the world size set by "
                             "init_process_group")
        for r in ranks:
            if r < 0 or r >= size:
                raise ValueError(f"Rank {r} is out of range. Valid ranks are 0 to {size - 1} (world_size={size})")
    MPI = world._mpi
    me = world.rank()
    member = me in ranks
    comm = world._comm.Split(0 if member else MPI.UNDEFINED, ranks.index(me) if member else 0)
    if not member:
        return GroupMember.NON_GROUP_MEMBER
    pg = ProcessGroup(comm, ranks, timeout, group_desc or str(len(_groups)))
    _groups.append(pg)
    return pg
