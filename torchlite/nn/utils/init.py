"""skip_init: a module built without running its parameter initialisation (torch.nn.utils.init)."""
import inspect as _inspect

import torchlite as _torchlite


def skip_init(module_cls, *args, **kwargs):
    """An instance of module_cls(*args, **kwargs) whose parameters and buffers are allocated but left
    uninitialised: it is built on the meta device (no data, so no initialisation work) and then given empty
    storage on `device`. The class must take a `device` argument."""
    if not issubclass(module_cls, _torchlite.nn.Module):
        raise RuntimeError(f"Expected a Module; got {module_cls}")
    if "device" not in _inspect.signature(module_cls).parameters:
        raise RuntimeError("Module must support a 'device' arg to skip initialization")
    device = kwargs.pop("device", "cpu")
    kwargs["device"] = "meta"
    return module_cls(*args, **kwargs).to_empty(device=device)
