"""DataParallel on a machine without accelerators, as PyTorch's behaves there: the wrapper keeps the module (so
state-dict keys gain the `module.` prefix scripts expect) and calls it directly; `data_parallel` raises as
PyTorch's does when no device type can be found."""
from torchlite.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps `module`; with no GPU (torchlite runs on the CPU) forward calls it unchanged, device_ids stays []."""

    def __init__(self, module, device_ids=None, output_device=None, dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids = []  # no accelerator: PyTorch returns here too, before using the other arguments

    def forward(self, *inputs, **kwargs):
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim: int = 0, module_kwargs=None):
    """The functional form: it needs an accelerator device type, which a CPU-only build has not."""
    raise RuntimeError("device type could not be determined")
