"""Hook bookkeeping for nn.Module: removable handles, and the identity autograd Functions through
which full backward (pre-)hooks see a module's input and output gradients."""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict

import torchlite
from torchlite.autograd.function import Function

__all__ = ["RemovableHandle", "BackwardHook"]


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` (or leaving a ``with`` block) removes the
    hook from its dict and from the extra dicts that mark it (with_kwargs, always_call)."""

    next_id = 0

    def __init__(self, hooks_dict, *, extra_dict=None):
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        if extra_dict is None:
            extra_dict = []
        elif not isinstance(extra_dict, (list, tuple)):
            extra_dict = [extra_dict]
        self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self):
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            d = ref()
            if d is not None and self.id in d:
                del d[self.id]

    def __getstate__(self):
        return (self.hooks_dict_ref(), self.id,
                tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state):
        hooks_dict = state[0] if state[0] is not None else OrderedDict()
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = state[1]
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        self.extra_dict_ref = tuple(weakref.ref(d) for d in (state[2] if len(state) > 2 else ())
                                    if d is not None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class _HookIdentity(Function):
    """Returns its tensors unchanged; its backward hands their gradients to ``callback`` (which may
    replace them). Missing gradients stay None, as module hooks expect."""

    @staticmethod
    def forward(ctx, callback, *tensors):
        ctx.callback = callback
        ctx.set_materialize_grads(False)
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.callback(grads))


class BackwardHook:
    """One module call's backward hooks. The tensor arguments and the tensor outputs (top-level only,
    as PyTorch) pass through ``_HookIdentity``: the outputs' node runs the backward pre-hooks and
    records grad_output, the inputs' node runs the full backward hooks with grad_input."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = 0
        self.n_outputs = 0
        self.input_hooked = False

    @staticmethod
    def _wrap(args, callback, materialize=False):
        """Routes the tensors of ``args`` that require grad through one _HookIdentity node. Returns
        (new args, the number of slots, whether a node was made). The callback gets one gradient
        slot per element of ``args`` (None for non-tensors); a tensor's missing gradient is None,
        or zeros with ``materialize`` (PyTorch's grad_input holds zeros there, grad_output None)."""
        is_tuple = isinstance(args, tuple)
        items = list(args) if is_tuple else [args]
        n = len(items)
        hooked = [i for i, a in enumerate(items) if isinstance(a, torchlite.Tensor) and a.requires_grad]
        if not hooked or not torchlite.is_grad_enabled():
            return args, n, False
        originals = list(items)

        def spread(grads):
            # gradients of the hooked tensors -> one slot per element of args
            full = [None] * n
            for g, i in zip(grads, hooked):
                full[i] = g
            if materialize:
                full = [torchlite.zeros_like(a) if g is None and isinstance(a, torchlite.Tensor)
                        else g for g, a in zip(full, originals)]
            return full

        def gather(full):
            return [full[i] for i in hooked]

        outs = _HookIdentity.apply(lambda grads: gather(callback(tuple(spread(grads)))),
                                   *[items[i] for i in hooked])
        if isinstance(outs, torchlite.Tensor):
            outs = (outs,)
        for i, o in zip(hooked, outs):
            items[i] = o
        return (tuple(items) if is_tuple else items[0]), n, True

    def setup_input_hook(self, args):
        if not self.user_hooks:
            return args
        args, self.n_inputs, self.input_hooked = self._wrap(args, self._input_grads,
                                                            materialize=True)
        return args

    def setup_output_hook(self, result):
        result, self.n_outputs, _ = self._wrap(result, self._output_grads)
        return result

    def _output_grads(self, grad_outputs):
        for hook in self.user_pre_hooks:
            out = hook(self.module, grad_outputs)
            if out is None:
                continue
            if not isinstance(out, tuple):
                out = (out,)
            if len(out) != len(grad_outputs):
                raise RuntimeError(
                    f"Backward pre hook returned an invalid number of grad_output, got "
                    f"{len(out)}, but expected {len(grad_outputs)}")
            grad_outputs = out
        self.grad_outputs = grad_outputs
        if self.user_hooks and not self.input_hooked:
            # no input needs a gradient: the hooks run now, with grad_input all None
            warnings.warn("Full backward hook is firing when gradients are computed with respect "
                          "to module outputs since no inputs require gradients. See "
                          "https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.register_full_backward_hook for more details.",
                          stacklevel=5)
            grad_inputs = (None,) * self.n_inputs
            for hook in self.user_hooks:
                res = hook(self.module, grad_inputs, self.grad_outputs)
                if res is not None and not (isinstance(res, tuple) and all(r is None for r in res)):
                    raise RuntimeError(
                        "Backward hook for Modules where no input requires gradient should always "
                        "return None or None for all gradients.")
            self.grad_outputs = None
        return grad_outputs

    def _input_grads(self, grad_inputs):
        grad_outputs = self.grad_outputs
        if grad_outputs is None:
            grad_outputs = (None,) * self.n_outputs
        for hook in self.user_hooks:
            res = hook(self.module, grad_inputs, grad_outputs)
            if res is None:
                continue
            if not isinstance(res, tuple):
                res = (res,)
            if len(res) != len(grad_inputs):
                raise RuntimeError(
                    f"Backward hook returned an invalid number of grad_input, got {len(res)}, but "
                    f"expected {len(grad_inputs)}")
            grad_inputs = res
        self.grad_outputs = None
        return grad_inputs
