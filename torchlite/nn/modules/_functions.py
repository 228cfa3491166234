"""The autograd Function behind SyncBatchNorm (PyTorch's torch/nn/modules/_functions.py SyncBatchNorm).

Forward: each rank computes its per-channel (mean, invstd) with batch_norm_stats, the ranks all-gather
(mean, invstd, count) rows, batch_norm_gather_stats_with_counts merges them (updating the running statistics)
and batch_norm_elemt normalizes. Backward: batch_norm_backward_reduce gives the rank's sums, one all_reduce
adds them across ranks, batch_norm_backward_elemt forms the input gradient. Every rank must call it the same
number of times (the collectives pair up), also with an empty local batch."""
import torchlite as torch
from torchlite.autograd.function import Function


def _dist():
    import torchlite.distributed as dist  # the process-group layer; imported only once a group is in use
    return dist


class SyncBatchNorm(Function):
    @staticmethod
    def forward(ctx, input, weight, bias, running_mean, running_var, eps, momentum, process_group, world_size):
        dist = _dist()
        input = input.contiguous()
        if weight is not None:
            weight = weight.contiguous()
        size = int(input.numel() // input.size(1))
        if size == 1 and world_size < 2:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {size}")
        num_channels = input.shape[1]
        if input.numel() > 0:
            mean, invstd = torch.batch_norm_stats(input, eps)
            count = torch.full((1,), input.numel() // input.size(1), dtype=mean.dtype)
            combined = torch.cat([mean, invstd, count], dim=0)
        else:
            # an empty local batch still takes part in the collectives, with a zero count
            combined = torch.zeros(2 * num_channels + 1, dtype=input.dtype)
        combined_list = [torch.empty_like(combined) for _ in range(world_size)]
        dist.all_gather(combined_list, combined, process_group, async_op=False)
        combined = torch.stack(combined_list, dim=0)
        mean_all, invstd_all, count_all = torch.split(combined, num_channels, dim=1)
        # ranks with an empty batch do not count
        mask = count_all.squeeze(-1) >= 1
        count_all, mean_all, invstd_all = count_all[mask], mean_all[mask], invstd_all[mask]
        counts = count_all.view(-1)
        if running_mean is not None and counts.dtype != running_mean.dtype:
            counts = counts.to(running_mean.dtype)
        mean, invstd = torch.batch_norm_gather_stats_with_counts(input, mean_all, invstd_all, running_mean,
                                                                 running_var, momentum, eps, counts)
        ctx.save_for_backward(input, weight, mean, invstd, count_all.to(torch.int32))
        ctx.process_group = process_group
        if input.numel() > 0:
            return torch.batch_norm_elemt(input, weight, bias, mean, invstd, eps)
        return torch.empty_like(input)

    @staticmethod
    def backward(ctx, grad_output):
        dist = _dist()
        grad_output = grad_output.contiguous()
        saved_input, weight, mean, invstd, count_tensor = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if saved_input.numel() > 0:
            sum_dy, sum_dy_xmu, grad_weight, grad_bias = torch.batch_norm_backward_reduce(
                grad_output, saved_input, mean, invstd, weight, ctx.needs_input_grad[0], ctx.needs_input_grad[1],
                ctx.needs_input_grad[2])
            if ctx.needs_input_grad[0]:
                num_channels = sum_dy.shape[0]
                combined = torch.cat([sum_dy, sum_dy_xmu], dim=0)
                dist.all_reduce(combined, dist.ReduceOp.SUM, ctx.process_group, async_op=False)
                sum_dy, sum_dy_xmu = torch.split(combined, num_channels)
                if weight is not None and weight.dtype != mean.dtype:
                    weight = weight.to(mean.dtype)
                grad_input = torch.batch_norm_backward_elemt(grad_output, saved_input, mean, invstd, weight, sum_dy,
                                                             sum_dy_xmu, count_tensor)
            if weight is None or not ctx.needs_input_grad[1]:
                grad_weight = None
            if weight is None or not ctx.needs_input_grad[2]:
                grad_bias = None
        elif ctx.needs_input_grad[0]:
            # the other ranks' all_reduce needs this rank's (zero) sums
            combined = torch.zeros(2 * saved_input.shape[1], dtype=saved_input.dtype)
            dist.all_reduce(combined, dist.ReduceOp.SUM, ctx.process_group, async_op=False)
        return grad_input, grad_weight, grad_bias, None, None, None, None, None, None
