"""DistributedDataParallel's gradient reducer: parameters bucketed by size, each bucket's all_reduce launched
asynchronously from the gradient hooks as soon as all its gradients are in, while backward goes on computing the
rest; the end-of-backward callback waits for them and writes the averaged gradients back.

Buckets are launched strictly in bucket order (a bucket that is ready waits for the ones before it), so every rank
issues the same collectives in the same order whatever the order its hooks fire in: collectives are matched by
order, not by name."""
from __future__ import annotations

import torchlite as torch
from torchlite._C import _autograd
from torchlite.autograd.variable import Variable

_MB = 1024 * 1024


def _dist():
    import torchlite.distributed as dist
    return dist


def compute_bucket_assignment_by_size(params, size_limits):
    """Bucket indices of `params` (lists of positions), filled in reverse parameter order (the order backward
    produces their gradients in), one dtype per bucket; bucket k of a dtype holds at most size_limits[k] bytes (the
    last limit repeats), a single larger parameter gets a bucket of its own."""
    open_buckets = {}  # dtype -> (indices, bytes, limit position)
    result = []
    for i in reversed(range(len(params))):
        p = params[i]
        key = p.dtype
        indices, size, k = open_buckets.get(key, ([], 0, 0))
        indices.append(i)
        size += p.numel() * p.element_size()
        limit = size_limits[min(k, len(size_limits) - 1)]
        if size >= limit:
            result.append(indices)
            open_buckets[key] = ([], 0, k + 1)
        else:
            open_buckets[key] = (indices, size, k)
    result.extend(indices for indices, _, _ in open_buckets.values() if indices)
    # in order of the first gradient each bucket expects, i.e. of its last parameter
    result.sort(key=lambda b: -b[0])
    return result


class _Bucket:
    """A flat buffer holding its parameters' gradients (a view per parameter), the number of gradients not yet in,
    and its all_reduce once launched."""

    def __init__(self, params, param_indices):
        self.params = params
        self.param_indices = param_indices
        self.offsets = []
        offset = 0
        for p in params:
            self.offsets.append(offset)
            offset += p.numel()
        self.buffer = torch.zeros(offset, dtype=params[0].dtype)
        self.views = [self.buffer[o:o + p.numel()].view(p.shape) for o, p in zip(self.offsets, params)]
        self.pending = len(params)
        self.work = None


