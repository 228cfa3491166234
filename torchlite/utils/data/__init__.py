"""torchlite.utils.data: datasets, samplers, collation and DataLoader, as torch.utils.data (docs/data.md)."""
from torchlite.utils.data._collate import default_collate, default_convert
from torchlite.utils.data._worker import get_worker_info
from torchlite.utils.data.dataloader import DataLoader, _DatasetKind
from torchlite.utils.data.distributed import DistributedSampler
from torchlite.utils.data.dataset import (
    ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset, Subset, TensorDataset, random_split)
from torchlite.utils.data.sampler import (
    BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)

__all__ = ["BatchSampler", "ChainDataset", "ConcatDataset", "DataLoader", "Dataset", "IterableDataset",
           "RandomSampler", "Sampler", "SequentialSampler", "StackDataset", "Subset", "SubsetRandomSampler",
           "TensorDataset", "WeightedRandomSampler", "default_collate", "default_convert", "get_worker_info",
           "random_split"]
__all__ += ["DistributedSampler"]  # torch.utils.data.distributed's, re-exported as torch.utils.data does
