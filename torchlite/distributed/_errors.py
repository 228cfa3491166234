"""PyTorch's distributed exception types (torch.distributed.DistError and its subclasses)."""


class DistError(RuntimeError):
    """An error of the distributed package."""


class DistBackendError(DistError):
    """The communication backend failed: a collective timed out, or MPI reported an error."""


class DistNetworkError(DistError):
    """A network error (kept for PyTorch's names; MPI reports its own as DistBackendError)."""


class DistStoreError(DistError):
    """A store error (kept for PyTorch's names; the MPI backend has no store)."""
