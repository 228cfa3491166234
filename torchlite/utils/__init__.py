"""torchlite.utils: helpers outside the tensor core: data loading (torchlite.utils.data) and the safetensors
format (torchlite.utils.safetensors)."""
from torchlite.utils import data  # noqa: F401
from torchlite.utils import checkpoint  # noqa: F401,E402
