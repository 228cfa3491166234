"""torch.distributed.optim: optimizers over a process group. ZeroRedundancyOptimizer shards the optimizer state
across the ranks (the RPC-based DistributedOptimizer and PostLocalSGDOptimizer are not provided)."""
from .zero_redundancy_optimizer import ZeroRedundancyOptimizer

__all__ = ["ZeroRedundancyOptimizer"]