class Reducer:
    """The gradient synchronization of one DistributedDataParallel module."""

    def __init__(self, params, process_group, bucket_bytes_cap, first_bucket_bytes_cap, find_unused_parameters,
                 gradient_as_bucket_view):
        self.params = params
        self.process_group = process_group
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.world_size = _dist().get_world_size(process_group)
        assignment = compute_bucket_assignment_by_size(params, [first_bucket_bytes_cap, bucket_bytes_cap])
        self.buckets = [_Bucket([params[i] for i in idx], idx) for idx in assignment]
        self.locate = {}  # parameter position -> (bucket, position in bucket)
        for bucket in self.buckets:
            for j, i in enumerate(bucket.param_indices):
                self.locate[i] = (bucket, j)
        self.expect_autograd_hooks = False
        self.require_finalize = False
        self.callback_queued = False
        self.next_bucket = 0
        self.ready = [False] * len(params)
        self.locally_used = torch.zeros(len(params), dtype=torch.int32)
        self.used_work = None
        self.unready_indices = []  # parameters that received no gradient in the last unfinished reduction
        self.handles = [p.register_post_accumulate_grad_hook(self._hook(i)) for i, p in enumerate(params)]
        # each parameter's AccumulateGrad node (kept alive: graph searches recognise the parameters by them)
        self.grad_accumulators = [_autograd._grad_accumulator(p) for p in params]

    def remove_hooks(self):
        for h in self.handles:
            h.remove()
        self.handles = []

    # ---- forward side -------------------------------------------------------------------------------------

    def check_prior_reduction_finished(self):
        if not self.require_finalize:
            return
        indices = " ".join(str(i) for i in self.unready_indices)
        raise RuntimeError(
            "Expected to have finished reduction in the prior iteration before starting a new one. This error "
            "indicates that your module has parameters that were not used in producing loss. You can enable unused "
            "parameter detection by passing the keyword argument `find_unused_parameters=True` to "
            "`torch.nn.parallel.DistributedDataParallel`, and by making sure all `forward` function outputs "
            "participate in calculating loss. If you already have done the above, then the distributed data "
            "parallel module wasn't able to locate the output tensors in the return value of your module's "
            "`forward` function. Please include the loss function and the structure of the return value of "
            "`forward` of your module when reporting this issue (e.g. list, dict, iterable).\n"
            f"Parameter indices which did not receive grad for rank {_dist().get_rank(self.process_group)}: {indices}")

    def prepare_for_backward(self, outputs):
        """Arms the hooks for the coming backward; with find_unused_parameters, `outputs` are searched for the
        parameters the graph reaches, and the others are marked ready (their gradient counts as zero)."""
        self.expect_autograd_hooks = True
        self.callback_queued = False
        self.next_bucket = 0
        self.ready = [False] * len(self.params)
        self.locally_used.zero_()
        for bucket in self.buckets:
            bucket.pending = len(bucket.params)
            bucket.work = None
        if self.find_unused_parameters:
            reached = _reached_nodes(outputs)
            self.unused = [i for i, (p, acc) in enumerate(zip(self.params, self.grad_accumulators))
                           if id(acc) not in reached and id(p) not in reached]
        else:
            self.unused = []

    # ---- backward side ------------------------------------------------------------------------------------

    def _hook(self, index):
        def hook(param):
            if not self.expect_autograd_hooks:
                return
            if not self.callback_queued:
                self.callback_queued = True
                self.require_finalize = True
                Variable._execution_engine.queue_callback(self._finalize)
                for i in self.unused:  # found unused at forward: ready at once, with a zero gradient
                    self._mark_ready(i, None)
            self._mark_ready(index, param)
        return hook

    def _mark_ready(self, index, param):
        if self.ready[index]:
            raise RuntimeError(
                "Expected to mark a variable ready only once. This error is caused by one of the following reasons: "
                "1) Use of a module parameter outside the `forward` function (or reentrant backward passes, such as "
                "reentrant activation checkpointing, running its hook twice in one iteration); 2) a parameter "
                f"marked unused (find_unused_parameters=True) that received a gradient. Parameter index: {index}")
        self.ready[index] = True
        bucket, j = self.locate[index]
        view = bucket.views[j]
        grad = None if param is None else param.grad
        if grad is None:
            view.zero_()
        else:
            self.locally_used[index] = 1
            with torch.no_grad():
                if grad is not view:
                    view.copy_(grad)
                view.div_(self.world_size)
            if self.gradient_as_bucket_view and param.grad is not view:
                param.grad = view
        bucket.pending -= 1
        if bucket.pending == 0:
            self._launch_ready_buckets()

    def _launch_ready_buckets(self):
        dist = _dist()
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            bucket = self.buckets[self.next_bucket]
            bucket.work = dist.all_reduce(bucket.buffer, op=dist.ReduceOp.SUM, group=self.process_group,
                                          async_op=True)
            self.next_bucket += 1
        if self.next_bucket == len(self.buckets) and self.find_unused_parameters and self.used_work is None:
            # which parameters any rank used: the others keep their gradient as it was (None), as PyTorch's
            self.used_work = dist.all_reduce(self.locally_used, op=dist.ReduceOp.SUM, group=self.process_group,
                                             async_op=True)

    def _finalize(self):
        self.expect_autograd_hooks = False
        all_ready = self.next_bucket == len(self.buckets)
        for bucket in self.buckets:
            if bucket.work is not None:
                bucket.work.wait()
        if self.used_work is not None:
            self.used_work.wait()
            self.used_work = None
        if not all_ready:
            # left unfinished: the next forward raises (PyTorch's behaviour without find_unused_parameters)
            self.unready_indices = [i for i, r in enumerate(self.ready) if not r]
            return
        self.require_finalize = False
        self.unready_indices = []
        globally_used = self.locally_used.tolist() if self.find_unused_parameters else None
        with torch.no_grad():
            for bucket in self.buckets:
                for j, i in enumerate(bucket.param_indices):
                    param, view = bucket.params[j], bucket.views[j]
                    if globally_used is not None and not globally_used[i]:
                        continue
                    if self.gradient_as_bucket_view:
                        if param.grad is not view:
                            param.grad = view
                    elif param.grad is None:
                        param.grad = view.clone()
                    else:
                        param.grad.copy_(view)


def _reached_nodes(outputs):
    """The ids of the autograd nodes the graph of `outputs` reaches (AccumulateGrad nodes included), and of the
    outputs that are themselves leaves requiring grad."""
    reached = {id(t) for t in outputs if t.grad_fn is None and t.requires_grad}
    stack = [t.grad_fn for t in outputs if t.grad_fn is not None]
    while stack:
        fn = stack.pop()
        if id(fn) in reached:
            continue
        reached.add(id(fn))
        stack.extend(nxt for nxt, _ in fn.next_functions if nxt is not None)
    return reached
