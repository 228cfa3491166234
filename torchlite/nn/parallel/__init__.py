"""torch.nn.parallel: DataParallel (a pass-through without accelerators, as PyTorch's on such a machine).
DistributedDataParallel comes with torchlite.distributed."""
from .data_parallel import DataParallel, data_parallel

__all__ = ["data_parallel", "DataParallel"]
