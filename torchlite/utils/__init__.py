"""torchlite.utils: helpers outside the tensor core (data loading, ...)."""
from torchlite.utils import data  # noqa: F401
