"""How torchlite tensors cross a multiprocessing queue or pipe (DataLoader workers to the main process).

Tensor.__reduce_ex__ pickles the values as nested Python lists, which costs ~14 ms per 64x784 float32 batch
both ways. Here multiprocessing's ForkingPickler sends a plain tensor as a NumPy array instead (its raw bytes),
rebuilt with from_numpy, which adopts the buffer without another copy. Until torchlite has
Tensor.share_memory_() (PyTorch moves tensors through shared memory), this is the transport. Tensors NumPy
cannot hold (bfloat16), tensors that require grad, meta tensors and subclasses keep their own pickling.
"""
from multiprocessing.reduction import ForkingPickler

import torchlite


def _rebuild_from_numpy(array):
    return torchlite.from_numpy(array)


def _reduce_tensor(tensor):
    if tensor.requires_grad or tensor.is_meta:
        return tensor.__reduce_ex__(2)
    try:
        array = tensor.contiguous().numpy()
    except TypeError:  # a dtype NumPy has no equivalent of
        return tensor.__reduce_ex__(2)
    return _rebuild_from_numpy, (array,)


def register():
    """Install the reduction unless something (a future torchlite.multiprocessing) already has one."""
    if torchlite.Tensor not in ForkingPickler._extra_reducers:
        ForkingPickler.register(torchlite.Tensor, _reduce_tensor)
