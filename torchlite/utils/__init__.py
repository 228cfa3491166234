"""torchlite.utils: helpers outside the tensor core: data loading (torchlite.utils.data), activation
checkpointing, DLPack exchange, and the safetensors format (torchlite.utils.safetensors)."""
from torchlite.utils import data  # noqa: F401
from torchlite.utils import checkpoint  # noqa: F401,E402
from torchlite.utils import dlpack  # noqa: F401,E402
