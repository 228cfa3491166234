"""Activation checkpointing (torch.utils.checkpoint): run a part of a model without keeping its
intermediate tensors for backward, and run it again when backward needs them.

Two variants, as in PyTorch:
- ``use_reentrant=True``: ``CheckpointFunction``, a custom Function whose forward runs under
  no_grad and whose backward re-runs the function with grad and calls ``autograd.backward`` on it
  (a backward inside the backward). Only the tensor inputs get gradients through the returned
  values; parameters the function uses get theirs accumulated into ``.grad`` by that inner call.
- ``use_reentrant=False``: the forward runs with grad under ``saved_tensors_hooks``: every tensor
  an operation saves is replaced by its index. The first unpack re-runs the function (with the
  RNG state of the forward) under hooks that collect the tensors it saves, in the same order; the
  original graph gets the recomputed values. Works with ``autograd.grad``, keyword arguments and
  tensors the function captures.
"""
import contextlib
import warnings

import torchlite as _tl
from torchlite.autograd.graph import saved_tensors_hooks as _saved_tensors_hooks

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction", "check_backward_validity",
           "detach_variable", "get_device_states", "set_device_states", "noop_context_fn",
           "set_checkpoint_early_stop", "DefaultDeviceType", "set_checkpoint_debug_enabled"]


class CheckpointError(RuntimeError):
    """The recomputation did not save the same tensors as the forward."""


