"""torchlite.utils: data loading (torchlite.utils.data) and the safetensors format (torchlite.utils.safetensors)."""
"""torchlite.utils: helpers outside the tensor core (data loading, ...)."""
from torchlite.utils import data  # noqa: F401
