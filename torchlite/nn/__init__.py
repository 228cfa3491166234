"""torchlite.nn: PyTorch's ``torch.nn`` namespace. For now it holds ``functional`` (the Module
classes come with a later issue)."""
from torchlite.nn import functional  # noqa: F401