def detach_variable(inputs):
    """The tensors of a tuple detached, each with the requires_grad of the original."""
    if not isinstance(inputs, tuple):
        raise RuntimeError("Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, _tl.Tensor):
            d = x.detach()
            d.requires_grad = x.requires_grad
            x = d
        out.append(x)
    return tuple(out)


def check_backward_validity(inputs):
    if not any(x.requires_grad for x in inputs if isinstance(x, _tl.Tensor)):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None", stacklevel=2)


def get_device_states(*args):
    """Accelerator RNG states of the devices of ``args``: none on a CPU-only build."""
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restores get_device_states()'s states (nothing to do on a CPU-only build)."""


class DefaultDeviceType:
    """The device type whose RNG state checkpoint saves when no input names one."""
    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


def noop_context_fn():
    return contextlib.nullcontext(), contextlib.nullcontext()


_early_stop = None
_debug = False


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Accepted for PyTorch compatibility: torchlite's recomputation always runs the whole function."""
    global _early_stop
    previous, _early_stop = _early_stop, enable
    try:
        yield
    finally:
        _early_stop = previous


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Accepted for PyTorch compatibility (no extra debug output in torchlite)."""
    global _debug
    previous, _debug = _debug, enabled
    try:
        yield
    finally:
        _debug = previous


@contextlib.contextmanager
def _rng_restored(enabled, state):
    """Runs the body with the RNG state ``state`` and gives the stream back as it was after."""
    with _tl.random.fork_rng(enabled=enabled):
        if enabled:
            _tl.set_rng_state(state)
        yield


class CheckpointFunction(_tl.autograd.Function):
    """The reentrant checkpoint: forward without a graph, backward recomputes and backpropagates."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        check_backward_validity(args)
        ctx.run_function = run_function
        ctx.preserve_rng_state = preserve_rng_state
        if preserve_rng_state:
            ctx.fwd_cpu_state = _tl.get_rng_state()
        ctx.inputs = [None if isinstance(a, _tl.Tensor) else a for a in args]
        ctx.tensor_indices = [i for i, a in enumerate(args) if isinstance(a, _tl.Tensor)]
        ctx.save_for_backward(*(a for a in args if isinstance(a, _tl.Tensor)))
        with _tl.no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        if not _tl.autograd._is_checkpoint_valid():
            raise RuntimeError("When use_reentrant=True, torch.utils.checkpoint is incompatible with .grad() or passing "
                               "an `inputs` parameter to .backward(). To resolve this error, you can either set "
                               "use_reentrant=False, or call .backward() without passing the `inputs` argument.")
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        state = ctx.fwd_cpu_state if ctx.preserve_rng_state else None
        with _rng_restored(ctx.preserve_rng_state, state):
            detached = detach_variable(tuple(inputs))
            with _tl.enable_grad():
                outputs = ctx.run_function(*detached)
        if isinstance(outputs, _tl.Tensor):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads) if isinstance(o, _tl.Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is not necessary")
        _tl.autograd.backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(x.grad if isinstance(x, _tl.Tensor) else None for x in detached)


_REENTRANT_WARNING = ("the use_reentrant parameter should be passed explicitly. {}use_reentrant=False is "
                      "recommended, but if you need to preserve the current default behavior, you can pass "
                      "use_reentrant=True. Refer to docs for more details on the differences between the two "
                      "variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    """``function(*args, **kwargs)`` without keeping its intermediate tensors for backward; backward
    runs it again. ``preserve_rng_state`` (keyword, default True) replays the forward's RNG state, so
    dropout draws the same mask. ``use_reentrant`` should be given (a warning otherwise; the default
    is True, as in PyTorch 2.13)."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint: " + _REENTRANT_WARNING.format(
            "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an exception. "),
            stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs and use_reentrant:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant:
        if context_fn is not noop_context_fn or debug is not False:
            raise ValueError("Passing `context_fn` or `debug` is only supported when use_reentrant=False.")
        return CheckpointFunction.apply(function, preserve, *args)
    if determinism_check not in ("default", "none"):
        raise ValueError("determinism_check should be one of ['default', 'none'], but got " + str(determinism_check))
    return _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, args, kwargs)


class _Frame:
    """One non-reentrant checkpointed call: what the forward saved (by index) and the values the
    recomputation produced for those indices."""

    def __init__(self, function, preserve, recompute_context, determinism_check, args, kwargs):
        self.function = function
        self.preserve = preserve
        self.rng_state = _tl.get_rng_state() if preserve else None
        self.recompute_context = recompute_context
        self.check = determinism_check == "default"
        self.args = args
        self.kwargs = kwargs
        self.metadata = []      # (shape, dtype) of each tensor the forward saved
        self.recomputed = {}    # index -> recomputed tensor, each handed out once

    def pack(self, t):
        self.metadata.append((tuple(t.shape), t.dtype))
        return len(self.metadata) - 1

    def unpack(self, index):
        if index not in self.recomputed:
            self._recompute()
        return self.recomputed.pop(index)

    def _recompute(self):
        saved = []

        def keep(t):
            if len(saved) >= len(self.metadata):
                raise CheckpointError("torch.utils.checkpoint: trying to save more tensors during recomputation than "
                                      "during the original forward pass.")
            saved.append(t.detach())

        def refuse(_):
            raise CheckpointError("torch.utils.checkpoint: the recomputed graph is not differentiable")

        with _rng_restored(self.preserve, self.rng_state):
            args = detach_variable(tuple(self.args))
            with _tl.enable_grad(), _saved_tensors_hooks(keep, refuse), self.recompute_context:
                self.function(*args, **self.kwargs)
        if self.check:
            self._check_metadata(saved)
        self.recomputed = dict(enumerate(saved))

    def _check_metadata(self, saved):
        if len(saved) != len(self.metadata):
            raise CheckpointError("torch.utils.checkpoint: A different number of tensors was saved during the original "
                                  f"forward and recomputation.\nNumber of tensors saved during forward: "
                                  f"{len(self.metadata)}\nNumber of tensors saved during recomputation: {len(saved)}.")
        diffs = []
        for i, (t, (shape, dtype)) in enumerate(zip(saved, self.metadata)):
            if tuple(t.shape) != shape or t.dtype != dtype:
                diffs.append(f"tensor at position {i}:\nsaved metadata: {{'shape': {list(shape)}, 'dtype': {dtype}}}\n"
                             f"recomputed metadata: {{'shape': {list(t.shape)}, 'dtype': {t.dtype}}}\n")
        if diffs:
            raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following tensors have different "
                                  "metadata than during the forward pass.\n" + "".join(diffs))


def _checkpoint_without_reentrant(function, preserve, context_fn, determinism_check, args, kwargs):
    if not _tl.is_grad_enabled():
        return function(*args, **kwargs)
    forward_context, recompute_context = context_fn()
    frame = _Frame(function, preserve, recompute_context, determinism_check, args, kwargs)
    with _saved_tensors_hooks(frame.pack, frame.unpack), forward_context:
        return function(*args, **kwargs)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Runs ``functions`` (a list of callables or an nn.Sequential) on ``input`` in ``segments``
    parts, checkpointing all but the last."""
    if use_reentrant is None:
        warnings.warn("torch.utils.checkpoint.checkpoint_sequential: " + _REENTRANT_WARNING.format(
            "In version 2.9 we will raise an exception if use_reentrant is not passed. "), stacklevel=2)
        use_reentrant = True
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if isinstance(functions, _tl.nn.Sequential):
        functions = list(functions.children())

    def run(start, end):
        def forward(x):
            for f in functions[start:end + 1]:
                x = f(x)
            return x
        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
